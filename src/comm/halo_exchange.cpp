#include "comm/halo_exchange.hpp"

#include <fmt/format.h>

#include <cstring>

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

double& coord(AtomStore& a, int d, std::size_t i) { return d == 0 ? a.x[i] : (d == 1 ? a.y[i] : a.z[i]); }

}  // namespace

HaloExchange::HaloExchange(const RankGrid& grid, const std::array<int, 3>& cell, const Communicator& comm)
    : grid_(grid), cell_(cell), comm_(&comm) {}

int HaloExchange::neighbour(int dim, int dir) const {
  std::array<int, 3> c = cell_;
  c[dim] = (c[dim] + dir + grid_.n[dim]) % grid_.n[dim];
  return (c[2] * grid_.n[1] + c[1]) * grid_.n[0] + c[0];
}

void HaloExchange::build(AtomStore& a, const SubDomain& sd, double reach) {
  swaps_.clear();
  a.resize_ghosts(0);
  std::vector<char> out, in;
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
      if (dir < 0 && cell_[d] == 0) s.shift = len;
      if (dir > 0 && cell_[d] == grid_.n[d] - 1) s.shift = -len;
      out.clear();
      for (std::size_t i = 0; i < nfirst; ++i) {
        const double v = coord(a, d, i);
        if (dir < 0 ? v < sd.lo[d] + reach : v >= sd.hi[d] - reach) {
          s.send.push_back(static_cast<int>(i));
          put<AtomId>(out, a.id[i]);
          put<int>(out, a.type[i]);
          for (int e = 0; e < 3; ++e) put<double>(out, coord(a, e, i) + (e == d ? s.shift : 0.0));
        }
      }
      comm_->sendrecv(s.to, out, s.from, in);
      constexpr std::size_t rec = sizeof(AtomId) + sizeof(int) + 3 * sizeof(double);
      s.first = a.nall();
      s.count = in.size() / rec;
      a.resize_ghosts(a.nghost + s.count);
      std::size_t at = 0;
      for (std::size_t k = 0; k < s.count; ++k) {
        const std::size_t g = s.first + k;
        a.id[g] = take<AtomId>(in, at);
        a.type[g] = take<int>(in, at);
        for (int e = 0; e < 3; ++e) coord(a, e, g) = take<double>(in, at);
      }
      swaps_.push_back(std::move(s));
    }
  }
}

void HaloExchange::exchange_positions(std::size_t k, const std::vector<double>& out, std::vector<double>& in) const {
  const Swap& s = swaps_.at(k);
  std::vector<char> bout(out.size() * sizeof(double)), bin;
  // An empty vector's data() may be null, which memcpy must not get.
  if (!bout.empty()) std::memcpy(bout.data(), out.data(), bout.size());
  comm_->sendrecv(s.to, bout, s.from, bin);
  if (bin.size() != 3 * s.count * sizeof(double))
    throw std::runtime_error(fmt::format("halo update: expected {} positions, got {} bytes", s.count, bin.size()));
  in.resize(3 * s.count);
  if (!bin.empty()) std::memcpy(in.data(), bin.data(), bin.size());
}

void HaloExchange::exchange_positions(std::size_t k, const double* out, double* in) const {
  const Swap& s = swaps_.at(k);
  comm_->sendrecv_doubles(s.to, out, 3 * s.send.size(), s.from, in, 3 * s.count);
}

void HaloExchange::update_positions(AtomStore& a) const {
  std::vector<double> out, in;
  for (std::size_t w = 0; w < swaps_.size(); ++w) {
    const Swap& s = swaps_[w];
    out.resize(3 * s.send.size());
    for (std::size_t k = 0; k < s.send.size(); ++k)
      for (int e = 0; e < 3; ++e) out[3 * k + e] = coord(a, e, s.send[k]) + (e == s.dim ? s.shift : 0.0);
    exchange_positions(w, out, in);
    for (std::size_t k = 0; k < s.count; ++k)
      for (int e = 0; e < 3; ++e) coord(a, e, s.first + k) = in[3 * k + e];
  }
}

void HaloExchange::migrate(AtomStore& a, const SubDomain& sd) const {
  a.resize_ghosts(0);
  std::vector<char> out_lo, out_hi, in;
  for (int d = 0; d < 3; ++d) {
    if (grid_.n[d] == 1) continue;
    out_lo.clear();
    out_hi.clear();
    std::size_t kept = 0;
    const double width = sd.hi[d] - sd.lo[d];
    for (std::size_t i = 0; i < a.nlocal; ++i) {
      const double v = coord(a, d, i);
      std::vector<char>* out = v < sd.lo[d] ? &out_lo : (v >= sd.hi[d] ? &out_hi : nullptr);
      if (!out) {
        if (kept != i) {
          a.id[kept] = a.id[i];
          a.type[kept] = a.type[i];
          a.x[kept] = a.x[i], a.y[kept] = a.y[i], a.z[kept] = a.z[i];
          a.vx[kept] = a.vx[i], a.vy[kept] = a.vy[i], a.vz[kept] = a.vz[i];
          a.ix[kept] = a.ix[i], a.iy[kept] = a.iy[i], a.iz[kept] = a.iz[i];
        }
        ++kept;
        continue;
      }
      if (v < sd.lo[d] - width || v >= sd.hi[d] + width)
        throw SimulationError(
            fmt::format("rank {}: atom {} at {:.10g} along {} left its sub-box [{:.10g}, {:.10g}) by "
                        "more than a neighbour's width; it cannot be handed over",
                        comm_->rank(), a.id[i], v, "xyz"[d], sd.lo[d], sd.hi[d]));
      put<AtomId>(*out, a.id[i]);
      put<int>(*out, a.type[i]);
      for (double q : {a.x[i], a.y[i], a.z[i], a.vx[i], a.vy[i], a.vz[i]}) put<double>(*out, q);
      for (int q : {a.ix[i], a.iy[i], a.iz[i]}) put<int>(*out, q);
    }
    a.resize_local(kept);  // keeps the first `kept` entries
    for (int dir = -1; dir <= 1; dir += 2) {
      comm_->sendrecv(neighbour(d, dir), dir < 0 ? out_lo : out_hi, neighbour(d, -dir), in);
      constexpr std::size_t rec = sizeof(AtomId) + sizeof(int) + 6 * sizeof(double) + 3 * sizeof(int);
      const std::size_t n = in.size() / rec, base = a.nlocal;
      a.resize_local(base + n);
      std::size_t at = 0;
      for (std::size_t k = base; k < base + n; ++k) {
        a.id[k] = take<AtomId>(in, at);
        a.type[k] = take<int>(in, at);
        a.x[k] = take<double>(in, at), a.y[k] = take<double>(in, at), a.z[k] = take<double>(in, at);
        a.vx[k] = take<double>(in, at), a.vy[k] = take<double>(in, at), a.vz[k] = take<double>(in, at);
        a.ix[k] = take<int>(in, at), a.iy[k] = take<int>(in, at), a.iz[k] = take<int>(in, at);
      }
    }
  }
}

}  // namespace tessera
