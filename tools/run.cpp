// run.cpp — start one program from the deployer's programs directory, confined, with a
// deadline and an output cap, and leave nothing behind. Unlike timeout(1) or a shell tool it
// takes a program *name* (never a path) looked up in one directory (fixed when run is built, or
// PREFIX/libexec/tack/programs beneath the prefix its binary is installed in),
// passes the arguments byte for byte with no shell and a fixed environment, confines the
// program (Landlock: read anywhere, write beneath the root and a private TMPDIR; no internet
// sockets), ends the whole tree it started (setsid, double forks, stopped or TERM-deaf
// processes included), and answers the exit status and both streams as JSON.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <memory>

#include "os/open.h"
#include "os/process.h"
#include "os/programs.h"
#include "os/supervise.h"
#include "run/start.h"
#include "runner/main.h"
#include "text/json_escape.h"
#include "tools/render/render.h"
#include "tools/run.schema.h"

namespace {

// The one programs directory: -DTACK_PROGRAMS_DIR when the build fixed it, else the one
// beneath the prefix this binary is installed in (so a package and `make install PREFIX=...`
// each look beneath their own prefix). Neither a flag nor a variable changes it.
#ifdef TACK_PROGRAMS_DIR
const std::string kProgramsDir = TACK_PROGRAMS_DIR;
constexpr std::string_view kProgramsFrom = "fixed when run was built";
#else
const std::string kProgramsDir = os::own_programs_dir();
constexpr std::string_view kProgramsFrom =
    "beneath the prefix run is installed in: PREFIX/lib/tack/bin/run looks in "
    "PREFIX/libexec/tack/programs";
#endif

using contract::Json;
using contract::Kind;
using contract::Repairable;

constexpr uint64_t kMaxBytes = 64ull * 1024 * 1024;
constexpr auto kGrace = std::chrono::milliseconds(100);
constexpr uint64_t kPidsMax = 1024;  // processes the program's tree may hold at once

struct Args {
  std::optional<std::string> program;
  std::vector<std::string> args;
  std::optional<std::string> cwd;
  uint64_t timeout_ms = 0, max_output = 0, max_stdin = 0;
  bool stdin_ = false, list = false, read_only = false;
};

constexpr contract::Flag<Args> kFlags[] = {
    {.name = "timeout-ms",
     .kind = Kind::Nat,
     .bind = &Args::timeout_ms,
     .value_name = "N",
     .fallback = "30000",
     .ceiling = 600000,
     .floor = 1,
     .help = "kill the program (and all it started) after N milliseconds",
     .limit = true},
    {.name = "max-output",
     .kind = Kind::Nat,
     .bind = &Args::max_output,
     .value_name = "N",
     .fallback = "1048576",
     .ceiling = kMaxBytes,
     .help = "bytes kept of each stream; the program is killed at the first byte past it",
     .limit = true},
    {.name = "stdin",
     .kind = Kind::Bool,
     .bind = &Args::stdin_,
     .help = "pass this tool's standard input to the program (default: nothing)"},
    {.name = "max-stdin",
     .kind = Kind::Nat,
     .bind = &Args::max_stdin,
     .value_name = "N",
     .fallback = "1048576",
     .ceiling = kMaxBytes,
     .help = "the most standard input passed with --stdin",
     .limit = true},
    {.name = "cwd",
     .kind = Kind::Path,
     .role = contract::Role::PathRead,
     .bind = &Args::cwd,
     .value_name = "DIR",
     .help = "the program's working directory, beneath the root (default: the root)"},
    {.name = "read-only",
     .kind = Kind::Bool,
     .bind = &Args::read_only,
     .help = "the program may write only to its private TMPDIR, not beneath the root"},
    {.name = "list",
     .kind = Kind::Bool,
     .bind = &Args::list,
     .excludes = "timeout-ms max-output stdin max-stdin cwd read-only",
     .help = "list the programs that may be run (also: no PROGRAM)"},
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "PROGRAM",
     .role = contract::Role::None,
     .min = 0,
     .max = 1,
     .bind = &Args::program,
     .help = "a program name in the programs directory, never a path"},
    {.name = "ARG",
     .role = contract::Role::None,
     .min = 0,
     .max = contract::kMany,
     .bind = &Args::args,
     .help = "the program's arguments, passed byte for byte"},
};

constexpr contract::Rule kRules[] = {
    {"args.missing-operand", Repairable::Never,
     "a flag that needs a PROGRAM was given without one"},
    {"args.conflict", Repairable::Never, "--list was given with a PROGRAM or a flag for one"},
    {"run.program-name"},
    {"run.program-not-found"},
    {"io.permission-denied", Repairable::Never, "the program is not executable, or the OS refused"},
    {"limit.input-too-large", Repairable::Sometimes, "standard input longer than --max-stdin"},
    {"io.is-a-directory", Repairable::Never, "--stdin, and standard input is a directory"},
    {"io.read-failed", Repairable::Never,
     "--stdin, and standard input cannot be read (not open for reading, or a read failed)"},
    {"run.spawn-failed"},
    {"limit.timeout"},
    {"limit.output-too-large"},
};

