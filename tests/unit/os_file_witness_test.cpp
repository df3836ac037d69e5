// os_file_witness_test.cpp — witnesses computed from an open file in two streamed passes
// agree with all_witnesses over the same lines held in memory (line 1 without its BOM, lines
// past the cap hashed as they are read back, trailing whitespace of any length); and batches
// of a search's events come back in order, each match with its own witness.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "os/file_witness.h"
#include "os/open.h"
#include "text/witness.h"

namespace {

// A file with the given bytes, removed when the test ends.
class TempFile {
 public:
  explicit TempFile(const std::string& bytes) {
    char name[] = "/tmp/tack-file-witness-XXXXXX";
    fd_ = mkstemp(name);
    path_ = name;
    EXPECT_EQ(write(fd_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  ~TempFile() {
    close(fd_);
    unlink(path_.c_str());
  }
  int fd() const { return fd_; }

 private:
  int fd_;
  std::string path_;
};

// Every line's witness, from the lines held in memory (the reference).
std::vector<uint32_t> in_memory(const std::string& file, bool bom) {
  std::vector<uint64_t> hashes;
  size_t at = bom ? 3 : 0;
  while (at < file.size()) {
    size_t nl = file.find('\n', at);
    const size_t end = nl == std::string::npos ? file.size() : nl;
    hashes.push_back(text::line_hash(std::string_view(file).substr(at, end - at)));
    at = end + 1;
  }
  return text::all_witnesses(hashes);
}

TEST(LineHashRead, EqualsLineHashWhateverTheTrailingWhitespace) {
  const std::string cases[] = {"",
                               "   ",
                               "abc",
                               "abc \t\r",
                               std::string(70000, ' '),
                               "x" + std::string(70000, ' '),
                               std::string(150000, 'y') + " \f\v",
                               std::string(65536, 'z') + std::string(65536, '\t')};
  for (const std::string& line : cases) {
    const std::string file = "head\n" + line + "\ntail";
    const auto read = [&](char* buf, size_t len, uint64_t off) -> long long {
      const size_t n = off >= file.size() ? 0 : std::min<size_t>(len, file.size() - off);
      std::memcpy(buf, file.data() + off, n);
      return static_cast<long long>(n);
    };
    EXPECT_EQ(text::line_hash_read(read, 5, line.size()), text::line_hash(line)) << line.size();
  }
}

TEST(FileWitnesses, AgreeWithAllWitnessesInMemory) {
  std::mt19937 rng(9);
  for (int round = 0; round < 60; ++round) {
    const bool bom = rng() % 3 == 0;
    std::string file = bom ? "\xEF\xBB\xBF" : "";
    const int lines = 1 + static_cast<int>(rng() % 400);
    for (int i = 0; i < lines; ++i) {
      // Few distinct lines, so that witnesses need wide windows; some past the cap.
      std::string line = "line " + std::to_string(rng() % 7);
      if (rng() % 15 == 0) line += std::string(100 + rng() % 200, 'w');
      if (rng() % 4 == 0) line += std::string(rng() % 90, ' ');
      if (rng() % 5 == 0) line += '\r';
      file += line;
      if (i + 1 < lines || rng() % 2) file += '\n';
    }
    const std::vector<uint32_t> want = in_memory(file, bom);
    std::vector<uint64_t> chosen;
    for (uint64_t i = 0; i < want.size(); ++i)
      if (rng() % 4 == 0) chosen.push_back(i);
    TempFile f(file);
    std::vector<uint32_t> got;
    ASSERT_EQ(os::file_witnesses(f.fd(), 64, bom, chosen, got), 0);
    ASSERT_EQ(got.size(), chosen.size());
    for (size_t k = 0; k < chosen.size(); ++k)
      EXPECT_EQ(got[k], want[chosen[k]]) << "round " << round << " line " << chosen[k];
  }
}

TEST(WitnessBatches, EventsComeBackInOrderWithTheirMatchesWitnesses) {
  // More events than one batch holds, so that several batches are flushed.
  std::string file;
  const uint64_t lines = 10000;
  for (uint64_t i = 0; i < lines; ++i) file += "l" + std::to_string(i % 50) + "\n";
  const std::vector<uint32_t> want = in_memory(file, false);
  TempFile f(file);

  struct Seen {
    uint64_t line;
    bool match;
    std::string text, witness;
    std::vector<text::Span> spans;
  };
  std::vector<Seen> seen;
  os::WitnessBatches batches(
      f.fd(), 1 << 20, [&](const text::LineEvent& ev, const std::string* witness) {
        seen.push_back({ev.line, ev.kind == text::LineEvent::Kind::Match, std::string(ev.text),
                        witness ? *witness : "", *ev.spans});
      });
  std::vector<text::Span> spans;
  for (uint64_t n = 1; n <= lines; ++n) {
    const bool match = n % 3 != 0;
    std::string text = "l" + std::to_string((n - 1) % 50);
    spans = {{0, n % 2}};
    const text::LineEvent ev{match ? text::LineEvent::Kind::Match : text::LineEvent::Kind::Context,
                             n,
                             0,
                             text,
                             text.size(),
                             false,
                             &spans,
                             0,
                             0};
    batches.hold(ev);  // a copy: the event's text and spans are gone after this call
    text.assign(text.size(), '#');
    spans.clear();
  }
  batches.flush();
  EXPECT_EQ(batches.error(), 0);
  ASSERT_EQ(seen.size(), lines);
  for (uint64_t n = 1; n <= lines; ++n) {
    const Seen& s = seen[n - 1];
    ASSERT_EQ(s.line, n);
    EXPECT_EQ(s.text, "l" + std::to_string((n - 1) % 50));
    EXPECT_EQ(s.spans, (std::vector<text::Span>{{0, n % 2}}));
    EXPECT_EQ(s.witness, s.match ? text::witness_text(want[n - 1]) : "") << n;
  }
}

}  // namespace
