#pragma once
// The device's atoms as HaloExchange's migration and halo build see them
// (comm/halo_atoms.hpp): with several ranks a rebuild picks, compacts and
// appends atoms here, and only the atoms that cross a face (the leavers and
// the ghosts, a surface's worth) go to the host for MPI and come back. The
// atoms themselves stay; before this, every rebuild took them all to the
// host and back. Picks keep index order (stream compaction is stable), so the
// slots are the host's, bit for bit.
#include <thrust/copy.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include <climits>
#include <stdexcept>

#include "comm/halo_atoms.hpp"
#include "core/id_sums.hpp"
#include "device/device_atoms.hpp"
#include "domain/ghost_ops.hpp"

namespace tessera::device {
inline namespace TESSERA_DEVICE_SYSTEM_NS {

namespace detail {

// Where coordinate v[i] lies against [lo, hi): 0 inside, 1 below, 2 above.
struct OnSide {
  const double* v;
  double lo, hi;
  int side;
  TESSERA_HD bool operator()(int i) const {
    const double p = v[i];
    return (p < lo ? 1 : (p >= hi ? 2 : 0)) == side;
  }
};

// HaloExchange's face test: below `bound` (dir < 0), or at or above it.
struct NearBound {
  const double* v;
  double bound;
  int dir;
  TESSERA_HD bool operator()(int i) const { return dir < 0 ? v[i] < bound : v[i] >= bound; }
};

}  // namespace detail

class DeviceHaloAtoms final : public HaloAtoms {
 public:
  DeviceHaloAtoms(DeviceAtoms& a, DeviceStream s) : a_(a), stream_(s) {}

  std::size_t nlocal() const override { return static_cast<std::size_t>(a_.nlocal); }
  std::size_t nall() const override { return static_cast<std::size_t>(a_.nall()); }

  void pick_ghosts(int d, int dir, double bound, std::size_t n, double shift, std::vector<int>& picked,
                   AtomStore& out) override {
    const int m = select(static_cast<int>(n), detail::NearBound{coord(d), bound, dir});
    to_host(stream_, index_, static_cast<std::size_t>(m), picked);
    resize_records(out, kFieldGhost, static_cast<std::size_t>(m));
    zip_fields(a_, out, kFieldGhost, [&](const auto& v, auto& h, const FieldInfo& f) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      const auto staged = stage_scratch<T>(stream_, static_cast<std::size_t>(m));
      for_each_index(stream_, m, copy_imaged(f, d, shift, raw(index_), raw(v), thrust::raw_pointer_cast(staged), 0));
      staged_to_host(staged, m, h);
    });
  }

  void add_ghosts(const AtomStore& in) override {
    const int first = add_ghost_slots(static_cast<int>(in.nlocal));
    zip_fields(in, a_, kFieldGhost,
               [&](const auto& h, auto& v, FieldInfo) { to_device(stream_, h, v, static_cast<std::size_t>(first)); });
  }

  void image_ghosts(int d, int dir, double bound, std::size_t n, double shift, std::vector<int>& picked) override {
    const int m = select(static_cast<int>(n), detail::NearBound{coord(d), bound, dir});
    to_host(stream_, index_, static_cast<std::size_t>(m), picked);  // the swap's send list, for the refresh
    const int first = add_ghost_slots(m);
    for_each_field(a_, kFieldGhost, [&](auto& v, const FieldInfo& f) {
      for_each_index(stream_, m, copy_imaged(f, d, shift, raw(index_), raw(v), raw(v), static_cast<std::size_t>(first)));
    });
  }

  void drop_ghosts() override { a_.resize_ghosts(stream_, 0); }

  void take_leavers(int d, double lo, double hi, AtomStore& below, AtomStore& above) override {
    a_.resize_ghosts(stream_, 0);
    const int n = a_.nlocal;
    const int nbelow = select(n, detail::OnSide{coord(d), lo, hi, 1});
    download_locals(nbelow, below);
    const int nabove = select(n, detail::OnSide{coord(d), lo, hi, 2});
    download_locals(nabove, above);
    if (nbelow + nabove == 0) return;
    const int kept = select(n, detail::OnSide{coord(d), lo, hi, 0});
    for_each_field(a_, kAnyField, [&](auto& v, FieldInfo) { permute(v, kept); });
    a_.nlocal = kept;
  }

  void add_locals(const AtomStore& in) override {
    if (a_.nghost != 0) throw std::logic_error("device migration: locals added while ghosts are there");
    const std::size_t base = static_cast<std::size_t>(a_.nlocal), n = in.nlocal;
    if (base + n > static_cast<std::size_t>(INT_MAX))
      throw std::invalid_argument("device migration: more atoms on one rank than an int can index");
    // The derived fields (forces, energies, virials) of the arrivals are left
    // unwritten: a rebuild is followed by a force computation, which writes them.
    zip_fields(in, a_, kAnyField, [&](const auto& h, auto& v, FieldInfo f) {
      if (f.has(kFieldMigrates))
        grow(h, v, base);
      else
        resize(stream_, v, base + n);
    });
    a_.nlocal = static_cast<int>(base + n);
  }

  IdSums local_id_sums() const {
    return thrust::transform_reduce(policy(stream_), a_.id.begin(), a_.id.begin() + a_.nlocal, IdSumsOf{}, IdSums{},
                                    AddIdSums{});
  }

 private:
  // Room for m more ghosts; the first new slot.
  int add_ghost_slots(int m) {
    if (static_cast<long long>(a_.nall()) + m > INT_MAX)
      throw std::invalid_argument("device halo: more atoms on one rank than an int can index");
    const int first = a_.nall();
    a_.resize_ghosts(stream_, a_.nghost + m);
    return first;
  }

  const double* coord(int d) const { return raw(d == 0 ? a_.x : (d == 1 ? a_.y : a_.z)); }

  // Indices i < n that `keep` accepts, in order, into index_; their count.
  template <class Pred>
  int select(int n, const Pred& keep) {
    resize(stream_, index_, static_cast<std::size_t>(n));
    const auto end = thrust::copy_if(policy(stream_), thrust::counting_iterator<int>(0),
                                     thrust::counting_iterator<int>(n), index_.begin(), keep);
    return static_cast<int>(end - index_.begin());
  }

  // The m atoms of index_ as AtomStore locals on the host (what migrates).
  void download_locals(int m, AtomStore& out) {
    out = AtomStore{};
    out.nlocal = static_cast<std::size_t>(m);
    if (m == 0) return;
    zip_fields(a_, out, kFieldMigrates,
               [&](const auto& v, auto& h, FieldInfo) { gather_to_host(v, m, h); });
  }

  template <class T>
  void gather_to_host(const dvec<T>& v, int m, std::vector<T>& h) {
    const auto staged = stage_scratch<T>(stream_, static_cast<std::size_t>(m));
    thrust::gather(policy(stream_), index_.begin(), index_.begin() + m, v.begin(), staged);
    staged_to_host(staged, m, h);
  }

  // The first m staged values into h, once the stream has written them.
  template <class T>
  void staged_to_host(thrust::device_ptr<T> staged, int m, std::vector<T>& h) {
    synchronize(stream_);
    h.resize(static_cast<std::size_t>(m));
    thrust::copy(staged, staged + m, h.begin());
  }

  // v becomes its first `m` entries gathered by index_, through the stage
  // scratch (v keeps its storage: spatial_sort.hpp says why).
  template <class T>
  void permute(dvec<T>& v, int m) {
    const auto staged = stage_scratch<T>(stream_, static_cast<std::size_t>(m));
    thrust::gather(policy(stream_), index_.begin(), index_.begin() + m, v.begin(), staged);
    resize(stream_, v, static_cast<std::size_t>(m));
    thrust::copy(policy(stream_), staged, staged + m, v.begin());
  }

  template <class T>
  void grow(const std::vector<T>& h, dvec<T>& d, std::size_t base) {
    resize(stream_, d, base + h.size());
    to_device(stream_, h, d, base);
  }

  DeviceAtoms& a_;
  DeviceStream stream_;
  dvec<int> index_;
};

}  // namespace TESSERA_DEVICE_SYSTEM_NS
}  // namespace tessera::device
