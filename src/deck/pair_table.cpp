#include "deck/pair_table.hpp"

#include <fmt/format.h>

#include "deck/yaml_section.hpp"
#include "potentials/pair_style.hpp"

namespace tessera {

std::vector<PairCoeffs> resolve_pair_table(const PotentialSpec& spec, int ntypes) {
  const PairStyleEntry* entry = find_pair_style(spec.style);
  const int ntp = ntypes + 1;
  std::vector<PairCoeffs> table(static_cast<std::size_t>(ntp) * ntp);
  std::vector<char> given(table.size(), 0);
  for (const auto& e : spec.coeffs) {
    if (e.tj > ntypes)
      throw_at(e.at,
               fmt::format("type pair {} {} names a type above the {} atom type(s) of the system", e.ti, e.tj, ntypes));
    table[e.ti * ntp + e.tj] = table[e.tj * ntp + e.ti] = e.coeffs;
    given[e.ti * ntp + e.tj] = given[e.tj * ntp + e.ti] = 1;
  }
  for (int i = 1; i <= ntypes; ++i)
    if (!given[i * ntp + i])
      throw_at(spec.coeffs_at, fmt::format("no coefficients for type pair {} {} (like pairs cannot be mixed)", i, i));
  for (int i = 1; i <= ntypes; ++i)
    for (int j = i + 1; j <= ntypes; ++j) {
      if (given[i * ntp + j]) continue;
      if (spec.mixing == Mixing::kNone)
        throw_at(spec.coeffs_at, fmt::format("no coefficients for type pair {} {} and mixing is 'none'", i, j));
      table[i * ntp + j] = table[j * ntp + i] = entry->mix(table[i * ntp + i], table[j * ntp + j], spec.mixing);
    }
  return table;
}

}  // namespace tessera
