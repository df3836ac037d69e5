// diff.cpp — Myers' line diff in linear space, grouped into diff -u hunks (see diff.h).
#include "text/diff.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>

namespace text {
namespace {

struct LineRef {
  std::string_view text;
  bool newline;
};

std::vector<LineRef> split(std::string_view s) {
  // Counted first: one exact allocation (on a VM every page first touched is a costly fault).
  size_t lines = 0;
  for (const char *p = s.data(), *end = s.data() + s.size();
       (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)))); ++p)
    ++lines;
  std::vector<LineRef> out;
  out.reserve(lines + 1);
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find('\n', i);
    if (j == std::string_view::npos) {
      out.push_back({s.substr(i), false});
      break;
    }
    out.push_back({s.substr(i, j - i), true});
    i = j + 1;
  }
  return out;
}

Eol eol_of(const std::vector<LineRef>& lines) {
  EolCounter c;
  for (auto& l : lines) c.add(l.text, l.newline);
  return c.result();
}

// Marks removed old lines and added new lines; what is marked in neither is kept, in order.
class Differ {
 public:
  Differ(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b, uint64_t budget)
      : a_(a), b_(b), budget_(budget), removed(a.size()), added(b.size()) {}

  void run() {
    // An explicit stack of pieces instead of recursion: a split near one end of a long piece
    // would otherwise nest as deep as the file is long. The marks are indexed by line, so the
    // order pieces are settled in does not matter.
    std::vector<Piece> stack{
        {0, static_cast<int64_t>(a_.size()), 0, static_cast<int64_t>(b_.size())}};
    while (!stack.empty()) {
      Piece p = stack.back();
      stack.pop_back();
      while (p.a_lo < p.a_hi && p.b_lo < p.b_hi && a_[p.a_lo] == b_[p.b_lo]) ++p.a_lo, ++p.b_lo;
      while (p.a_lo < p.a_hi && p.b_lo < p.b_hi && a_[p.a_hi - 1] == b_[p.b_hi - 1])
        --p.a_hi, --p.b_hi;
      int64_t n = p.a_hi - p.a_lo, m = p.b_hi - p.b_lo;
      if (n == 0 || m == 0) {
        coarse(p);
        continue;
      }
      if (n == 1 || m == 1) {
        single(p);
        continue;
      }
      if (n + m >= (int64_t{1} << 30)) {  // past what 32-bit diagonals hold: coarse, still exact
        coarse(p);
        continue;
      }
      int64_t x, y;
      if (!bisect(&a_[p.a_lo], n, &b_[p.b_lo], m, x, y) || (x == 0 && y == 0) ||
          (x == n && y == m)) {
        coarse(p);
        continue;
      }
      stack.push_back({p.a_lo, p.a_lo + x, p.b_lo, p.b_lo + y});
      stack.push_back({p.a_lo + x, p.a_hi, p.b_lo + y, p.b_hi});
    }
  }

 private:
  struct Piece {
    int64_t a_lo, a_hi, b_lo, b_hi;
  };

  const std::vector<uint32_t>& a_;
  const std::vector<uint32_t>& b_;
  uint64_t budget_;
  std::vector<int32_t> v1_, v2_;  // 32 bits: half the memory to touch (pieces < 2^30 lines)

 public:
  std::vector<bool> removed, added;

 private:
  // Everything in the piece removed, then everything added: always a correct script.
  void coarse(const Piece& p) {
    for (int64_t i = p.a_lo; i < p.a_hi; ++i) removed[i] = true;
    for (int64_t j = p.b_lo; j < p.b_hi; ++j) added[j] = true;
  }

  // One side is a single line: keep it if the other side has it (the first occurrence).
  void single(const Piece& p) {
    int64_t n = p.a_hi - p.a_lo;
    if (n == 1) {
      int64_t keep = -1;
      for (int64_t j = p.b_lo; j < p.b_hi && keep < 0; ++j)
        if (b_[j] == a_[p.a_lo]) keep = j;
      if (keep < 0) return coarse(p);
      for (int64_t j = p.b_lo; j < p.b_hi; ++j) added[j] = j != keep;
      return;
    }
    int64_t keep = -1;
    for (int64_t i = p.a_lo; i < p.a_hi && keep < 0; ++i)
      if (a_[i] == b_[p.b_lo]) keep = i;
    if (keep < 0) return coarse(p);
    for (int64_t i = p.a_lo; i < p.a_hi; ++i) removed[i] = i != keep;
  }

