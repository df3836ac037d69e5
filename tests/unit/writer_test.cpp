// The writers' shared parts (src/writer): table rows bound to any Args with the fields, rule
// lists joined at compile time, and the limit.input-too-large error with its retry.
#include "writer/writer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "writer/table.h"

namespace {

using contract::Json;

struct Once {
  std::optional<std::string> if_sha256;
  bool dry_run = false;
  uint64_t max_bytes = 0, max_diff_lines = 0;
};
struct PerPath {
  std::vector<std::string> if_sha256;
};

constexpr contract::Flag<Once> kOnce[] = {writer::if_sha256<Once>("h"), writer::dry_run<Once>(),
                                          writer::max_bytes<Once>("m", 0),
                                          writer::max_diff_lines<Once>()};
static_assert(contract::valid<Once>(kOnce, {}));
static_assert(kOnce[0].kind == contract::Kind::Text);
static_assert(writer::if_sha256<PerPath>("h").kind == contract::Kind::List);
static_assert(kOnce[2].floor == 0 && kOnce[2].ceiling == writer::kMaxBytesCeiling);

constexpr contract::Rule kOwn[] = {{"conflict.locked"}};
constexpr auto kJoined = writer::rules(writer::kReadWriteRules, kOwn);
static_assert(kJoined.size() == 5 && kJoined[0].tag == "args.required-flag" &&
              kJoined[4].tag == "conflict.locked");

constexpr auto kTurns = writer::take_turns("and then.");
static_assert(std::string_view(kTurns).starts_with("tack writers of one directory") &&
              std::string_view(kTurns).ends_with("conflict.locked); and then."));

contract::Context context(contract::Out& out, std::vector<std::string> argv) {
  static const contract::Tool tool{.name = "t", .schema = "t.v1"};
  contract::Context ctx(tool, out);
  ctx.argv_ = std::move(argv);
  return ctx;
}

TEST(Writer, TooLargeRetriesWithTheCapItNeeds) {
  contract::Out out(-1, SIZE_MAX);
  contract::Context ctx = context(out, {"t", "x"});
  contract::Error e = writer::too_large({.where = Json::object({{"source", "stdin"}}),
                                         .what = "standard input",
                                         .bytes = 10,
                                         .max_bytes = 5,
                                         .need = 20},
                                        ctx);
  EXPECT_EQ(e.rule, "limit.input-too-large");
  EXPECT_EQ(e.message, "standard input is 10 bytes, past --max-bytes 5.");
  EXPECT_TRUE(e.detail.get("exact")->as_bool());
  ASSERT_EQ(e.repair.kind, contract::Repair::Kind::Retry);
  EXPECT_EQ(e.repair.argvs[0], (std::vector<std::string>{"t", "--max-bytes=20", "x"}));
}

TEST(Writer, TooLargePastTheCeilingHasNoRetry) {
  contract::Out out(-1, SIZE_MAX);
  contract::Context ctx = context(out, {"t", "x"});
  contract::Error e = writer::too_large({.where = Json::object({{"path", "f"}}),
                                         .what = "'f'",
                                         .bytes = writer::kMaxBytesCeiling + 1,
                                         .say_exact = false,
                                         .max_bytes = 5,
                                         .larger = "the file"},
                                        ctx);
  EXPECT_EQ(e.detail.get("exact"), nullptr);
  ASSERT_EQ(e.repair.kind, contract::Repair::Kind::None);
  EXPECT_EQ(e.repair.reason, "the file is larger than the ceiling of --max-bytes");
}

}  // namespace
