// The text trajectories (LAMMPS dump, extended XYZ) and the shared restart
// cut: what a restarted run keeps of a file, and what it refuses.
#include <fmt/format.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "deck/deck.hpp"
#include "io/extxyz_writer.hpp"
#include "io/lammps_dump_writer.hpp"
#include "io/text_output.hpp"
#include "test_support.hpp"

using namespace tessera;
using tessera::test::Scratch;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

const std::vector<std::int64_t> kIds = {2, 5, 9};
const std::vector<std::int32_t> kTypes = {1, 2, 1};

// A frame whose numbers need all 17 digits, different at every step.
struct Frame {
  std::vector<double> position, velocity, force;
  std::vector<std::int32_t> image;
  TrajectoryFrame f;
  explicit Frame(long step) {
    for (int k = 0; k < 9; ++k) {
      position.push_back(0.1 * k + step / 3.0);
      velocity.push_back(-1.0 / (k + 3) + step);
      force.push_back(1e-17 * (k + 1) - step / 7.0);
      image.push_back(k % 3 - 1);
    }
    f.step = step;
    f.time = step * 0.005;
    for (int d = 0; d < 3; ++d) {
      f.box.lo[d] = -0.5 * d;
      f.box.hi[d] = 4.1 + d / 3.0;
    }
    f.position = &position;
    f.velocity = &velocity;
    f.force = &force;
    f.image = &image;
  }
};

ExportSpec spec_for(const std::string& path) {
  ExportSpec s;
  s.every = 10;
  s.file = path;
  return s;
}

template <class Writer>
void write_steps(const ExportSpec& s, long resume, std::initializer_list<long> steps) {
  Writer w(s, kIds, kTypes, resume);
  for (long step : steps) w.write_frame(Frame(step).f);
}

}  // namespace

TEST_CASE("LineScanner counts whole lines only", "[exports]") {
  Scratch tmp("exports-scan");
  const std::string path = tmp.file("a.txt");
  spit(path, "one\ntwo\nthree\nfou");
  LineScanner in(path);
  std::string line;
  REQUIRE(in.next(line));
  CHECK(line == "one");
  CHECK(in.offset() == 4);
  REQUIRE(in.skip(2));
  CHECK(in.offset() == 14);
  CHECK(in.line() == 3);
  CHECK_FALSE(in.next(line));  // "fou" has no newline: half written
  CHECK(in.offset() == 14);
  LineScanner missing(tmp.file("none.txt"));
  CHECK_FALSE(missing.next(line));
  CHECK(missing.offset() == 0);
}

TEST_CASE("a LAMMPS dump holds every selected column, atoms by id, numbers exactly", "[exports]") {
  Scratch tmp("exports-dump");
  ExportSpec s = spec_for(tmp.file("d.lammpstrj"));
  s.unwrapped = s.image = s.velocity = s.force = true;
  write_steps<LammpsDumpWriter>(s, -1, {0});
  const Frame fr(0);
  std::string want = fmt::format(
      "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n3\nITEM: BOX BOUNDS pp pp pp\n{} {}\n{} {}\n{} {}\n"
      "ITEM: ATOMS id type x y z xu yu zu ix iy iz vx vy vz fx fy fz\n",
      fr.f.box.lo[0], fr.f.box.hi[0], fr.f.box.lo[1], fr.f.box.hi[1], fr.f.box.lo[2], fr.f.box.hi[2]);
  for (int k = 0; k < 3; ++k) {
    want += fmt::format("{} {}", kIds[k], kTypes[k]);
    for (int d = 0; d < 3; ++d) want += fmt::format(" {}", fr.position[3 * k + d]);
    for (int d = 0; d < 3; ++d)
      want += fmt::format(" {}", fr.position[3 * k + d] + fr.image[3 * k + d] * fr.f.box.length(d));
    for (int d = 0; d < 3; ++d) want += fmt::format(" {}", fr.image[3 * k + d]);
    for (int d = 0; d < 3; ++d) want += fmt::format(" {}", fr.velocity[3 * k + d]);
    for (int d = 0; d < 3; ++d) want += fmt::format(" {}", fr.force[3 * k + d]);
    want += "\n";
  }
  CHECK(slurp(s.file) == want);
  // Shortest round trip: every number reads back as the same double.
  std::istringstream rows(want.substr(want.find("fx fy fz\n") + 9));
  double id, type, x;
  rows >> id >> type >> x;
  CHECK(x == fr.position[0]);
}

