#include "comm/halo_exchange.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/error.hpp"

namespace tessera {

namespace {

template <class T>
void put(std::vector<char>& buf, const T& v) {
  const std::size_t at = buf.size();
  buf.resize(at + sizeof(T));
  std::memcpy(buf.data() + at, &v, sizeof(T));
}

template <class T>
T take(const std::vector<char>& buf, std::size_t& at) {
  T v;
  std::memcpy(&v, buf.data() + at, sizeof(T));
  at += sizeof(T);
  return v;
}

// Records (halo_atoms.hpp's resize_records) to and from a message: atom by
// atom, the fields of `mask` in registry order.
void pack_records(const AtomStore& r, unsigned mask, std::vector<char>& out) {
  out.clear();
  out.reserve(r.nlocal * field_bytes(mask));
  for (std::size_t i = 0; i < r.nlocal; ++i) for_each_field(r, mask, [&](const auto& v, FieldInfo) { put(out, v[i]); });
}

void unpack_records(const std::vector<char>& in, unsigned mask, AtomStore& r) {
  const std::size_t n = in.size() / field_bytes(mask);
  resize_records(r, mask, n);
  std::size_t at = 0;
  for (std::size_t k = 0; k < n; ++k)
    for_each_field(r, mask, [&](auto& v, FieldInfo) { v[k] = take<typename std::decay_t<decltype(v)>::value_type>(in, at); });
}

}  // namespace

HaloExchange::HaloExchange(const RankGrid& grid, const std::array<int, 3>& cell, const Communicator& comm)
    : grid_(grid), cell_(cell), comm_(&comm) {}

int HaloExchange::neighbour(int dim, int dir) const {
  std::array<int, 3> c = cell_;
  c[dim] = (c[dim] + dir + grid_.n[dim]) % grid_.n[dim];
  return (c[2] * grid_.n[1] + c[1]) * grid_.n[0] + c[0];
}

void HaloExchange::build(AtomStore& a, const SubDomain& sd, double reach) {
  HostHaloAtoms host(a);
  build(host, sd, reach);
}

void HaloExchange::build(HaloAtoms& a, const SubDomain& sd, double reach) {
  swaps_.clear();
  a.drop_ghosts();
  std::vector<char> out, in;
  AtomStore picked, arrived;
  for (int d = 0; d < 3; ++d) {
    const double len = sd.global.length(d);
    // Only atoms present before this axis's swaps: what came in from below
    // must not be sent straight back up.
    const std::size_t nfirst = a.nall();
    for (int dir = -1; dir <= 1; dir += 2) {
      Swap s;
      s.dim = d;
      s.dir = dir;
      s.to = neighbour(d, dir);
      s.from = neighbour(d, -dir);
      s.self = s.to == comm_->rank() && s.from == comm_->rank();
      // Crossing the periodic boundary: what goes down from the bottom cell
      // arrives at the top, one box length up (and the reverse).
      if (dir < 0 && cell_[d] == 0) s.image = 1;
      if (dir > 0 && cell_[d] == grid_.n[d] - 1) s.image = -1;
      s.shift = s.image * len;
      const double bound = dir < 0 ? sd.lo[d] + reach : sd.hi[d] - reach;
      s.first = a.nall();
      if (s.self) {
        // What a message to itself would bring back, made in place.
        a.image_ghosts(d, dir, bound, nfirst, s.shift, s.send);
        s.count = s.send.size();
        swaps_.push_back(std::move(s));
        continue;
      }
      a.pick_ghosts(d, dir, bound, nfirst, s.shift, s.send, picked);
      pack_records(picked, kFieldGhost, out);
      comm_->sendrecv(s.to, out, s.from, in);
      unpack_records(in, kFieldGhost, arrived);
      s.count = arrived.nlocal;
      a.add_ghosts(arrived);
      records_moved_ += static_cast<long long>(picked.nlocal + arrived.nlocal);
      swaps_.push_back(std::move(s));
    }
  }
}

void HaloExchange::set_box(const Box& box) {
  for (Swap& s : swaps_) s.shift = s.image * box.length(s.dim);
}

void HaloExchange::exchange_positions(std::size_t k, const double* out, double* in) const {
  exchange_values(k, 3, out, in);
}

void HaloExchange::exchange_values(std::size_t k, int width, const double* out, double* in) const {
  const Swap& s = swaps_.at(k);
  const std::size_t w = static_cast<std::size_t>(width);
  comm_->sendrecv_doubles(s.to, out, w * s.send.size(), s.from, in, w * s.count);
}

void HaloExchange::update_positions(AtomStore& a) const {
  double* const xyz[3] = {a.x.data(), a.y.data(), a.z.data()};
  forward(xyz, 3, true);
}

void HaloExchange::forward(double* const* fields, int width, bool periodic) const {
  const std::size_t w = static_cast<std::size_t>(width);
  for (std::size_t k = 0; k < swaps_.size(); ++k) {
    const Swap& s = swaps_[k];
    const std::size_t n = s.send.size();
    const int* send = s.send.data();
    // Coordinates as the halo build made them, to the bit: every component
    // of a periodic value gets its shift, + 0.0 off the swap's axis.
    const auto shift = [&](std::size_t e) { return e == static_cast<std::size_t>(s.dim) ? s.shift : 0.0; };
    if (s.self) {
      // A periodic copy on this rank, straight into its ghost slots: a swap
      // sends only atoms before its own ghosts, so none is both.
      for (std::size_t e = 0; e < w; ++e) {
        const double* from = fields[e];
        double* to = fields[e] + s.first;
        const double d = shift(e);
        if (periodic)
          for (std::size_t j = 0; j < n; ++j) to[j] = from[send[j]] + d;
        else
          for (std::size_t j = 0; j < n; ++j) to[j] = from[send[j]];
      }
      continue;
    }
    // One message of w values an atom, with no size message first (the
    // build's sizes hold on both sides); the buffers are kept between steps,
    // so a steady step allocates nothing.
    out_.resize(w * n);
    in_.resize(w * s.count);
    double* out = out_.data();
    if (periodic && w == 3) {  // positions, every step
      const double* x = fields[0];
      const double* y = fields[1];
      const double* z = fields[2];
      const double dx = shift(0), dy = shift(1), dz = shift(2);
      std::size_t j = 0;
#if defined(__SSE2__)
      // Streaming stores, two atoms in three: the partner's copy read these
      // lines last step, so plain stores first took each line back from its
      // core, which cost 0.17 s of a 2-rank in.lj 32k mixed run's
      // Communicate when the two vCPUs were far apart (0.11 s streamed; the
      // near phase lost 0.005 s; 2026-11-30). Only the partner reads them.
      if (reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
        for (; j + 2 <= n; j += 2) {
          const int a = send[j], b = send[j + 1];
          double* o = out + 3 * j;
          _mm_stream_pd(o, _mm_set_pd(y[a] + dy, x[a] + dx));
          _mm_stream_pd(o + 2, _mm_set_pd(x[b] + dx, z[a] + dz));
          _mm_stream_pd(o + 4, _mm_set_pd(z[b] + dz, y[b] + dy));
        }
        _mm_sfence();  // before the message: streaming stores are weakly ordered
      }
#endif
      for (; j < n; ++j) {
        const int a = send[j];
        out[3 * j] = x[a] + dx;
        out[3 * j + 1] = y[a] + dy;
        out[3 * j + 2] = z[a] + dz;
      }
    } else {
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t e = 0; e < w; ++e) {
          const double v = fields[e][send[j]];
          out[w * j + e] = periodic ? v + shift(e) : v;
        }
    }
    exchange_values(k, width, out, in_.data());
    const double* in = in_.data();
    for (std::size_t e = 0; e < w; ++e) {
      double* to = fields[e] + s.first;
      for (std::size_t j = 0; j < s.count; ++j) to[j] = in[w * j + e];
    }
  }
}

