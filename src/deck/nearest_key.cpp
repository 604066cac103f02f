#include "deck/nearest_key.hpp"

#include <algorithm>
#include <cctype>

namespace tessera {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Optimal string alignment distance: Levenshtein plus the swap of two
// neighbouring letters as one edit, the commonest typo ("outptu").
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

}  // namespace

std::string nearest_key(const std::string& key, const std::vector<std::string>& valid) {
  const std::string k = lower(key);
  // One edit in a short key, up to three in a long one: beyond that the
  // "suggestion" is a different word, and the allowed list says more.
  const std::size_t budget = k.size() <= 4 ? 1 : k.size() <= 8 ? 2 : 3;
  std::string best;
  std::size_t best_d = budget + 1;
  for (const auto& v : valid) {
    const std::size_t d = edit_distance(k, lower(v));
    // A key of two letters is two edits from any other: no guess there.
    if (d < best_d && d < v.size()) {
      best = v;
      best_d = d;
    }
  }
  if (!best.empty() || k.size() < 3) return best;
  std::string prefix_of;
  for (const auto& v : valid) {
    if (lower(v).compare(0, k.size(), k) != 0) continue;
    if (!prefix_of.empty()) return "";  // "t" of "temperature" and "threads": no guess
    prefix_of = v;
  }
  return prefix_of;
}

std::string did_you_mean(const std::string& key, const std::vector<std::string>& valid) {
  const std::string near = nearest_key(key, valid);
  return near.empty() ? std::string() : ", did you mean '" + near + "'?";
}

}  // namespace tessera
