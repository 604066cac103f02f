#include "neighbor/verlet_builder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "atoms/molecular_fields.hpp"
#include "backend/cpu_pair_kernel.hpp"
#include "backend/cpu_shares.hpp"
#include "neighbor/row_stride.hpp"

namespace tessera {

namespace {
// A half list's slabs (NeighborList::half), from each atom's position at
// this build; the list holds only pairs closer than `reach` then, so a
// pair's slabs differ by at most colors - 1. Along z, the spatial sort's
// slowest axis, so that a slab's rows and most of its partners are close
// in memory (along x, the rows of one slab are spread over the whole list
// and the kernel waits on memory: 4x slower at 32k atoms); along the
// longest axis only when z is too thin for four slabs a colour.
void assign_slabs(const AtomStore& a, const SubDomain& sd, double reach, std::vector<int>& slab, NeighborList& nl) {
  int axis = 2;
  if (half_list_slabs(sd.hi[2] - sd.lo[2], reach) < 4 * kHalfListColors)
    for (int d = 0; d < 2; ++d)
      if (sd.hi[d] - sd.lo[d] > sd.hi[axis] - sd.lo[axis]) axis = d;
  const double lo = sd.lo[axis], extent = sd.hi[axis] - sd.lo[axis];
  const int nslab = half_list_slabs(extent, reach);
  const double per_width = nslab / extent;
  const std::vector<double>& x = axis == 0 ? a.x : axis == 1 ? a.y : a.z;
  const int nlocal = static_cast<int>(a.nlocal);
  slab.resize(static_cast<std::size_t>(nlocal));
  nl.colors = kHalfListColors;
  nl.slab_start.assign(static_cast<std::size_t>(nslab) + 1, 0);
  // A local just outside its sub-box (it moved since the wrap) counts in the
  // end slab: that only brings it closer to its partners' slabs.
  for (int i = 0; i < nlocal; ++i) {
    const int s = std::min(std::max(static_cast<int>((x[i] - lo) * per_width), 0), nslab - 1);
    slab[i] = s;
    ++nl.slab_start[s + 1];
  }
  for (int s = 0; s < nslab; ++s) nl.slab_start[s + 1] += nl.slab_start[s];
  nl.slab_atoms.resize(static_cast<std::size_t>(nlocal));
  std::vector<int> next(nl.slab_start.begin(), nl.slab_start.end() - 1);
  for (int i = 0; i < nlocal; ++i) nl.slab_atoms[next[slab[i]]++] = i;
}

// Keeps, of atom i's neighbours found[0..k), those of its half row, in
// order; returns the new count.
int keep_half(int i, const int* slab, int nlocal, int* found, int k) {
  const int si = slab[i];
  int kept = 0;
  for (int p = 0; p < k; ++p) {
    const int j = found[p];
    found[kept] = j;
    kept += j >= nlocal || slab[j] > si || (slab[j] == si && j > i);
  }
  return kept;
}

}  // namespace

// List order: cell rows by (z, y) offset, then x, then bin order within a
// cell, i.e. increasing bin position along each row. The order fixes the
// force summation order, so it depends only on the positions and the
// region searched (which also sets the cell width, reach_in_cells).
void VerletBuilder::build(const AtomStore& a, const SubDomain& sd, double reach, NeighborList& nl, bool half,
                          int entry_shift) {
  if (half && entry_shift != 0) throw std::logic_error("a half list's rows hold atom indices");
  double lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = sd.lo[d] - reach;
    hi[d] = sd.hi[d] + reach;
  }
  const int nall = static_cast<int>(a.nall());
  const int span = reach_in_cells(nall, lo, hi, reach);
  const CellGrid g = CellGrid::cover(lo, hi, reach / span);
  const int nlocal = static_cast<int>(a.nlocal);
  if (nall > (std::numeric_limits<int>::max() >> entry_shift) + 1L) throw std::length_error(record_offsets_limit(nall));
  nl.entry_shift = entry_shift;
  bin_atoms(g, a.x.data(), a.y.data(), a.z.data(), nall, bins_);
  gather_binned_positions(a.x.data(), a.y.data(), a.z.data(), bins_);
  const double reach_sq = reach * reach;
  const int* start = bins_.start.data();
  const CandidateCopyFn copy = copy_candidates_for(simd_level());
  const NeighborScanGroupFn scan_group = neighbor_scan_group_for(simd_level());
  // A float first pass where the unit has one, and no exclusions: the same
  // lists (ScanGroupFloat), 16 candidates a vector instead of 8.
  const NeighborScanGroupFloatFn scan_float =
      molecular_fields_on() ? nullptr : neighbor_scan_group_float_for(simd_level());
  const CandidateCopyFloatFn copy_float = copy_candidates_float_for(simd_level());
  // Excluded pairs (special neighbours with factor 0: LAMMPS's special_bonds
  // lj 0 ...) never enter a row, so no shifted or huge overlap energy is ever
  // added and taken back. The scan leaves them out by id, every image of the
  // partner alike, comparing the candidates' ids in bin order.
  const bool specials = molecular_fields_on();
  const MolecularArrays mol = specials ? molecular_arrays(a) : MolecularArrays{};
  if (specials) gather_binned_ids(a.id.data(), bins_);
  const CandidatesIn from{bins_.x.data(), bins_.y.data(), bins_.z.data(), bins_.atoms.data(),
                          specials ? bins_.id.data() : nullptr};

