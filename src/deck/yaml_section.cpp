#include "deck/yaml_section.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "core/error.hpp"
#include "deck/deck_keys.hpp"
#include "deck/nearest_key.hpp"

namespace tessera {

std::string DeckLocation::str() const {
  std::string s = file;
  if (line > 0) s += fmt::format(":{}:{}", line, column);
  if (!key.empty()) s += ": " + key;
  return s;
}

DeckLocation location_of(const YAML::Node& n, const std::string& file, const std::string& key) {
  DeckLocation at;
  at.file = file;
  at.key = key;
  const YAML::Mark m = n.Mark();
  if (m.line >= 0) {
    at.line = m.line + 1;
    at.column = m.column + 1;
  }
  return at;
}

void throw_at(const DeckLocation& at, const std::string& message) { throw InputError(at.str() + ": " + message); }

namespace {
std::string scalar_text(const YAML::Node& n) {
  if (n.IsScalar()) return "'" + n.Scalar() + "'";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a mapping";
  return "nothing";
}
}  // namespace

double to_number(const YAML::Node& n, const DeckLocation& at) {
  double v = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, v))
    throw_at(at, fmt::format("expected a number, got {}", scalar_text(n)));
  if (!std::isfinite(v)) throw_at(at, fmt::format("expected a finite number, got {}", scalar_text(n)));
  return v;
}

long long to_integer(const YAML::Node& n, const DeckLocation& at) {
  long long v = 0;
  if (!n.IsScalar() || !YAML::convert<long long>::decode(n, v))
    throw_at(at, fmt::format("expected an integer, got {}", scalar_text(n)));
  return v;
}

YamlSection::YamlSection(const YAML::Node& node, std::string file, std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)) {
  if (!node_.IsMap()) fail_here(fmt::format("expected a mapping of keys, got {}", scalar_text(node_)));
}

bool YamlSection::has(const std::string& key) const { return static_cast<bool>(node_[key]); }

DeckLocation YamlSection::here() const { return location_of(node_, file_, path_.empty() ? "(top level)" : path_); }

DeckLocation YamlSection::where(const std::string& key) const {
  const YAML::Node n = node_[key];
  return location_of(n ? n : node_, file_, key_path(key));
}

void YamlSection::fail(const std::string& key, const std::string& message) const { throw_at(where(key), message); }
void YamlSection::fail_here(const std::string& message) const { throw_at(here(), message); }

YAML::Node YamlSection::require(const std::string& key) const {
  const YAML::Node n = node_[key];
  if (!n) throw_at(here(), fmt::format("missing required key '{}'", key_path(key)));
  if (n.IsNull()) fail(key, "has no value");
  return n;
}

double YamlSection::number(const std::string& key) const { return to_number(require(key), where(key)); }
double YamlSection::number(const std::string& key, double fallback) const { return has(key) ? number(key) : fallback; }
long long YamlSection::integer(const std::string& key) const { return to_integer(require(key), where(key)); }
long long YamlSection::integer(const std::string& key, long long fallback) const {
  return has(key) ? integer(key) : fallback;
}

std::uint64_t YamlSection::seed(const std::string& key) const {
  const YAML::Node n = require(key);
  unsigned long long v = 0;
  if (!n.IsScalar() || n.Scalar().empty() || n.Scalar()[0] == '-' || !YAML::convert<unsigned long long>::decode(n, v))
    fail(key, fmt::format("expected a non-negative integer seed, got {}", scalar_text(n)));
  return v;
}

bool YamlSection::boolean(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const YAML::Node n = require(key);
  bool v = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v))
    fail(key, fmt::format("expected true or false, got {}", scalar_text(n)));
  return v;
}

std::string YamlSection::string(const std::string& key) const {
  const YAML::Node n = require(key);
  if (!n.IsScalar()) fail(key, fmt::format("expected a string, got {}", scalar_text(n)));
  return n.Scalar();
}
std::string YamlSection::string(const std::string& key, const std::string& fallback) const {
  return has(key) ? string(key) : fallback;
}

YamlSection YamlSection::section(const std::string& key) const {
  const YAML::Node n = require(key);
  if (!n.IsMap()) fail(key, fmt::format("expected a mapping of keys, got {}", scalar_text(n)));
  return YamlSection(n, file_, key_path(key));
}

YAML::Node YamlSection::node(const std::string& key) const { return require(key); }

void YamlSection::only() const { only(deck_children(deck_key_pattern(path_))); }

void YamlSection::only(std::initializer_list<const char*> allowed) const {
  const std::vector<std::string> known = deck_children(deck_key_pattern(path_));
  std::vector<std::string> list;
  for (const char* a : allowed) {
    // A key accepted here but missing from the table would be undocumented.
    if (std::find(known.begin(), known.end(), a) == known.end())
      throw std::logic_error(fmt::format("deck key '{}' is not in deck_keys()", key_path(a)));
    list.emplace_back(a);
  }
  only(list);
}

void YamlSection::only(const std::vector<std::string>& allowed) const {
  // yaml-cpp keeps both entries of a repeated key and lookups see only one:
  // a typo'd copy of a key must not silently win or lose.
  std::map<std::string, int> first_line;
  for (const auto& kv : node_) {
    const YAML::Node k = kv.first;
    const std::string name = k.IsScalar() ? k.Scalar() : std::string("?");
    const auto [it, fresh] = first_line.emplace(name, k.Mark().line + 1);
    if (!fresh)
      throw_at(location_of(k, file_, key_path(name)),
               fmt::format("duplicate key (first given on line {})", it->second));
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
      throw_at(location_of(k, file_, key_path(name)),
               fmt::format("unknown key{} (allowed here: {})", did_you_mean(name, allowed), fmt::join(allowed, ", ")));
  }
}

}  // namespace tessera