constexpr contract::Example kExamples[] = {
    {"run --list", "the names of the programs this machine lets an agent run"},
    {"run --timeout-ms 60000 -- make test",
     "exit code, both streams, what was killed; `run.program-not-found` if there is no make"},
};

const contract::Tool kTool{
    .name = "run",
    .summary =
        "Start one program from the deployer's programs directory, confined, with a "
        "deadline and an output cap; answers its exit status and output, and leaves "
        "nothing it started running.",
    .differs =
        "Unlike a shell tool or timeout(1) it runs only programs the deployer put "
        "in one programs directory (`run --list` names it), by name; the program may write only beneath the root and a "
        "private TMPDIR, has no internet sockets, and everything it starts (setsid, "
        "double forks included) is killed at the deadline, the output cap, or when run "
        "itself is stopped.",
    .usage =
        "run [--root DIR] [--timeout-ms N] [--max-output N] [--stdin] [--max-stdin N] "
        "[--cwd DIR] [--read-only] [--format json|text] -- PROGRAM [ARG...] | run --list",
    .output = contract::Output::Document,
    .schema = "run.v1",
    .data_schema = tool_schema::kData,
    .effects = contract::kReadFiles | contract::kWriteFiles | contract::kReadStdin |
               contract::kStartPrograms,
    .reversibility = contract::Reversibility::IrreversibleConsequential,
    .guarantees = "bounded_memory",
    .concurrency = "none: it takes no lock and cannot see what the program it starts then does",
    .text = render::run,
    .programs_dir = kProgramsDir,
    .programs_from = kProgramsFrom,
    .rules = kRules,
    .key_flags = "timeout-ms max-output stdin list",
    .examples = kExamples,
    .mcp_flags = "stdin timeout-ms list",
};

static_assert(contract::valid<Args>(kFlags, kOperands));

// --- arguments ----------------------------------------------------------------------------

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context& ctx) {
  if (a.program) {
    const std::string& p = *a.program;
    if (a.list) {
      errs.push_back(
          contract::make_error("args.conflict", "--list takes no PROGRAM.",
                               Json::object({{"flags", Json::array({"--list", "PROGRAM"})}})));
    }
    if (p.empty() || p == "." || p == ".." || p.find('/') != std::string::npos || p.size() > 255) {
      contract::Error e = contract::make_error(
          "run.program-name", "the program '" + contract::printable(p) + "' is not one plain name.",
          Json::object({{"program", Json::bytes(p)}}));
      e.hint = "name a program of `run --list`; a path is never taken.";
      errs.push_back(std::move(e));
    }
    return;
  }
  if (a.list) return;
  for (std::string_view f :
       {"timeout-ms", "max-output", "stdin", "max-stdin", "cwd", "read-only"}) {
    if (!ctx.given(f)) continue;
    errs.push_back(contract::make_error(
        "args.missing-operand", "--" + std::string(f) + " was given, but no PROGRAM to run.",
        Json::object({{"operand", "PROGRAM"}, {"flag", f}})));
    break;
  }
}

// --- what the program writes --------------------------------------------------------------

// text_or_bytes of what a stream kept, rendered into the answer in pieces. A UTF-8 stream lies
// escaped in memory already (os::Kept) and is handed on as it lies; otherwise it is escaped or
// base64-encoded here, a piece at a time.
Json stream_json(const os::Channel& s) {
  std::shared_ptr<os::Kept> k = s.kept;
  k->seal();
  Json text = Json::stream([k](std::string& out, const contract::Drain& drain) {
    std::string_view v = k->stored();
    const bool utf8 = k->utf8();
    out += utf8 ? "\"" : "{\"b64\":\"";
    if (k->escaped()) {
      drain.stable(out, v);
    } else {
      constexpr size_t kPiece = 3 * 21846;  // a multiple of 3: base64 pieces join seamlessly
      for (size_t pos = 0; pos < v.size();) {
        size_t end = std::min(v.size(), pos + kPiece);
        if (utf8) {
          while (end < v.size() && (static_cast<unsigned char>(v[end]) & 0xC0) == 0x80) ++end;
          text::append_json_escaped(out, v.substr(pos, end - pos));
        } else {
          out += contract::base64(v.substr(pos, end - pos));
        }
        pos = end;
        if (drain) drain();
      }
    }
    out += utf8 ? "\"" : "\"}";
  });
  return Json::object({{"text", std::move(text)}, {"bytes", s.total}, {"truncated", s.cut}});
}

// --- the run ------------------------------------------------------------------------------

