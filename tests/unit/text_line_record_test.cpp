// text_line_record_test.cpp — match and context records written straight to bytes are the
// very bytes the one serializer writes for the same record (plain ASCII, escapes, control
// bytes, UTF-8, bytes that are not UTF-8, long lines past the SIMD block), and the text form
// is grep -n's.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "contract/json.h"
#include "text/line_record.h"

namespace {

using contract::Json;
using text::LineEvent;
using text::Span;

std::string serialized_match(const std::string& path, const LineEvent& ev,
                             const std::string* witness) {
  Json spans = Json::array();
  for (const Span& s : *ev.spans) spans.push(Json::array({s.start, s.end}));
  Json rec = Json::object({{"type", "match"},
                           {"path", Json::bytes(path)},
                           {"line", ev.line},
                           {"offset", ev.offset},
                           {"spans", std::move(spans)}});
  if (ev.patterns) {
    Json patterns = Json::array();
    for (uint32_t i : *ev.patterns) patterns.push(i);
    rec.set("patterns", std::move(patterns));
  }
  rec.set("text", Json::bytes(ev.text));
  if (witness) rec.set("witness", *witness);
  return rec.dump() + "\n";
}

std::string serialized_context(const std::string& path, const LineEvent& ev) {
  Json rec = Json::object(
      {{"type", "context"}, {"path", Json::bytes(path)}, {"line", ev.line}, {"offset", ev.offset}});
  if (ev.too_long) {
    rec.set("text", nullptr);
    rec.set("length", ev.length);
  } else {
    rec.set("text", Json::bytes(ev.text));
  }
  return rec.dump() + "\n";
}

TEST(LineRecords, JsonIsWhatTheSerializerWrites) {
  const char* pieces[] = {"abc",
                          " ",
                          "\"",
                          "\\",
                          "\t",
                          "\x01",
                          "\x7f",
                          "é",
                          "\xe9",
                          "\xff",
                          "0123456789abcdef",
                          "/",
                          "\xe2\x82\xac",
                          "\xf0\x9f\x98\x80"};
  const std::string paths[] = {"src/a.c", "dir with \"quote\"/x", "latin\xe9.txt"};
  std::mt19937 rng(4);
  for (int round = 0; round < 2000; ++round) {
    std::string line;
    const int n = static_cast<int>(rng() % 12);
    for (int k = 0; k < n; ++k) line += pieces[rng() % std::size(pieces)];
    if (rng() % 4 == 0) line = std::string(rng() % 80, 'x');  // the all-plain fast path
    const std::string& path = paths[rng() % std::size(paths)];
    std::vector<Span> spans;
    for (uint64_t k = 0, count = 1 + rng() % 40; k < count; ++k) spans.push_back({k, k + 1});
    LineEvent m{LineEvent::Kind::Match,
                1 + rng() % 100000,
                rng() % 1000000,
                line,
                line.size(),
                false,
                &spans,
                0,
                0};
    // -e: the patterns that matched, as many as a long argv may give
    std::vector<uint32_t> patterns;
    for (uint32_t k = 0, count = rng() % 3 == 0 ? 1 + rng() % 60 : 0; k < count; ++k)
      patterns.push_back(k * 7 + static_cast<uint32_t>(rng() % 7));
    m.patterns = patterns.empty() ? nullptr : &patterns;
    const std::string wit = "h0a1b2c";
    const std::string* witness = rng() % 2 ? &wit : nullptr;
    text::LineRecords r(text::RecordForm::Json);
    r.set_path(path);
    std::string out;
    r.match(out, m, witness);
    EXPECT_EQ(out, serialized_match(path, m, witness)) << round;
    LineEvent c = m;
    c.kind = LineEvent::Kind::Context;
    c.spans = nullptr;
    c.patterns = nullptr;
    c.too_long = rng() % 5 == 0;
    if (c.too_long) c.text = {};
    out.clear();
    r.context(out, c);
    EXPECT_EQ(out, serialized_context(path, c)) << round;
  }
}

TEST(LineRecords, TextIsGrepsForm) {
  std::vector<Span> spans{{0, 1}};
  text::LineRecords r(text::RecordForm::Text);
  const std::string path = "a/b.txt";
  r.set_path(path);
  std::string out;
  r.match(out, {LineEvent::Kind::Match, 12, 40, "x = 1", 5, false, &spans, 0, 0}, nullptr);
  r.context(out, {LineEvent::Kind::Context, 13, 46, "y", 1, false, nullptr, 0, 0});
  r.context(out, {LineEvent::Kind::Context, 14, 48, {}, 5000000, true, nullptr, 0, 0});
  EXPECT_EQ(out,
            "a/b.txt:12:x = 1\n"
            "a/b.txt-13-y\n"
            "a/b.txt-14-[5000000 bytes, longer than --max-line-bytes]\n");
}

}  // namespace
