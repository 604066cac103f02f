// EAM (manybody/): the potential-file readers and their errors, the
// spline arithmetic, and forces and thermo against LAMMPS (29 Sep 2021) on
// melts that LAMMPS wrote (tests/reference/make_references.sh): Cu_u3.eam
// (funcfl), CuNi.eam.alloy (setfl) and AlFe_mm.eam.fs (Finnis-Sinclair),
// all from Debian's lammps-data.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend/cpu_pair_kernel.hpp"
#include "backend/cpu_simd.hpp"
#include "core/error.hpp"
#include "forces/force_list.hpp"
#include "manybody/eam_file.hpp"
#include "manybody/eam_force.hpp"
#include "manybody/eam_tables.hpp"
#include "neighbor/neighbor_list.hpp"
#include "run/simulation.hpp"
#include "system/build_system.hpp"
#include "test_support.hpp"

using namespace tessera;
using test::reference;

namespace {

const std::string kPotentials = "/usr/share/lammps/potentials/";

struct EamCase {
  std::string name;  // of the reference files: <name>_melt.data, _forces.dump, _nve_100.csv
  std::string potential_yaml;
};

const EamCase kCu{"cu_eam", "{style: eam, file: " + kPotentials + "Cu_u3.eam}"};
const EamCase kCuNi{"cuni_eam", "{style: eam/alloy, file: " + kPotentials + "CuNi.eam.alloy, elements: [Cu, Ni]}"};
const EamCase kAlFe{"alfe_eam", "{style: eam/fs, file: " + kPotentials + "AlFe_mm.eam.fs, elements: [Al, Fe]}"};

std::string melt_deck(const EamCase& c, long steps) {
  return "units: metal\nsystem: {read_data: " + reference(c.name + "_melt.data") + "}\npotential: " + c.potential_yaml +
         "\nneighbor: {skin: 1.0, every: 1, delay: 0, check: true}\n"
         "integrator: {style: nve, dt: 0.001}\nrun: {steps: " +
         std::to_string(steps) + "}\n";
}

// The message of the InputError that `f` throws ("" if none).
template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A small setfl file: elements A and B, nrho = nr = 6, smooth tables.
std::string setfl_text(int nr_header = 6, const std::string& bad_value = "") {
  std::string s = "comment 1\ncomment 2\ncomment 3\n2 A B\n";
  s += fmt::format("6 0.5 {} 1.0 {}.0\n", nr_header, std::min(nr_header, 6));
  auto table = [&](double scale, bool spoil = false) {
    std::string t;
    for (int k = 0; k < 6; ++k) {
      t += (spoil && k == 3) ? bad_value : fmt::format("{}", scale * (k - 2.5) * (k - 6));
      t += k == 2 || k == 5 ? "\n" : " ";
    }
    return t;
  };
  for (int e = 0; e < 2; ++e)
    s += fmt::format("{} {} 3.6 fcc\n", 10 + e, 50.0 + e) + table(1 + e) +
         table(0.1 * (1 + e), e == 1 && !bad_value.empty());
  for (int p = 0; p < 3; ++p) s += table(0.01 * (p + 1));
  return s;
}

}  // namespace

TEST_CASE("EAM files: every funcfl, setfl and Finnis-Sinclair file of lammps-data reads", "[eam]") {
  int read = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kPotentials)) {
    const std::string p = entry.path().string();
    auto ends = [&](const std::string& s) {
      return p.size() > s.size() && p.compare(p.size() - s.size(), s.size(), s) == 0;
    };
    INFO(p);
    if (ends(".eam")) {
      const EamFile f = read_eam_file(p, EamFormat::kFuncfl);
      CHECK(f.frho.at(0).size() == static_cast<std::size_t>(f.nrho));
      CHECK(f.zr.size() == static_cast<std::size_t>(f.nr));
    } else if (ends(".eam.alloy") || ends(".eam.fs")) {
      const EamFile f = read_eam_file(p, ends(".eam.fs") ? EamFormat::kFinnisSinclair : EamFormat::kSetfl);
      const std::size_t n = f.elements.size();
      CHECK(f.rhor.size() == (ends(".eam.fs") ? n * n : n));
      CHECK(f.z2r.size() == n * (n + 1) / 2);
    } else {
      continue;
    }
    ++read;
  }
  CHECK(read >= 25);
  const EamFile cu = read_eam_file(kPotentials + "Cu_u3.eam", EamFormat::kFuncfl);
  CHECK(cu.nrho == 500);
  CHECK(cu.mass.at(0) == 63.55);
  CHECK(cu.cut == 4.9499999999999886);
  CHECK(cu.rhor.at(0).front() == 0.0);
  const EamFile cuni = read_eam_file(kPotentials + "CuNi.eam.alloy", EamFormat::kSetfl);
  CHECK(cuni.elements == std::vector<std::string>{"Ni", "Cu"});
  CHECK(cuni.element_index("Cu") == 1);
  CHECK(cuni.mass.at(1) == 63.546);
}

