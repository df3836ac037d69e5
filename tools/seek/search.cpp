// search.cpp — seek's per-file worker.
#include "tools/seek/search.h"

#include <cerrno>
#include <functional>

#include "os/file_witness.h"
#include "text/line_record.h"
#include "tools/seek/long_line.h"

namespace seek {

bool Search::splits() const {
  const bool joinable = mode == Mode::Count || totals || (mode == Mode::Lines && !a.witness);
  return joinable && workers >= 2;
}

uint64_t Search::parts(uint64_t size) const {
  if (!splits() || size < 2 * kPartBytes) return 1;
  return part_count(size);
}

std::unique_ptr<Slot> part_slot(const std::string& path, const struct stat& st,
                                const std::shared_ptr<SharedFile>& file, uint64_t k, uint64_t n) {
  auto s = std::make_unique<Slot>();
  s->path = path;
  s->named = true;  // opened: its worker reads file->fd
  s->st = st;
  s->part = std::make_unique<Part>();
  s->part->file = file;
  s->part->from = k * kPartBytes;
  s->part->last = k + 1 == n;
  s->part->to = s->part->last ? UINT64_MAX : (k + 1) * kPartBytes;
  return s;
}

std::vector<std::unique_ptr<Slot>> rest_of(const Slot& s) {
  std::vector<std::unique_ptr<Slot>> rest;
  if (!s.part || !s.entry || s.part->last) return rest;
  const uint64_t n = std::max<uint64_t>(2, part_count(s.bytes()));
  for (uint64_t k = 1; k < n; ++k) rest.push_back(part_slot(s.path, s.st, s.part->file, k, n));
  return rest;
}

void search_file(const Search& cfg, Slot& s, Worker& w) {
  const Args& a = cfg.a;
  Piece piece;
  auto publish = [&] {
    cfg.pool->publish(s, std::move(piece));
    piece = Piece();
    piece.bytes.reserve(Ordered::kPiece + 4096);
  };
  auto finish = [&] { s.last = std::move(piece); };
  auto add_error = [&](contract::Error e) {
    s.errors.push_back(std::move(e));
    piece.recs.push_back(
        {RecKind::Error, s.errors.size() - 1, 0, piece.bytes.size(), piece.bytes.size()});
  };
  os::Fd owned;
  int fd = s.part ? s.part->file->fd.get() : s.fd.get();
  // A file the walk listed as regular, on a filesystem that reads files whole, is opened
  // without fstat: its first read says what it is (os::walked_reader).
  const bool lazy = !s.named && s.entry->whole_reads && s.entry->kind == os::EntryKind::File &&
                    !s.entry->has_stat;
  if (!s.named) {
    const int r = lazy ? os::open_entry(*s.entry) : os::open_entry(*s.entry, s.st);
    if (r < 0) {
      // A link now where the walk saw a file: not followed, counted as the link it is.
      if (r == -ELOOP) {
        s.own.symlink = 1;
        return;
      }
      add_error(os::errno_error(-r, s.path, "open"));
      finish();
      return;
    }
    owned = os::Fd(r);
    fd = r;
    if (!lazy && !S_ISREG(s.st.st_mode)) {  // swapped for a FIFO or device since listed
      s.own.special = 1;
      return;
    }
  }
  const text::ReadAt read = lazy ? os::walked_reader(fd, s.st)
                                 : os::input_reader(fd, static_cast<uint64_t>(s.st.st_size));
  text::LineRecords render(cfg.text ? text::RecordForm::Text : text::RecordForm::Json);
  render.set_path(s.path);

  text::ScanOptions so;
  so.max_line = static_cast<size_t>(a.max_line_bytes);
  so.context = cfg.lines() ? a.context : 0;
  so.max_matches = cfg.lines() ? cfg.limit : cfg.mode == Mode::Files ? 1 : UINT64_MAX;
  so.skip_binary = !s.named;
  so.cancel = cfg.pool->cancel_flag();
  if (cfg.pattern_counts()) s.pattern_counts.assign(a.patterns.size(), 0);
  so.count_only = cfg.mode == Mode::Count;
  if (so.count_only && !s.pattern_counts.empty()) so.pattern_counts = s.pattern_counts.data();
  if (s.part) {
    so.from = s.part->from;
    so.to = s.part->to;
    so.eol = &s.part->file->eol;
    s.part->match_line_at = render.line_at(true);
    s.part->context_line_at = render.line_at(false);
  }
  // A walked file is searched as the first part of a large one: most end within it, the same
  // search as a whole one; one that goes on becomes that part, and the rest follow (rest_of).
  const bool first_part = !s.named && cfg.splits();
  if (first_part) so.to = kPartBytes;

  // The main thread may read the slot's `binary` once it has a piece (a file record for an
  // answer cut inside this file): it is set before the first, and not written after one.
  bool added = false;
  auto add = [&](const text::LineEvent& ev, const std::string* witness) {
    if (!added) {
      s.binary = ev.binary;
      added = true;
    }
    const size_t begin = piece.bytes.size();
    const bool match = ev.kind == text::LineEvent::Kind::Match;
    if (match)
      render.match(piece.bytes, ev, witness);
    else
      render.context(piece.bytes, ev);
    piece.recs.push_back({match ? RecKind::Match : RecKind::Context, ev.lo, ev.hi, begin,
                          piece.bytes.size(), ev.line});
    if (piece.bytes.size() >= Ordered::kPiece) publish();
  };

  // --witness: events are held in batches until their witnesses are known.
  std::optional<os::WitnessBatches> batches;
  if (a.witness && cfg.lines()) batches.emplace(fd, so.max_line, add);
  const auto on_event = [&](const text::LineEvent& ev) {
    if (cfg.pool->cancelled()) return false;
    if (!cfg.lines()) {  // counted, not shown (the Scanner counts the lines)
      if (ev.patterns && !s.pattern_counts.empty())
        for (uint32_t i : *ev.patterns) ++s.pattern_counts[i];
      return true;
    }
    if (batches)
      batches->hold(ev);
    else
      add(ev, nullptr);
    return true;
  };
  // Held by reference: a std::function copies a lambda of more than two words to the heap,
  // an allocation per file searched.
  const text::LineSink sink = std::ref(on_event);
  const text::ScanResult res = text::scan(*w.matcher, so, read, sink, w.buffer);
  if (lazy && !S_ISREG(s.st.st_mode)) {  // found by its first read (nothing was read)
    s.own.special = 1;
    return;
  }
  if (res.skipped) {
    s.own.binary = 1;
    return;
  }
  if (batches) batches->flush();
  s.searched = true;
  if (!added) s.binary = res.binary;
  s.found = res.found;
  if (res.error) add_error(os::errno_error(res.error, s.path, "read"));
  if (batches && batches->error()) add_error(os::errno_error(batches->error(), s.path, "read"));
  if (first_part && res.more) {
    s.part = std::make_unique<Part>();
    s.part->file = std::make_shared<SharedFile>();
    s.part->file->fd = std::move(owned);
    s.part->to = kPartBytes;  // a first part: its line numbers are the file's, never moved
  }
  if (s.part)  // its long lines are the file's, joined with the other parts' (Page)
    s.part->scan = res;
  else if (res.long_count)
    add_error(long_line_error(a, s.path, res, read));
  finish();
}

std::unique_ptr<Slot> error_slot(contract::Error e) {
  auto s = std::make_unique<Slot>();
  s->work = false;
  s->errors.push_back(std::move(e));
  s->last.recs.push_back({RecKind::Error, 0, 0, 0, 0});
  return s;
}

}  // namespace seek
