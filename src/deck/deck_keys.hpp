#pragma once
#include <string>
#include <vector>

namespace tessera {

// Every key a deck may hold, as a dotted path ("output.trajectory.every");
// keys of list entries as "potential.coeffs[].epsilon". One table, so that
// the loader's "unknown key" check and docs/deck.md cannot drift apart: the
// loader accepts under a section exactly the keys listed for it here, and a
// unit test requires one heading per entry in docs/deck.md and no other.
const std::vector<std::string>& deck_keys();

// The keys directly under `section` ("" for the top level; list entries as
// "potential.coeffs[]").
std::vector<std::string> deck_children(const std::string& section);

// `path` with list indices dropped: "potential.coeffs[3]" -> "potential.coeffs[]".
std::string deck_key_pattern(const std::string& path);

}  // namespace tessera
