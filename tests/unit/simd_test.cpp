// The CPU pair kernel's promise: every instruction-set variant gives bitwise
// the same forces, energies and virials, and all agree with the reference
// loop PairForce<Pot> to rounding (they sum in a different order).
#include <omp.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <catch2/catch.hpp>
#include <memory>
#include <limits>
#include <random>

#include "backend/cpu_langevin_kernel.hpp"
#include "neighbor/verlet_builder.hpp"

#include "potentials/pair_force.hpp"
#include "potentials/pair_style_impl.hpp"
#include "run/simulation.hpp"
#include "test_support.hpp"

using namespace tessera;

namespace {

struct Result {
  std::vector<double> fx, fy, fz, pe, virial;
  bool operator==(const Result& o) const {
    return fx == o.fx && fy == o.fy && fz == o.fz && pe == o.pe && virial == o.virial;
  }
};

Result result_of(const AtomStore& a) {
  const auto n = static_cast<std::ptrdiff_t>(a.nlocal);
  return {{a.fx.begin(), a.fx.begin() + n},
          {a.fy.begin(), a.fy.begin() + n},
          {a.fz.begin(), a.fz.begin() + n},
          {a.pe.begin(), a.pe.begin() + n},
          {a.virial.begin(), a.virial.begin() + n}};
}

// A disordered 2-type melt (or all type 1) with its full neighbour list.
std::unique_ptr<Simulation> random_system(bool two_types, unsigned seed) {
  const std::string yaml = R"(
system:
  lattice: {style: fcc, density: 0.8442, cells: [5, 5, 5]}
  types: 2
  masses: [1.0, 2.0]
velocity: {temperature: 1.0, seed: 5}
potential:
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
    - {types: [2, 2], epsilon: 0.7, sigma: 1.1}
neighbor: {skin: 0.3}
integrator: {style: nve, dt: 0.005}
run: {steps: 0}
)";
  auto sim = std::make_unique<Simulation>(test::deck_from(yaml));
  auto& a = sim->atoms();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> shift(-0.15, 0.15), unit(0.0, 1.0);
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    a.x[i] += shift(rng);
    a.y[i] += shift(rng);
    a.z[i] += shift(rng);
    a.type[i] = two_types && unit(rng) < 0.4 ? 2 : 1;
  }
  sim->setup();
  return sim;
}

// Per-pair cutoffs below the list's reach (2.8) and unequal, so that the
// per-lane cutoff test is exercised; sample coefficients per potential.
template <class Pot>
PairStyleImpl<Pot> make_style() {
  std::vector<PairCoeffs> table(9);
  auto set = [&](int k, double c0, double c1, double c2, double cut) {
    table[k].c = {c0, c1, c2, 0};
    table[k].cutoff = cut;
  };
  if (Pot::ncoeff == 2) {  // the LJ forms: epsilon, sigma
    set(4, 1.0, 1.0, 0, 2.5);
    set(8, 0.7, 1.1, 0, 2.2);
    set(5, 0.84, 1.05, 0, 2.35);
  } else {
    set(4, 1.0, 3.0, 1.2, 2.5);
    set(8, 0.7, 2.5, 1.3, 2.2);
    set(5, 0.84, 2.75, 1.25, 2.35);
  }
  table[7] = table[5];
  return PairStyleImpl<Pot>(2, table, true);
}

template <class Pot>
Result reference(const PairStyleImpl<Pot>& style, AtomStore a, const NeighborList& nl) {
  std::vector<int> indices;  // PairForce reads atom indices
  PairForce<Pot> f{a.x.data(),     a.y.data(),       a.z.data(), a.type.data(), rows_with_shift(nl, 0, indices), nl.count.data(),
                   nl.stride,      style.params().data(), 3,       kernel_outputs(a, PassOptions{})};
  for (std::size_t i = 0; i < a.nlocal; ++i) f(static_cast<int>(i));
  return result_of(a);
}

template <class Pot>
Result fallback(const PairStyleImpl<Pot>& style, AtomStore a, const NeighborList& nl) {
  std::vector<double> pos(4 * a.nall());
  bool one_type = true;
  for (std::size_t i = 0; i < a.nall(); ++i) {
    pos[4 * i] = a.x[i];
    pos[4 * i + 1] = a.y[i];
    pos[4 * i + 2] = a.z[i];
    pos[4 * i + 3] = a.type[i];
    one_type = one_type && a.type[i] == 1;
  }
  PairKernelArgs<typename Pot::Params> args;
  args.pos = pos.data();
  std::vector<int> offsets;  // full rows' kernels read record offsets
  args.nbr = rows_with_shift(nl, kRecordShift, offsets);
  args.nbr_count = nl.count.data();
  args.stride = nl.stride;
  args.padded = false;
  args.params = style.params().data();
  args.type_stride = 3;
  args.one_type = one_type;
  args.fx = a.fx.data();
  args.fy = a.fy.data();
  args.fz = a.fz.data();
  args.pe = a.pe.data();
  args.virial = a.virial.data();
  args.accumulate = false;
  simd_fallback::pair_kernel_of<Pot>(args, 0, static_cast<int>(a.nlocal));
  return result_of(a);
}

