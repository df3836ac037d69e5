// file_witness.cpp — two passes over a file's lines, hashing each as text::line_hash does.
#include "os/file_witness.h"

#include <algorithm>
#include <string_view>

#include "os/line_reader.h"
#include "os/open.h"
#include "text/eol.h"
#include "text/witness.h"

namespace os {
namespace {

// Every line's witness hash in order (line 1 without its BOM), to `each`; -errno on failure.
template <class F>
int hash_lines(int fd, size_t cap, bool bom, F&& each) {
  const auto read = [fd](char* buf, size_t len, uint64_t off) {
    return pread_full(fd, buf, len, off);
  };
  LineReader reader(fd, cap);
  Line line;
  uint64_t i = 0;
  while (reader.next(line)) {
    uint64_t off = line.offset, len = line.length;
    std::string_view t = line.text;
    if (i == 0 && bom) {
      off += 3;
      len -= std::min<uint64_t>(3, len);
      if (!line.too_long) t.remove_prefix(std::min<size_t>(3, t.size()));
    }
    each(i++, line.too_long ? text::line_hash_read(read, off, len) : text::line_hash(t));
  }
  return reader.error() ? -reader.error() : 0;
}

}  // namespace

int file_witnesses(int fd, size_t max_line, bool bom, const std::vector<uint64_t>& lines,
                   std::vector<uint32_t>& out, uint64_t total_lines) {
  out.clear();
  if (total_lines && total_lines < (uint64_t{1} << 32) && lines.size() * 12 >= total_lines) {
    std::vector<uint64_t> hashes;
    hashes.reserve(total_lines);
    int rc = hash_lines(fd, max_line, bom, [&](uint64_t, uint64_t h) { hashes.push_back(h); });
    if (rc < 0) return rc;
    const std::vector<uint32_t> all = text::all_witnesses(hashes);
    // A file that grew since it was counted still names only the lines it has.
    for (uint64_t l : lines) out.push_back(l < all.size() ? all[l] : 0);
    return 0;
  }
  text::WitnessFinder finder(lines);
  uint64_t total = 0;
  int rc = hash_lines(fd, max_line, bom, [&](uint64_t i, uint64_t h) {
    finder.add_context(i, h);
    total = i + 1;
  });
  if (rc < 0) return rc;
  finder.begin_count(total);
  rc = hash_lines(fd, max_line, bom, [&](uint64_t, uint64_t h) { finder.count(h); });
  if (rc < 0) return rc;
  for (uint64_t l : lines) out.push_back(finder.result(l));
  return 0;
}

void WitnessBatches::hold(const text::LineEvent& ev) {
  held_.push_back({ev, std::string(ev.text), ev.spans ? *ev.spans : std::vector<text::Span>{},
                   ev.patterns ? *ev.patterns : std::vector<uint32_t>{}});
  held_bytes_ += ev.text.size() + 64;
  if (held_.size() >= 4096 || held_bytes_ >= (4u << 20)) flush();
}

void WitnessBatches::flush() {
  if (held_.empty()) return;
  std::vector<uint64_t> chosen;
  for (auto& h : held_)
    if (h.ev.kind == text::LineEvent::Kind::Match) chosen.push_back(h.ev.line - 1);
  std::vector<uint32_t> values;
  char head[3] = {0, 0, 0};
  const bool bom = pread_full(fd_, head, 3, 0) == 3 && text::has_bom(std::string_view(head, 3));
  const int rc = chosen.empty() || error_ ? 0 : file_witnesses(fd_, max_line_, bom, chosen, values);
  if (rc < 0) error_ = -rc;
  std::vector<std::string> wit;
  for (uint32_t v : values) wit.push_back(text::witness_text(v));
  size_t wi = 0;
  for (auto& h : held_) {
    h.ev.text = h.text;
    h.ev.spans = &h.spans;
    if (h.ev.patterns) h.ev.patterns = &h.patterns;
    const bool match = h.ev.kind == text::LineEvent::Kind::Match;
    emit_(h.ev, match && wi < wit.size() ? &wit[wi] : nullptr);
    if (match) ++wi;
  }
  held_.clear();
  held_bytes_ = 0;
}

}  // namespace os