  nl.half = half;
  if (half) {
    assign_slabs(a, sd, reach, slab_, nl);
  } else {
    nl.colors = 0;
    nl.slab_start.clear();
    nl.slab_atoms.clear();
  }
  const int* slab = slab_.data();

  nl.count.resize(nlocal);
  auto whole_blocks = [](int n) { return (n + kPairLanes - 1) / kPairLanes * kPairLanes; };
  // The last build's longest row plus room to grow, as after an overflow
  // below (neighbor/row_stride.hpp; the copy into rows 64 wide was 6 % of a
  // 1-thread in.chain run, 2026-11-28). The stride only lays the rows out:
  // the lists and forces are the same. The first build starts at 64, not at
  // the density's estimate as the device does: a 2M-atom LJ melt's loop took
  // 17.5 s instead of 13.5 s that way (2026-11-29; not fully traced: part
  // of it was the storage, sized exactly at the first build and reallocated
  // when the melt's rows outgrew it, where from 64 it grows once, to twice
  // its capacity).
  nl.stride = whole_blocks(nl.widest > 0 ? next_row_stride(nl.widest) : std::max(nl.stride, 64));
  nl.pad = kPairLanes;
  for (;;) {
    // Every row is rewritten below, so storage that must grow starts empty
    // rather than copying the old rows over (and the old storage goes
    // first, so the two never coexist). It grows by a third more than asked:
    // a melt's rows widen over its first hundreds of steps (in.lj from a
    // lattice: stride 96, then 112), and each reallocation's pages are
    // zeroed by the kernel as the rows are first written. Sizing does not
    // write (LargePageAllocator), so the first touch is the threads' own.
    const std::size_t rows_size = static_cast<std::size_t>(nlocal) * nl.stride;
    if (rows_size > nl.index.capacity()) {
      LargeVector<int>().swap(nl.index);
      nl.index.reserve(rows_size + rows_size / 3);
    }
    nl.index.resize(rows_size);
    int needed = 0;
    const int stride = nl.stride;
    const int nb[3] = {(g.n[0] + span - 1) / span, (g.n[1] + span - 1) / span, (g.n[2] + span - 1) / span};
    // Blocks in z-major order, each thread its share first: atoms are in
    // cell order too, so a thread mostly writes the rows it then computes
    // (by any schedule the lists are the same; by a dynamic one, half the
    // rows crossed between the cores after every build).
    OwnFirstChunks blocks(static_cast<long>(nb[0]) * nb[1] * nb[2], omp_get_max_threads());
    // Rows of stream_rows_from_ bytes and more (kStreamRowsFrom, 32 MiB,
    // unless a test sets it: about a server core complex's last-level
    // cache; a VM's sysconf reports the whole host's) go out by streaming
    // stores: no line is read for ownership first, and the rows, which the
    // next step reads from memory anyway at that size, do not push the
    // positions out of the caches. in.lj 256k mixed (82 MB of rows), 200
    // steps, interleaved: 1 thread, Neighbor 0.75-0.97 -> 0.67-0.68 s and
    // the loop 1.5 % shorter; 2 threads, the loop's median 2.6 % shorter.
    // At 32k (10 MB) streaming changed nothing (2026-11-30), and smaller
    // systems' rows may stay in the caches from build to step.
    [[maybe_unused]] const bool stream_rows = rows_size * sizeof(int) >= stream_rows_from_ &&
                                              reinterpret_cast<std::uintptr_t>(nl.index.data()) % 16 == 0;
#pragma omp parallel reduction(max : needed) num_threads(blocks.threads())
    {
      // Atom i's k neighbours, in buf, to its row of the list.
      auto finish = [&](int i, int k, std::vector<int>& buf) {
        if (half) k = keep_half(i, slab, nlocal, buf.data(), k);
        // Padding with i itself, whose distance is 0: never a neighbour, but
        // a valid index for a kernel that loads whole lane blocks.
        const int padded = std::min(whole_blocks(k), stride);
        if (buf.size() < static_cast<std::size_t>(padded)) buf.resize(padded);
        for (int p = k; p < padded; ++p) buf[p] = i;
        // The entries shifted as they are copied, four at a time: a row is
        // a few blocks, and memmove's set-up cost more than the copy (4.6 %
        // of a 1-thread in.chain run, 2026-11-29). The shift is a local:
        // read through the lambda's reference, every store to buf might
        // have changed it, and a shift loop of its own stayed scalar (16 %
        // of the build's own samples, in.lj 32k mixed, 2026-12-01).
        const int shift = entry_shift;
        const int* from = buf.data();
        int* row = nl.index.data() + static_cast<long>(i) * stride;
#if defined(__SSE2__)
        const __m128i count = _mm_cvtsi32_si128(shift);
        auto shifted = [&](int b) {
          return _mm_sll_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(from + b)), count);
        };
        if (stream_rows) {
          for (int b = 0; b < padded; b += 4) _mm_stream_si128(reinterpret_cast<__m128i*>(row + b), shifted(b));
        } else {
          for (int b = 0; b < padded; b += 4) _mm_storeu_si128(reinterpret_cast<__m128i*>(row + b), shifted(b));
        }
#else
        for (int p = 0; p < padded; ++p) row[p] = from[p] << shift;
#endif
        nl.count[i] = k;
        needed = std::max(needed, k);
      };
      // Blocks of span^3 cells (one cell reach wide, or 2 x 2 x 2 of half
      // the reach) share one run of candidates: the rows of the cells within
      // span cells of the block, gathered once in list order, then scanned by
      // the block's atoms a group at a time. Every candidate within reach of
      // an atom lies in its own stencil (cells at span + 1 are a reach away),
      // so each atom's list is the per-atom search's, in its order (bar a
      // pair within rounding of the reach across a cell edge, which either
      // lists: both are valid). Searching per atom over pruned rows scans
      // fewer candidates but cost more (25 short rows an atom; 0.58 s
      // against 0.37 s of in.lj 32k's list builds, 2 threads, 2026-11-29).
      std::vector<double> cx, cy, cz;
      std::vector<float> fx, fy, fz;
      std::vector<int> ca;
      std::vector<AtomId> cid;
      std::vector<int> group_found[kScanGroup];
      // Cells [first, last] of block b along axis d, and of its stencil.
      auto own = [&](int d, int b, int& first, int& last) {
        first = b * span;
        last = std::min(first + span, g.n[d]) - 1;
      };
      auto near = [&](int d, int b, int& first, int& last) {
        first = std::max(b * span - span, 0);
        last = std::min(b * span + 2 * span, g.n[d]) - 1;
      };
      blocks.run([&](long block_index) {
        const int block = static_cast<int>(block_index);
        const int b[3] = {block % nb[0], (block / nb[0]) % nb[1], block / (nb[0] * nb[1])};
        int own_lo[3], own_hi[3], near_lo[3], near_hi[3];
        for (int d = 0; d < 3; ++d) {
          own(d, b[d], own_lo[d], own_hi[d]);
          near(d, b[d], near_lo[d], near_hi[d]);
        }
        // The block's atoms, row by row: each row's cells are one run.
        auto row_run = [&](int y, int z, int x0, int x1, int& m0, int& m1) {
          m0 = start[g.index(x0, y, z)];
          m1 = start[g.index(x1, y, z) + 1];
        };
        bool has_local = false;
        for (int z = own_lo[2]; z <= own_hi[2] && !has_local; ++z)
          for (int y = own_lo[1]; y <= own_hi[1] && !has_local; ++y) {
            int m0, m1;
            row_run(y, z, own_lo[0], own_hi[0], m0, m1);
            for (int m = m0; m < m1 && !has_local; ++m) has_local = bins_.atoms[m] < nlocal;
          }
        if (!has_local) return;
        // The float pass's offsets are from the stencil's low corner; its
        // band from the largest offset (see below).
        double origin[3];
        for (int d = 0; d < 3; ++d) origin[d] = g.lo[d] + near_lo[d] / g.inv_size[d];
        double extent = 0;
        int nc = 0;
        for (int z = near_lo[2]; z <= near_hi[2]; ++z)
          for (int y = near_lo[1]; y <= near_hi[1]; ++y) {
            int m0, m1;
            row_run(y, z, near_lo[0], near_hi[0], m0, m1);
            const std::size_t room = static_cast<std::size_t>(nc + m1 - m0 + 16);  // whole vectors stored
            if (ca.size() < room) {
              if (scan_float) {
                for (auto* v : {&fx, &fy, &fz}) v->resize(2 * room);
              } else {
                for (auto* v : {&cx, &cy, &cz}) v->resize(2 * room);
              }
              ca.resize(2 * room);
              if (specials) cid.resize(2 * room);
            }
            if (scan_float)
              extent = std::max(extent, copy_float(from, m0, m1 - m0, origin,
                                                   FloatCandidatesOut{fx.data(), fy.data(), fz.data(), ca.data()}, nc));
            else
              copy(from, m0, m1 - m0, CandidatesOut{cx.data(), cy.data(), cz.data(), ca.data(), cid.data()}, nc);
            nc += m1 - m0;
          }
        // The group scan reads whole vectors: the run's tail is made far
        // away (the copies left it holding whatever they loaded).
        const int lanes = scan_float ? 16 : 8;
        const int whole = (nc + lanes - 1) / lanes * lanes;
        for (int m = nc; m < whole; ++m) {
          if (scan_float)
            fx[m] = fy[m] = fz[m] = std::numeric_limits<float>::infinity();
          else
            cx[m] = cy[m] = cz[m] = std::numeric_limits<double>::infinity();
          ca[m] = -1;
        }
        // Each float offset is its double rounded once (relative error
        // 2^-24, offsets at most `extent`), which moves a float r^2 from
        // the double one by less than about 84 * 2^-24 * extent^2 for any
        // candidate of the block; the band is 2^-15 * extent^2, five times
        // that (and covers reach_sq's own rounding to float).
        ScanGroupFloat fgroup;
        fgroup.x = a.x.data();
        fgroup.y = a.y.data();
        fgroup.z = a.z.data();
        const double span_sq = std::max(extent, reach) * std::max(extent, reach);
        fgroup.band = static_cast<float>(std::ldexp(span_sq, -15));
        for (auto& f : group_found)
          if (f.size() < static_cast<std::size_t>(whole + 16)) f.resize(2 * (whole + 16));
        ScanGroup group;
        AtomId excluded[kScanGroup][kMaxSpecial];
        if (specials) group.ids = cid.data();
        auto flush = [&] {
          if (scan_float)
            scan_float(fx.data(), fy.data(), fz.data(), ca.data(), whole, reach_sq, fgroup, group);
          else
            scan_group(cx.data(), cy.data(), cz.data(), ca.data(), whole, reach_sq, group);
          for (int k = 0; k < group.n; ++k) finish(group.self[k], group.count[k], group_found[k]);
          group.n = 0;
        };
        for (int z = own_lo[2]; z <= own_hi[2]; ++z)
          for (int y = own_lo[1]; y <= own_hi[1]; ++y) {
            int m0, m1;
            row_run(y, z, own_lo[0], own_hi[0], m0, m1);
            for (int m = m0; m < m1; ++m) {
              const int i = bins_.atoms[m];
              if (i >= nlocal) continue;
              const int k = group.n++;
              group.x[k] = a.x[i];
              group.y[k] = a.y[i];
              group.z[k] = a.z[i];
              fgroup.fx[k] = static_cast<float>(a.x[i] - origin[0]);
              fgroup.fy[k] = static_cast<float>(a.y[i] - origin[1]);
              fgroup.fz[k] = static_cast<float>(a.z[i] - origin[2]);
              group.self[k] = i;
              group.out[k] = group_found[k].data();
              if (specials) {
                const ExcludedIds ex(mol.special, i);
                std::copy(ex.id, ex.id + ex.n, excluded[k]);
                group.excluded[k] = excluded[k];
                group.excluded_n[k] = ex.n;
              }
              if (group.n == kScanGroup) flush();
            }
          }
        if (group.n > 0) flush();
      });
#if defined(__SSE2__)
      if (stream_rows) _mm_sfence();
#endif
    }
    nl.widest = needed;
    if (needed <= nl.stride) break;
    // Room to grow before the next overflow, in whole lane blocks.
    nl.stride = whole_blocks(next_row_stride(needed));
  }
  nl.clustered = false;
  note_build(a, nl);
}