  bool spend(uint64_t steps) {
    if (budget_ < steps) {
      budget_ = 0;
      return false;
    }
    budget_ -= steps;
    return true;
  }

  // The middle snake (Myers 1986, §4b), searched from both ends at once; (x, y) is where the
  // two searches meet, so the piece splits into two with a shortest script each. False when
  // the work budget runs out.
  bool bisect(const uint32_t* a, int64_t n, const uint32_t* b, int64_t m, int64_t& sx,
              int64_t& sy) {
    const int64_t max_d = (n + m + 1) / 2;
    const int64_t v_offset = max_d, v_length = 2 * max_d + 2;
    if (!spend(static_cast<uint64_t>(v_length))) return false;
    v1_.assign(static_cast<size_t>(v_length), -1);
    v2_.assign(static_cast<size_t>(v_length), -1);
    int32_t* v1 = v1_.data();
    int32_t* v2 = v2_.data();
    v1[v_offset + 1] = 0;
    v2[v_offset + 1] = 0;
    const int64_t delta = n - m;
    const bool front = (delta & 1) != 0;  // odd: the forward search meets the reverse one
    int64_t k1start = 0, k1end = 0, k2start = 0, k2end = 0;
    for (int64_t d = 0; d < max_d; ++d) {
      for (int64_t k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
        const int64_t k1_offset = v_offset + k1;
        int64_t x1 = (k1 == -d || (k1 != d && v1[k1_offset - 1] < v1[k1_offset + 1]))
                         ? v1[k1_offset + 1]
                         : v1[k1_offset - 1] + 1;
        int64_t y1 = x1 - k1;
        const int64_t x_start = x1;
        while (x1 < n && y1 < m && a[x1] == b[y1]) ++x1, ++y1;
        if (!spend(1 + static_cast<uint64_t>(x1 - x_start))) return false;
        v1[k1_offset] = static_cast<int32_t>(x1);
        if (x1 > n) {
          k1end += 2;  // ran off the right of the grid
        } else if (y1 > m) {
          k1start += 2;  // ran off the bottom
        } else if (front) {
          const int64_t k2_offset = v_offset + delta - k1;
          if (k2_offset >= 0 && k2_offset < v_length && v2[k2_offset] != -1 &&
              x1 >= n - v2[k2_offset]) {
            sx = x1;
            sy = y1;
            return true;
          }
        }
      }
      for (int64_t k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
        const int64_t k2_offset = v_offset + k2;
        int64_t x2 = (k2 == -d || (k2 != d && v2[k2_offset - 1] < v2[k2_offset + 1]))
                         ? v2[k2_offset + 1]
                         : v2[k2_offset - 1] + 1;
        int64_t y2 = x2 - k2;
        const int64_t x_start = x2;
        while (x2 < n && y2 < m && a[n - x2 - 1] == b[m - y2 - 1]) ++x2, ++y2;
        if (!spend(1 + static_cast<uint64_t>(x2 - x_start))) return false;
        v2[k2_offset] = static_cast<int32_t>(x2);
        if (x2 > n) {
          k2end += 2;
        } else if (y2 > m) {
          k2start += 2;
        } else if (!front) {
          const int64_t k1_offset = v_offset + delta - k2;
          if (k1_offset >= 0 && k1_offset < v_length && v1[k1_offset] != -1) {
            const int64_t x1 = v1[k1_offset];
            const int64_t y1 = v_offset + x1 - k1_offset;
            if (x1 >= n - x2) {
              sx = x1;
              sy = y1;
              return true;
            }
          }
        }
      }
    }
    return false;
  }
};

struct Row {
  char op;
  uint32_t i, j;  // the old and new line cursors before this row
};

// Only a line that ends in '\n' has a line ending to hide: a '\r' at the very end of a file
// without a final newline is a byte of the last line, and showing it keeps the diff exact.
std::string_view shown(const DiffLine& l, Eol old_eol, Eol new_eol) {
  if (!l.newline) return l.text;
  return shown_line(l.text, l.op == '-' ? old_eol : new_eol);
}

}  // namespace

