#pragma once
// What `tessera VERB --help` ends with, and what a mistyped command line
// prints after its error: the usage line and example lines of each verb, so
// a newcomer sees a command that works rather than only what was wrong.
#include <string>

namespace tessera {

// The "Examples:" block for VERB's --help ("" for the top level, which lists
// one line per verb); empty for an unknown verb.
std::string verb_examples(const std::string& verb);

// Printed after a command-line error: VERB's usage line, its first example
// and where the full help is.
std::string verb_usage_hint(const std::string& verb);

}  // namespace tessera