Json run(const Args& a, contract::Context& ctx) {
  if (!a.program) {
    Json names = Json::array();
    for (auto& n : os::program_names(kProgramsDir.c_str())) names.push(Json::bytes(n));
    return Json::object({{"directory", Json::bytes(kProgramsDir)}, {"programs", std::move(names)}});
  }
  // A closed 0, 1 or 2 would go to the first descriptor opened below (a pipe, the root): each
  // is held by /dev/null opened read-only, so standard input reads as empty and a write to a
  // closed standard output still fails.
  for (int fd = 0; fd <= 2; ++fd)
    if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) open("/dev/null", O_RDONLY);
  const std::string& name = *a.program;
  auto found = os::find_program(kProgramsDir.c_str(), name);
  if (auto* e = std::get_if<contract::Error>(&found)) {
    ctx.error(std::move(*e));
    return nullptr;
  }
  const std::string path = std::get<std::string>(found);
  // Standard input that cannot be read (a directory, a descriptor open for writing only) is
  // refused before anything starts, never passed on as an empty one.
  if (a.stdin_) {
    struct stat st {};
    const int mode = fcntl(0, F_GETFL);
    const int err = fstat(0, &st) != 0                            ? errno
                    : S_ISDIR(st.st_mode)                         ? EISDIR
                    : mode >= 0 && (mode & O_ACCMODE) == O_WRONLY ? EBADF
                                                                  : 0;
    if (err) {
      ctx.error(os::errno_error(err, "-", "read"));
      return nullptr;
    }
  }
  run_tool::Watched w;
  if (!run_tool::start_and_watch({.name = name,
                                  .path = path,
                                  .args = a.args,
                                  .cwd = a.cwd,
                                  .programs_dir = kProgramsDir.c_str(),
                                  .timeout_ms = a.timeout_ms,
                                  .max_output = a.max_output,
                                  .max_stdin = a.max_stdin,
                                  .stdin_ceiling = kMaxBytes,
                                  .pids_max = kPidsMax,
                                  .feed_stdin = a.stdin_,
                                  .read_only = a.read_only,
                                  .grace = kGrace},
                                 ctx, w))
    return nullptr;
  const os::Watch& sv = w.sv;
  const os::ProgramRuleset& rules = w.rules;
  const os::Cgroup& cgroup = w.cgroup;
  const bool network = w.network, sockets_filtered = w.sockets_filtered;

  const int st = sv.status;
  Json data = Json::object({
      {"program", Json::bytes(name)},
      {"exit_code", WIFEXITED(st) ? Json(WEXITSTATUS(st)) : Json()},
      {"signal", WIFSIGNALED(st) ? Json(os::signal_name(WTERMSIG(st))) : Json()},
      {"killed", sv.stop_reason != os::Stop::None},
      {"kill_reason", sv.stop_reason == os::Stop::Timeout  ? Json("timeout")
                      : sv.stop_reason == os::Stop::Output ? Json("output")
                      : sv.stop_reason == os::Stop::Stdin  ? Json("stdin")
                                                           : Json()},
      {"processes_killed", sv.killed},
      {"stdout", stream_json(sv.out)},
      {"stderr", stream_json(sv.err)},
      {"stdin_bytes", sv.stdin_total},
      {"confinement",
       Json::object({{"landlock_abi", rules.abi > 0 ? Json(rules.abi) : Json()},
                     {"files", rules.abi > 0},
                     {"tcp", rules.tcp},
                     {"scoped", rules.scoped},
                     {"seccomp", sockets_filtered},
                     {"network", network},
                     {"writable", std::move(w.writable)},
                     {"cgroup", cgroup.made()},
                     {"pids_max", cgroup.pids_max() ? Json(*cgroup.pids_max()) : Json()},
                     {"read_only", a.read_only}})},
  });
  if (sv.stop_reason == os::Stop::Timeout) {
    ctx.error(contract::make_error("limit.timeout",
                                   "the program ran past --timeout-ms (" +
                                       std::to_string(a.timeout_ms) + " ms) and was killed.",
                                   Json::object({{"timeout_ms", a.timeout_ms}})));
  } else if (sv.stop_reason == os::Stop::Output) {
    ctx.error(contract::make_error(
        "limit.output-too-large",
        std::string("the program wrote more than --max-output (") + std::to_string(a.max_output) +
            " bytes) to " + sv.killed_stream + " and was killed.",
        Json::object({{"stream", sv.killed_stream}, {"max_output", a.max_output}})));
  } else if (sv.stop_reason == os::Stop::Stdin) {
    bool known = sv.stdin_eof && sv.stdin_total <= kMaxBytes;
    contract::Error e = contract::make_error(
        "limit.input-too-large",
        "standard input is longer than --max-stdin (" + std::to_string(a.max_stdin) +
            " bytes); the program was killed.",
        Json::object({{"max_stdin", a.max_stdin}, {"bytes", sv.stdin_total}, {"complete", known}}));
    if (known)
      e.repair =
          contract::Repair::retry(ctx.argv_with_flag("max-stdin", std::to_string(sv.stdin_total)));
    ctx.error(std::move(e));
  }
  if (sv.stdin_errno) {
    // Its read failed part way: the program was given an end there, and the answer says so.
    contract::Error e = os::errno_error(sv.stdin_errno, "-", "read");
    e.detail.set("bytes", sv.stdin_total);
    ctx.error(std::move(e));
  }
  return data;
}

// Text: the streams went through as they came; a list is one name a line.

}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