TEST_CASE("EAM splines: a cubic comes back exactly between interior knots", "[eam]") {
  // The five-point slopes are exact for polynomials up to degree 4, so the
  // Hermite pieces reproduce a cubic where the stencil fits.
  const int n = 20;
  const double delta = 0.25;
  auto f = [](double x) { return 0.5 * x * x * x - 2 * x * x + x - 3; };
  auto df = [](double x) { return 1.5 * x * x - 4 * x + 1; };
  std::vector<double> v(n + 1, 0.0);
  for (int m = 1; m <= n; ++m) v[m] = f((m - 1) * delta);
  std::vector<double> s((n + 1) * kEamCoeffs);
  eam_spline(n, delta, v, s.data());
  for (double x = 2 * delta; x < (n - 4) * delta; x += 0.0371) {
    double p = x / delta + 1.0;
    const int m = static_cast<int>(p);
    p -= m;
    const double* c = &s[m * kEamCoeffs];
    CHECK(((c[3] * p + c[4]) * p + c[5]) * p + c[6] == Approx(f(x)).epsilon(1e-12));
    CHECK((c[0] * p + c[1]) * p + c[2] == Approx(df(x)).epsilon(1e-12));
  }
}

TEST_CASE("EAM forces agree with LAMMPS to 1e-10 per atom", "[eam][lammps]") {
  for (const EamCase& c : {kCu, kCuNi, kAlFe}) {
    INFO(c.name);
    Simulation sim(test::deck_from(melt_deck(c, 0)));
    sim.setup();
    const auto ref = test::read_dump_forces(reference(c.name + "_forces.dump"));
    const auto& a = sim.atoms();
    REQUIRE(ref.size() == a.nlocal);
    double fmax = 0;
    const double worst = test::worst_force_difference(a, ref, fmax);
    fmt::print("EAM {}: worst per-atom force difference {:.3e} (largest force {:.3g} eV/A)\n", c.name, worst, fmax);
    CHECK(fmax > 1.0);  // a melt: forces far from zero
    CHECK(worst <= 1e-10);
  }
}

TEST_CASE("EAM with two funcfl files of different grids agrees with LAMMPS", "[eam][lammps]") {
  // Cu_u3 (dr 0.01) for type 1, Ni_u3 (dr 0.0097) for type 2: both carried
  // onto LAMMPS's common grid, the Cu-Ni pair term from both Z(r).
  const EamCase c{"cuni_eam", "{style: eam, file: [" + kPotentials + "Cu_u3.eam, " + kPotentials + "Ni_u3.eam]}"};
  Simulation sim(test::deck_from(melt_deck(c, 0)));
  sim.setup();
  const auto ref = test::read_dump_forces(reference("cuni_funcfl_forces.dump"));
  REQUIRE(ref.size() == sim.atoms().nlocal);
  double fmax = 0;
  const double worst = test::worst_force_difference(sim.atoms(), ref, fmax);
  fmt::print("EAM Cu_u3 + Ni_u3 funcfl: worst per-atom force difference {:.3e}\n", worst);
  CHECK(fmax > 1.0);
  CHECK(worst <= 1e-10);
  const auto pe = test::read_csv(reference("cuni_funcfl_run0.csv"));
  CHECK(test::rel_diff(sim.thermo().pe, pe.at("pe")[0]) <= 1e-12);
}