Diff diff_lines(std::string_view old_text, std::string_view new_text, const DiffOptions& opt) {
  Diff out;
  const std::vector<LineRef> a = split(old_text), b = split(new_text);
  out.old_eol = eol_of(a);
  out.new_eol = eol_of(b);

  // Interned ids: equal ids are equal lines, the missing final newline included. A line's id
  // is the index (a's lines, then b's) of its first occurrence; an open-addressing table of
  // (32 bits of XXH3, first occurrence) finds it without a node allocation per line.
  const size_t total = a.size() + b.size();
  size_t cap = 16;
  while (cap < total + total / 2) cap <<= 1;
  std::vector<uint64_t> table(cap, 0);
  auto line_at = [&](size_t g) -> const LineRef& { return g < a.size() ? a[g] : b[g - a.size()]; };
  auto intern = [&](const std::vector<LineRef>& lines, size_t base) {
    std::vector<uint32_t> v;
    v.reserve(lines.size());
    for (size_t k = 0; k < lines.size(); ++k) {
      const LineRef& l = lines[k];
      uint64_t h =
          XXH3_64bits(l.text.data(), l.text.size()) ^ (l.newline ? 0 : 0x9e3779b97f4a7c15ull);
      const uint64_t tag = h >> 32;
      size_t pos = static_cast<size_t>(h) & (cap - 1);
      while (true) {
        uint64_t slot = table[pos];
        if (slot == 0) {
          table[pos] = tag << 32 | (base + k + 1);
          v.push_back(static_cast<uint32_t>(base + k));
          break;
        }
        size_t first = static_cast<size_t>(slot & 0xffffffffu) - 1;
        const LineRef& other = line_at(first);
        if ((slot >> 32) == tag && other.newline == l.newline && other.text == l.text) {
          v.push_back(static_cast<uint32_t>(first));
          break;
        }
        pos = (pos + 1) & (cap - 1);
      }
    }
    return v;
  };
  const std::vector<uint32_t> ia = intern(a, 0), ib = intern(b, a.size());
  std::vector<uint64_t>().swap(table);

  // A line with no equal on the other side can never be kept: mark it now and give Myers only
  // the lines that can match (GNU diff discards them too). The script stays minimal, and two
  // unrelated files cost nothing but this pass.
  const size_t n_ids = total + 1;
  std::vector<uint8_t> in_a(n_ids), in_b(n_ids);
  for (uint32_t id : ia) in_a[id] = 1;
  for (uint32_t id : ib) in_b[id] = 1;
  std::vector<uint32_t> ra, rb;        // the lines that can match
  std::vector<uint32_t> map_a, map_b;  // their indices in a and b
  std::vector<bool> removed(a.size()), added(b.size());
  for (uint32_t i = 0; i < ia.size(); ++i) {
    if (in_b[ia[i]]) {
      ra.push_back(ia[i]);
      map_a.push_back(i);
    } else {
      removed[i] = true;
    }
  }
  for (uint32_t j = 0; j < ib.size(); ++j) {
    if (in_a[ib[j]]) {
      rb.push_back(ib[j]);
      map_b.push_back(j);
    } else {
      added[j] = true;
    }
  }
  Differ d(ra, rb, opt.budget);
  d.run();
  for (size_t k = 0; k < ra.size(); ++k)
    if (d.removed[k]) removed[map_a[k]] = true;
  for (size_t k = 0; k < rb.size(); ++k)
    if (d.added[k]) added[map_b[k]] = true;

  // Rows in diff -u order: within a change, every removal before every addition.
  std::vector<Row> rows;
  rows.reserve(a.size() + b.size());  // an upper bound; pages are touched only as used
  std::vector<size_t> changes;        // indices of '-' and '+' rows
  for (uint32_t i = 0, j = 0; i < a.size() || j < b.size();) {
    if (i < a.size() && removed[i]) {
      changes.push_back(rows.size());
      rows.push_back({'-', i++, j});
      ++out.removed;
    } else if (j < b.size() && added[j]) {
      changes.push_back(rows.size());
      rows.push_back({'+', i, j++});
      ++out.added;
    } else {
      rows.push_back({' ', i++, j++});
    }
  }

  uint64_t listed = 0, listed_bytes = 0;
  const size_t ctx = opt.context;
  for (size_t c = 0; c < changes.size();) {
    size_t first = changes[c] >= ctx ? changes[c] - ctx : 0;
    size_t last = changes[c];
    // Changes closer than twice the context share a hunk, as diff -u joins them.
    while (c + 1 < changes.size() && changes[c + 1] - last <= 2 * ctx + 1) last = changes[++c];
    ++c;
    last = std::min(rows.size() - 1, last + ctx);

    Hunk h;
    bool has_change = false;
    for (size_t r = first; r <= last; ++r) {
      const Row& row = rows[r];
      const LineRef& l = row.op == '+' ? b[row.j] : a[row.i];
      if (listed + 1 > opt.max_lines || listed_bytes + l.text.size() > opt.max_bytes) {
        out.truncated = true;
        break;
      }
      ++listed;
      listed_bytes += l.text.size();
      h.lines.push_back({row.op, l.text, l.newline});
      if (row.op != ' ') has_change = true;
      if (row.op != '+') ++h.old_lines;
      if (row.op != '-') ++h.new_lines;
    }
    if (has_change) {
      h.old_start = rows[first].i + (h.old_lines ? 1 : 0);
      h.new_start = rows[first].j + (h.new_lines ? 1 : 0);
      out.hunks.push_back(std::move(h));
    }
    if (out.truncated) break;
  }
  return out;
}

