// errors.cpp — the errors writer.h builds (apart from the file system, so that a test of them
// needs no more than the contract).
#include <algorithm>

#include "writer/table.h"
#include "writer/writer.h"

namespace writer {

using contract::Json;

contract::Error too_large(const Oversize& o, const contract::Context& ctx) {
  Json detail = o.where;
  detail.set("bytes", o.bytes);
  if (o.say_exact) detail.set("exact", o.exact);
  detail.set("max_bytes", o.max_bytes);
  detail.set("ceiling", kMaxBytesCeiling);
  contract::Error e = contract::make_error(
      "limit.input-too-large",
      o.what + " is " + (o.exact ? "" : "more than ") + std::to_string(o.bytes) +
          " bytes, past --max-bytes " + std::to_string(o.max_bytes) + ".",
      std::move(detail));
  retry_max_bytes(e, std::max(o.need, o.bytes), o.exact, o.larger, ctx);
  return e;
}

void retry_max_bytes(contract::Error& e, uint64_t need, bool exact, std::string_view larger,
                     const contract::Context& ctx) {
  if (exact && need <= kMaxBytesCeiling) {
    e.repair = contract::Repair::retry(ctx.argv_with_flag("max-bytes", std::to_string(need)));
    e.hint = "retry with --max-bytes " + std::to_string(need) + ".";
  } else {
    e.repair =
        contract::Repair::none(std::string(larger) + " is larger than the ceiling of --max-bytes");
  }
}

std::vector<size_t> operand_tokens(const contract::Context& ctx) {
  const std::vector<std::string>& argv = ctx.argv();
  std::vector<size_t> out;
  bool ended = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& t = argv[i];
    if (ended || t.size() < 2 || t[0] != '-') {
      out.push_back(i);
    } else if (t == "--") {
      ended = true;
    } else if (t[1] == '-') {
      if (t.find('=') != std::string::npos) continue;
      for (const contract::FlagInfo& f : ctx.flags_)
        if (f.name == std::string_view(t).substr(2) && f.kind != contract::Kind::Bool) ++i;
    } else {
      for (size_t j = 1; j < t.size(); ++j) {
        auto f = std::find_if(ctx.flags_.begin(), ctx.flags_.end(),
                              [&](const contract::FlagInfo& x) { return x.short_name == t[j]; });
        if (f != ctx.flags_.end() && f->kind != contract::Kind::Bool) {
          if (j + 1 == t.size()) ++i;
          break;
        }
      }
    }
  }
  return out;
}

std::vector<contract::Error> named_twice(const std::vector<std::string>& paths,
                                         const contract::Context& ctx, bool retry,
                                         std::string_view instead) {
  std::vector<size_t> later;
  for (size_t i = 0; i < paths.size(); ++i)
    if (std::find(paths.begin(), paths.begin() + static_cast<long>(i), paths[i]) !=
        paths.begin() + static_cast<long>(i))
      later.push_back(i);
  std::vector<contract::Error> out;
  if (later.empty()) return out;
  const std::vector<size_t> tokens = operand_tokens(ctx);
  for (size_t i : later) {
    contract::Error e = contract::make_error(
        "args.conflict", "'" + contract::printable(paths[i]) + "' is named more than once.",
        Json::object({{"path", Json::bytes(paths[i])}}));
    if (retry && tokens.size() == paths.size()) {
      std::vector<std::string> argv;
      for (size_t t = 0; t < ctx.argv().size(); ++t) {
        bool drop = false;
        for (size_t k : later) drop = drop || tokens[k] == t;
        if (!drop) argv.push_back(ctx.argv()[t]);
      }
      e.repair = contract::Repair::retry(std::move(argv));
      e.hint = "name each file once.";
    } else {
      e.repair = contract::Repair::none(std::string(instead));
    }
    out.push_back(std::move(e));
  }
  return out;
}

contract::Error bad_hex(std::string_view flag, const std::string* value) {
  Json detail = Json::object({{"flag", flag}});
  if (value) detail.set("value", Json::bytes(*value));
  return contract::make_error("args.bad-value",
                              "--" + std::string(flag) + " must be 64 hex digits (a SHA-256).",
                              std::move(detail));
}

}  // namespace writer