TEST_CASE("100 NVE steps of EAM melts follow LAMMPS's thermo to 1e-8", "[eam][lammps]") {
  for (const EamCase& c : {kCu, kCuNi, kAlFe}) {
    INFO(c.name);
    const auto ref = test::read_csv(reference(c.name + "_nve_100.csv"));
    REQUIRE(ref.at("step").size() == 101);
    Simulation sim(test::deck_from(melt_deck(c, 100)));
    sim.setup();
    std::map<std::string, double> worst;
    for (int s = 0; s <= 100; ++s) {
      if (s > 0) sim.run(1, nullptr);
      const ThermoValues v = sim.thermo();
      const std::map<std::string, double> ours = {
          {"temp", v.temp}, {"pe", v.pe}, {"ke", v.ke}, {"etotal", v.etotal}, {"press", v.press}};
      for (const auto& [k, x] : ours) worst[k] = std::max(worst[k], test::rel_diff(x, ref.at(k)[s]));
    }
    for (const auto& [k, w] : worst) {
      fmt::print("EAM {}: {} over 100 steps, worst relative difference {:.3e}\n", c.name, k, w);
      INFO(k);
      CHECK(w <= 1e-8);
    }
  }
}

TEST_CASE("The pressure tensor of the EAM alloy melt agrees with LAMMPS to 1e-10", "[eam][lammps][virial]") {
  auto ref = test::read_csv(reference("cuni_eam_tensor_run0.csv"));
  Simulation plain(test::deck_from(melt_deck(kCuNi, 1)));
  plain.setup();
  Simulation asked(test::deck_from(melt_deck(kCuNi, 1)));
  asked.set_virial_tensor(true);
  asked.setup();
  const PressureTensor p = asked.pressure_tensor();
  const double mine[6] = {p.xx, p.yy, p.zz, p.xy, p.xz, p.yz};
  const char* names[6] = {"pxx", "pyy", "pzz", "pxy", "pxz", "pyz"};
  double scale = 0, worst = 0;
  for (const char* n : names) scale = std::max(scale, std::abs(ref[n][0]));
  for (int c = 0; c < 6; ++c) worst = std::max(worst, std::abs(mine[c] - ref[names[c]][0]) / scale);
  fmt::print("EAM pressure tensor vs LAMMPS: worst {:.3e} of the largest component\n", worst);
  CHECK(worst <= 1e-10);
  CHECK(std::abs(ref["pxy"][0]) > 1e-3 * scale);  // an off-diagonal part to get right
  // Asking for the tensor changes no bit of the rest.
  CHECK(asked.thermo().press == plain.thermo().press);
  CHECK(asked.thermo().pe == plain.thermo().pe);
  CHECK(asked.atoms().fx == plain.atoms().fx);
}

namespace {

// Both passes of `eam` on a copy of the atoms: F' of the locals, forces,
// energies, virials and the virial tensor.
std::vector<std::vector<double>> eam_passes(const EamForce& eam, const AtomStore& atoms, const NeighborList& nl,
                                            std::optional<SimdLevel> level) {
  AtomStore a = atoms;
  const std::size_t n = a.nlocal;
  std::vector<std::vector<double>> t(6, std::vector<double>(n));
  PassOptions opt;
  for (int c = 0; c < 6; ++c) opt.tensor[c] = t[c].data();
  // The ghosts keep the F' the setup forwarded, so every path's force pass
  // reads the same ghost values.
  eam.compute_pass_with(0, a, nl, {}, level);
  eam.compute_pass_with(1, a, nl, opt, level);
  std::vector<std::vector<double>> out = {
      {a.embedding_derivative.begin(), a.embedding_derivative.begin() + static_cast<long>(n)}, a.fx, a.fy, a.fz,
      a.pe, a.virial};
  for (auto& v : out) v.resize(n);
  out.insert(out.end(), t.begin(), t.end());
  return out;
}

}  // namespace