bool apply(std::string_view old_text, const Diff& diff, std::string& out) {
  const std::vector<LineRef> a = split(old_text);
  out.clear();
  size_t i = 0;  // next old line to copy
  auto put = [&](const LineRef& l) {
    out += l.text;
    if (l.newline) out += '\n';
  };
  for (const Hunk& h : diff.hunks) {
    size_t start = h.old_lines ? h.old_start - 1 : h.old_start;
    if (start < i || start > a.size()) return false;
    while (i < start) put(a[i++]);
    for (const DiffLine& l : h.lines) {
      if (l.op == '+') {
        put({l.text, l.newline});
        continue;
      }
      if (i >= a.size() || a[i].text != l.text || a[i].newline != l.newline) return false;
      if (l.op == ' ') put(a[i]);
      ++i;
    }
  }
  while (i < a.size()) put(a[i++]);
  return true;
}

contract::Json diff_json(const Diff& diff) {
  using contract::Json;
  Json hunks = Json::array();
  for (const Hunk& h : diff.hunks) {
    Json lines = Json::array();
    for (const DiffLine& l : h.lines) {
      Json j = Json::object({{"op", std::string(1, l.op)},
                             {"text", Json::bytes(shown(l, diff.old_eol, diff.new_eol))}});
      if (!l.newline) j.set("no_newline", true);
      lines.push(std::move(j));
    }
    hunks.push(Json::object({{"old_start", h.old_start},
                             {"old_lines", h.old_lines},
                             {"new_start", h.new_start},
                             {"new_lines", h.new_lines},
                             {"lines", std::move(lines)}}));
  }
  return Json::object({{"added", diff.added},
                       {"removed", diff.removed},
                       {"old_eol", eol_name(diff.old_eol)},
                       {"new_eol", eol_name(diff.new_eol)},
                       {"hunks", std::move(hunks)}});
}

const std::string_view kDiffSchema =
    R"({"type":"object","required":["added","removed","old_eol","new_eol","hunks"],)"
    R"("additionalProperties":false,"properties":{)"
    R"("added":{"type":"integer","minimum":0},"removed":{"type":"integer","minimum":0},)"
    R"("old_eol":{"enum":["lf","crlf","mixed","none"]},"new_eol":{"enum":["lf","crlf","mixed","none"]},)"
    R"("hunks":{"type":"array","items":{"type":"object",)"
    R"("required":["old_start","old_lines","new_start","new_lines","lines"],"additionalProperties":false,)"
    R"("properties":{"old_start":{"type":"integer","minimum":0},"old_lines":{"type":"integer","minimum":0},)"
    R"("new_start":{"type":"integer","minimum":0},"new_lines":{"type":"integer","minimum":0},)"
    R"("lines":{"type":"array","items":{"type":"object","required":["op","text"],"additionalProperties":false,)"
    R"("properties":{"op":{"enum":[" ","-","+"]},"text":{"$ref":"#/$defs/text_or_bytes"},)"
    R"("no_newline":{"const":true}}}}}}}}})";

void render_diff(const contract::Json& diff, std::string& out) {
  auto range = [](uint64_t start, uint64_t count) {
    std::string s = std::to_string(start);
    if (count != 1) s += "," + std::to_string(count);
    return s;
  };
  const contract::Json* hunks = diff.get("hunks");
  if (!hunks) return;
  for (const contract::Json& h : hunks->items()) {
    out += "@@ -" + range(h.get("old_start")->as_uint(), h.get("old_lines")->as_uint()) + " +" +
           range(h.get("new_start")->as_uint(), h.get("new_lines")->as_uint()) + " @@\n";
    for (const contract::Json& l : h.get("lines")->items()) {
      out += l.get("op")->str();
      out += l.get("text")->str();
      out += '\n';
      if (l.get("no_newline")) out += "\\ No newline at end of file\n";
    }
  }
}

}  // namespace text
