#pragma once
// Ghost atoms from the neighbouring ranks of a 3-D rank grid, in six staged
// swaps (x down, x up, y down, y up, z down, z up). Each swap also forwards
// the ghosts the earlier stages brought, so edge and corner images arrive
// without diagonal messages. Along an axis with one rank the "neighbour" is
// this rank and a swap is a periodic copy.
#include <array>
#include <vector>

#include "atoms/atom_store.hpp"
#include "comm/halo_atoms.hpp"
#include "comm/communicator.hpp"
#include "domain/box.hpp"
#include "domain/rank_grid.hpp"

namespace tessera {

class HaloExchange {
 public:
  HaloExchange() = default;
  HaloExchange(const RankGrid& grid, const std::array<int, 3>& cell, const Communicator& comm);

  // Drops old ghosts and imports every atom within `reach` of this rank's
  // sub-box; records what went where for update_positions.
  void build(AtomStore& atoms, const SubDomain& sd, double reach);
  // The same wherever the atoms are (a device's: only the atoms that cross
  // a face come to the host and go back).
  void build(HaloAtoms& atoms, const SubDomain& sd, double reach);
  // Moves the ghosts with their owners (every step between rebuilds): the
  // first client of forward().
  void update_positions(AtomStore& atoms) const;
  // Every ghost's values of one per-atom quantity from its owner, swap by
  // swap: `width` arrays (locals, then ghosts) that together hold it, e.g.
  // x, y, z or a single scalar per atom. `periodic`: the values are
  // coordinates, and a swap across the periodic boundary adds its shift to
  // component `dim` (positions); otherwise they travel unchanged (a
  // many-body intermediate, a charge).
  void forward(double* const* fields, int width, bool periodic) const;
  // The box changed size: every swap's shift follows (image count times the
  // new box length), so a rebuild is not needed for the halo to stay right.
  void set_box(const Box& box);

  // Sends atoms that left the sub-box to the neighbour they moved into
  // (before wrapping them into the box). Velocities and images travel along.
  // An atom that moved past a neighbour's sub-box is an error naming it.
  void migrate(AtomStore& atoms, const SubDomain& sd) const;
  void migrate(HaloAtoms& atoms, const SubDomain& sd) const;

  int neighbour(int dim, int dir) const;  // rank of the neighbour cell

  struct Swap {
    int dim = 0, dir = 0;
    int to = 0, from = 0;
    // Crossing the periodic boundary along `dim`: -1, 0 or +1 box lengths,
    // and `shift` the length that adds to coordinate `dim` of what is sent
    // (image times the current box length).
    int image = 0;
    double shift = 0;
    // To and from this rank (an axis with one rank): a periodic copy that a
    // device keeps on the device, with no message.
    bool self = false;
    std::vector<int> send;
    std::size_t first = 0, count = 0;  // where the received ghosts sit
  };
  // The swaps of the last build, in order: a device backend packs and
  // unpacks their positions itself and hands the buffers to
  // exchange_positions. Swap k may send ghosts of swaps before it, so they
  // run in this order.
  const std::vector<Swap>& swaps() const { return swaps_; }
  // Swap k's transport: `out` holds x, y, z (shift applied) of its send
  // list (3 * send.size() values), `in` gets the 3 * count positions of its
  // ghosts. The sizes are the build's on both sides, so no size message
  // goes first; the buffers may be device memory handed to a CUDA-aware MPI.
  void exchange_positions(std::size_t k, const double* out, double* in) const;
  // The same for `width` values per atom (forward(), the device's fields).
  void exchange_values(std::size_t k, int width, const double* out, double* in) const;

  // Atom records (id, type, coordinates...) that build and migrate have
  // picked, taken or added so far: what a device's rebuild moves between
  // device and host.
  long long records_moved() const { return records_moved_; }

 private:
  RankGrid grid_;
  std::array<int, 3> cell_{0, 0, 0};
  const Communicator* comm_ = nullptr;
  std::vector<Swap> swaps_;
  mutable long long records_moved_ = 0;
  // forward()'s message buffers, kept so that a steady step allocates nothing.
  mutable std::vector<double> out_, in_;
  // A rebuild's records and their messages, kept between rebuilds so that
  // they allocate (and the kernel zeroes pages) only when they grow.
  mutable std::vector<char> bytes_out_, bytes_in_;
  mutable AtomStore picked_, arrived_;
};

}  // namespace tessera