TEST_CASE("EAM lane kernels agree bitwise across variants, and with the functors to rounding", "[eam][simd]") {
  for (const EamCase& c : {kCu, kCuNi, kAlFe}) {
    INFO(c.name);
    Simulation sim(test::deck_from(melt_deck(c, 0)));
    sim.setup();
    const auto& eam = dynamic_cast<const EamForce&>(sim.potential());
    const NeighborList& nl = sim.neighbor_list();
    REQUIRE(nl.pad == kPairLanes);
    // EAM reads atom indices (Force::reads_record_offsets): its run's rows
    // hold them, unconverted.
    REQUIRE(nl.entry_shift == 0);
    int partial = 0;
    for (std::size_t i = 0; i < sim.atoms().nlocal; ++i) partial += nl.count[i] % kPairLanes != 0;
    CHECK(partial > 0);
    const auto functor = eam_passes(eam, sim.atoms(), nl, std::nullopt);
    const auto scalar = eam_passes(eam, sim.atoms(), nl, SimdLevel::kScalar);
    for (std::size_t q = 0; q < functor.size(); ++q) {
      INFO("quantity " << q);
      double scale = 0, worst = 0;
      for (double v : functor[q]) scale = std::max(scale, std::abs(v));
      for (std::size_t i = 0; i < functor[q].size(); ++i)
        worst = std::max(worst, std::abs(scalar[q][i] - functor[q][i]) / scale);
      CHECK(scale > 0);
      CHECK(worst <= 1e-12);
    }
    // Rows read as unpadded (the tail block copied) give the same bits.
    NeighborList unpadded = nl;
    unpadded.pad = 1;
    CHECK(eam_passes(eam, sim.atoms(), unpadded, SimdLevel::kScalar) == scalar);
    // Rows of record offsets (NeighborList::entry_shift) are read converted,
    // by the kernels and the functors alike. Made by rows_with_shift, which
    // shifts only each row's entries and padding (the rest is never written).
    const NeighborList offsets = test::list_with_shift(nl, kRecordShift);
    CHECK(eam_passes(eam, sim.atoms(), offsets, SimdLevel::kScalar) == scalar);
    CHECK(eam_passes(eam, sim.atoms(), offsets, std::nullopt) == functor);
    for (SimdLevel level : {SimdLevel::kAvx2, SimdLevel::kAvx512}) {
      if (!simd_supported(level)) {
        WARN("this CPU cannot run the " << simd_name(level) << " EAM kernel: not compared");
        continue;
      }
      INFO(simd_name(level));
      CHECK(eam_passes(eam, sim.atoms(), nl, level) == scalar);
      CHECK(eam_passes(eam, sim.atoms(), unpadded, level) == scalar);
    }
  }
}

TEST_CASE("EAM is a two-pass force whose forward is a registered ghost field", "[eam]") {
  Simulation sim(test::deck_from(melt_deck(kCu, 0)));
  const Force& f = sim.potential();
  CHECK(f.passes() == 2);
  REQUIRE(f.forwarded_after(0).size() == 1);
  ForceList list;  // refuses a quantity the halo cannot carry
  CHECK_NOTHROW(list.add(std::make_unique<EamForce>("eam", EamTables{})));
  CHECK(f.max_cutoff() == 4.9499999999999886);
}

