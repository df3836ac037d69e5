// journal_entry.h — what the journal's store (journal.cpp) shares with the entry's text form
// (journal_entry.cpp): the names of entry files, and decimal numbers as entries spell them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace writer {

// An entry's file name: its id in 16 decimal digits.
std::string id_name(uint64_t id);
// An entry's file name read back: its id, and whether it is pending; nothing for another name.
std::optional<std::pair<uint64_t, bool>> parse_name(std::string_view name);
// A natural number in `base`, all of s (no sign, no space); nothing otherwise.
std::optional<uint64_t> parse_nat(std::string_view s, int base = 10);

}  // namespace writer
