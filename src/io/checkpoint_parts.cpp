#include "io/checkpoint_parts.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>

namespace tessera {

namespace {

// Whether two states hold the same further quantities (names, widths and
// kinds, in the same order), whatever their values.
bool same_quantities(const CheckpointState& a, const CheckpointState& b) {
  if (a.quantities.size() != b.quantities.size()) return false;
  for (std::size_t q = 0; q < a.quantities.size(); ++q) {
    const CheckpointQuantity &x = a.quantities[q], &y = b.quantities[q];
    if (x.name != y.name || x.width != y.width || x.integer != y.integer) return false;
  }
  return true;
}

// Gives `dst` the further quantities of `src`, without values: what
// zip_atom_arrays needs to pair them.
void take_quantities_of(const CheckpointState& src, CheckpointState& dst) {
  dst.quantities.clear();
  for (const CheckpointQuantity& q : src.quantities) dst.quantities.push_back(q.declaration());
}

// Calls f(a.array, b.array, values per atom) for every per-atom array of two
// states side by side; their further quantities must be the same ones.
template <class A, class B, class F>
void zip_atom_arrays(A& a, B& b, F&& f) {
  if (!same_quantities(a, b)) throw std::runtime_error("checkpoint parts hold different per-atom quantities");
  f(a.id, b.id, 1);
  f(a.type, b.type, 1);
  f(a.position, b.position, 3);
  f(a.velocity, b.velocity, 3);
  f(a.force, b.force, 3);
  f(a.image, b.image, 3);
  f(a.reference_position, b.reference_position, 3);
  f(a.rank, b.rank, 1);
  f(a.storage_index, b.storage_index, 1);
  for (std::size_t q = 0; q < b.quantities.size(); ++q) {
    auto& x = a.quantities[q];
    auto& y = b.quantities[q];
    if (y.integer)
      f(x.integers, y.integers, y.width);
    else
      f(x.reals, y.reals, y.width);
  }
}

template <class State, class F>
void for_each_atom_array(State& s, F&& f) {
  zip_atom_arrays(s, s, [&](auto& v, auto&, int width) { f(v, width); });
}

class Writer {
 public:
  template <class T>
  void value(const T& v) {
    const char* p = reinterpret_cast<const char*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof(T));
  }
  template <class T>
  void array(const std::vector<T>& v) {
    value<std::uint64_t>(v.size());
    const char* p = reinterpret_cast<const char*>(v.data());
    bytes.insert(bytes.end(), p, p + v.size() * sizeof(T));
  }
  void text(const std::string& s) { array(std::vector<char>(s.begin(), s.end())); }
  std::vector<char> bytes;
};

class Reader {
 public:
  explicit Reader(const std::vector<char>& b) : bytes_(b) {}
  template <class T>
  void value(T& v) {
    need(sizeof(T));
    std::memcpy(&v, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
  }
  template <class T>
  void array(std::vector<T>& v) {
    std::uint64_t n = 0;
    value(n);
    if (n > (bytes_.size() - at_) / sizeof(T)) throw std::runtime_error("packed checkpoint part is truncated");
    v.resize(n);
    if (n > 0) std::memcpy(v.data(), bytes_.data() + at_, n * sizeof(T));  // data() of an empty vector may be null
    at_ += n * sizeof(T);
  }
  void text(std::string& s) {
    std::vector<char> c;
    array(c);
    s.assign(c.begin(), c.end());
  }
  void finish() const {
    if (at_ != bytes_.size()) throw std::runtime_error("packed checkpoint part has trailing bytes");
  }

 private:
  void need(std::size_t n) const {
    if (bytes_.size() - at_ < n) throw std::runtime_error("packed checkpoint part is truncated");
  }
  const std::vector<char>& bytes_;
  std::size_t at_ = 0;
};

}  // namespace

// The further quantities' names, widths and kinds go first, so that the
// receiver knows which arrays follow.
std::vector<char> pack_atoms(const CheckpointState& s) {
  Writer w;
  w.value<std::uint64_t>(s.quantities.size());
  for (const CheckpointQuantity& q : s.quantities) {
    w.text(q.name);
    w.value(q.width);
    w.value<std::int32_t>(q.integer ? 1 : 0);
  }
  for_each_atom_array(s, [&](const auto& v, int) { w.array(v); });
  return std::move(w.bytes);
}

void unpack_atoms(const std::vector<char>& bytes, CheckpointState& s) {
  Reader r(bytes);
  std::uint64_t nquantities = 0;
  r.value(nquantities);
  s.quantities.clear();
  for (std::uint64_t k = 0; k < nquantities; ++k) {
    CheckpointQuantity q;
    r.text(q.name);
    std::int32_t integer = 0;
    r.value(q.width);
    r.value(integer);
    if (q.width < 1 || (integer != 0 && integer != 1))
      throw std::runtime_error("packed checkpoint part has a malformed quantity " + q.name);
    q.integer = integer == 1;
    s.quantities.push_back(std::move(q));
  }
  for_each_atom_array(s, [&](auto& v, int) { r.array(v); });
  r.finish();
  const std::size_t n = s.id.size();
  for_each_atom_array(s, [&](const auto& v, int width) {
    if (v.size() != n * width) throw std::runtime_error("packed checkpoint part has arrays of different lengths");
  });
}

std::vector<char> pack_header(const CheckpointState& s) {
  Writer w;
  w.value(s.format_version);
  w.value(s.step);
  w.value(s.time);
  w.value(s.natoms);
  w.value(s.ntypes);
  w.value(s.nranks);
  w.value(s.rank_grid);
  w.array(s.rank_cuts);
  w.value(s.box);
  w.array(s.mass);
  w.value(s.last_build_step);
  w.value(s.neighbor_builds);
  w.text(s.units);
  w.text(s.integrator_style);
  w.array(s.chain_position);
  w.array(s.chain_velocity);
  w.array(s.chain_kinetic);
  w.array(s.barostat_state);
  w.array(s.build_box);
  w.value(s.random_key);
  w.value(s.random_counter);
  w.value(s.molecular);
  for (double f : s.special_lj) w.value(f);
  return std::move(w.bytes);
}

void unpack_header(const std::vector<char>& bytes, CheckpointState& s) {
  Reader r(bytes);
  r.value(s.format_version);
  r.value(s.step);
  r.value(s.time);
  r.value(s.natoms);
  r.value(s.ntypes);
  r.value(s.nranks);
  r.value(s.rank_grid);
  r.array(s.rank_cuts);
  r.value(s.box);
  r.array(s.mass);
  r.value(s.last_build_step);
  r.value(s.neighbor_builds);
  r.text(s.units);
  r.text(s.integrator_style);
  r.array(s.chain_position);
  r.array(s.chain_velocity);
  r.array(s.chain_kinetic);
  r.array(s.barostat_state);
  r.array(s.build_box);
  r.value(s.random_key);
  r.value(s.random_counter);
  r.value(s.molecular);
  for (double& f : s.special_lj) r.value(f);
  r.finish();
}

void merge_atoms(const std::vector<CheckpointState>& parts, CheckpointState& into) {
  CheckpointState all;
  if (!parts.empty()) take_quantities_of(parts.front(), all);
  for (const CheckpointState& p : parts)
    zip_atom_arrays(all, p, [](auto& dst, const auto& src, int) { dst.insert(dst.end(), src.begin(), src.end()); });
  std::vector<std::size_t> order(all.id.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return all.id[a] < all.id[b]; });
  take_quantities_of(all, into);
  zip_atom_arrays(into, all, [&](auto& dst, const auto& src, int width) {
    dst.resize(src.size());
    for (std::size_t k = 0; k < order.size(); ++k)
      for (int d = 0; d < width; ++d) dst[width * k + d] = src[width * order[k] + d];
  });
}

std::vector<CheckpointState> split_atoms(const CheckpointState& s, const std::vector<int>& owner, int nparts) {
  std::vector<std::vector<std::size_t>> rows(static_cast<std::size_t>(nparts));
  for (std::size_t k = 0; k < owner.size(); ++k) rows.at(static_cast<std::size_t>(owner[k])).push_back(k);
  std::vector<CheckpointState> parts(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    take_quantities_of(s, parts[r]);
    zip_atom_arrays(parts[r], s, [&](auto& dst, const auto& src, int width) {
      dst.reserve(rows[r].size() * width);
      for (std::size_t k : rows[r]) dst.insert(dst.end(), src.begin() + width * k, src.begin() + width * (k + 1));
    });
  }
  return parts;
}

}  // namespace tessera