TEST_CASE("EAM bad inputs: errors name the file and line", "[eam][deck]") {
  test::Scratch dir("eam-bad");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir.file(name)) << text;
    return dir.file(name);
  };
  auto deck = [&](const std::string& potential, int types = 2) {
    return fmt::format(R"(units: metal
system:
  lattice: {{style: fcc, constant: 3.6, cells: [5, 5, 5], basis_types: [1, {}, 1, 1]}}
  masses: {}
  types: {}
potential: {}
integrator: {{style: nve}}
run: {{steps: 1}}
)",
                       types, types == 1 ? "[50]" : "[50, 51]", types, potential);
  };
  auto load = [&](const std::string& potential, int types = 2) {
    return input_error([&] { Simulation sim(test::deck_from(deck(potential, types), "deck.yaml")); });
  };
  const std::string good = write("good.eam.alloy", setfl_text());
  CHECK(load("{style: eam/alloy, file: " + good + ", elements: [A, B]}") == "");

  // Missing file.
  CHECK_THAT(load("{style: eam/alloy, file: " + dir.file("nope") + ", elements: [A, B]}"),
             Catch::Contains("deck.yaml:6:") && Catch::Contains("cannot open") && Catch::Contains("nope"));
  // Truncated: the last table stops short.
  const std::string text = setfl_text();
  const std::string cut = write("cut.eam.alloy", text.substr(0, text.size() - 20));
  CHECK_THAT(load("{style: eam/alloy, file: " + cut + ", elements: [A, B]}"),
             Catch::Contains(cut + ":") && Catch::Contains("ends after"));
  // Wrong counts: the header promises more r points than the tables hold,
  // or fewer.
  const std::string more = write("more.eam.alloy", setfl_text(7));
  CHECK_THAT(load("{style: eam/alloy, file: " + more + ", elements: [A, B]}"),
             Catch::Contains(more + ":") && Catch::Contains("counts"));
  const std::string fewer = write("fewer.eam.alloy", setfl_text(5));
  CHECK_THAT(load("{style: eam/alloy, file: " + fewer + ", elements: [A, B]}"),
             Catch::Contains(fewer + ":10:") && Catch::Contains("counts"));
  // A word that is no number, and a NaN, on the line they are on.
  const std::string word = write("word.eam.alloy", setfl_text(6, "x1.5"));
  CHECK_THAT(load("{style: eam/alloy, file: " + word + ", elements: [A, B]}"),
             Catch::Contains(word + ":15:") && Catch::Contains("'x1.5' is not a number"));
  const std::string nan = write("nan.eam.alloy", setfl_text(6, "nan"));
  CHECK_THAT(load("{style: eam/alloy, file: " + nan + ", elements: [A, B]}"),
             Catch::Contains(nan + ":15:") && Catch::Contains("not a finite number"));
  // Element count and names.
  const std::string names = write("names.eam.alloy", test::replace(setfl_text(), "2 A B", "3 A B"));
  CHECK_THAT(load("{style: eam/alloy, file: " + names + ", elements: [A, B]}"),
             Catch::Contains(names + ":4:") && Catch::Contains("3 elements but names 2"));
  CHECK_THAT(load("{style: eam/alloy, file: " + good + ", elements: [A, C]}"),
             Catch::Contains("deck.yaml:6:") && Catch::Contains("element C is not in"));
  // A type without an element, and the tables too short for the cutoff.
  CHECK_THAT(load("{style: eam/alloy, file: " + good + ", elements: [A]}"),
             Catch::Contains("atom type 2 has no element"));
  const std::string shortr = write("short.eam.alloy", test::replace(setfl_text(), "6 1.0 6.0", "6 1.0 7.5"));
  CHECK_THAT(load("{style: eam/alloy, file: " + shortr + ", elements: [A, B]}"),
             Catch::Contains(shortr + ":5:") && Catch::Contains("short of the cutoff"));
  // A deck cutoff that disagrees with the file's; one that agrees is fine.
  CHECK_THAT(load("{style: eam/alloy, file: " + good + ", elements: [A, B], cutoff: 5.0}"),
             Catch::Contains("deck.yaml:6:") && Catch::Contains("disagrees with the cutoff 6"));
  CHECK(load("{style: eam/alloy, file: " + good + ", elements: [A, B], cutoff: 6.0}") == "");
  // Pair-style keys are not EAM's, and EAM's are not a pair style's.
  CHECK_THAT(load("{style: eam/alloy, file: " + good + ", elements: [A, B], shift: true}"), Catch::Contains("shift"));
  CHECK_THAT(load("{style: lj/cut, cutoff: 2.5, file: x, coeffs: [{types: [1, 1], epsilon: 1, sigma: 1}]}", 1),
             Catch::Contains("file"));
  // funcfl: one file for all types, or one per type.
  const std::string cu = kPotentials + "Cu_u3.eam";
  CHECK(load("{style: eam, file: [" + cu + ", " + cu + "]}") == "");
  CHECK_THAT(load("{style: eam, file: [" + cu + ", " + cu + ", " + cu + "]}"),
             Catch::Contains("3 files for the 2 atom type(s)"));
  CHECK_THAT(load("{style: eam, file: " + cu + ", elements: [Cu, Cu]}"), Catch::Contains("elements"));
}

