#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "plan/figures.hpp"
#include "plan/plan.hpp"
#include "test_support.hpp"

using namespace tessera;

namespace {

const std::string kHeader = std::string(kFiguresHeader) + "\n";

std::string row(const std::string& device, const std::string& precision, long long atoms, double rate, int ranks = 1,
                const std::string& layout = "rows", const std::string& backend = "cuda",
                const std::string& date = "2026-12-01") {
  return fmt::format("{},abc1234,{},{},{},{},{},{},{}\n", date, device, backend, precision, layout, atoms, ranks, rate);
}

}  // namespace

TEST_CASE("a figures file reads back row by row, comments and blank lines skipped", "[plan][figures]") {
  const auto f = parse_figures("# measured\n\n" + kHeader + row("GPU A", "double", 32000, 2e8) + "  # another\n" +
                                   row("GPU A", "mixed", 2048000, 2.5e9, 1, "clusters"),
                               "f.csv");
  REQUIRE(f.size() == 2);
  CHECK(f[0].device == "GPU A");
  CHECK(f[0].atoms == 32000);
  CHECK(f[0].atom_steps_per_s == 2e8);
  CHECK(f[0].where == "f.csv:4");
  CHECK(f[1].precision == "mixed");
  CHECK(f[1].layout == "clusters");
  CHECK(f[1].where == "f.csv:6");
}

TEST_CASE("a bad figures file names its line and column", "[plan][figures]") {
  using Catch::Contains;
  CHECK_THROWS_WITH(parse_figures("# nothing\n", "f.csv"), Contains("f.csv: no header line"));
  CHECK_THROWS_WITH(parse_figures("date,device\n", "f.csv"),
                    Contains("f.csv:1: a figures file starts with the header"));
  CHECK_THROWS_WITH(parse_figures(kHeader + "2026-12-01,abc,GPU,cuda,double,rows,32000,1\n", "f.csv"),
                    Contains("f.csv:2: 8 columns, expected 9"));
  CHECK_THROWS_WITH(parse_figures(kHeader + row("GPU", "single", 32000, 2e8), "f.csv"),
                    Contains("f.csv:2: column 5 (precision): 'single' is not double or mixed"));
  CHECK_THROWS_WITH(parse_figures(kHeader + row("GPU", "double", 32000, 2e8, 1, "rows", "hip"), "f.csv"),
                    Contains("column 4 (backend): 'hip' is not cpu or cuda"));
  CHECK_THROWS_WITH(parse_figures(kHeader + row("GPU", "double", 32000, 2e8, 1, "cells"), "f.csv"),
                    Contains("column 6 (layout)"));
  CHECK_THROWS_WITH(parse_figures(kHeader + "2026-12-01,abc,GPU,cuda,double,rows,32k,1,2e8\n", "f.csv"),
                    Contains("f.csv:2: column 7 (atoms): '32k' is not a positive whole number"));
  CHECK_THROWS_WITH(parse_figures(kHeader + row("GPU", "double", 32000, 2e8, 0), "f.csv"),
                    Contains("column 8 (ranks)"));
  CHECK_THROWS_WITH(parse_figures(kHeader + row("GPU", "double", 32000, -1), "f.csv"),
                    Contains("column 9 (atom_steps_per_s): '-1' is not a positive number"));
  CHECK_THROWS_WITH(parse_figures(kHeader + "2026-12-01,abc,,cuda,double,rows,32000,1,2e8\n", "f.csv"),
                    Contains("column 3 (device): empty"));
  CHECK_THROWS_WITH(load_figures("/nonexistent/figures.csv"), Contains("cannot read the figures file /nonexistent"));
}

TEST_CASE("the figures built into the binary read without error", "[plan][figures]") {
  const Figures f = load_figures("");
  CHECK(f.name.find("gpu-figures.csv") != std::string::npos);
  for (const Figure& g : f.rows) CHECK(g.atom_steps_per_s > 0);
}

TEST_CASE("time per step interpolates the measured throughput in log(atoms)", "[plan][figures]") {
  const auto f = parse_figures(kHeader + row("GPU A", "double", 10000, 1e8) + row("GPU A", "double", 1000000, 3e8) +
                                   row("GPU A", "mixed", 1000000, 9e9) +                  // other precision
                                   row("GPU A", "double", 100000, 7e9, 2) +               // several ranks
                                   row("GPU A", "double", 100000, 7e9, 1, "clusters") +   // other layout
                                   row("CPU", "double", 100000, 7e6, 1, "rows", "cpu") +  // not a GPU
                                   row("GPU B", "double", 1000000, 5e8, 1, "rows", "cuda", "2026-12-01") +
                                   row("GPU B", "double", 1000000, 4e8, 1, "rows", "cuda", "2026-12-05"),
                               "f.csv");
  SECTION("at a measured size, and halfway in log(atoms)") {
    const auto at = estimate_step_time(f, "double", "rows", 10000);
    REQUIRE(at.size() == 2);
    CHECK(at[0].device == "GPU A");
    CHECK(at[0].side == StepEstimate::kWithin);
    CHECK(at[0].atom_steps_per_s == Approx(1e8));
    CHECK(at[0].seconds == Approx(1e-4));
    CHECK(at[0].points == 2);
    const auto mid = estimate_step_time(f, "double", "rows", 100000);
    CHECK(mid[0].atom_steps_per_s == Approx(2e8));
    CHECK(mid[0].seconds == Approx(5e-4));
  }
  SECTION("a size measured twice takes the later row") {
    const auto b = estimate_step_time(f, "double", "rows", 1000000);
    REQUIRE(b.size() == 2);
    CHECK(b[1].device == "GPU B");
    CHECK(b[1].atom_steps_per_s == Approx(4e8));
    CHECK(b[1].newest_date == "2026-12-05");
  }
  SECTION("below the smallest size: that size's time per step, as a bound") {
    const auto small = estimate_step_time(f, "double", "rows", 1000);
    CHECK(small[0].side == StepEstimate::kAtMost);
    CHECK(small[0].seconds == Approx(1e-4));
    CHECK(small[1].side == StepEstimate::kAtMost);
    CHECK(small[1].seconds == Approx(1e6 / 4e8));
  }
  SECTION("above the largest size: its throughput carried on") {
    const auto big = estimate_step_time(f, "double", "rows", 10000000);
    CHECK(big[0].side == StepEstimate::kBeyond);
    CHECK(big[0].seconds == Approx(1e7 / 3e8));
  }
  SECTION("only single-rank CUDA rows of the deck's precision and layout count") {
    const auto mixed = estimate_step_time(f, "mixed", "rows", 1000000);
    REQUIRE(mixed.size() == 1);
    CHECK(mixed[0].atom_steps_per_s == Approx(9e9));
    const auto clusters = estimate_step_time(f, "double", "clusters", 100000);
    REQUIRE(clusters.size() == 1);
    CHECK(clusters[0].atom_steps_per_s == Approx(7e9));
    CHECK(estimate_step_time(f, "mixed", "clusters", 1000).empty());
  }
}

