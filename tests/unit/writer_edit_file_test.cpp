// writer/edit_file.h — edit's passes over a file it never holds, against the whole-file
// answer (text::apply_line_edits on every line). Hostile first: a witness whose likely line
// after pass 1 is not the line it names (the third pass writes what it does name), a witness
// that names two lines (refused after pass 2 wrote a guess: the temporary file is gone), then
// the ordinary paths, the dry run and a file changed under the second pass.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "os/hash.h"
#include "place_fixture.h"
#include "text/line_edits.h"
#include "text/witness.h"
#include "text/witness_search.h"
#include "writer/edit_file.h"
#include "writer/writer.h"

namespace {

using Tree = place_fixture::Tree;

// Numbered lines with runs of identical ones (whose witnesses are index folds): at this size
// some witnesses name two lines and, for some, pass 1's likely line is another line.
std::string repetitive_file(size_t n) {
  std::mt19937_64 rng(11);
  std::string out;
  for (size_t i = 0; i < n; ++i)
    out += (i % 1000 < 300 ? std::string("same") : "l" + std::to_string(rng() % 1000000)) + "\n";
  return out;
}

struct Witnessed {
  std::vector<uint32_t> all;
  std::vector<uint32_t> wrong_guess;  // one line each, not the line pass 1 guesses
  std::vector<uint32_t> two_lines;    // several lines each, pass 1 guessing one, not sure
};

Witnessed search_all(const std::string& text) {
  std::vector<uint64_t> h;
  for (const text::Line& l : text::split_lines(text)) h.push_back(text::line_hash(l.raw));
  Witnessed w;
  w.all = text::all_witnesses(h);
  text::WitnessSearch s(w.all, 5);
  for (size_t i = 0; i < h.size(); ++i) s.add(h[i], 0);
  s.end_first(text.size());
  std::map<uint32_t, bool> sure;
  for (uint32_t v : w.all) sure[v] = s.known(v).has_value();
  do {  // pass 2, and one more wherever a candidate needs its larger radii counted
    for (uint64_t x : h) s.count(x);
  } while (!s.settle());
  std::map<uint32_t, int> lines_of;
  for (uint32_t v : w.all) ++lines_of[v];
  for (const auto& [v, count] : lines_of) {
    const auto guess = s.likely(v);
    const std::vector<uint64_t> hits = s.hits(v);
    if (count == 1) {
      EXPECT_EQ(hits.size(), 1u) << "witness " << v;
    }
    if (count == 1 && !hits.empty() && guess != hits[0]) w.wrong_guess.push_back(v);
    if (count > 1 && guess && !sure[v]) w.two_lines.push_back(v);
  }
  return w;
}

// The repetitive file and what its witnesses name, made once for the tests that need it.
const std::string& big_text() {
  static const std::string text = repetitive_file(100000);
  return text;
}
const Witnessed& big_witnessed() {
  static const Witnessed w = search_all(big_text());
  return w;
}

// The file with the line whose witness is `v` replaced by `lines`, as the whole-file
// algorithm makes it.
std::string edited(const std::string& text, const std::vector<uint32_t>& all, uint32_t v,
                   const text::LineEdit& e) {
  const auto lines = text::split_lines(text);
  std::vector<const text::LineEdit*> edit_of(lines.size(), nullptr);
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i] == v) edit_of[i] = &e;
  return text::apply_line_edits(lines, edit_of, text::Eol::Lf, false);
}

class EditFile : public Tree {
 protected:
  std::variant<writer::Edited, std::vector<contract::Error>> run(
      const std::string& name, const std::vector<text::LineEdit>& edits, bool dry_run = false) {
    os::Place place = this->place(name);
    auto opened = writer::open_file(place, name);
    EXPECT_TRUE(std::holds_alternative<os::Opened>(opened));
    writer::EditJob job;
    job.path = name;
    job.dry_run = dry_run;
    job.max_bytes = 64 << 20;
    job.max_diff_lines = 1000;
    return writer::edit_file(job, place, std::get<os::Opened>(opened), edits, [](uint64_t) {
      return contract::make_error("limit.input-too-large", "x");
    });
  }
  text::LineEdit edit(uint32_t v, std::vector<std::string> lines) {
    return {text::witness_text(v), v, std::move(lines)};
  }
};

TEST_F(EditFile, AWrongGuessIsWrittenAgainAsTheWitnessSays) {
  const std::string& text = big_text();
  const Witnessed& w = big_witnessed();
  ASSERT_FALSE(w.wrong_guess.empty());
  for (size_t k = 0; k < 3 && k < w.wrong_guess.size(); ++k) {
    put(root_ / "big.txt", text);
    const text::LineEdit e = edit(w.wrong_guess[k], {"changed", "and inserted"});
    auto r = run("big.txt", {e});
    ASSERT_TRUE(std::holds_alternative<writer::Edited>(r)) << std::get<1>(r)[0].message;
    EXPECT_TRUE(std::get<writer::Edited>(r).changed);
    EXPECT_EQ(get(root_ / "big.txt"), edited(text, w.all, w.wrong_guess[k], e));
    EXPECT_EQ(names(root_),
              (std::vector<std::string>{"big.txt", "dir", "file.txt", "link_dir", "link_file"}));
  }
}