void check_close(const std::vector<double>& got, const std::vector<double>& ref) {
  REQUIRE(got.size() == ref.size());
  double scale = 0;
  for (double v : ref) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < ref.size(); ++i) REQUIRE(got[i] == Approx(ref[i]).epsilon(1e-12).margin(1e-13 * scale));
}

template <class Pot>
void check_variants(bool two_types) {
  INFO(Pot::name << (two_types ? ", two types" : ", one type"));
  for (unsigned seed : {1u, 2u}) {
    const std::unique_ptr<Simulation> made = random_system(two_types, seed);
    Simulation& sim = *made;
    const NeighborList& nl = sim.neighbor_list();
    const auto style = make_style<Pot>();
    const Result ref = reference(style, sim.atoms(), nl);
    AtomStore a = sim.atoms();
    style.compute_with(a, nl, SimdLevel::kScalar);
    const Result scalar = result_of(a);
    check_close(scalar.fx, ref.fx);
    check_close(scalar.fy, ref.fy);
    check_close(scalar.fz, ref.fz);
    check_close(scalar.pe, ref.pe);
    check_close(scalar.virial, ref.virial);
    // Some lists must end in a partial block of lanes, and some pairs lie
    // between a pair cutoff and the list's reach.
    int partial = 0;
    for (std::size_t i = 0; i < a.nlocal; ++i) partial += nl.count[i] % kPairLanes != 0;
    CHECK(partial > 0);
    // The fallback reads the rows as unpadded (partial blocks copied), the
    // variants read whole padded blocks: both must give the same result.
    REQUIRE(nl.pad == kPairLanes);
    CHECK(fallback(style, sim.atoms(), nl) == scalar);
    for (SimdLevel level : {SimdLevel::kAvx2, SimdLevel::kAvx512}) {
      if (!simd_supported(level)) {
        WARN("this CPU cannot run the " << simd_name(level) << " pair kernel: not compared");
        continue;
      }
      INFO(simd_name(level));
      AtomStore b = sim.atoms();
      style.compute_with(b, nl, level);
      CHECK(result_of(b) == scalar);
    }
  }
}

// Forces, energies and virials (per atom, and the virial tensor's sums) of
// `style` on `nl` with kernel `level`, on `threads` threads.
template <class Pot>
std::pair<Result, std::array<double, 8>> computed(const PairStyleImpl<Pot>& style, const AtomStore& atoms,
                                                  const NeighborList& nl, SimdLevel level, int threads,
                                                  bool mixed = false) {
  AtomStore a = atoms;
  std::vector<double> t[6];
  PassOptions opt;
  opt.mixed = mixed;
  for (int c = 0; c < 6; ++c) {
    t[c].assign(a.nlocal, 7.0);  // stored over, not added to
    opt.tensor[c] = t[c].data();
  }
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  style.compute_with(a, nl, level, opt);
  omp_set_num_threads(before);
  std::array<double, 8> sums{};
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    sums[0] += a.pe[i];
    sums[1] += a.virial[i];
    for (int c = 0; c < 6; ++c) sums[2 + c] += t[c][i];
  }
  return {result_of(a), sums};
}

// A list that holds each pair once (half, clusters) against the full list
// it replaces: the forces to rounding, the energy, virial and tensor sums,
// bitwise the same result on 1, 2 and 3 threads and in every variant.
template <class Pot>
void same_as_full(const AtomStore& a, const NeighborList& full, const NeighborList& once) {
  const auto style = make_style<Pot>();
  const auto ref = computed(style, a, full, SimdLevel::kScalar, 1);
  const auto one = computed(style, a, once, SimdLevel::kScalar, 1);
  check_close(one.first.fx, ref.first.fx);
  check_close(one.first.fy, ref.first.fy);
  check_close(one.first.fz, ref.first.fz);
  for (int c = 0; c < 8; ++c) CHECK(one.second[c] == Approx(ref.second[c]).epsilon(1e-12));
  for (int threads : {2, 3}) {
    INFO(threads << " threads");
    const auto many = computed(style, a, once, SimdLevel::kScalar, threads);
    CHECK(many.first == one.first);
    CHECK(many.second == one.second);
  }
  for (SimdLevel level : {SimdLevel::kAvx2, SimdLevel::kAvx512}) {
    if (!simd_supported(level)) continue;
    INFO(simd_name(level));
    const auto v = computed(style, a, once, level, 2);
    CHECK(v.first == one.first);
    CHECK(v.second == one.second);
  }
}

