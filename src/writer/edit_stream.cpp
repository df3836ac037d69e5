// edit_stream.cpp — see edit_stream.h.
#include "writer/edit_stream.h"

#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>

#include "mem/big_alloc.h"
#include "os/hash.h"
#include "text/diff.h"
#include "text/witness.h"

namespace writer {

namespace {

// A line that spans two windows is gathered up to this many bytes and hashed whole; a longer
// one is hashed as it is read back in pieces. Lines that long are rare, and reading one again
// costs less than holding it.
constexpr size_t kCarry = 256 * 1024;

// One job at a time on a second thread, beside the caller's own work on the same bytes: pass 1
// hashes each window there while the caller hashes its lines, the two halves of the pass's
// work, on two cores where there are two. The first job runs in place, and the thread is
// started for the second: a file of one window (most files an agent edits) starts none.
// Where no thread can be had, every job runs in place.
class Beside {
 public:
  Beside() = default;
  ~Beside() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> l(m_);
      quit_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  Beside(const Beside&) = delete;
  Beside& operator=(const Beside&) = delete;

  // Runs job (after the one before it is done).
  void start(std::function<void()> job) {
    if (!thread_.joinable()) {
      if (jobs_++ == 0 || alone_) return job();
      try {
        thread_ = std::thread([this] { loop(); });
      } catch (const std::system_error&) {
        alone_ = true;
        return job();
      }
    }
    wait();
    {
      std::lock_guard<std::mutex> l(m_);
      job_ = std::move(job);
    }
    wake_.notify_one();
  }
  // Returns once the job started last is done.
  void wait() {
    std::unique_lock<std::mutex> l(m_);
    done_.wait(l, [this] { return !job_; });
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> l(m_);
    for (;;) {
      wake_.wait(l, [this] { return quit_ || job_; });
      if (!job_) return;
      l.unlock();
      job_();
      l.lock();
      job_ = nullptr;
      done_.notify_one();
    }
  }
  std::mutex m_;
  std::condition_variable wake_, done_;
  std::function<void()> job_;
  bool quit_ = false;
  int jobs_ = 0;        // before the thread: the jobs run in place
  bool alone_ = false;  // no thread could be had
  std::thread thread_;
};

// Cuts the windows of a file, fed in order, into lines hashed as text::line_hash hashes them:
// line(hash, start) for each. A line that spans windows is gathered up to kCarry bytes, and a
// longer one hashed as it is read back from fd.
class LineSplitter {
 public:
  explicit LineSplitter(int fd) : fd_(fd) {}
  // At most max_lines lines ended in this piece: where the next line starts (the rest of the
  // piece is fed next, from there), or the piece's size once it is all taken.
  template <class Line>
  size_t feed(std::string_view piece, uint64_t pos, Line&& line, size_t max_lines = SIZE_MAX) {
    size_t i = 0;
    if (pos == 0 && text::has_bom(piece)) start_ = i = 3;  // line 1 starts after the BOM
    for (size_t n = 0; i < piece.size(); ++n) {
      if (n == max_lines) return i;
      const void* nl = std::memchr(piece.data() + i, '\n', piece.size() - i);
      if (!nl) {
        const size_t len = piece.size() - i;
        if (carry_len_ + len <= kCarry) carry_.append(piece.substr(i));
        carry_len_ += len;
        break;
      }
      const size_t e = static_cast<size_t>(static_cast<const char*>(nl) - piece.data());
      finish(piece.substr(i, e - i), pos + e + 1, line);
      i = e + 1;
    }
    return piece.size();
  }
  // The last line, without '\n', if there is one: `end` is the file's size.
  template <class Line>
  void end(uint64_t end, Line&& line) {
    if (carry_len_ > 0) finish({}, end, line);
  }