void note_build(const AtomStore& a, NeighborList& nl) {
  const long nlocal = static_cast<long>(a.nlocal);
  for (auto* v : {&nl.x0, &nl.y0, &nl.z0}) v->resize(static_cast<std::size_t>(nlocal));
  // On every thread: on one, the copy was 0.1 % of a 2-thread in.lj 256k
  // run's samples with the other thread idle.
#pragma omp parallel for schedule(static)
  for (long i = 0; i < nlocal; ++i) {
    nl.x0[i] = a.x[i];
    nl.y0[i] = a.y[i];
    nl.z0[i] = a.z[i];
  }
  ++nl.builds;
}

void ClusterListBuilder::build(const AtomStore& a, const SubDomain& sd, double reach, NeighborList& nl) {
  clusters_.build(a, sd, reach, nl.clusters);
  nl.clustered = true;
  nl.half = false;
  nl.count.clear();
  nl.index.clear();
  note_build(a, nl);
}

void sort_atoms_spatially(AtomStore& a, const SubDomain& sd, double cell_size) {
  const CellGrid g = CellGrid::cover(sd.lo, sd.hi, cell_size);
  CellBins bins;
  bin_atoms(g, a.x.data(), a.y.data(), a.z.data(), static_cast<int>(a.nlocal), bins);
  std::vector<std::size_t> order(bins.atoms.begin(), bins.atoms.end());
  a.permute_local(order);
}

double max_displacement_sq(const AtomStore& a, const NeighborList& nl) {
  double m = 0;
  const long n = static_cast<long>(a.nlocal);
#pragma omp parallel for schedule(static) reduction(max : m)
  for (long i = 0; i < n; ++i) {
    const double dx = a.x[i] - nl.x0[i], dy = a.y[i] - nl.y0[i], dz = a.z[i] - nl.z0[i];
    m = std::max(m, dx * dx + dy * dy + dz * dz);
  }
  return m;
}

}  // namespace tessera