TEST_F(EditFile, AWitnessNamingTwoLinesIsRefusedAfterTheGuessWasWritten) {
  const std::string& text = big_text();
  const Witnessed& w = big_witnessed();
  ASSERT_FALSE(w.two_lines.empty());
  put(root_ / "big.txt", text);
  const uint32_t fine = w.all[12345];
  auto r = run("big.txt", {edit(fine, {"x"}), edit(w.two_lines[0], {"y"})});
  ASSERT_TRUE(std::holds_alternative<std::vector<contract::Error>>(r));
  const auto& errs = std::get<std::vector<contract::Error>>(r);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].rule, "precondition.stale-witness");
  EXPECT_EQ(errs[0].detail.get("reason")->str(), "several");
  EXPECT_EQ(errs[0].detail.get("index")->as_uint(), 1u);
  EXPECT_EQ(get(root_ / "big.txt"), text);
  EXPECT_EQ(names(root_),
            (std::vector<std::string>{"big.txt", "dir", "file.txt", "link_dir", "link_file"}));
}

TEST_F(EditFile, TheFirstAndLastLinesAndALineAcrossTheWindows) {
  // Lines far longer than a window and than the gathered carry, so a line is hashed as it is
  // read back; the edits at both ends and in the middle.
  std::string text = "first\n" + std::string(3 << 20, 'L') + "\nmiddle\n" +
                     std::string(300 << 10, 'M') + " \t\nlast";
  put(root_ / "long.txt", text);
  std::vector<uint64_t> h;
  for (const text::Line& l : text::split_lines(text)) h.push_back(text::line_hash(l.raw));
  const auto all = text::all_witnesses(h);
  ASSERT_EQ(all.size(), 5u);
  const std::vector<text::LineEdit> edits = {edit(all[0], {}), edit(all[2], {"a", "b"}),
                                             edit(all[3], {"m"}), edit(all[4], {"z1", "z2"})};
  auto r = run("long.txt", edits);
  ASSERT_TRUE(std::holds_alternative<writer::Edited>(r)) << std::get<1>(r)[0].message;
  EXPECT_EQ(get(root_ / "long.txt"),
            std::string(3 << 20, 'L') + "\na\nb\nm\nz1\nz2");  // still no final newline
}

TEST_F(EditFile, ADryRunHashesWhatItWouldWriteAndWritesNothing) {
  const std::string text = "a\nb\nc\n";
  put(root_ / "d.txt", text);
  std::vector<uint64_t> h;
  for (const text::Line& l : text::split_lines(text)) h.push_back(text::line_hash(l.raw));
  const auto all = text::all_witnesses(h);
  auto r = run("d.txt", {edit(all[1], {"B"})}, true);
  ASSERT_TRUE(std::holds_alternative<writer::Edited>(r));
  const writer::Edited& ed = std::get<writer::Edited>(r);
  EXPECT_TRUE(ed.changed);
  EXPECT_EQ(ed.after, os::sha256_hex("a\nB\nc\n"));
  EXPECT_EQ(ed.bytes, 6u);
  EXPECT_EQ(get(root_ / "d.txt"), text);
}

TEST_F(EditFile, EditsThatGiveTheFileBackChangeNothing) {
  // Each edit alone changes its line; together they give back the very bytes: unchanged,
  // no diff, nothing written (the temporary file of the guess is gone).
  const std::string text = "x\ny\nz\nw\n";
  put(root_ / "same.txt", text);
  std::vector<uint64_t> h;
  for (const text::Line& l : text::split_lines(text)) h.push_back(text::line_hash(l.raw));
  const auto all = text::all_witnesses(h);
  auto r = run("same.txt", {edit(all[0], {}), edit(all[1], {"x", "y"})});
  ASSERT_TRUE(std::holds_alternative<writer::Edited>(r));
  EXPECT_FALSE(std::get<writer::Edited>(r).changed);
  EXPECT_EQ(std::get<writer::Edited>(r).after, os::sha256_hex(text));
  EXPECT_EQ(get(root_ / "same.txt"), text);
  EXPECT_EQ(names(root_),
            (std::vector<std::string>{"dir", "file.txt", "link_dir", "link_file", "same.txt"}));
}

}  // namespace

namespace {
// Unique numbered lines, `mib` MiB of them.
std::string numbered_file(size_t mib) {
  std::string out;
  for (size_t i = 0; out.size() < (mib << 20); ++i) out += "line " + std::to_string(i) + " of it\n";
  return out;
}
}  // namespace

TEST_F(EditFile, TheNewHashResumedFromPassOnesSnapshotsIsTheNewFilesOwn) {
  // Past writer::ShaMarks::kMarkStep the new file's hash starts from a snapshot of the old
  // file's: an edit deep in the file, one before the first snapshot, and a dry run of the
  // deep one each answer the SHA-256 of the bytes the file then holds (or would).
  const std::string text = numbered_file(10);
  std::vector<uint64_t> h;
  for (const text::Line& l : text::split_lines(text)) h.push_back(text::line_hash(l.raw));
  const auto all = text::all_witnesses(h);
  for (size_t line : {all.size() - 3, all.size() / 2, size_t{1}}) {
    for (bool dry : {true, false}) {
      put(root_ / "n.txt", text);
      const text::LineEdit e = edit(all[line], {"changed"});
      auto r = run("n.txt", {e}, dry);
      ASSERT_TRUE(std::holds_alternative<writer::Edited>(r)) << std::get<1>(r)[0].message;
      const std::string want = edited(text, all, all[line], e);
      EXPECT_EQ(std::get<writer::Edited>(r).after, os::sha256_hex(want)) << line;
      EXPECT_EQ(get(root_ / "n.txt"), dry ? text : want) << line;
    }
  }
}
