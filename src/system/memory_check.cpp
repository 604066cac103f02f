#include "system/memory_check.hpp"

#include <fmt/format.h>
#include <unistd.h>

namespace tessera {

std::string memory_shortfall(long long natoms) {
  constexpr double kBytesPerAtom = 600;
  const double need = static_cast<double>(natoms) * kBytesPerAtom;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return {};
  const double have = static_cast<double>(pages) * static_cast<double>(page);
  if (need <= have) return {};
  return fmt::format("{} atoms need about {:.3g} GB of memory, more than this machine's {:.3g} GB", natoms, need / 1e9,
                     have / 1e9);
}

}  // namespace tessera
