// The CPU bond kernels (backend/cpu_bond_kernel.hpp) in every variant this
// CPU runs, against the scalar loop they replace, written out here: each
// atom's bonds in slot order through bond_force_on_self.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "backend/cpu_bond_kernel.hpp"
#include "bonded/bonded_force.hpp"

using namespace tessera;

namespace {

struct BondKernelSystem {
  int nlocal = 0;
  std::vector<double> x, y, z;
  std::vector<int> type[kMaxBonds], partner[kMaxBonds];
};

// Locals in a chain-like tangle with ghosts beyond them; partners at bond
// lengths, a few missing (-1), one beyond the reach, one clamped and one
// broken FENE bond, slots filled from the first.
BondKernelSystem make_bond_system(int nlocal, int ntypes, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  BondKernelSystem s;
  s.nlocal = nlocal;
  const int ntotal = nlocal + nlocal / 3;
  for (int i = 0; i < ntotal; ++i) {
    s.x.push_back(6 * u(rng));
    s.y.push_back(6 * u(rng));
    s.z.push_back(6 * u(rng));
  }
  for (auto& t : s.type) t.assign(nlocal, 0);
  for (auto& p : s.partner) p.assign(nlocal, -1);
  std::uniform_int_distribution<int> nb(0, kMaxBonds), pick(0, ntotal - 1), ty(1, ntypes);
  for (int i = 0; i < nlocal; ++i) {
    const int n = nb(rng);
    for (int b = 0; b < n; ++b) {
      s.type[b][i] = ty(rng);
      int j = pick(rng);
      if (j == i) j = (j + 1) % ntotal;
      // Put the partner at a bond length (0.8 .. 1.2) from atom i, unless
      // it stays where it is to be missing (-1) or far.
      const int kind = static_cast<int>(rng() % 40);
      if (kind == 0) {
        s.partner[b][i] = -1;
        continue;
      }
      s.partner[b][i] = j;
      if (kind == 1) continue;  // wherever the partner is: often beyond the reach
      const double len = kind == 2 ? 1.47 : (kind == 3 ? 1.52 : 0.8 + 0.4 * (u(rng) + 1) / 2);
      double dx = u(rng), dy = u(rng), dz = u(rng);
      const double r = std::sqrt(dx * dx + dy * dy + dz * dz) + 1e-3;
      s.x[j] = s.x[i] + len * dx / r;
      s.y[j] = s.y[i] + len * dy / r;
      s.z[j] = s.z[i] + len * dz / r;
    }
  }
  return s;
}

struct BondOutputs {
  std::vector<double> v[11];  // fx fy fz pe virial, tensor xx yy zz xy xz yz
  explicit BondOutputs(int n, double fill) {
    for (auto& a : v) a.assign(n, fill);
  }
};

template <class Style>
BondKernelResult reference_bonds(const BondKernelSystem& s, const std::vector<typename Style::Params>& params,
                                 double reach_sq, bool accumulate, bool tensor, BondOutputs& out, long begin,
                                 long end) {
  BondKernelResult res{end, end};
  for (long i = begin; i < end; ++i) {
    BondedSums sum;
    for (int b = 0; b < kMaxBonds && s.type[b][i] != 0; ++b) {
      const int j = s.partner[b][i];
      if (j < 0) {
        res.bad = std::min(res.bad, i);
        continue;
      }
      const Vec3<double> d{s.x[i] - s.x[j], s.y[i] - s.y[j], s.z[i] - s.z[j]};
      if (dot3(d, d) > reach_sq) {
        res.bad = std::min(res.bad, i);
        continue;
      }
      Vec3<double> f;
      double eh, wh;
      const BondStatus st = bond_force_on_self<Style>(d, params[s.type[b][i]], f, eh, wh);
      if (st == BondStatus::kBroken) res.bad = std::min(res.bad, i);
      if (st == BondStatus::kStretched) res.stretched = std::min(res.stretched, i);
      sum.f[0] += f.x, sum.f[1] += f.y, sum.f[2] += f.z;
      sum.e += eh, sum.w += wh;
      if (tensor) {
        const double dd[3] = {d.x, d.y, d.z}, ff[3] = {f.x, f.y, f.z};
        sum.add_tensor(dd, ff, 0.5);
      }
    }
    const double v[11] = {sum.f[0], sum.f[1], sum.f[2], sum.e,    sum.w,   sum.t[0],
                          sum.t[1], sum.t[2], sum.t[3], sum.t[4], sum.t[5]};
    for (int c = 0; c < (tensor ? 11 : 5); ++c) out.v[c][i] = accumulate ? out.v[c][i] + v[c] : v[c];
  }
  return res;
}

template <class Style>
void check_bond_kernels(const std::vector<BondedCoeffs>& coeffs) {
  std::vector<typename Style::Params> params;
  for (const auto& c : coeffs) params.push_back(Style::params(c));
  const int ntypes = static_cast<int>(coeffs.size()) - 1;
  const BondKernelSystem s = make_bond_system(203, ntypes, 17u + static_cast<unsigned>(ntypes));
  const double reach_sq = 2.0 * 2.0;
  for (SimdLevel level : {SimdLevel::kScalar, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
    if (!simd_supported(level)) continue;
    for (bool accumulate : {false, true})
      for (bool tensor : {false, true})
        // Ranges that start and end inside a lane block, and the whole.
        for (auto range : {std::pair<long, long>{0, s.nlocal}, {3, 61}, {77, 78}, {130, 203}}) {
          INFO(simd_name(level) << ", accumulate " << accumulate << ", tensor " << tensor << ", atoms ["
                                << range.first << ", " << range.second << ")");
          BondOutputs want(s.nlocal, 0.25), got(s.nlocal, 0.25);
          const BondKernelResult rw =
              reference_bonds<Style>(s, params, reach_sq, accumulate, tensor, want, range.first, range.second);
          BondKernelArgs<typename Style::Params> k{};
          k.x = s.x.data(), k.y = s.y.data(), k.z = s.z.data();
          for (int b = 0; b < kMaxBonds; ++b) k.type[b] = s.type[b].data(), k.partner[b] = s.partner[b].data();
          k.params = params.data();
          k.one_type = ntypes == 1;
          k.reach_sq = reach_sq;
          double* o[11];
          for (int c = 0; c < 11; ++c) o[c] = got.v[c].data();
          k.fx = o[0], k.fy = o[1], k.fz = o[2], k.pe = o[3], k.virial = o[4];
          for (int c = 0; c < 6; ++c) k.tensor[c] = tensor ? o[5 + c] : nullptr;
          k.accumulate = accumulate;
          const BondKernelResult rg = bond_kernel_for<Style>(level)(k, range.first, range.second);
          CHECK(rg.bad == rw.bad);
          CHECK(rg.stretched == rw.stretched);
          long differ = 0;
          for (int c = 0; c < 11; ++c)
            differ += std::memcmp(want.v[c].data(), got.v[c].data(), sizeof(double) * s.nlocal) != 0;
          CHECK(differ == 0);
        }
  }
}

}  // namespace

TEST_CASE("bond kernels: every variant bitwise the scalar loop, failures at the same atoms", "[simd][bonded]") {
  SECTION("fene, one type") { check_bond_kernels<BondFENE>({{}, {{30.0, 1.5, 1.0, 1.0}}}); }
  SECTION("fene, three types") {
    check_bond_kernels<BondFENE>({{}, {{30.0, 1.5, 1.0, 1.0}}, {{20.0, 1.6, 0.5, 0.9}}, {{40.0, 1.5, 1.2, 1.1}}});
  }
  SECTION("harmonic, two types") { check_bond_kernels<BondHarmonic>({{}, {{100.0, 1.0}}, {{50.0, 1.1}}}); }
}

TEST_CASE("the test system has every kind of bond the kernels tell apart", "[simd][bonded]") {
  // Guards the test above: missing partners, bonds beyond the reach,
  // clamped and broken FENE bonds and empty slots all occur.
  const BondKernelSystem s = make_bond_system(203, 1, 18u);
  const auto p = BondFENE::params(BondedCoeffs{{30.0, 1.5, 1.0, 1.0}});
  int missing = 0, far = 0, clamped = 0, broken = 0, empty = 0;
  for (int i = 0; i < s.nlocal; ++i)
    for (int b = 0; b < kMaxBonds; ++b) {
      if (s.type[b][i] == 0) {
        ++empty;
        continue;
      }
      const int j = s.partner[b][i];
      if (j < 0) {
        ++missing;
        continue;
      }
      const double dx = s.x[i] - s.x[j], dy = s.y[i] - s.y[j], dz = s.z[i] - s.z[j];
      const double r2 = dx * dx + dy * dy + dz * dz;
      if (r2 > 4.0) {
        ++far;
        continue;
      }
      double f, e;
      const BondStatus st = BondFENE::eval(r2, p, f, e);
      clamped += st == BondStatus::kStretched;
      broken += st == BondStatus::kBroken;
    }
  CHECK(missing > 0);
  CHECK(far > 0);
  CHECK(clamped > 0);
  CHECK(broken > 0);
  CHECK(empty > 0);
}