TEST_CASE("the plan prints the time per step and sizes the job's time limit from figures", "[plan][figures]") {
  const Deck deck = test::deck_from(test::lj_lattice_yaml(6, 1.0, 1000000, "{style: nve}"));  // 864 atoms
  const Figures none{{}, "none.csv"};
  const std::string without = make_plan(deck, 2, 1, none);
  CHECK_THAT(without, Catch::Contains("Time per step: not estimated: no single-GPU CUDA figure for double"));
  CHECK_THAT(without, Catch::Contains("#SBATCH --time=HH:MM:SS"));

  // 432 atoms per rank on two GPUs; measured at 432: 1e7 atom-steps/s, so
  // 43.2 us per step and 43.2 s for the million steps; the limit is
  // 1.5 x 43.2 s + 10 min = 11.08 min, 12 whole minutes.
  const Figures some{parse_figures(kHeader + row("GPU A", "double", 432, 1e7), "some.csv"), "some.csv"};
  const std::string with = make_plan(deck, 2, 1, some);
  CHECK_THAT(with, Catch::Contains("GPU A: 43.2 us per step, 43.2 s for run.steps 1000000"));
  CHECK_THAT(with, Catch::Contains("The halo exchange between GPUs comes on top"));
  CHECK_THAT(with, Catch::Contains("#SBATCH --time=00:12:00"));
  // A run longer than a day is written days-hours:minutes:seconds.
  const Deck long_deck = test::deck_from(test::lj_lattice_yaml(6, 1.0, 2000000000, "{style: nve}"));
  CHECK_THAT(make_plan(long_deck, 2, 1, some), Catch::Contains("#SBATCH --time=1-12:10:00"));
}

TEST_CASE("with --link the plan adds the halo's time and bounds the parallel efficiency", "[plan][figures]") {
  const Deck deck = test::deck_from(test::lj_lattice_yaml(6, 1.0, 1000, "{style: nve}"));  // 864 atoms
  // One GPU: 864 atoms at 2e7 atom-steps/s, 43.2 us per step; two GPUs: 432
  // atoms each at 1e7, also 43.2 us. So even a free halo gives 50 %: the
  // model carries the throughput lost on smaller systems.
  const std::string csv = kHeader + row("GPU A", "double", 432, 1e7) + row("GPU A", "double", 864, 2e7);
  const Figures figures{parse_figures(csv, "f.csv"), "f.csv"};
  const std::string out = make_plan(deck, 2, 1, figures, parse_link("10,3"));
  // The largest halo as the plan counted it, 24 bytes per position.
  const std::string marker = "Halo per step: up to ";
  const std::size_t at = out.find(marker);
  REQUIRE(at != std::string::npos);
  const long long received = std::stoll(out.substr(at + marker.size()));
  REQUIRE(received > 0);
  const double halo_us = 2 * 3.0 + 24.0 * received / 10e9 * 1e6;  // 2 transfers along the one split axis
  CHECK_THAT(out, Catch::Contains(fmt::format("2 transfers x 3 us + {:.0f} kB / 10 GB/s = {:.3g} us per step",
                                              24.0 * received / 1e3, halo_us)));
  const double low = 100 * 21.6 / (43.2 + halo_us), high = 100 * 21.6 / std::max(43.2, halo_us);
  CHECK_THAT(out, Catch::Contains(fmt::format("GPU A: one GPU 43.2 us per step (864 atoms); 2 GPUs 43.2 us compute + "
                                              "{:.3g} us halo: {:.1f} % if none of the halo",
                                              halo_us, low)));
  CHECK_THAT(out, Catch::Contains(fmt::format("hides behind the forces, {:.1f} % if all of it does", high)));
  // One GPU has no halo to carry.
  CHECK_THAT(make_plan(deck, 1, 1, figures, parse_link("10")), Catch::Contains("Halo over the link given: none"));
  // A link that is not two numbers is refused by name.
  CHECK_THROWS_WITH(parse_link("fast"),
                    "--link fast: the bandwidth 'fast' is not a number (expected GBPS or GBPS,US, e.g. 450,3)");
  CHECK_THROWS_WITH(parse_link("450,x"),
                    "--link 450,x: the latency 'x' is not a number (expected GBPS or GBPS,US, e.g. 450,3)");
  CHECK_THROWS_WITH(parse_link("0,3"),
                    "--link 0,3: the bandwidth must be above 0 GB/s and the latency at least 0 us");
}
