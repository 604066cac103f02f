#include "comm/halo_exchange.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/error.hpp"

namespace tessera {

namespace {

// Records (halo_atoms.hpp's resize_records) to and from a message: field
// by field, each field's n values in one copy, the fields of `mask` in
// registry order. Atom by atom, a value at a time, the copies cost more than
// the messages (a rebuild's ghost exchange took 0.47 ms of a 2-rank in.lj
// 32k mixed run's 1.5 ms steps, 2026-11-30) and a molecule's 40 fields
// more still.
void pack_records(const AtomStore& r, unsigned mask, std::vector<char>& out) {
  const std::size_t n = r.nlocal;
  out.resize(n * field_bytes(mask));
  std::size_t at = 0;
  for_each_field(r, mask, [&](const auto& v, FieldInfo) {
    const std::size_t bytes = n * sizeof(v[0]);
    if (bytes > 0) std::memcpy(out.data() + at, v.data(), bytes);
    at += bytes;
  });
}

void unpack_records(const std::vector<char>& in, unsigned mask, AtomStore& r) {
  const std::size_t per_atom = field_bytes(mask);
  const std::size_t n = in.size() / per_atom;
  if (n * per_atom != in.size())
    throw std::runtime_error(fmt::format("halo: a message of {} bytes is not whole records of {} bytes", in.size(),
                                         per_atom));
  resize_records(r, mask, n);
  std::size_t at = 0;
  for_each_field(r, mask, [&](auto& v, FieldInfo) {
    const std::size_t bytes = n * sizeof(v[0]);
    if (bytes > 0) std::memcpy(v.data(), in.data() + at, bytes);
    at += bytes;
  });
}

// The most arrays one forwarded quantity may have (positions have 3); a
// forward keeps its per-component pointers on the stack.
constexpr std::size_t kMaxForwardWidth = 16;

// to[e][j] = fields[e][send[j]] (+ shift[e] when periodic) for j in
// [begin, n): the copies of a forward, into ghost slots or a message's
// blocks. Positions (three periodic components) in one pass over the
// sources, the others a component at a time.
void gather_values(double* const* fields, std::size_t w, const int* send, std::size_t begin, std::size_t n,
                   const double* shift, bool periodic, double* const* to) {
  if (periodic && w == 3) {
    const double *x = fields[0], *y = fields[1], *z = fields[2];
    double *tx = to[0], *ty = to[1], *tz = to[2];
    for (std::size_t j = begin; j < n; ++j) {
      const int a = send[j];
      tx[j] = x[a] + shift[0];
      ty[j] = y[a] + shift[1];
      tz[j] = z[a] + shift[2];
    }
    return;
  }
  for (std::size_t e = 0; e < w; ++e) {
    const double* from = fields[e];
    double* t = to[e];
    if (periodic)
      for (std::size_t j = begin; j < n; ++j) t[j] = from[send[j]] + shift[e];
    else
      for (std::size_t j = begin; j < n; ++j) t[j] = from[send[j]];
  }
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
  std::vector<char>& out = bytes_out_;
  std::vector<char>& in = bytes_in_;
  AtomStore& picked = picked_;
  AtomStore& arrived = arrived_;
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
  if (width < 0 || w > kMaxForwardWidth)
    throw std::logic_error(fmt::format("halo: a quantity of {} arrays to forward (at most {})", width, kMaxForwardWidth));
  for (std::size_t k = 0; k < swaps_.size(); ++k) {
    const Swap& s = swaps_[k];
    const std::size_t n = s.send.size();
    const int* send = s.send.data();
    // Coordinates as the halo build made them, to the bit: every component
    // of a periodic value gets its shift, + 0.0 off the swap's axis.
    double shift[kMaxForwardWidth];
    for (std::size_t e = 0; e < w; ++e) shift[e] = e == static_cast<std::size_t>(s.dim) ? s.shift : 0.0;
    double* to[kMaxForwardWidth];
    if (s.self) {
      // A periodic copy on this rank, straight into its ghost slots: a swap
      // sends only atoms before its own ghosts, so none is both.
      for (std::size_t e = 0; e < w; ++e) to[e] = fields[e] + s.first;
      gather_values(fields, w, send, 0, n, shift, periodic, to);
      continue;
    }
    // One message of w blocks, one per component, each of the swap's
    // values in send order padded to an even count (so that every block
    // starts 16-byte aligned), with no size message first (the build's sizes
    // hold on both sides); the buffers are kept between steps, so a steady
    // step allocates nothing. Blocks, not atoms, so that the receiver copies
    // each block whole into its ghost slots (one value at a time, taking
    // the values apart cost as much as packing them; 2026-11-30).
    const std::size_t n_blk = (n + 1) / 2 * 2, c_blk = (s.count + 1) / 2 * 2;
    out_.resize(w * n_blk);
    in_.resize(w * c_blk);
    double* out = out_.data();
    for (std::size_t e = 0; e < w; ++e) to[e] = out + e * n_blk;
    std::size_t j = 0;
#if defined(__SSE2__)
    // Positions, every step, by streaming stores: the partner's copy read
    // these lines last step, so plain stores first took each line back from
    // its core, which cost 0.17 s of a 2-rank in.lj 32k mixed run's
    // Communicate when the two vCPUs were far apart (0.11 s streamed; the
    // near phase lost 0.005 s; 2026-11-30). Only the partner reads them.
    if (periodic && w == 3 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
      const double *x = fields[0], *y = fields[1], *z = fields[2];
      for (; j + 2 <= n; j += 2) {
        const int a = send[j], b = send[j + 1];
        _mm_stream_pd(to[0] + j, _mm_set_pd(x[b] + shift[0], x[a] + shift[0]));
        _mm_stream_pd(to[1] + j, _mm_set_pd(y[b] + shift[1], y[a] + shift[1]));
        _mm_stream_pd(to[2] + j, _mm_set_pd(z[b] + shift[2], z[a] + shift[2]));
      }
      _mm_sfence();  // before the message: streaming stores are weakly ordered
    }
#endif
    gather_values(fields, w, send, j, n, shift, periodic, to);
    // Padded sizes, which both sides know (n here is s.count there); the
    // padding value, never read, is whatever the buffer held.
    comm_->sendrecv_doubles(s.to, out, w * n_blk, s.from, in_.data(), w * c_blk);
    const double* in = in_.data();
    for (std::size_t e = 0; e < w; ++e)
      if (s.count > 0) std::memcpy(fields[e] + s.first, in + e * c_blk, s.count * sizeof(double));
  }
}

void HaloExchange::migrate(AtomStore& a, const SubDomain& sd) const {
  HostHaloAtoms host(a);
  migrate(host, sd);
}

void HaloExchange::migrate(HaloAtoms& a, const SubDomain& sd) const {
  a.drop_ghosts();
  std::vector<char>& out = bytes_out_;
  std::vector<char>& in = bytes_in_;
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
      AtomStore& arrived = arrived_;
      unpack_records(in, kFieldMigrates, arrived);
      a.add_locals(arrived);
      records_moved_ += static_cast<long long>(l.nlocal + arrived.nlocal);
    }
  }
}

}  // namespace tessera
