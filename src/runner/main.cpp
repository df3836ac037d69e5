// main.cpp — the runner: the two-phase parse and the one place an exit code is decided.
//
// Phase 1 (no I/O): every token is read against the table; unknown flags, missing and bad
// values, duplicates, conflicts, operand counts and lexical path problems are all collected.
// Any of them ends the run with nothing read. Phase 2: the root is opened, the sandbox
// installed, the tool runs, and its answer is written through the checked writer.
#include "runner/main.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "contract/parse.h"
#include "os/open.h"
#include "os/path.h"
#include "os/sandbox.h"
#include "runner/waiting.h"

namespace contract {

namespace {

void emit_document(const Tool& tool, Context& ctx, Out& out, Json data) {
  const auto& errors = ctx.errors();
  if (ctx.format() == Format::Text) {
    if (!data.is_null() && tool.text) tool.text(data, out.buffer(), [&out] { out.maybe_flush(); });
    text_errors_to_stderr(tool.name, errors);
    return;
  }
  Json env = Json::object({{"ok", errors.empty()}, {"command", tool.name}, {"schema", tool.schema}});
  if (ctx.dry_run_) {
    env.set("dry_run", true);
    env.set("planned_actions", ctx.planned_);
  }
  if (!data.is_null()) env.set("data", std::move(data));
  if (!errors.empty()) {
    env.set("error", errors.front().to_json());
    Json all = Json::array();
    for (auto& e : errors) all.push(e.to_json());
    env.set("errors", std::move(all));
  }
  env.set("meta", Json::object({{"version", TACK_VERSION}}));
  JsonWriter w(out.buffer(), Drain([&out] { out.maybe_flush(); },
                                   [&out](std::string_view b) { out.stable(b); }));
  env.write(w);
  out.buffer() += '\n';
}

void emit_end(const Tool& tool, Context& ctx, Out& out, const Json& fields) {
  bool ok = ctx.errors().empty();
  Json end = Json::object({{"type", "end"},
                           {"ok", ok},
                           {"command", tool.name},
                           {"schema", tool.schema},
                           {"complete", ok}});
  for (auto& [k, v] : fields.members()) end.set(k, v);
  if (!end.get("truncated")) end.set("truncated", false);
  if (!end.get("next")) end.set("next", nullptr);
  if (!end.get("cut")) end.set("cut", nullptr);
  if (ctx.format() == Format::Text) {
    if (tool.text) tool.text(end, out.buffer(), {});  // the footer: what was cut or skipped
    return;
  }
  JsonWriter w(out.buffer());
  end.write(w);
  out.buffer() += '\n';
}

int finish(const Tool& tool, Context& ctx, Out& out) {
  if (!out.flush()) {
    std::string line = std::string(tool.name) + ": io.write-failed: standard output: " +
                       std::strerror(out.error()) + "\n";
    ssize_t ignored = ::write(2, line.data(), line.size());
    (void)ignored;
    return static_cast<int>(Exit::GeneralError);
  }
  if (!ctx.errors().empty()) return static_cast<int>(ctx.errors().front().exit());
  return static_cast<int>(ctx.dry_run_ ? Exit::DryRun : Exit::Success);
}

int write_plain(const Tool& tool, Context& ctx, Out& out, std::string text) {
  out.buffer() += text;
  return finish(tool, ctx, out);
}

}  // namespace

std::optional<Error> check_path_arg(std::string_view root_abs, std::string& value, size_t token,
                                    std::string_view prefix, std::vector<std::string>& fixed_argv,
                                    bool& all_fixable) {
  auto c = os::check_path(root_abs, value);
  if (!c.issue) {
    value = c.path;
    return std::nullopt;
  }
  Error e =
      make_error(c.issue->rule, c.issue->message, Json::object({{"path", Json::bytes(value)}}));
  if (c.issue->replacement) {
    e.detail.set("suggested", Json::bytes(*c.issue->replacement));
    // A name that starts with '-' is spelled ./-name, so the retry cannot read it as a flag.
    std::string spelled = *c.issue->replacement;
    if (prefix.empty() && spelled.starts_with("-")) spelled = "./" + spelled;
    if (token < fixed_argv.size()) fixed_argv[token] = std::string(prefix) + spelled;
  } else {
    all_fixable = false;
  }
  return e;
}

int run_main(const Tool& tool, Adapter& ad, int argc, char** argv) {
  // A closed pipe must surface as EPIPE on write, never as a silent death by signal.
  signal(SIGPIPE, SIG_IGN);
  Out out(STDOUT_FILENO);
  Context ctx(tool, out);
  // A process tack-mcp started ahead of its call takes its argv from the server; from here on
  // it is the same invocation as a fresh one (waiting.h).
  waiting::Received received;
  std::vector<char*> received_ptrs;
  if (waiting::receive(tool, argc, argv, received)) {
    for (auto& a : received.argv) received_ptrs.push_back(a.data());
    received_ptrs.push_back(nullptr);
    argc = static_cast<int>(received.argv.size());
    argv = received_ptrs.data();
  }
  for (int i = 0; i < argc; ++i) ctx.argv_.emplace_back(argv[i]);
  if (ctx.argv_.empty()) ctx.argv_.emplace_back(tool.name);

  std::vector<FlagInfo> flags = ad.flags;
  for (auto& f : common_flags(tool)) flags.push_back(f);
  ctx.flags_ = flags;

  if (argc == 2 && std::strcmp(argv[1], "introspect") == 0)
  {
    Json j = introspect(tool, ad);
    j.set("authority", os::authority(tool));
    return write_plain(tool, ctx, out, j.dump() + "\n");
  }
  if (argc == 2 && std::strcmp(argv[1], "skill") == 0)
    return write_plain(tool, ctx, out, skill_text(tool, ad));
  if (argc == 3 && std::strcmp(argv[1], "skill") == 0 && std::strcmp(argv[2], "contract") == 0)
    return write_plain(tool, ctx, out, contract_skill());

  Parsed p = parse_argv(ctx.argv_, flags, ad.operands);
  if (p.help) return write_plain(tool, ctx, out, help_text(tool, ad));
  if (p.version) return write_plain(tool, ctx, out, std::string(tool.name) + " " + TACK_VERSION + "\n");

  // The format is known before anything else is written, even when other arguments are bad.
  for (auto& [idx, v] : p.values) {
    if (flags[idx].role == Role::Format) ctx.format_ = v.text == "text" ? Format::Text : Format::Json;
    if (flags[idx].role == Role::Root) ctx.root_ = v.text;
    ctx.given_.insert(std::string(flags[idx].name));
  }

  // Lexical path checks, in argv order, with the spelling that would have been right. One
  // retry fixes every path at once (a retry that fixed only its own path would still fail on
  // the others), and none is offered when some path has no right spelling.
  std::vector<Error> errors = std::move(p.errors);
  if (!ctx.root_.empty()) ctx.root_abs_ = os::absolute_root(ctx.root_);
  std::vector<std::string> fixed_argv = ctx.argv_;
  std::vector<size_t> path_errors;
  bool all_fixable = true;
  auto check = [&](std::string& value, size_t token, std::string_view prefix) {
    if (auto e = check_path_arg(ctx.root_abs_, value, token, prefix, fixed_argv, all_fixable)) {
      path_errors.push_back(errors.size());
      errors.push_back(std::move(*e));
    }
  };
  for (auto& [idx, v] : p.values) {
    if (flags[idx].role == Role::Root && v.text.empty())
      errors.push_back(make_error("path.empty", "--root is empty.", Json::object({{"flag", "root"}})));
    if (flags[idx].role == Role::PathRead || flags[idx].role == Role::PathWrite)
      check(v.text, v.token, v.token_prefix);
  }
  for (auto& op : p.operands) {
    const OperandInfo& spec = ad.operands[op.spec];
    if (spec.role != Role::PathRead && spec.role != Role::PathWrite) continue;
    if (spec.dash_is_stdin && op.value == "-") continue;
    check(op.value, op.token, "");
    // "./-" names a file called "-": its normal form must not turn into standard input.
    if (spec.dash_is_stdin && op.value == "-") op.value = "./-";
  }
  if (all_fixable)
    for (size_t i : path_errors) errors[i].repair = Repair::retry(fixed_argv);
  for (size_t i = 0; i < ad.flags.size(); ++i) {
    if (ad.flags[i].fallback.empty() || ctx.given(ad.flags[i].name)) continue;
    Value v;
    parse_value(ad.flags[i], ad.flags[i].fallback, v);
    ad.set_flag(i, v);
  }
  for (auto& [idx, v] : p.values)
    if (idx < ad.flags.size()) ad.set_flag(idx, v);
  for (auto& op : p.operands) ad.set_operand(op.spec, op.value);
  for (auto& op : p.operands) ctx.operand_tokens_.push_back(op.token);
  ad.check(errors, ctx);

  auto fail_all = [&]() {
    for (auto& e : errors) ctx.error(std::move(e));
    if (tool.output == Output::Document)
      emit_document(tool, ctx, out, nullptr);
    else
      emit_end(tool, ctx, out, Json::object());
    return finish(tool, ctx, out);
  };
  if (!errors.empty()) return fail_all();

  os::Fd root_fd;
  if (!ctx.root_.empty()) {
    auto r = os::open_root(ctx.root_);
    if (auto* e = std::get_if<Error>(&r)) {
      errors.push_back(std::move(*e));
      return fail_all();
    }
    root_fd = std::move(std::get<os::Fd>(r));
    ctx.root_fd_ = root_fd.get();
    // tack-mcp's call: the root must be the directory the server opened (waiting.h).
    struct stat st {};
    if (received.root.ino != 0 &&
        (fstat(root_fd.get(), &st) != 0 || st.st_dev != received.root.dev ||
         st.st_ino != received.root.ino)) {
      errors.push_back(make_error(
          "path.symlink",
          "the root '" + printable(ctx.root_) +
              "' no longer leads to the directory the server opened for this call (a link or "
              "another directory was put in its way); nothing was done.",
          Json::object({{"path", Json::bytes(ctx.root_)}})));
      return fail_all();
    }
  }

  // The tool's authority is fixed before any input is opened.
  std::vector<std::string> write_dirs;
  if (ctx.root_.empty()) {
    for (auto& op : p.operands) {
      if (ad.operands[op.spec].role != Role::PathWrite) continue;
      size_t slash = op.value.rfind('/');
      write_dirs.push_back(slash == std::string::npos ? "." : slash == 0 ? "/" : op.value.substr(0, slash));
    }
    // A tool that journals its changes (it has --no-journal) keeps the journal beneath the
    // working directory (.tack/journal) when there is no root. A change to a path outside it
    // is not recorded there: undo, which keeps to the journal's directory, could never take
    // it back (and must not trust an entry naming a path outside).
    const bool journals = std::any_of(ad.flags.begin(), ad.flags.end(),
                                      [](const FlagInfo& f) { return f.name == "no-journal"; });
    if (journals && !ctx.given("no-journal")) {
      const std::string here = os::absolute_root(".");
      for (auto& op : p.operands)
        if (ad.operands[op.spec].role == Role::PathWrite && !os::beneath_form(here, op.value))
          ctx.journal_outside_ = true;
      if (!ctx.journal_outside_) write_dirs.push_back(".");
    }
  }
  if (auto e = os::apply_sandbox(tool, ctx.root_fd_, write_dirs)) {
    errors.push_back(std::move(*e));
    return fail_all();
  }

  Json result = ad.run(ctx);
  if (tool.output == Output::Document)
    emit_document(tool, ctx, out, std::move(result));
  else
    emit_end(tool, ctx, out, result);
  return finish(tool, ctx, out);
}

}  // namespace contract