// A half list: the forces of the full list to rounding, the same energy and
// virial sums, bitwise the same result on 1, 2 and 3 threads and in every
// kernel variant; each pair of locals listed once, its slabs at most
// colors - 1 apart.
template <class Pot>
void check_half(bool two_types) {
  INFO(Pot::name << (two_types ? ", two types" : ", one type"));
  const std::unique_ptr<Simulation> made = random_system(two_types, 3);
  Simulation& sim = *made;
  const AtomStore& a = sim.atoms();
  const NeighborList full = test::list_with_shift(sim.neighbor_list(), 0);
  NeighborList half;
  VerletBuilder().build(a, SubDomain::whole(sim.box()), sim.reach(), half, true);
  REQUIRE(half.half);
  REQUIRE(half.colors == kHalfListColors);
  const int nslab = static_cast<int>(half.slab_start.size()) - 1;
  REQUIRE(nslab > half.colors);  // two slabs in some colours: threads share them
  // Each pair of locals once, ghosts as in the full list.
  const int nlocal = static_cast<int>(a.nlocal);
  std::vector<int> slab(a.nlocal);
  for (int s = 0; s < nslab; ++s)
    for (int k = half.slab_start[s]; k < half.slab_start[s + 1]; ++k) slab[half.slab_atoms[k]] = s;
  long full_local = 0, full_ghost = 0, half_local = 0, half_ghost = 0;
  for (int i = 0; i < nlocal; ++i) {
    for (int k = 0; k < full.count[i]; ++k) (full.index[i * full.stride + k] < nlocal ? full_local : full_ghost) += 1;
    for (int k = 0; k < half.count[i]; ++k) {
      const int j = half.index[i * half.stride + k];
      if (j >= nlocal) {
        ++half_ghost;
        continue;
      }
      ++half_local;
      REQUIRE(slab[j] - slab[i] >= 0);
      REQUIRE(slab[j] - slab[i] < half.colors);
    }
  }
  CHECK(2 * half_local == full_local);
  CHECK(half_ghost == full_ghost);

  same_as_full<Pot>(a, full, half);
}

// The cluster layout: every atom pair within reach in exactly one block
// lane (a pair of locals once, a local and a ghost once), the full list's
// forces to rounding and its energy and virial sums, bitwise the same
// result on 1, 2 and 3 threads and in every kernel variant.
template <class Pot>
void check_clusters(bool two_types) {
  INFO(Pot::name << (two_types ? ", two types" : ", one type"));
  const std::unique_ptr<Simulation> made = random_system(two_types, 4);
  Simulation& sim = *made;
  const AtomStore& a = sim.atoms();
  const NeighborList full = test::list_with_shift(sim.neighbor_list(), 0);
  NeighborList cl;
  ClusterListBuilder().build(a, SubDomain::whole(sim.box()), sim.reach(), cl);
  REQUIRE(cl.clustered);
  const ClusterPairs& c = cl.clusters;
  const int nlocal = static_cast<int>(a.nlocal), nall = static_cast<int>(a.nall());
  const int nslab = static_cast<int>(c.slab_start.size()) - 1;
  REQUIRE(nslab > kClusterColors);  // two slabs in some colours: threads share them
  // Every atom in one cluster, locals in local clusters.
  std::vector<int> cluster_of(a.nall(), -1);
  for (int k = 0; k < c.nclusters * kClusterSize; ++k) {
    const int i = c.atom[k];
    if (i < 0) continue;
    REQUIRE(cluster_of[i] == -1);
    cluster_of[i] = k / kClusterSize;
    CHECK((i < nlocal) == (k / kClusterSize < c.nlocal_clusters));
  }
  for (int i = 0; i < nall; ++i) REQUIRE(cluster_of[i] >= 0);
  // Each pair within reach counted once over the blocks.
  const double reach_sq = sim.reach() * sim.reach();
  std::map<std::pair<int, int>, int> seen;
  for (int ci = 0; ci < c.nlocal_clusters; ++ci)
    for (int k = c.row_start[ci]; k < c.row_start[ci + 1]; ++k) {
      const int cj = c.partner[k];
      // The row: its own cluster, local clusters after it, then ghosts.
      if (k == c.row_start[ci]) REQUIRE(cj == ci);
      if (k > c.row_start[ci] && k < c.ghost_start[ci]) REQUIRE((cj > ci && cj < c.nlocal_clusters));
      if (k >= c.ghost_start[ci]) REQUIRE(cj >= c.nlocal_clusters);
      for (int p = 0; p < kClusterSize; ++p)
        for (int q = cj == ci ? p + 1 : 0; q < kClusterSize; ++q) {
          const int i = c.atom[ci * kClusterSize + p], j = c.atom[cj * kClusterSize + q];
          if (i < 0 || j < 0) continue;
          const double dx = a.x[i] - a.x[j], dy = a.y[i] - a.y[j], dz = a.z[i] - a.z[j];
          if (dx * dx + dy * dy + dz * dz < reach_sq) ++seen[{std::min(i, j), std::max(i, j)}];
        }
    }
  long full_pairs = 0;
  for (int i = 0; i < nlocal; ++i)
    for (int k = 0; k < full.count[i]; ++k) {
      const int j = full.index[i * full.stride + k];
      if (j < nlocal && j < i) continue;
      ++full_pairs;
      const auto at = seen.find({std::min(i, j), std::max(i, j)});
      REQUIRE(at != seen.end());
      CHECK(at->second == 1);
    }
  CHECK(static_cast<long>(seen.size()) == full_pairs);

  same_as_full<Pot>(a, full, cl);
}

