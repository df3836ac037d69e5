// text_scan_reference.h — what the Scanner's tests hold it to: a naive reference (split every
// line, test every position), hostile generated files (CRLF and mixed endings, NUL, Latin-1, a
// BOM, lines past the cap, no final newline), the comparison of two event lists, and a reader
// of a string as a file. Shared by text_scan_test.cpp and text_scan_parts_test.cpp.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "text/scan.h"

namespace scan_test {

using text::LineEvent;
using text::Span;

inline std::vector<Span> spans_of(const text::Matcher& m, std::string_view line) {
  std::vector<Span> out;
  m.spans(line, out);
  return out;
}

// --- the Scanner against a reference -------------------------------------------------------

struct Ev {
  bool match;
  uint64_t line, offset;
  std::string text;
  uint64_t length;
  bool too_long;
  std::vector<Span> spans;
  uint64_t lo, hi;
};

struct Ref {
  std::vector<Ev> events;
  std::vector<uint64_t> long_lines;
  std::vector<uint64_t> long_offsets;  // every occurrence in a long line, in the file
  uint64_t first_long_start = 0, first_long_end = 0;
  uint64_t found = 0;
};

inline Ref reference(const std::string& file, const text::Matcher& m, const text::ScanOptions& o) {
  std::vector<std::string> lines;
  std::vector<uint64_t> offs;
  for (size_t at = 0; at < file.size();) {
    size_t nl = file.find('\n', at);
    size_t end = nl == std::string::npos ? file.size() : nl;
    lines.push_back(file.substr(at, end - at));
    offs.push_back(at);
    at = end + 1;
  }
  size_t nls = std::count(file.begin(), file.end(), '\n'), crs = 0;
  for (size_t i = 0; i < file.size(); ++i)
    if (file[i] == '\n' && i > 0 && file[i - 1] == '\r') ++crs;
  const bool crlf = nls > 0 && crs == nls;
  const bool bom = file.compare(0, 3, "\xEF\xBB\xBF") == 0;
  Ref r;
  std::vector<int64_t> ord(lines.size(), -1);  // match ordinal per line
  std::vector<uint64_t> shown_off(lines.size()), shown_len(lines.size());
  std::vector<bool> too_long(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string s = lines[i];
    uint64_t off = offs[i];
    if (i == 0 && bom) s = s.substr(3), off += 3;
    // Only a '\r' before '\n' is a line ending: an unterminated last line keeps its '\r'.
    const bool terminated = offs[i] + lines[i].size() < file.size();
    if (crlf && terminated && !s.empty() && s.back() == '\r') s.pop_back();
    shown_off[i] = off;
    shown_len[i] = s.size();
    too_long[i] = lines[i].size() > o.max_line;
    auto sp = spans_of(m, s);
    if (too_long[i]) {
      if (!sp.empty()) r.long_lines.push_back(i + 1);
      if (!sp.empty() && r.long_offsets.empty())
        r.first_long_start = off, r.first_long_end = off + s.size();
      for (const Span& x : sp) r.long_offsets.push_back(off + x.start);
      continue;
    }
    if (!sp.empty() && r.found < o.max_matches) ord[i] = static_cast<int64_t>(r.found++);
  }
  const int64_t n = static_cast<int64_t>(o.context);
  int64_t last_match_line = -1;
  for (size_t i = 0; i < lines.size(); ++i)
    if (ord[i] >= 0) last_match_line = static_cast<int64_t>(i);
  const bool stopped = r.found == o.max_matches;
  if (stopped) {  // the scan ends at the last match: long lines after it are never read
    std::erase_if(r.long_lines,
                  [&](uint64_t l) { return static_cast<int64_t>(l) > last_match_line + 1; });
    const uint64_t past = last_match_line + 1 < static_cast<int64_t>(offs.size())
                              ? offs[static_cast<size_t>(last_match_line + 1)]
                              : UINT64_MAX;
    std::erase_if(r.long_offsets, [&](uint64_t o) { return o >= past; });
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    // After the match that reached max_matches, nothing more is reported.
    if (stopped && static_cast<int64_t>(i) > last_match_line) break;
    std::string s = file.substr(shown_off[i], shown_len[i]);
    if (ord[i] >= 0) {
      r.events.push_back({true, i + 1, shown_off[i], s, shown_len[i], false, spans_of(m, s),
                          static_cast<uint64_t>(ord[i]), static_cast<uint64_t>(ord[i])});
      continue;
    }
    // lo: the nearest match before the line within n, else the first after it; hi: the last
    // match within n after it.
    int64_t lo = -1, hi = -1;
    for (int64_t j = std::max<int64_t>(0, static_cast<int64_t>(i) - n);
         j <=
         std::min<int64_t>(static_cast<int64_t>(lines.size()) - 1, static_cast<int64_t>(i) + n);
         ++j) {
      if (ord[j] < 0) continue;
      if (lo < 0 || j < static_cast<int64_t>(i)) lo = ord[j];
      hi = ord[j];
    }
    if (lo < 0) continue;
    if (stopped && static_cast<int64_t>(i) > last_match_line) continue;
    r.events.push_back({false,
                        i + 1,
                        shown_off[i],
                        too_long[i] ? "" : s,
                        shown_len[i],
                        too_long[i],
                        {},
                        static_cast<uint64_t>(lo),
                        static_cast<uint64_t>(hi)});
  }
  return r;
}

inline std::string random_file(std::mt19937& rng, const std::string& needle) {
  std::string f;
  if (rng() % 6 == 0) f += "\xEF\xBB\xBF";
  const int lines = static_cast<int>(rng() % 40);
  const bool crlf = rng() % 4 == 0;
  for (int i = 0; i < lines; ++i) {
    size_t len = rng() % 8 == 0 ? 30 + rng() % 200 : rng() % 25;
    std::string line;
    while (line.size() < len) {
      switch (rng() % 9) {
        case 0:
          line += needle;
          break;
        case 1:
          line += '\0';
          break;
        case 2:
          line += '\xe9';
          break;
        case 3:
          line += '\r';
          break;
        case 4:
          line += ' ';
          break;
        case 5:
          line += '_';
          break;
        default:
          line += static_cast<char>("abAB"[rng() % 4]);
      }
    }
    f += line;
    if (i + 1 < lines || rng() % 3) f += crlf ? "\r\n" : "\n";
  }
  return f;
}

// The events `got` are those of `want`: each field, and for context a `hi` that names a later
// match the line serves when it is known in time, never a wrong one.
inline ::testing::AssertionResult same_events(const std::vector<Ev>& got,
                                              const std::vector<Ev>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " events, not " << want.size();
  for (size_t i = 0; i < got.size(); ++i) {
    const Ev &g = got[i], &w = want[i];
    if (g.match != w.match || g.line != w.line || g.offset != w.offset || g.text != w.text ||
        g.length != w.length || g.too_long != w.too_long || g.spans != w.spans || g.lo != w.lo ||
        g.hi < g.lo || g.hi > w.hi)
      return ::testing::AssertionFailure()
             << "event " << i << ": line " << g.line << " (want " << w.line << "), offset "
             << g.offset << " (" << w.offset << "), match " << g.match << " (" << w.match
             << "), lo " << g.lo << " (" << w.lo << "), hi " << g.hi << " (<= " << w.hi
             << "), text '" << g.text << "' ('" << w.text << "')";
  }
  return ::testing::AssertionSuccess();
}

// Reads `file` as a file, adding the bytes read to `bytes`.
inline text::ReadAt counted_reader(const std::string& file, uint64_t& bytes) {
  return [&file, &bytes](char* buf, size_t len, uint64_t off) -> long long {
    size_t n = off >= file.size() ? 0 : std::min<size_t>(len, file.size() - off);
    std::memcpy(buf, file.data() + off, n);
    bytes += n;
    return static_cast<long long>(n);
  };
}

}  // namespace scan_test
