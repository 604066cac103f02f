#include "deck/deck_keys.hpp"

#include <algorithm>
#include <cctype>

#include "bonded/bonded_registry.hpp"
#include "potentials/pair_style.hpp"

namespace tessera {
namespace {

std::vector<std::string> build_table() {
  std::vector<std::string> keys = {
      "units",
      "backend",
      "precision",
      "threads",
      "cuda_aware_mpi",
      "peer_copies",
      "system",
      "system.lattice",
      "system.lattice.style",
      "system.lattice.density",
      "system.lattice.constant",
      "system.lattice.cells",
      "system.lattice.basis_types",
      "system.read_data",
      "system.polymer_melt",
      "system.polymer_melt.chains",
      "system.polymer_melt.beads",
      "system.polymer_melt.density",
      "system.polymer_melt.bond_length",
      "system.polymer_melt.seed",
      "system.types",
      "system.masses",
      "velocity",
      "velocity.temperature",
      "velocity.seed",
      "potential",
      "potential.style",
      "potential.cutoff",
      "potential.shift",
      "potential.mixing",
      "potential.coeffs",
      "potential.coeffs[].types",
      "potential.coeffs[].cutoff",
      "potential.file",
      "potential.elements",
      "bonds",
      "bonds.style",
      "bonds.coeffs",
      "bonds.coeffs[].type",
      "angles",
      "angles.style",
      "angles.coeffs",
      "angles.coeffs[].type",
      "special_bonds",
      "special_bonds.lj",
      "neighbor",
      "neighbor.skin",
      "neighbor.every",
      "neighbor.delay",
      "neighbor.check",
      "neighbor.sort",
      "neighbor.sort_every",
      "neighbor.layout",
      "neighbor.list",
      "neighbor.ghost_cutoff",
      "integrator",
      "integrator.style",
      "integrator.dt",
      "integrator.temperature",
      "integrator.damping",
      "integrator.seed",
      "integrator.chain",
      "integrator.pressure",
      "integrator.pressure_damping",
      "integrator.pressure_chain",
      "integrator.coupling",
      "integrator.mtk",
      "integrator.drag",
      "integrator.max_volume_change",
      "integrator.barostat",
      "integrator.barostat.style",
      "integrator.barostat.pressure",
      "integrator.barostat.damping",
      "integrator.barostat.compressibility",
      "integrator.barostat.coupling",
      "integrator.barostat.seed",
      "run",
      "run.steps",
      "run.max_walltime",
      "run.stop_margin",
      "decomposition",
      "gpu_ids",
      "load_balance",
      "load_balance.every",
      "load_balance.threshold",
      "load_balance.by",
      "restart",
      "analysis",
      "analysis.rdf",
      "analysis.rdf.every",
      "analysis.rdf.bins",
      "analysis.rdf.r_max",
      "analysis.rdf.pairs",
      "analysis.msd",
      "analysis.msd.every",
      "output",
      "output.thermo",
      "output.thermo.every",
      "output.thermo.file",
      "output.thermo.screen",
      "output.thermo.columns",
      "output.checkpoint",
      "output.checkpoint.every",
      "output.checkpoint.every_seconds",
      "output.checkpoint.path",
      "output.checkpoint.keep",
      "output.trajectory",
      "output.trajectory.every",
      "output.trajectory.file",
      "output.trajectory.fields",
      "output.metrics",
      "output.metrics.every",
      "output.metrics.every_seconds",
      "output.metrics.file",
      "output.dump",
      "output.dump.every",
      "output.dump.file",
      "output.dump.fields",
      "output.xyz",
      "output.xyz.every",
      "output.xyz.file",
      "output.xyz.fields",
      "output.xyz.species",
      "output.data",
      "output.data.file",
      "output.data.every",
  };
  // Each registered potential brings its own coefficient names.
  for (const auto& style : pair_styles())
    for (const auto& name : style.coeff_names) {
      const std::string key = "potential.coeffs[]." + name;
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  for (const auto& [section, table] : {std::pair{"bonds", &bond_styles()}, std::pair{"angles", &angle_styles()}})
    for (const auto& style : *table)
      for (const auto& name : style.coeff_names) {
        const std::string key = std::string(section) + ".coeffs[]." + name;
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
      }
  return keys;
}

}  // namespace

const std::vector<std::string>& deck_keys() {
  static const std::vector<std::string> table = build_table();
  return table;
}

std::vector<std::string> deck_children(const std::string& section) {
  const std::string prefix = section.empty() ? "" : section + ".";
  std::vector<std::string> out;
  for (const auto& k : deck_keys()) {
    if (k.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = k.substr(prefix.size());
    if (!rest.empty() && rest.find('.') == std::string::npos) out.push_back(rest);
  }
  return out;
}

std::string deck_key_pattern(const std::string& path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    out += path[i];
    if (path[i] != '[') continue;
    std::size_t j = i + 1;
    while (j < path.size() && std::isdigit(static_cast<unsigned char>(path[j]))) ++j;
    i = j - 1;  // the loop's ++i lands on ']'
  }
  return out;
}

}  // namespace tessera
