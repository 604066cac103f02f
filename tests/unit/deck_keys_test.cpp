#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <string>

#include "deck/deck.hpp"
#include "deck/deck_keys.hpp"

using namespace tessera;

namespace {

// Headings of the form "### `a.b.c`" in docs/deck.md: one per deck key.
std::set<std::string> documented_keys() {
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/docs/deck.md");
  REQUIRE(in);
  std::set<std::string> keys;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("### `", 0) != 0) continue;
    const std::size_t end = line.find('`', 5);
    if (end != std::string::npos) keys.insert(line.substr(5, end - 5));
  }
  return keys;
}

std::string listed(const std::set<std::string>& s) {
  std::string out;
  for (const auto& k : s) out += "\n  " + k;
  return out;
}

}  // namespace

TEST_CASE("every deck key is documented in docs/deck.md, and nothing else is", "[deck][docs]") {
  const std::set<std::string> docs = documented_keys();
  const std::set<std::string> code(deck_keys().begin(), deck_keys().end());
  REQUIRE(code.size() == deck_keys().size());  // no key listed twice
  std::set<std::string> undocumented, stale;
  for (const auto& k : code)
    if (!docs.count(k)) undocumented.insert(k);
  for (const auto& k : docs)
    if (!code.count(k)) stale.insert(k);
  INFO("keys the loader accepts but docs/deck.md lacks:" << listed(undocumented));
  INFO("headings in docs/deck.md that are no deck key:" << listed(stale));
  CHECK(undocumented.empty());
  CHECK(stale.empty());
}

TEST_CASE("the loader accepts exactly the keys in the table", "[deck]") {
  CHECK(deck_key_pattern("potential.coeffs[12].epsilon") == "potential.coeffs[].epsilon");
  CHECK(deck_children("output") ==
        std::vector<std::string>{"thermo", "checkpoint", "trajectory", "metrics", "dump", "xyz", "data"});
  // A key from the table loads; a key that is not refused with the list of
  // the table's keys for that section.
  const std::string base = R"(system:
  lattice: {style: fcc, density: 0.8442, cells: [2, 2, 2]}
potential:
  style: lj/cut
  cutoff: 2.5
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
integrator: {style: nve, dt: 0.005}
)";
  CHECK_NOTHROW(parse_deck(base + "run: {steps: 1, stop_margin: 5}\n", "ok.yaml"));
  try {
    parse_deck(base + "run: {steps: 1, stop_margn: 5}\n", "bad.yaml");
    FAIL("a misspelt key was accepted");
  } catch (const std::exception& e) {
    const std::string m = e.what();
    CHECK(m.find("bad.yaml:9") != std::string::npos);
    CHECK(m.find("run.stop_margn") != std::string::npos);
    CHECK(m.find("allowed here: steps, max_walltime, stop_margin") != std::string::npos);
  }
}