void HaloExchange::migrate(AtomStore& a, const SubDomain& sd) const {
  HostHaloAtoms host(a);
  migrate(host, sd);
}

void HaloExchange::migrate(HaloAtoms& a, const SubDomain& sd) const {
  a.drop_ghosts();
  std::vector<char> out, in;
  for (int d = 0; d < 3; ++d) {
    if (grid_.n[d] == 1) continue;
    AtomStore leavers[2];  // below the sub-box, above it
    a.take_leavers(d, sd.lo[d], sd.hi[d], leavers[0], leavers[1]);
    const double width = sd.hi[d] - sd.lo[d];
    std::string too_far;
    for (const AtomStore& l : leavers)
      for (std::size_t i = 0; i < l.nlocal && too_far.empty(); ++i) {
        const double v = d == 0 ? l.x[i] : (d == 1 ? l.y[i] : l.z[i]);
        if (v < sd.lo[d] - width || v >= sd.hi[d] + width)
          too_far = fmt::format("rank {}: atom {} at {:.10g} along {} left its sub-box [{:.10g}, {:.10g}) by "
                                "more than a neighbour's width; it cannot be handed over",
                                comm_->rank(), l.id[i], v, "xyz"[d], sd.lo[d], sd.hi[d]);
      }
    // Every rank stops, or none: a rank left alone in the exchange below
    // would wait for its partner forever. Those that found nothing stop
    // with no message of their own.
    if (comm_->max(too_far.empty() ? 0 : 1) > 0) throw SimulationError(too_far);
    for (int dir = -1; dir <= 1; dir += 2) {
      const AtomStore& l = leavers[dir < 0 ? 0 : 1];
      pack_records(l, kFieldMigrates, out);
      comm_->sendrecv(neighbour(d, dir), out, neighbour(d, -dir), in);
      AtomStore arrived;
      unpack_records(in, kFieldMigrates, arrived);
      a.add_locals(arrived);
      records_moved_ += static_cast<long long>(l.nlocal + arrived.nlocal);
    }
  }
}

}  // namespace tessera
