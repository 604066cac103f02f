#pragma once
// Where HaloExchange finds and puts atoms at a rebuild: in the host's
// AtomStore (HostHaloAtoms, here) or in a device's arrays (DeviceHaloAtoms,
// kernels/device/device_migration.hpp). The messages, their order and their
// format belong to HaloExchange alone; these calls only pick, take and add
// atoms, each in index order, so both places end with the same atoms in the
// same slots, and only the atoms that cross a face leave the device.
#include <cstddef>
#include <vector>

#include "atoms/atom_store.hpp"
#include "core/types.hpp"

namespace tessera {

// Atoms in transit between ranks: the fields of `mask` (kFieldGhost for a
// halo build's ghosts, kFieldMigrates for a migration's leavers) as the
// locals of an AtomStore, whose other arrays stay empty. Sizes them for n.
void resize_records(AtomStore& r, unsigned mask, std::size_t n);

class HaloAtoms {
 public:
  virtual ~HaloAtoms() = default;
  virtual std::size_t nlocal() const = 0;
  virtual std::size_t nall() const = 0;

  // Halo build. Atoms i < n (locals, then the ghosts already made) whose
  // coordinate d is below `bound` (dir < 0) or at or above it (dir > 0), in
  // index order: their indices in `picked`, their ghost-stored fields
  // (kFieldGhost) as the records `out` (resize_records), with `shift` added
  // to coordinate d (ghost_ops.hpp's CopyImaged).
  virtual void pick_ghosts(int d, int dir, double bound, std::size_t n, double shift, std::vector<int>& picked,
                           AtomStore& out) = 0;
  // Appends the records `in` (kFieldGhost) as ghosts after those there.
  virtual void add_ghosts(const AtomStore& in) = 0;
  // A swap to this rank itself (one rank along d): the atoms pick_ghosts
  // would pick become ghosts here at once, with no records made.
  virtual void image_ghosts(int d, int dir, double bound, std::size_t n, double shift, std::vector<int>& picked) = 0;

  // Migration. Drops every ghost.
  virtual void drop_ghosts() = 0;
  // Removes the locals whose coordinate d is outside [lo, hi), the others
  // keeping their order. Those below lo go to `below`, those at or above hi
  // to `above`, in index order, as locals of an AtomStore holding the fields
  // that migrate (kFieldMigrates; the derived ones are made anew after a
  // rebuild).
  virtual void take_leavers(int d, double lo, double hi, AtomStore& below, AtomStore& above) = 0;
  // Appends the locals of `arrived` after those there.
  virtual void add_locals(const AtomStore& arrived) = 0;
};

// The host's atoms.
class HostHaloAtoms final : public HaloAtoms {
 public:
  explicit HostHaloAtoms(AtomStore& a) : a_(a) {}
  std::size_t nlocal() const override { return a_.nlocal; }
  std::size_t nall() const override { return a_.nall(); }
  void pick_ghosts(int d, int dir, double bound, std::size_t n, double shift, std::vector<int>& picked,
                   AtomStore& out) override;
  void add_ghosts(const AtomStore& in) override;
  void image_ghosts(int d, int dir, double bound, std::size_t n, double shift, std::vector<int>& picked) override;
  void drop_ghosts() override { a_.resize_ghosts(0); }
  void take_leavers(int d, double lo, double hi, AtomStore& below, AtomStore& above) override;
  void add_locals(const AtomStore& arrived) override;

 private:
  AtomStore& a_;
  std::vector<std::size_t> leavers_;  // take_leavers's scratch, kept between calls
};

// Local i of `from` (the fields a migrating atom carries, kFieldMigrates)
// into slot k of `to`, or appended to it.
void copy_migrant(AtomStore& to, std::size_t k, const AtomStore& from, std::size_t i);
void push_migrant(AtomStore& to, const AtomStore& from, std::size_t i);

}  // namespace tessera