 private:
  template <class Line>
  void finish(std::string_view tail, uint64_t next, Line& line) {
    uint64_t h;
    if (carry_len_ == 0) {
      h = text::line_hash(tail);
    } else if (carry_len_ + tail.size() <= kCarry) {
      carry_.append(tail);
      h = text::line_hash(carry_);
    } else {
      const int fd = fd_;
      h = text::line_hash_read(
          [fd](char* buf, size_t len, uint64_t off) { return os::pread_full(fd, buf, len, off); },
          start_, carry_len_ + tail.size());
    }
    line(h, start_);
    carry_.clear();
    carry_len_ = 0;
    start_ = next;
  }
  int fd_;
  std::string carry_;       // the part of a line read in earlier windows (at most kCarry bytes)
  uint64_t carry_len_ = 0;  // its length, counted past kCarry
  uint64_t start_ = 0;      // where the line being read starts
};

// Reads fd from offset 0 to its end in windows of kWindow (or the file's size, when smaller):
// chunk(piece, pos) for each window, which answers whether lines are still wanted; while they
// are (and `lines` asked for them), line(hash, start) for each line (LineSplitter). reuse() is
// called before the window is read into again, and at the end (what chunk() left working on
// it must be done by then). The total read, or the read's error.
template <class Chunk, class Line, class Reuse>
os::Result<uint64_t> walk(int fd, const std::string& path, bool lines, Chunk&& chunk, Line&& line,
                          Reuse&& reuse) {
  const size_t window = window_for(fd);
  mem::Bytes win;
  if (!win.reserve(window)) return os::errno_error(ENOMEM, path, "read");
  LineSplitter split(fd);
  uint64_t pos = 0;
  for (bool eof = false; !eof;) {
    reuse();
    const long long n = os::pread_full(fd, win.data(), window, pos);
    if (n < 0) return os::errno_error(static_cast<int>(-n), path, "read");
    const std::string_view piece(win.data(), static_cast<size_t>(n));
    eof = static_cast<size_t>(n) < window;
    lines = chunk(piece, pos) && lines;
    if (lines) split.feed(piece, pos, line);
    pos += static_cast<uint64_t>(n);
  }
  reuse();
  if (lines) split.end(pos, line);
  return pos;
}

}  // namespace

// Pass 1 in a pipeline of two threads: the second thread takes a window's bytes (their hashes,
// their line endings, its cutting into hashed lines) and reads the next window, while this
// one gives the window before's lines to the search, the pass's heaviest part (every line's
// window hashed at every radius). A window's lines are held until the search takes them, at
// most kScanLines of them (16 bytes each): a window of shorter lines has the rest cut by this
// thread, and the next window too (the cutting goes in order), while the second thread only
// hashes it.
constexpr size_t kScanWindow = 256 * 1024;
constexpr size_t kScanLines = 16384;

os::Result<EditScan> scan_lines(int fd, const std::string& path, text::WitnessSearch& search,
                                uint64_t max_bytes) {
  os::Sha hash;
  Check check;
  text::EolTally eols;
  EditScan out;
  const size_t window = std::min(kScanWindow, window_for(fd));
  struct Window {
    char* bytes = nullptr;
    long long read = 0;     // what the read gave: a count, or -errno
    std::string_view piece;  // the bytes read, from `pos`
    uint64_t pos = 0;
    std::vector<std::pair<uint64_t, uint64_t>> lines;  // (hash, start), cut by the second thread
    size_t cut = 0;  // where it stopped (at a line's start), or piece.size()
  };
  Window win[2];
  mem::Bytes both;  // the two windows in one allocation (one huge page)
  if (!both.reserve(2 * window)) return os::errno_error(ENOMEM, path, "read");
  for (int k = 0; k < 2; ++k) {
    win[k].bytes = both.data() + k * window;
    win[k].lines.reserve(kScanLines);
  }
  LineSplitter split(fd);
  const auto add = [&](uint64_t h, uint64_t start) { search.add(h, start); };
  // The search takes a window's lines: those the second thread cut, then the rest.
  const auto take = [&](Window& w) {
    for (auto [h, start] : w.lines) search.add(h, start);
    w.lines.clear();
    if (w.cut < w.piece.size()) split.feed(w.piece.substr(w.cut), w.pos + w.cut, add);
    w.cut = w.piece.size();
  };
  Beside beside;
  win[0].read = os::pread_full(fd, win[0].bytes, window, 0);
  bool eof = false;
  Window* last = nullptr;  // the window before, whose lines the search has yet to take
  for (size_t i = 0; !eof; ++i) {
    Window& w = win[i % 2];
    if (w.read < 0) return os::errno_error(static_cast<int>(-w.read), path, "read");
    w.pos = out.total;
    w.piece = std::string_view(w.bytes, static_cast<size_t>(w.read));
    w.cut = w.piece.size();
    eof = w.piece.size() < window;
    if (w.pos == 0) out.bom = text::has_bom(w.piece);
    out.total += w.piece.size();
    out.over = out.over || out.total > max_bytes;
    // The second thread cuts this window's lines, unless this one still has to cut the rest
    // of the window before: then this one cuts both, in order.
    const bool lines = !out.over;
    const bool beside_cuts = lines && !(last && last->cut < last->piece.size());
    Window* next = &win[(i + 1) % 2];
    beside.start([&, next, total = out.total, beside_cuts, eof] {
      hash.update(w.piece);
      check.update(w.piece);
      eols.add(w.piece);
      out.marks.mark(total, hash);
      if (beside_cuts)
        w.cut = split.feed(
            w.piece, w.pos, [&](uint64_t h, uint64_t start) { w.lines.emplace_back(h, start); },
            kScanLines);
      if (!eof) next->read = os::pread_full(fd, next->bytes, window, total);
    });
    if (last) take(*last);
    if (lines && !beside_cuts) split.feed(w.piece, w.pos, add);
    beside.wait();
    last = out.over ? nullptr : &w;
  }
  if (last) take(*last);
  if (!out.over) split.end(out.total, add);
  out.sha256 = hash.hex();
  out.check = check.digest();
  out.eol = eols.result();
  if (!out.over) search.end_first(out.total);
  return out;
}

os::Result<Rewritten> rewrite_lines(int fd, const std::string& path, const EditScan& first,
                                    text::WitnessSearch* search, const std::vector<text::Cut>* cuts,
                                    os::TempFile* tmp) {
  Check check;
  // Cuts come sorted by where they start: the new file is the old one up to the first.
  RewriteSink sink(tmp, &first.marks, cuts && !cuts->empty() ? cuts->front().start : first.total);
  auto emit = [&](std::string_view piece) { sink(piece); };
  std::optional<text::CutSplicer> splicer;
  if (cuts) splicer.emplace(*cuts);
  // Two threads on each window. Counting the lines' witnesses too, this thread does that and
  // the second one the rest (the check, the new file's hash and its writes), as in pass 1;
  // else this thread checks and writes the new bytes while the second one hashes them.
  Beside beside;
  std::vector<std::string_view> pieces;  // the window's new bytes, in order
  auto walked = walk(
      fd, path, search != nullptr,
      [&](std::string_view piece, uint64_t pos) {
        if (search) {
          beside.start([&, piece, pos] {
            check.update(piece);
            if (splicer) splicer->feed(piece, pos, emit);
          });
          return true;
        }
        if (!splicer) {
          check.update(piece);
          return true;
        }
        pieces.clear();
        splicer->feed(piece, pos, [&](std::string_view p) { pieces.push_back(p); });
        beside.start([&] {
          for (std::string_view p : pieces) sink.hash_part(p);
        });
        check.update(piece);
        for (std::string_view p : pieces) sink.write_part(p);
        return true;
      },
      [&](uint64_t h, uint64_t) { search->count(h); }, [&] { beside.wait(); });
  if (auto* e = std::get_if<contract::Error>(&walked)) return std::move(*e);
  if (sink.error()) return std::move(*sink.error());
  if (!first.check || check.digest() != first.check || std::get<uint64_t>(walked) != first.total ||
      (splicer && !splicer->done()))
    return changed_meanwhile(path);
  return cuts ? sink.result() : Rewritten{};
}

}  // namespace writer
