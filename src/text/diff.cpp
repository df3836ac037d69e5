// diff.cpp — Myers' line diff in linear space, grouped into diff -u hunks (see diff.h).
#include "text/diff.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "mem/big_alloc.h"
#include "text/newlines.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace text {
namespace {

// The memory of one region's diff: its arrays (line offsets, ids, marks, maps, Myers' V) are
// carved from one buffer sized from the line counts up front, and let go together. One
// buffer, not a dozen: each would be a middle-sized malloc block faulting in 4 KiB at a
// time, and on a VM those faults were most of the diff's time in a fresh process (1.8 ms
// warm against 5 ms and more cold for the 1 MiB benchmark); a buffer from mem::big_alloc is
// in huge pages. Nothing is freed before the end (a bump allocator), the table of interned
// lines included: as a buffer of its own it was one more huge page to fault in and clear
// (for the 1 MiB benchmark, 2 MiB cleared for a 0.5 MiB table, about 0.2 ms).
class Arena {
 public:
  explicit Arena(size_t expected) { grow(expected); }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() {
    for (auto& [p, n] : blocks_) mem::big_free(p, n);
  }
  void* take(size_t bytes, size_t align) {
    size_t at = (used_ + align - 1) / align * align;
    if (blocks_.empty() || at + bytes > blocks_.back().second) {
      grow(std::max(bytes + align, blocks_.empty() ? size_t{0} : blocks_.back().second));
      at = 0;
    }
    used_ = at + bytes;
    return blocks_.back().first + at;
  }

 private:
  void grow(size_t bytes) {
    bytes = std::max<size_t>(bytes, 4096);
    auto* p = static_cast<char*>(mem::big_alloc(bytes));
    if (!p) throw std::bad_alloc();
    blocks_.emplace_back(p, bytes);
    used_ = 0;
  }
  std::vector<std::pair<char*, size_t>> blocks_;
  size_t used_ = 0;
};

template <class T>
struct ArenaAlloc {
  using value_type = T;
  Arena* arena;
  explicit ArenaAlloc(Arena& a) : arena(&a) {}
  template <class U>
  ArenaAlloc(const ArenaAlloc<U>& o) noexcept : arena(o.arena) {}
  T* allocate(size_t n) { return static_cast<T*>(arena->take(n * sizeof(T), alignof(T))); }
  void deallocate(T*, size_t) noexcept {}
  friend bool operator==(const ArenaAlloc& x, const ArenaAlloc& y) { return x.arena == y.arena; }
};
template <class T>
using AVec = std::vector<T, ArenaAlloc<T>>;

// The intern table's slots for `lines` lines: a power of two, at most two thirds full.
size_t table_slots(size_t lines) {
  size_t cap = 16;
  while (cap < lines + lines / 2) cap <<= 1;
  return cap;
}
size_t table_bytes(size_t lines) { return table_slots(lines) * sizeof(uint64_t) + alignof(uint64_t); }

size_t count_lines(std::string_view text) {
  size_t n = static_cast<size_t>(count_newlines(text.data(), text.size()));
  return n + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

// Where each line of a text starts: line k is text[starts[k], starts[k + 1]), its '\n'
// included, so two lines are equal exactly when their bytes are, and a last line without '\n'
// never equals the same text with one. Off is uint32_t below 4 GiB: half the bytes to touch.
template <class Off>
class Lines {
 public:
  // n: count_lines(text), counted by the caller to size the arena.
  Lines(std::string_view text, size_t n, Arena& arena)
      : text_(text), starts_(ArenaAlloc<Off>(arena)) {
    starts_.resize(n + 1);
    Off* out = starts_.data();
    if (n > 0) *out++ = 0;
    // Every '\n' but a last one ends a line the next starts after: the text is scanned once,
    // 16 bytes at a time, rather than by one memchr call per line (most lines are short, and
    // the calls were a tenth of a diff's time).
    const size_t last = text.empty() || text.back() != '\n' ? text.size() : text.size() - 1;
    const char* const p = text.data();
    size_t i = 0;
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n');
    for (; i + 16 <= last; i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      for (unsigned m = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl))); m != 0;
           m &= m - 1)
        *out++ = static_cast<Off>(i + static_cast<size_t>(__builtin_ctz(m)) + 1);
    }
#endif
    for (; i < last; ++i)
      if (p[i] == '\n') *out++ = static_cast<Off>(i + 1);
    starts_[n] = static_cast<Off>(text.size());
  }
  size_t size() const { return starts_.size() - 1; }
  std::string_view raw(size_t k) const {
    return text_.substr(starts_[k], static_cast<size_t>(starts_[k + 1] - starts_[k]));
  }
  bool newline(size_t k) const { return text_[static_cast<size_t>(starts_[k + 1]) - 1] == '\n'; }
  std::string_view body(size_t k) const {
    std::string_view r = raw(k);
    if (newline(k)) r.remove_suffix(1);
    return r;
  }

 private:
  std::string_view text_;
  AVec<Off> starts_;
};