// precision: mixed on the CPU's cluster layout against double on the full
// list: forces per atom within 1e-5 relative and 2e-6 in root mean square,
// energy, virial and tensor sums within 1e-6, 1e-5 and 1e-5 of the sums of
// their magnitudes (the device's mixed precision bounds,
// tests/device/mixed_precision_test.cpp); bitwise the same on 1, 2 and 3
// threads and in every kernel variant.
template <class Pot>
void check_mixed(bool two_types, bool clusters) {
  INFO(Pot::name << (two_types ? ", two types" : ", one type") << (clusters ? ", clusters" : ", rows"));
  const std::unique_ptr<Simulation> made = random_system(two_types, 5);
  Simulation& sim = *made;
  const AtomStore& a = sim.atoms();
  NeighborList cl;
  if (clusters)
    ClusterListBuilder().build(a, SubDomain::whole(sim.box()), sim.reach(), cl);
  else
    cl = sim.neighbor_list();
  const auto style = make_style<Pot>();
  const auto ref = computed(style, a, sim.neighbor_list(), SimdLevel::kScalar, 1);
  const auto mix = computed(style, a, cl, SimdLevel::kScalar, 1, true);
  // The largest relative error of an atom's force, and the rms error
  // relative to the rms force.
  const auto errors = [&](const Result& m, const Result& r) {
    double worst = 0, d2 = 0, f2 = 0;
    for (std::size_t i = 0; i < a.nlocal; ++i) {
      const double d = std::hypot(m.fx[i] - r.fx[i], m.fy[i] - r.fy[i], m.fz[i] - r.fz[i]);
      const double size = std::hypot(m.fx[i], m.fy[i], m.fz[i]) + std::hypot(r.fx[i], r.fy[i], r.fz[i]);
      worst = std::max(worst, size > 0 ? 2 * d / size : d);
      d2 += d * d;
      f2 += r.fx[i] * r.fx[i] + r.fy[i] * r.fy[i] + r.fz[i] * r.fz[i];
    }
    return std::pair<double, double>{worst, std::sqrt(d2 / f2)};
  };
  const auto [worst, rms] = errors(mix.first, ref.first);
  CHECK(worst <= 1e-5);  // measured up to 7.3e-6 (lj/smooth/linear)
  CHECK(rms <= 2e-6);
  CHECK(worst > 1e-12);  // the float path ran
  std::printf("cpu %s mixed, %s%s: max relative force error %.3g, rms %.3g\n", clusters ? "clusters" : "rows",
              Pot::name, two_types ? " (two types)" : "", worst, rms);
  if (!clusters) {
    // Rows keep positions as integers modulo 2^32 (cpu_positions.hpp): the
    // same system 3,000 sigma from the origin, and across the wrap of the
    // integers, gives the same errors.
    for (const double shift : {3000.0, 2147483648.0 * fixed_quantum(style.max_cutoff()) - 7.0}) {
      AtomStore moved = a;
      for (std::size_t i = 0; i < moved.nall(); ++i) moved.x[i] += shift, moved.y[i] -= shift, moved.z[i] += shift;
      const auto far = errors(computed(style, moved, cl, SimdLevel::kScalar, 1, true).first, ref.first);
      CHECK(far.first <= 1e-5);
      CHECK(far.second <= 2e-6);
      std::printf("  the same moved by %.6g: max %.3g, rms %.3g\n", shift, far.first, far.second);
    }
  }
  double pe_mag = 0, w_mag = 0;
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    pe_mag += std::abs(ref.first.pe[i]);
    w_mag += std::abs(ref.first.virial[i]);
  }
  CHECK(std::abs(mix.second[0] - ref.second[0]) <= 1e-6 * pe_mag);
  CHECK(std::abs(mix.second[1] - ref.second[1]) <= 1e-5 * w_mag);
  for (int c = 2; c < 8; ++c) CHECK(std::abs(mix.second[c] - ref.second[c]) <= 1e-5 * w_mag);
  for (int threads : {2, 3}) {
    INFO(threads << " threads");
    const auto many = computed(style, a, cl, SimdLevel::kScalar, threads, true);
    CHECK(many.first == mix.first);
    CHECK(many.second == mix.second);
  }
  for (SimdLevel level : {SimdLevel::kAvx2, SimdLevel::kAvx512}) {
    if (!simd_supported(level)) continue;
    INFO(simd_name(level));
    const auto v = computed(style, a, cl, level, 2, true);
    CHECK(v.first == mix.first);
    CHECK(v.second == mix.second);
  }
  if (!clusters) {
    // A run's rows hold record offsets (NeighborList::entry_shift), which
    // the kernels read as they are; the rows above held atom indices,
    // converted for them. The same bits from either, in every variant, in
    // mixed precision and in double.
    NeighborList offsets;
    VerletBuilder().build(a, SubDomain::whole(sim.box()), sim.reach(), offsets, false, kRecordShift);
    REQUIRE(offsets.entry_shift == kRecordShift);
    for (SimdLevel level : {SimdLevel::kScalar, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
      if (!simd_supported(level)) continue;
      INFO(simd_name(level) << ", rows of record offsets");
      const auto v = computed(style, a, offsets, level, 2, true);
      CHECK(v.first == mix.first);
      CHECK(v.second == mix.second);
    }
    for (SimdLevel level : {SimdLevel::kScalar, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
      if (!simd_supported(level)) continue;
      INFO(simd_name(level) << ", double, rows of record offsets");
      const auto v = computed(style, a, offsets, level, 2);
      CHECK(v.first == ref.first);
      CHECK(v.second == ref.second);
    }
  }
}

// Forces only (PassOptions::energy false, the steps that read no energy):
// on every layout and in every variant, the forces are bitwise those of the
// same kernel with energies, energy and virial stored as zero, or left as
// they were by a later force of the list (accumulate).
template <class Pot>
void check_forces_only(bool two_types) {
  INFO(Pot::name << (two_types ? ", two types" : ", one type"));
  const std::unique_ptr<Simulation> made = random_system(two_types, 6);
  Simulation& sim = *made;
  const AtomStore& atoms = sim.atoms();
  NeighborList half, cl;
  VerletBuilder().build(atoms, SubDomain::whole(sim.box()), sim.reach(), half, true);
  ClusterListBuilder().build(atoms, SubDomain::whole(sim.box()), sim.reach(), cl);
  const auto style = make_style<Pot>();
  struct Layout {
    const char* name;
    const NeighborList& list;
    bool mixed;
  };
  for (const Layout& l : {Layout{"full", sim.neighbor_list(), false}, Layout{"full, mixed", sim.neighbor_list(), true},
                          Layout{"half", half, false}, Layout{"clusters", cl, false},
                          Layout{"clusters, mixed", cl, true}})
    for (SimdLevel level : {SimdLevel::kScalar, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
      if (!simd_supported(level)) continue;
      INFO(l.name << ", " << simd_name(level));
      PassOptions opt;
      opt.mixed = l.mixed;
      AtomStore with = atoms;
      style.compute_with(with, l.list, level, opt);
      const Result e = result_of(with);
      opt.energy = false;
      AtomStore only = atoms;
      std::fill(only.pe.begin(), only.pe.end(), 7.0);  // stored over
      std::fill(only.virial.begin(), only.virial.end(), 7.0);
      style.compute_with(only, l.list, level, opt);
      Result f = result_of(only);
      CHECK(f.fx == e.fx);
      CHECK(f.fy == e.fy);
      CHECK(f.fz == e.fz);
      double pe = 0, w = 0, pe_with = 0;
      for (std::size_t i = 0; i < atoms.nlocal; ++i) {
        pe += std::abs(f.pe[i]);
        w += std::abs(f.virial[i]);
        pe_with += std::abs(e.pe[i]);
      }
      CHECK(pe == 0);
      CHECK(w == 0);
      CHECK(pe_with > 0);
      // A later force of the list adds the same forces as with energies,
      // and no energy or virial.
      opt.accumulate = true;
      AtomStore later = with;
      style.compute_with(later, l.list, level, opt);
      opt.energy = true;
      style.compute_with(with, l.list, level, opt);
      f = result_of(later);
      const Result g = result_of(with);
      CHECK(f.fx == g.fx);
      CHECK(f.fy == g.fy);
      CHECK(f.fz == g.fz);
      CHECK(f.pe == e.pe);
      CHECK(f.virial == e.virial);
      CHECK(g.pe != e.pe);
    }
}

}  // namespace

TEST_CASE("forces only: every layout and variant gives the same forces bitwise, no energy or virial",
          "[simd]") {
  check_forces_only<LJCut>(true);
  check_forces_only<LJCut>(false);
  check_forces_only<LJSmoothLinear>(true);
  check_forces_only<Morse>(true);
}

TEST_CASE("half lists: each pair once, the full list's forces, any thread count bitwise", "[simd][neighbor]") {
  check_half<LJCut>(true);
  check_half<LJCut>(false);
  check_half<LJSmoothLinear>(true);
  check_half<Morse>(true);
}

TEST_CASE("cluster pairs: each atom pair once, the full list's forces, any thread count bitwise",
          "[simd][neighbor]") {
  check_clusters<LJCut>(true);
  check_clusters<LJCut>(false);
  check_clusters<LJSmoothLinear>(true);
  check_clusters<Morse>(true);
}

TEST_CASE("CPU mixed precision on cluster pairs: double's forces within 1e-5, any thread count and variant bitwise",
          "[simd][mixed]") {
  check_mixed<LJCut>(true, true);
  check_mixed<LJCut>(false, true);
  check_mixed<LJSmoothLinear>(true, true);
  check_mixed<Morse>(true, true);
}

TEST_CASE("CPU mixed precision on full rows: double's forces within 1e-5, any thread count and variant bitwise",
          "[simd][mixed]") {
  check_mixed<LJCut>(true, false);
  check_mixed<LJCut>(false, false);
  check_mixed<LJSmoothLinear>(true, false);
  check_mixed<LJSmoothLinear>(false, false);
  check_mixed<Morse>(true, false);
}

TEST_CASE("pair kernel variants agree bitwise, and with PairForce to rounding", "[simd]") {
  check_variants<LJCut>(true);
  check_variants<LJCut>(false);
  check_variants<LJSmoothLinear>(true);
  check_variants<LJSmoothLinear>(false);
  check_variants<Morse>(true);
  check_variants<Morse>(false);
}

TEST_CASE("the chosen pair kernel is one this CPU runs", "[simd]") {
  CHECK(simd_supported(SimdLevel::kScalar));
  CHECK(simd_supported(simd_level()));
}

TEST_CASE("the list search's variants copy candidates and list neighbours alike, exclusions included",
          "[simd][neighbor]") {
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> pos(-2.0, 2.0);
  // Runs of every length around the vector widths, ids with repeats (a
  // partner's periodic images share its id), groups of 1 to 4 atoms, some
  // of them candidates themselves, each with its own 0 to 6 excluded ids.
  const AtomId excluded[6] = {100, 107, 103, 111, 105, 101};
  for (int n = 0; n <= 37; ++n) {
    std::vector<double> x(n), y(n), z(n);
    std::vector<int> atoms(n);
    std::vector<AtomId> id(n);
    for (int m = 0; m < n; ++m) {
      x[m] = pos(rng), y[m] = pos(rng), z[m] = pos(rng);
      atoms[m] = 3 * m + 1;
      id[m] = 100 + static_cast<AtomId>(rng() % 12);
    }
    const CandidatesIn from{x.data(), y.data(), z.data(), atoms.data(), id.data()};
    for (int size = 1; size <= kScanGroup; ++size) {
      double gx[kScanGroup], gy[kScanGroup], gz[kScanGroup];
      int self[kScanGroup], nex[kScanGroup];
      std::vector<std::vector<int>> want(size);
      for (int g = 0; g < size; ++g) {
        const int m = n > 0 ? (3 * g + n / 2) % n : 0;
        const bool candidate = n > 0 && g % 2 == 0;
        gx[g] = candidate ? x[m] : pos(rng);
        gy[g] = candidate ? y[m] : pos(rng);
        gz[g] = candidate ? z[m] : pos(rng);
        self[g] = candidate ? atoms[m] : -7;
        nex[g] = (2 * (g + size)) % 8 % 7;
        for (int c = 0; c < n; ++c) {
          const double r2 =
              (gx[g] - x[c]) * (gx[g] - x[c]) + (gy[g] - y[c]) * (gy[g] - y[c]) + (gz[g] - z[c]) * (gz[g] - z[c]);
          bool keep = r2 < 2.25 && atoms[c] != self[g];
          for (int e = 0; e < nex[g]; ++e) keep = keep && id[c] != excluded[e];
          if (keep) want[g].push_back(atoms[c]);
        }
      }
      for (bool with_ids : {false, true}) {
        for (SimdLevel level : {SimdLevel::kScalar, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
          if (!simd_supported(level)) continue;
          INFO("level " << static_cast<int>(level) << ", " << n << " candidates, a group of " << size
                        << (with_ids ? ", exclusions" : ""));
          // Copied behind 3 others, as the builder appends a block's rows,
          // then padded to whole vectors with far-away candidates.
          const int whole = 3 + (n + 7) / 8 * 8;
          std::vector<double> cx(whole + 8), cy(whole + 8), cz(whole + 8);
          std::vector<int> ca(whole + 8);
          std::vector<AtomId> cid(whole + 8);
          copy_candidates_for(level)(from, 0, n,
                                     CandidatesOut{cx.data(), cy.data(), cz.data(), ca.data(), cid.data()}, 3);
          bool same = true;
          for (int m = 0; m < n; ++m)
            same = same && cx[3 + m] == x[m] && cy[3 + m] == y[m] && cz[3 + m] == z[m] && ca[3 + m] == atoms[m] &&
                   cid[3 + m] == id[m];
          CHECK(same);
          for (int m = 3 + n; m < whole; ++m) cx[m] = cy[m] = cz[m] = std::numeric_limits<double>::infinity();
          ScanGroup group;
          group.n = size;
          std::vector<std::vector<int>> out(size, std::vector<int>(whole + 16));
          for (int g = 0; g < size; ++g) {
            group.x[g] = gx[g], group.y[g] = gy[g], group.z[g] = gz[g];
            group.self[g] = self[g];
            group.out[g] = out[g].data();
            group.excluded[g] = excluded;
            group.excluded_n[g] = nex[g];
          }
          if (with_ids) group.ids = cid.data() + 3;
          neighbor_scan_group_for(level)(cx.data() + 3, cy.data() + 3, cz.data() + 3, ca.data() + 3, whole - 3, 2.25,
                                         group);
          for (int g = 0; g < size; ++g) {
            std::vector<int> expect = want[g];
            if (!with_ids) {  // no ids: nothing excluded
              expect.clear();
              for (int c = 0; c < n; ++c) {
                const double r2 = (gx[g] - x[c]) * (gx[g] - x[c]) + (gy[g] - y[c]) * (gy[g] - y[c]) +
                                  (gz[g] - z[c]) * (gz[g] - z[c]);
                if (r2 < 2.25 && atoms[c] != self[g]) expect.push_back(atoms[c]);
              }
            }
            CHECK(std::vector<int>(out[g].begin(), out[g].begin() + group.count[g]) == expect);
          }
        }
      }
    }
  }
}

TEST_CASE("the float list search lists what the double test lists, pairs within rounding of the reach included",
          "[simd][neighbor]") {
  const NeighborScanGroupFloatFn scan = neighbor_scan_group_float_for(simd_level());
  if (scan == nullptr) {
    WARN("no float list search on this CPU (AVX-512 only): the double one lists alone");
    return;
  }
  const CandidateCopyFloatFn copy = copy_candidates_float_for(simd_level());
  // A block far from the origin (offsets from its corner are small, the
  // coordinates are not), its candidates random in the stencil's 3 reach
  // widths, and as many again placed at the reach from a group atom to
  // within a few units of 1e-9 in r^2, where float sums cannot tell.
  const double reach = 2.8, reach_sq = reach * reach;
  const double o[3] = {1000.25, -2000.5, 333.125};
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> in_stencil(0.0, 3 * reach), unit(-1.0, 1.0), tiny(-4e-9, 4e-9);
  for (int n : {0, 1, 15, 16, 17, 150, 333}) {
    std::vector<double> X, Y, Z;
    const int groups = 4;
    for (int g = 0; g < groups; ++g) {  // the group's atoms first, then candidates; atoms 0 and 2 are both
      X.push_back(o[0] + reach + in_stencil(rng) / 3);
      Y.push_back(o[1] + reach + in_stencil(rng) / 3);
      Z.push_back(o[2] + reach + in_stencil(rng) / 3);
    }
    for (int m = 0; m < n; ++m) {
      if (m % 2 == 0) {
        X.push_back(o[0] + in_stencil(rng));
        Y.push_back(o[1] + in_stencil(rng));
        Z.push_back(o[2] + in_stencil(rng));
        continue;
      }
      const int g = m % groups;
      double u[3];
      double len = 0;
      do {
        for (double& c : u) c = unit(rng);
        len = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
      } while (len < 0.1 || len > 1.0);
      const double r = reach * std::sqrt(1.0 + tiny(rng));
      X.push_back(X[g] + r * u[0] / len);
      Y.push_back(Y[g] + r * u[1] / len);
      Z.push_back(Z[g] + r * u[2] / len);
    }
    // One coordinate that is no number (a run gone wrong between its
    // guard's checks): never listed, and the other lists still exact.
    if (n == 333) X[groups + 7] = std::numeric_limits<double>::quiet_NaN();
    if (n == 150) Z[groups + 9] = std::numeric_limits<double>::infinity();
    // Candidates: atoms 0 and 2 of the group, then the others.
    std::vector<int> cand = {0, 2};
    for (int m = 0; m < n; ++m) cand.push_back(groups + m);
    const int nc = static_cast<int>(cand.size());
    std::vector<double> bx(nc), by(nc), bz(nc);
    for (int c = 0; c < nc; ++c) bx[c] = X[cand[c]], by[c] = Y[cand[c]], bz[c] = Z[cand[c]];
    const CandidatesIn from{bx.data(), by.data(), bz.data(), cand.data(), nullptr};
    const int whole = 3 + (nc + 15) / 16 * 16;
    std::vector<float> fx(whole + 16), fy(whole + 16), fz(whole + 16);
    std::vector<int> fa(whole + 16);
    const double extent = copy(from, 0, nc, o, FloatCandidatesOut{fx.data(), fy.data(), fz.data(), fa.data()}, 3);
    double want_extent = 0;
    bool same = true;
    for (int c = 0; c < nc; ++c) {
      const double d[3] = {bx[c] - o[0], by[c] - o[1], bz[c] - o[2]};
      for (double v : d) want_extent = std::max(want_extent, std::abs(v));
      // The offsets' bits (a NaN is a NaN).
      const auto is = [](float got, double want) {
        return got == static_cast<float>(want) || (std::isnan(got) && std::isnan(want));
      };
      same = same && is(fx[3 + c], d[0]) && is(fy[3 + c], d[1]) && is(fz[3 + c], d[2]) && fa[3 + c] == cand[c];
    }
    CHECK(same);
    if (n == 150 || n == 333)
      CHECK(extent == std::numeric_limits<double>::infinity());
    else
      CHECK(extent == want_extent);
    for (int m = 3 + nc; m < whole; ++m) {
      fx[m] = fy[m] = fz[m] = std::numeric_limits<float>::infinity();
      fa[m] = -1;
    }
    ScanGroupFloat f;
    f.x = X.data(), f.y = Y.data(), f.z = Z.data();
    f.band = static_cast<float>(std::ldexp(std::max(extent, reach) * std::max(extent, reach), -15));
    ScanGroup group;
    group.n = groups;
    std::vector<std::vector<int>> out(groups, std::vector<int>(whole + 16));
    int undecided = 0;  // pairs that float sums alone would list wrongly
    for (int g = 0; g < groups; ++g) {
      group.x[g] = X[g], group.y[g] = Y[g], group.z[g] = Z[g];
      f.fx[g] = static_cast<float>(X[g] - o[0]);
      f.fy[g] = static_cast<float>(Y[g] - o[1]);
      f.fz[g] = static_cast<float>(Z[g] - o[2]);
      group.self[g] = g;
      group.out[g] = out[g].data();
    }
    scan(fx.data() + 3, fy.data() + 3, fz.data() + 3, fa.data() + 3, whole - 3, reach_sq, f, group);
    for (int g = 0; g < groups; ++g) {
      std::vector<int> expect;
      for (int c = 0; c < nc; ++c) {
        const int j = cand[c];
        const double dx = X[g] - X[j], dy = Y[g] - Y[j], dz = Z[g] - Z[j];
        const bool listed = dx * dx + dy * dy + dz * dz < reach_sq && j != g;
        if (listed) expect.push_back(j);
        const float ex = f.fx[g] - fx[3 + c], ey = f.fy[g] - fy[3 + c], ez = f.fz[g] - fz[3 + c];
        undecided += j != g && (ex * ex + ey * ey + ez * ez < static_cast<float>(reach_sq)) != listed;
      }
      INFO(n << " candidates, group atom " << g);
      CHECK(std::vector<int>(out[g].begin(), out[g].begin() + group.count[g]) == expect);
    }
    if (n >= 150) CHECK(undecided > 0);  // the band's double test was needed
  }
}

TEST_CASE("the Langevin loop's variants add the functor's friction and noise bitwise, any thread count",
          "[simd][langevin]") {
  // Two types, ids past 2^32 (the counter's high word), a velocity spread
  // over orders of magnitude; counts around the vector widths.
  for (int n : {0, 1, 7, 8, 15, 16, 17, 1001}) {
    AtomStore a;
    a.mass_of_type = {0.0, 1.0, 39.948};
    a.resize_local(static_cast<std::size_t>(n));
    std::mt19937_64 rng(20261130 + n);
    std::uniform_real_distribution<double> u(-1.0, 1.0), mag(-4.0, 2.0);
    for (int i = 0; i < n; ++i) {
      a.id[i] = (AtomId{1} << 33) + 7 * i + 1;
      a.type[i] = 1 + i % 2;
      for (auto* v : {&a.vx, &a.vy, &a.vz, &a.fx, &a.fy, &a.fz}) (*v)[i] = u(rng) * std::pow(10.0, mag(rng));
    }
    auto lf = [](AtomStore& s) {
      return LangevinForce{1.0 / 0.7, 3.25, 0xC0FFEEull + 5, 1234, s.id.data(), s.type.data(), s.mass_of_type.data(),
                           s.vx.data(), s.vy.data(), s.vz.data(), s.fx.data(), s.fy.data(), s.fz.data()};
    };
    AtomStore expect = a;
    const LangevinForce one = lf(expect);
    for (int i = 0; i < n; ++i) one(i);  // the functor itself, atom by atom
    // and the noise is there: every force moved
    for (int i = 0; i < n; ++i) CHECK(expect.fx[i] != a.fx[i]);
    for (SimdLevel level : {SimdLevel::kScalar, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
      if (!simd_supported(level)) {
        WARN("this CPU cannot run the " << simd_name(level) << " Langevin loop: not compared");
        continue;
      }
      for (int threads : {1, 2, 3}) {
        INFO(simd_name(level) << ", " << n << " atoms, " << threads << " threads");
        AtomStore b = a;
        const int before = omp_get_max_threads();
        omp_set_num_threads(threads);
        langevin_forces(lf(b), n, level);
        omp_set_num_threads(before);
        CHECK(b.fx == expect.fx);
        CHECK(b.fy == expect.fy);
        CHECK(b.fz == expect.fz);
        CHECK(b.vx == a.vx);
      }
    }
  }
}
