// bytes_helpers.h — byte strings for the unit tests that feed hostile bytes to the serializer.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace test_bytes {

// The string of these byte values: B({0xC0, 0x80}).
inline std::string B(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s += static_cast<char>(b);
  return s;
}

inline bool contains_replacement_char(std::string_view s) {
  return s.find("\xEF\xBF\xBD") != std::string_view::npos;
}

}  // namespace test_bytes