TEST_CASE("extended XYZ names the columns OVITO maps and uses species names", "[exports]") {
  Scratch tmp("exports-xyz");
  ExportSpec s = spec_for(tmp.file("a.xyz"));
  s.velocity = s.image = true;
  s.species = {"Ar", "Kr"};
  write_steps<ExtxyzWriter>(s, -1, {10});
  const std::string text = slurp(s.file);
  const Box& b = Frame(10).f.box;
  CHECK(text.rfind(fmt::format("3\nLattice=\"{} 0 0 0 {} 0 0 0 {}\" Origin=\"{} {} {}\" "
                               "Properties=species:S:1:pos:R:3:map_shift:I:3:velo:R:3 Time=0.05 Step=10 "
                               "pbc=\"T T T\"\nAr ",
                               b.length(0), b.length(1), b.length(2), b.lo[0], b.lo[1], b.lo[2]),
                   0) == 0);
  CHECK(text.find("\nKr ") != std::string::npos);
  s.species.clear();
  write_steps<ExtxyzWriter>(s, -1, {10});
  CHECK(slurp(s.file).find("\n2 ") != std::string::npos);
}

TEST_CASE("a restarted run keeps frames up to its checkpoint and writes the same file", "[exports]") {
  Scratch tmp("exports-resume");
  for (const bool xyz : {false, true}) {
    ExportSpec s = spec_for(tmp.file(xyz ? "r.xyz" : "r.lammpstrj"));
    s.velocity = true;
    const auto write = [&](long resume, std::initializer_list<long> steps) {
      if (xyz)
        write_steps<ExtxyzWriter>(s, resume, steps);
      else
        write_steps<LammpsDumpWriter>(s, resume, steps);
    };
    write(-1, {0, 10, 20, 30});
    const std::string straight = slurp(s.file);
    // Died after the checkpoint at 20, in the middle of writing step 30.
    spit(s.file, straight.substr(0, straight.size() - 25));
    write(20, {20, 30});  // the frame at 20 is kept, not written twice
    CHECK(slurp(s.file) == straight);
    // A checkpoint older than every frame but the first.
    write(5, {10, 20, 30});
    CHECK(slurp(s.file) == straight);
    // No file yet (moved away): started afresh from the restart on.
    fs::remove(s.file);
    write(20, {30});
    const std::size_t at30 =
        xyz ? straight.rfind("3\nLattice", straight.find("Step=30")) : straight.find("ITEM: TIMESTEP\n30");
    CHECK(slurp(s.file) == straight.substr(at30));
  }
}

TEST_CASE("a restarted run refuses a file it would not have written", "[exports]") {
  Scratch tmp("exports-refuse");
  ExportSpec s = spec_for(tmp.file("f.lammpstrj"));
  write_steps<LammpsDumpWriter>(s, -1, {0, 10});
  const std::string before = slurp(s.file);
  ExportSpec other = s;
  other.velocity = true;
  CHECK_THROWS_WITH((LammpsDumpWriter(other, kIds, kTypes, 10)),
                    Catch::Contains(s.file + ":9: output.dump.file: cannot append: found 'ITEM: ATOMS id type x y z'"));
  CHECK_THROWS_WITH((LammpsDumpWriter(s, {1, 2}, {1, 1}, 10)),
                    Catch::Contains(":4: output.dump.file: cannot append: its frames hold 3 atoms, this run has 2"));
  CHECK(slurp(s.file) == before);
  spit(s.file, "step,temp,pe,ke,etotal,press\n0,1,2,3,4,5\n");
  CHECK_THROWS_AS((LammpsDumpWriter(s, kIds, kTypes, 10)), InputError);
  ExportSpec x = spec_for(tmp.file("f.xyz"));
  write_steps<ExtxyzWriter>(x, -1, {0});
  x.force = true;
  CHECK_THROWS_WITH((ExtxyzWriter(x, kIds, kTypes, 0)),
                    Catch::Contains(":2: output.xyz.file: cannot append: its frame has no "
                                    "'Properties=species:S:1:pos:R:3:forces:R:3'"));
}