// Marks removed old lines and added new lines; what is marked in neither is kept, in order.
// It sees only the lines that can match (a, b: their ids) and marks through map_a/map_b, the
// index of each in its file.
class Differ {
 public:
  Differ(const AVec<uint32_t>& a, const AVec<uint32_t>& b, uint64_t& budget, uint8_t* removed,
         const uint32_t* map_a, uint8_t* added, const uint32_t* map_b, Arena& arena)
      : a_(a), b_(b), budget_(budget), removed_(removed), added_(added), map_a_(map_a),
        map_b_(map_b), v1_(ArenaAlloc<int32_t>(arena)), v2_(ArenaAlloc<int32_t>(arena)) {
    // The first bisection is of the whole: its V arrays are the largest there will be.
    const size_t most = a.size() + b.size() + 4;
    v1_.reserve(most);
    v2_.reserve(most);
  }

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

  const AVec<uint32_t>& a_;
  const AVec<uint32_t>& b_;
  uint64_t& budget_;
  uint8_t* removed_;
  uint8_t* added_;
  const uint32_t* map_a_;
  const uint32_t* map_b_;
  AVec<int32_t> v1_, v2_;  // 32 bits: half the memory to touch (pieces < 2^30 lines)

  void remove(int64_t i) { removed_[map_a_[i]] = 1; }
  void add(int64_t j) { added_[map_b_[j]] = 1; }

  // Everything in the piece removed, then everything added: always a correct script.
  void coarse(const Piece& p) {
    for (int64_t i = p.a_lo; i < p.a_hi; ++i) remove(i);
    for (int64_t j = p.b_lo; j < p.b_hi; ++j) add(j);
  }

