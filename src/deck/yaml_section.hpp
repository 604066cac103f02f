#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "deck/deck.hpp"

namespace tessera {

// A YAML mapping being read as part of the deck: typed access with errors
// that carry file, line, column and the full key path, and a check that no
// key was left unread (typos must not be silently ignored).
class YamlSection {
 public:
  YamlSection(const YAML::Node& node, std::string file, std::string path);

  bool has(const std::string& key) const;
  DeckLocation where(const std::string& key) const;  // the key's value, or the section if absent
  DeckLocation here() const;

  double number(const std::string& key) const;
  double number(const std::string& key, double fallback) const;
  long long integer(const std::string& key) const;
  long long integer(const std::string& key, long long fallback) const;
  std::uint64_t seed(const std::string& key) const;
  bool boolean(const std::string& key, bool fallback) const;
  std::string string(const std::string& key) const;
  std::string string(const std::string& key, const std::string& fallback) const;
  YamlSection section(const std::string& key) const;
  YAML::Node node(const std::string& key) const;

  // Every key must be one listed for this section in deck_keys().
  void only() const;
  // Every key must be one of `allowed`, a subset of that list (for keys
  // that only some styles take).
  void only(std::initializer_list<const char*> allowed) const;

  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  [[noreturn]] void fail_here(const std::string& message) const;

  const std::string& file() const { return file_; }
  std::string key_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

 private:
  YAML::Node require(const std::string& key) const;
  void only(const std::vector<std::string>& allowed) const;
  YAML::Node node_;
  std::string file_;
  std::string path_;
};

DeckLocation location_of(const YAML::Node& n, const std::string& file, const std::string& key);
[[noreturn]] void throw_at(const DeckLocation& at, const std::string& message);

// Scalar conversions with deck-style errors.
double to_number(const YAML::Node& n, const DeckLocation& at);
long long to_integer(const YAML::Node& n, const DeckLocation& at);

}  // namespace tessera
