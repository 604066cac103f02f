#include "verb_help.hpp"

#include <fmt/format.h>

#include <vector>

namespace tessera {

namespace {

struct VerbHelp {
  const char* verb;
  const char* usage;
  std::vector<const char*> examples;  // the first is the one a newcomer types
};

// One table, so that --help and the error hints cannot tell different stories.
const std::vector<VerbHelp>& verbs() {
  static const std::vector<VerbHelp> table = {
      {"run",
       "tessera run DECK.yaml [--threads N] [--restart auto|FILE] [-q|-v]",
       {"tessera run inputs/lj-melt.yaml", "tessera run deck.yaml --restart auto   # continue from the newest checkpoint",
        "mpirun -np 4 tessera run inputs/lj-melt.yaml --threads 1"}},
      {"validate", "tessera validate DECK.yaml", {"tessera validate inputs/lj-melt.yaml"}},
      {"plan",
       "tessera plan DECK.yaml --gpus N [--nodes M] [--figures CSV] [--link GBPS[,US]]",
       {"tessera plan inputs/lj-melt.yaml --gpus 8 --nodes 2"}},
      {"info", "tessera info", {"tessera info"}},
  };
  return table;
}

const VerbHelp* find(const std::string& verb) {
  for (const auto& v : verbs())
    if (verb == v.verb) return &v;
  return nullptr;
}

}  // namespace

std::string verb_examples(const std::string& verb) {
  std::string out = "\nExamples:\n";
  if (verb.empty()) {
    for (const auto& v : verbs()) out += fmt::format("  {}\n", v.examples.front());
    return out + "Each command's --help shows its options and examples.\n";
  }
  const VerbHelp* v = find(verb);
  if (!v) return "";
  for (const char* e : v->examples) out += fmt::format("  {}\n", e);
  return out;
}

std::string verb_usage_hint(const std::string& verb) {
  const VerbHelp* v = find(verb);
  if (!v) return "usage: tessera {run,validate,plan,info} ...\nexample: tessera run inputs/lj-melt.yaml\n"
                  "(tessera --help lists the commands)\n";
  return fmt::format("usage: {}\nexample: {}\n(tessera {} --help lists the options)\n", v->usage,
                     v->examples.front(), v->verb);
}

}  // namespace tessera
