#pragma once
#include <string>
#include <vector>

namespace tessera {

// The valid key a misspelt `key` most likely meant, or "" when none is close:
// the fewest single-letter edits (insert, delete, replace, swap two neighbours;
// case ignored) within a budget that grows with the key's length, or else the
// one valid key that `key` is the start of ("temp" -> "temperature"). Ties go
// to the first in `valid`, which lists keys in the order docs/deck.md does.
std::string nearest_key(const std::string& key, const std::vector<std::string>& valid);

// ", did you mean 'K'?" for the nearest key K, or "" when there is none: the
// tail an "unknown key" message ends its first clause with.
std::string did_you_mean(const std::string& key, const std::vector<std::string>& valid);

}  // namespace tessera