TEST_CASE("EAM gives each atom type its file's mass, as LAMMPS's pair_coeff does", "[eam][deck]") {
  const std::string cu = kPotentials + "Cu_u3.eam";
  const std::string lattice = test::replace(R"(units: metal
system:
  lattice: {style: fcc, constant: 3.615, cells: [4, 4, 4]}
potential: {style: eam, file: CU}
velocity: {temperature: 300, seed: 1}
integrator: {style: nve}
run: {steps: 0}
)",
                                            "CU", cu);
  const Units& metal = units_for("metal");
  // No masses anywhere: Cu_u3.eam's 63.55 (its element line; the usual
  // 63.546 would be wrong), silently.
  const BuiltSystem plain = build_system(test::deck_from(lattice, "cu.yaml"), metal);
  CHECK(plain.atoms.mass_of_type == std::vector<double>{0.0, 63.55});
  CHECK(plain.notes.empty());
  // The deck's 63.546: the file's mass wins, a note names both, the key and
  // the file, and the velocities are drawn for the mass the run uses.
  const std::string with = test::replace(lattice, "cells: [4, 4, 4]}", "cells: [4, 4, 4]}\n  masses: [63.546]");
  const BuiltSystem given = build_system(test::deck_from(with, "cu.yaml"), metal);
  CHECK(given.atoms.mass_of_type == std::vector<double>{0.0, 63.55});
  REQUIRE(given.notes.size() == 1);
  CHECK_THAT(given.notes[0], Catch::StartsWith("type 1 has mass 63.546 in cu.yaml:4:") &&
                                 Catch::EndsWith("system.masses, but the potential file " + cu +
                                                 " gives 63.55: the run uses 63.55, as LAMMPS's pair_coeff does"));
  CHECK(given.atoms.vx == plain.atoms.vx);
  // The same mass as the file's: no note.
  CHECK(build_system(test::deck_from(test::replace(with, "63.546", "63.55")), metal).notes.empty());
  // Setfl: each type its element's (CuNi.eam.alloy lists Ni, 58.689, first).
  const std::string alloy = test::replace(test::replace(lattice, "{style: eam, file: " + cu + "}",
                                                        "{style: eam/alloy, file: " + kPotentials +
                                                            "CuNi.eam.alloy, elements: [Cu, Ni]}"),
                                          "cells: [4, 4, 4]}", "cells: [5, 5, 5], basis_types: [1, 2, 1, 2]}");
  CHECK(build_system(test::deck_from(alloy), metal).atoms.mass_of_type == std::vector<double>{0.0, 63.546, 58.689});
  // A data file with no Masses section takes the file's; one with another
  // mass keeps the file's too, and the note names the data file.
  test::Scratch dir("eam-masses");
  std::ifstream in(reference("cu_eam_melt.data"));
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(data.find("Masses\n\n1 63.55\n\n") != std::string::npos);
  std::ofstream(dir.file("none.data")) << test::replace(data, "Masses\n\n1 63.55\n\n", "");
  std::ofstream(dir.file("other.data")) << test::replace(data, "1 63.55\n", "1 63.546\n");
  auto from_data = [&](const std::string& file) {
    return build_system(test::deck_from(test::replace(melt_deck(kCu, 0), reference("cu_eam_melt.data"), file)), metal);
  };
  CHECK(from_data(dir.file("none.data")).atoms.mass_of_type == std::vector<double>{0.0, 63.55});
  const BuiltSystem other = from_data(dir.file("other.data"));
  CHECK(other.atoms.mass_of_type == std::vector<double>{0.0, 63.55});
  REQUIRE(other.notes.size() == 1);
  CHECK_THAT(other.notes[0], Catch::StartsWith("type 1 has mass 63.546 in " + dir.file("other.data") + ": Masses,"));
  // A pair potential names no element: its lattice still needs masses.
  CHECK_THAT(input_error([&] {
               test::deck_from(test::replace(lattice, "{style: eam, file: " + cu + "}",
                                             "{style: morse, cutoff: 4.0, coeffs: [{types: [1, 1], d0: 0.34, alpha: "
                                             "1.36, r0: 2.87}]}"),
                               "cu.yaml");
             }),
             Catch::Contains("cu.yaml:3:3: system: a lattice in metal units needs 'masses'"));
}