  // One side is a single line: keep it if the other side has it (the first occurrence).
  void single(const Piece& p) {
    int64_t n = p.a_hi - p.a_lo;
    if (n == 1) {
      int64_t keep = -1;
      for (int64_t j = p.b_lo; j < p.b_hi && keep < 0; ++j)
        if (b_[j] == a_[p.a_lo]) keep = j;
      if (keep < 0) return coarse(p);
      for (int64_t j = p.b_lo; j < p.b_hi; ++j)
        if (j != keep) add(j);
      return;
    }
    int64_t keep = -1;
    for (int64_t i = p.a_lo; i < p.a_hi && keep < 0; ++i)
      if (a_[i] == b_[p.b_lo]) keep = i;
    if (keep < 0) return coarse(p);
    for (int64_t i = p.a_lo; i < p.a_hi; ++i)
      if (i != keep) remove(i);
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

// Walks the rows of the script in diff -u order (within a change, every removal before every
// addition) without storing them: row r is ' ', '-' or '+', and (i, j) the old and new line
// cursors before it.
struct Cursor {
  const uint8_t* removed;
  size_t n;
  const uint8_t* added;
  size_t m;
  size_t i = 0, j = 0, r = 0;
  bool done() const { return i >= n && j >= m; }
  char op() const { return i < n && removed[i] ? '-' : j < m && added[j] ? '+' : ' '; }
  void step() {
    char o = op();
    if (o != '+') ++i;
    if (o != '-') ++j;
    ++r;
  }
};

// The diff of one region into `out`: the script, then its hunks (changes closer than twice
// the context share one, as diff -u joins them), listed until a cap is reached.
template <class Off>
void diff_region(std::string_view a_text, std::string_view b_text, uint64_t a_before,
                 uint64_t b_before, const DiffOptions& opt, uint64_t& budget, uint64_t& listed,
                 uint64_t& listed_bytes, bool copy, Diff& out) {
  const size_t na = count_lines(a_text), nb = count_lines(b_text);
  // Per line: its offset, mark, id, map entry, presence flag and Myers' V entries; and the
  // intern table (at most table_slots of every line).
  Arena arena(24 * (na + nb) + table_bytes(na + nb) + 256);
  const Lines<Off> la(a_text, na, arena), lb(b_text, nb, arena);
  AVec<uint8_t> removed(na, 0, ArenaAlloc<uint8_t>(arena)), added(nb, 0, ArenaAlloc<uint8_t>(arena));

  // The common head and tail lines are kept as they are, before anything else (GNU diff's
  // find_identical_ends does the same): a region's margins (the context its caller put
  // around the change) then stay context, whatever the discarding of unmatched lines below
  // would make Myers align. (diff_lines has cut all but `context` of them as bytes already.)
  // On random small files this agrees with GNU diff -u's hunks slightly more often than
  // discarding first did (1221 against 1213 of 1500). h0..a_end, h0..b_end are left to align.
  size_t h0 = 0, t0 = 0;
  while (h0 < na && h0 < nb && la.raw(h0) == lb.raw(h0)) ++h0;
  while (t0 < na - h0 && t0 < nb - h0 && la.raw(na - 1 - t0) == lb.raw(nb - 1 - t0)) ++t0;
  const size_t a_end = na - t0, b_end = nb - t0;
  const size_t ma = a_end - h0, mb = b_end - h0;

  if (ma == 0 || mb == 0 || ma + mb >= UINT32_MAX) {
    // One side empty (a new file, a file emptied, a pure insertion or deletion): every line
    // of the other is the change, and there is nothing to intern or align. (Past 2^32 lines
    // ids do not fit: coarse, still exact.)
    std::fill(removed.begin() + static_cast<long>(h0), removed.begin() + static_cast<long>(a_end), 1);
    std::fill(added.begin() + static_cast<long>(h0), added.begin() + static_cast<long>(b_end), 1);
  } else {
    // Interned ids: equal ids are equal lines. A line's id is the index (a's lines, then b's,
    // counted from h0) of its first occurrence; an open-addressing table of (32 bits of XXH3,
    // first occurrence) finds it without a node allocation per line.
    const size_t total = ma + mb;
    AVec<uint32_t> ia(ma, 0, ArenaAlloc<uint32_t>(arena)), ib(mb, 0, ArenaAlloc<uint32_t>(arena));
    {
      // The table is carved from the arena, which was sized for it (table_bytes): one
      // huge page less to fault in and clear than a buffer of its own.
      const size_t cap = table_slots(total);
      AVec<uint64_t> table(cap, 0, ArenaAlloc<uint64_t>(arena));
      auto raw_at = [&](size_t g) { return g < ma ? la.raw(h0 + g) : lb.raw(h0 + g - ma); };
      // The id of line `l` (hashed to `h`): the first occurrence of its bytes, or `fresh`
      // (recorded as such) when there is none yet.
      auto probe = [&](std::string_view l, uint64_t h, size_t fresh) {
        const uint64_t tag = h >> 32;
        for (size_t pos = static_cast<size_t>(h) & (cap - 1);; pos = (pos + 1) & (cap - 1)) {
          const uint64_t slot = table[pos];
          if (slot == 0) {
            table[pos] = tag << 32 | (fresh + 1);
            return static_cast<uint32_t>(fresh);
          }
          const size_t first = static_cast<size_t>(slot & 0xffffffffu) - 1;
          if ((slot >> 32) == tag && raw_at(first) == l) return static_cast<uint32_t>(first);
        }
      };
      // The old side: every line into the table. The probes land anywhere in it, and waiting
      // for each slot to come from memory was most of the interning time: the lines are
      // hashed a block ahead and their slots prefetched, so the waits overlap.
      constexpr size_t kAhead = 16;
      uint64_t hashes[kAhead];
      for (size_t k0 = 0; k0 < ma; k0 += kAhead) {
        const size_t block = std::min(kAhead, ma - k0);
        for (size_t j = 0; j < block; ++j) {
          const std::string_view l = la.raw(h0 + k0 + j);
          hashes[j] = XXH3_64bits(l.data(), l.size());
          __builtin_prefetch(&table[static_cast<size_t>(hashes[j]) & (cap - 1)]);
        }
        for (size_t j = 0; j < block; ++j) ia[k0 + j] = probe(la.raw(h0 + k0 + j), hashes[j], k0 + j);
      }
      // The new side: most of its lines are old lines in order, the edit an agent makes
      // (scattered changes in a file that is otherwise kept). A line equal to the old line
      // facing it, as far along as the last line found in the old side, takes that line's
      // id, which is what the table would answer (an old line's id is its bytes' first
      // occurrence in the old side, looked up before any new line): compared in place, in
      // order, with no hash and no probe. Only the other lines are looked up.
      int64_t shift = 0;  // old index - new index of the last new line found in the old side
      for (size_t k = 0; k < mb; ++k) {
        const std::string_view l = lb.raw(h0 + k);
        const int64_t g = static_cast<int64_t>(k) + shift;
        if (g >= 0 && g < static_cast<int64_t>(ma) && la.raw(h0 + static_cast<size_t>(g)) == l) {
          ib[k] = ia[static_cast<size_t>(g)];
          continue;
        }
        ib[k] = probe(l, XXH3_64bits(l.data(), l.size()), ma + k);
        if (ib[k] < ma) shift = static_cast<int64_t>(ib[k]) - static_cast<int64_t>(k);
      }
    }

    // A line with no equal on the other side can never be kept: mark it now and give Myers
    // only the lines that can match (GNU diff discards them too). The script stays minimal,
    // and two unrelated files cost nothing but this pass. The ids of the lines that can match
    // are packed in place; map_* says where each came from.
    AVec<uint32_t> map_a(ArenaAlloc<uint32_t>{arena}), map_b(ArenaAlloc<uint32_t>{arena});
    {
      AVec<uint8_t> in_a(total, 0, ArenaAlloc<uint8_t>(arena)), in_b(total, 0, ArenaAlloc<uint8_t>(arena));
      for (uint32_t id : ia) in_a[id] = 1;
      for (uint32_t id : ib) in_b[id] = 1;
      auto pack = [h0](AVec<uint32_t>& ids, const AVec<uint8_t>& other, AVec<uint32_t>& map,
                       AVec<uint8_t>& marks) {
        size_t kept = 0;
        for (size_t i = 0; i < ids.size(); ++i)
          if (other[ids[i]]) ++kept;
        map.reserve(kept);
        size_t w = 0;
        for (size_t i = 0; i < ids.size(); ++i) {
          if (other[ids[i]]) {
            ids[w++] = ids[i];
            map.push_back(static_cast<uint32_t>(h0 + i));
          } else {
            marks[h0 + i] = 1;
          }
        }
        ids.resize(w);
      };
      pack(ia, in_b, map_a, removed);
      pack(ib, in_a, map_b, added);
    }
    Differ(ia, ib, budget, removed.data(), map_a.data(), added.data(), map_b.data(), arena).run();
  }

  for (uint8_t x : removed) out.removed += x;
  for (uint8_t x : added) out.added += x;
  if (out.truncated) return;  // a cap was reached in an earlier region: counts only

  // Two cursors over the same rows: `det` finds where hunks begin and end, `em` follows it
  // and lists each hunk as soon as it is closed. Nothing is stored but the listed lines.
  const size_t ctx = opt.context;
  Cursor det{removed.data(), na, added.data(), nb};
  Cursor em = det;
  auto emit = [&](size_t first, size_t last) {  // rows first..last; false once a cap is hit
    while (em.r < first) em.step();
    Hunk h;
    const uint64_t i0 = em.i, j0 = em.j;
    bool has_change = false;
    for (size_t r = first; r <= last; ++r) {
      const char op = em.op();
      const bool from_new = op == '+';
      const std::string_view text = from_new ? lb.body(em.j) : la.body(em.i);
      const bool newline = from_new ? lb.newline(em.j) : la.newline(em.i);
      if (listed + 1 > opt.max_lines || listed_bytes + text.size() > opt.max_bytes) {
        out.truncated = true;
        break;
      }
      ++listed;
      listed_bytes += text.size();
      std::string_view shown = text;
      if (copy) {
        out.owned.push_back(std::make_unique<std::string>(text));
        shown = *out.owned.back();
      }
      h.lines.push_back({op, shown, newline});
      if (op != ' ') has_change = true;
      if (op != '+') ++h.old_lines;
      if (op != '-') ++h.new_lines;
      em.step();
    }
    if (has_change) {
      h.old_start = a_before + i0 + (h.old_lines ? 1 : 0);
      h.new_start = b_before + j0 + (h.new_lines ? 1 : 0);
      out.hunks.push_back(std::move(h));
    }
    return !out.truncated;
  };
  bool open = false;
  size_t first = 0, last_change = 0;
  for (; !det.done(); det.step()) {
    // Past 2 * context + 1 rows from the last change no later change can join the hunk:
    // list it now (on the first such row, changed or not).
    if (open && det.r - last_change > 2 * ctx + 1) {
      if (!emit(first, last_change + ctx)) return;
      open = false;
    }
    if (det.op() != ' ') {
      if (!open) first = det.r >= ctx ? det.r - ctx : 0;
      open = true;
      last_change = det.r;
    }
  }
  if (open && det.r > 0) emit(first, std::min(last_change + ctx, det.r - 1));
}

Eol eol_of(std::string_view text) {
  EolTally t;
  t.add(text);
  return t.result();
}

bool line_start(std::string_view t, size_t pos) { return pos == 0 || t[pos - 1] == '\n'; }

}  // namespace

void EolTally::add(std::string_view piece) {
  if (piece.empty()) return;
  const uint64_t all = count_newlines(piece.data(), piece.size());
  const uint64_t crlf = count_crlf(piece.data(), piece.size()) + (cr_ && piece[0] == '\n');
  crlf_ += crlf;
  lf_ += all - crlf;
  cr_ = piece.back() == '\r';
}

Eol EolTally::result() const {
  EolCounter c;  // one source of truth for the policy: feed it the counts as lines
  if (crlf_) c.add("\r", true);
  if (lf_) c.add("", true);
  return c.result();
}

DiffBuilder::DiffBuilder(const DiffOptions& opt) : opt_(opt), budget_(opt.budget) {}

void DiffBuilder::add(std::string_view old_region, std::string_view new_region,
                      uint64_t old_before, uint64_t new_before, bool copy) {
  if (old_region.size() <= UINT32_MAX && new_region.size() <= UINT32_MAX)
    diff_region<uint32_t>(old_region, new_region, old_before, new_before, opt_, budget_, listed_,
                          listed_bytes_, copy, out_);
  else
    diff_region<uint64_t>(old_region, new_region, old_before, new_before, opt_, budget_, listed_,
                          listed_bytes_, copy, out_);
}

Diff DiffBuilder::finish(Eol old_eol, Eol new_eol, bool old_bom, bool new_bom) && {
  out_.old_eol = old_eol;
  out_.new_eol = new_eol;
  out_.old_bom = old_bom;
  out_.new_bom = new_bom;
  return std::move(out_);
}

Diff diff_lines(std::string_view a, std::string_view b, const DiffOptions& opt) {
  return diff_lines(a, b, opt, eol_of(a), eol_of(b));
}

Diff diff_lines(std::string_view a, std::string_view b, const DiffOptions& opt, Eol a_eol,
                Eol b_eol) {
  DiffBuilder builder(opt);
  const bool a_bom = has_bom(a), b_bom = has_bom(b);
  // The common head, as bytes, back to where its last whole line ends, then `context` lines
  // further back: those the first hunk shows. What is cut is equal line for line, and every
  // shortest script keeps it, so the script of what remains is the script of the whole.
  size_t p = static_cast<size_t>(
      std::mismatch(a.begin(), a.begin() + static_cast<long>(std::min(a.size(), b.size())),
                    b.begin())
          .first -
      a.begin());
  if (p == a.size() && p == b.size()) return std::move(builder).finish(a_eol, b_eol, a_bom, b_bom);
  while (p > 0 && !(line_start(a, p) && line_start(b, p))) --p;
  // The common tail likewise, never reaching into the head (measured before the head gives
  // back its context lines: a line repeated next to the change belongs to one of them only),
  // forward to where a line starts in both, then `context` lines further on.
  size_t s = 0;
  const size_t s_max = std::min(a.size(), b.size()) - p;
  while (s < s_max && a[a.size() - 1 - s] == b[b.size() - 1 - s]) ++s;
  while (s > 0 && !(line_start(a, a.size() - s) && line_start(b, b.size() - s))) --s;
  for (size_t k = 0; k < opt.context && p > 0; ++k) {
    size_t nl = p >= 2 ? a.rfind('\n', p - 2) : std::string_view::npos;
    p = nl == std::string_view::npos ? 0 : nl + 1;
  }
  for (size_t k = 0; k < opt.context && s > 0; ++k) {
    size_t nl = a.find('\n', a.size() - s);
    s = nl == std::string_view::npos ? 0 : a.size() - nl - 1;
  }
  const uint64_t before = count_newlines(a.data(), p);
  builder.add(a.substr(p, a.size() - s - p), b.substr(p, b.size() - s - p), before, before,
              /*copy=*/false);
  return std::move(builder).finish(a_eol, b_eol, a_bom, b_bom);
}

}  // namespace text
