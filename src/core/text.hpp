#pragma once
#include <string>

namespace tessera {

// `s` without the spaces, tabs and carriage returns (CRLF files) around it.
inline std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace tessera
