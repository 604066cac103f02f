// libFuzzer target: the YAML deck loader. Any bytes must either give a Deck
// or an InputError (exit code 2 in the CLI); anything else escaping, a
// sanitizer report, a hang or unbounded memory is a finding.
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "deck/deck.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    tessera::Deck d = tessera::parse_deck(text, "fuzz.yaml");
    (void)d;
  } catch (const tessera::InputError&) {
    // The documented outcome for bad input.
  }
  return 0;
}
