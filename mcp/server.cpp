// server.cpp — the protocol loop of tack-mcp (see server.h).
#include "mcp/server.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "contract/context.h"
#include "contract/json.h"
#include "mcp/answer.h"
#include "mcp/built.h"
#include "mcp/catalog.h"
#include "mcp/frames.h"
#include "mcp/child.h"
#include "mcp/content.h"
#include "mcp/json_in.h"
#include "mcp/options.h"
#include "os/sandbox.h"

namespace mcp {

namespace {

using contract::Json;

constexpr const char* kVersions[] = {"2025-11-25", "2025-06-18"};  // the current, the previous
constexpr size_t kMaxMessage = 8u << 20;                           // one message, in bytes

// A line on standard error, "tack-mcp: TEXT" (standard output is the protocol's).
void say(const std::string& text) {
  const std::string m = "tack-mcp: " + text + "\n";
  ssize_t ignored = ::write(2, m.data(), m.size());
  (void)ignored;
}

struct Job {
  Json id;
  std::string key;  // id.dump(): the key of the cancel flags
  const ToolEntry* tool = nullptr;
  Json arguments;
  std::shared_ptr<std::atomic<bool>> cancel;
};

class Server {
 public:
  explicit Server(Options o) : opt_(std::move(o)) {}
  int run();

 private:
  void send(const Json& msg);
  void reply(const Json& id, Json result);
  void reply_error(const Json& id, int code, const std::string& message);
  void handle(const Json& msg);
  void request(const Json& id, const std::string& method, const Json& params);
  void notification(const std::string& method, const Json& params);
  void ask_roots();
  void worker();
  Json call(const Job& job);
  std::optional<std::string> call_root(const ToolEntry& t, const Json& args, Json& refusal);
  Json tools_list();
  std::optional<std::string> confine() const;
  // The tools' entries, built from their introspect at the first request that needs them (a
  // start answers initialize without parsing a table); then fixed.
  const std::vector<ToolEntry>& tools();

  Options opt_;
  std::string dir_;                   // where the tools are: beside this binary
  std::vector<const Built*> chosen_;  // --tools, less the writers and starters with --read-only
  std::once_flag tools_once_;
  std::vector<std::thread> workers_;  // started by the first call (the reading thread's own)
  std::vector<ToolEntry> tools_;
  std::string contract_;  // the instructions of every initialize
  std::mutex out_mu_;
  bool out_failed_ = false;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> running_;
  bool stopping_ = false;
  // Roots: whether the client offers them, the pending request, the narrowed roots.
  bool client_roots_ = false, roots_pending_ = false, roots_known_ = false;
  std::vector<std::string> roots_;
  int roots_seq_ = 0;
  std::string pending_roots_id_;
};

void Server::send(const Json& msg) {
  std::string line = msg.dump();
  line += '\n';
  std::lock_guard<std::mutex> lock(out_mu_);
  if (out_failed_) return;
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(1, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      out_failed_ = true;  // the client is gone: nothing more can be answered
      kill_all_children();
      return;
    }
    done += static_cast<size_t>(n);
  }
}

void Server::reply(const Json& id, Json result) {
  send(Json::object({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}));
}

void Server::reply_error(const Json& id, int code, const std::string& message) {
  send(Json::object({{"jsonrpc", "2.0"},
                     {"id", id},
                     {"error", Json::object({{"code", code}, {"message", message}})}}));
}

const std::vector<ToolEntry>& Server::tools() {
  std::call_once(tools_once_, [this] { tools_ = describe_chosen(chosen_, dir_); });
  return tools_;
}

Json Server::tools_list() {
  Json list = Json::array();
  for (auto& t : tools()) list.push(t.descriptor);
  return Json::object({{"tools", std::move(list)}});
}

void Server::ask_roots() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!client_roots_) return;
  pending_roots_id_ = "tack-roots-" + std::to_string(++roots_seq_);
  roots_pending_ = true;
  send(Json::object({{"jsonrpc", "2.0"}, {"id", pending_roots_id_}, {"method", "roots/list"}}));
}

void Server::notification(const std::string& method, const Json& params) {
  if (method == "notifications/initialized" || method == "notifications/roots/list_changed") {
    ask_roots();
    return;
  }
  if (method == "notifications/cancelled") {
    const Json* rid = params.type() == Json::Type::Object ? params.get("requestId") : nullptr;
    if (!rid) return;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = running_.find(rid->dump());
    if (it != running_.end()) it->second->store(true);
    return;
  }
  // Other notifications (progress, ...) ask for nothing.
}

void Server::request(const Json& id, const std::string& method, const Json& params) {
  if (method == "initialize") {
    std::string asked = string_member(params, "protocolVersion") ? *string_member(params, "protocolVersion") : "";
    std::string version = kVersions[0];
    for (const char* v : kVersions)
      if (asked == v) version = v;
    const Json* caps = params.type() == Json::Type::Object ? params.get("capabilities") : nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      client_roots_ = caps && caps->type() == Json::Type::Object && caps->get("roots") != nullptr;
    }
    reply(id, Json::object({{"protocolVersion", version},
                            {"capabilities", Json::object({{"tools", Json::object({{"listChanged", false}})}})},
                            {"serverInfo", Json::object({{"name", "tack-mcp"}, {"title", "tack"}, {"version", TACK_VERSION}})},
                            {"instructions", contract_}}));
    return;
  }
  if (method == "ping") return reply(id, Json::object());
  if (method == "tools/list") return reply(id, tools_list());
  if (method == "tools/call") {
    const std::string* name = string_member(params, "name");
    if (!name) return reply_error(id, -32602, "tools/call needs params.name");
    auto t = std::find_if(tools().begin(), tools().end(), [&](const ToolEntry& e) { return e.name == *name; });
    if (t == tools().end()) return reply_error(id, -32602, "Unknown tool: " + *name);
    const Json* args = params.get("arguments");
    if (args && args->type() != Json::Type::Object && !args->is_null())
      return reply_error(id, -32602, "tools/call: arguments must be an object");
    Job job;
    job.id = id;
    job.key = id.dump();
    job.tool = &*t;
    job.arguments = args && !args->is_null() ? *args : Json::object();
    job.cancel = std::make_shared<std::atomic<bool>>(false);
    // The workers start with the first call: a session that only lists starts no thread.
    if (workers_.empty())
      for (size_t i = 0; i < opt_.max_concurrent; ++i) workers_.emplace_back([this] { worker(); });
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (running_.count(job.key)) return reply_error(id, -32600, "a request with this id is still running");
      running_[job.key] = job.cancel;
      queue_.push_back(std::move(job));
    }
    cv_.notify_one();
    return;
  }
  reply_error(id, -32601, "Method not found: " + method);
}

void Server::handle(const Json& msg) {
  if (msg.type() != Json::Type::Object) return reply_error(Json(), -32600, "not a JSON-RPC message");
  const Json* id = msg.get("id");
  const std::string* version = string_member(msg, "jsonrpc");
  const std::string* method = string_member(msg, "method");
  if (!version || *version != "2.0") return reply_error(id ? *id : Json(), -32600, "jsonrpc must be \"2.0\"");
  if (!method) {
    // A response to the server's own request (roots/list).
    if (!id) return reply_error(Json(), -32600, "a message with neither method nor id");
    std::lock_guard<std::mutex> lock(mu_);
    if (id->type() == Json::Type::Str && id->str() == pending_roots_id_) {
      roots_pending_ = false;
      roots_known_ = true;
      roots_.clear();
      const Json* result = msg.get("result");
      const Json* list = result && result->type() == Json::Type::Object ? result->get("roots") : nullptr;
      if (!list || list->type() != Json::Type::Array) {
        roots_known_ = false;  // an error answer: no narrowing was declared
      } else {
        for (auto& r : list->items()) {
          const std::string* uri = string_member(r, "uri");
          std::string path = uri ? real(decode_file_uri(*uri)) : "";
          if (path.empty()) continue;
          if (beneath(path, opt_.root))
            roots_.push_back(path);
          else if (beneath(opt_.root, path))
            roots_.push_back(opt_.root);
        }
      }
      cv_.notify_all();
    }
    return;
  }
  const Json params = msg.get("params") ? *msg.get("params") : Json::object();
  if (!id) return notification(*method, params);
  if (id->type() != Json::Type::Str && id->type() != Json::Type::Int && id->type() != Json::Type::Uint)
    return reply_error(Json(), -32600, "id must be a string or an integer");
  request(*id, *method, params);
}

std::optional<std::string> Server::call_root(const ToolEntry& t, const Json& args, Json& refusal) {
  std::vector<std::string> bounds;
  {
    std::unique_lock<std::mutex> lock(mu_);
    // A call made while the client's roots are on their way waits for them (briefly).
    cv_.wait_for(lock, std::chrono::seconds(5), [&] { return !roots_pending_; });
    bounds = roots_known_ ? roots_ : std::vector<std::string>{opt_.root};
  }
  std::string root = bounds.empty() ? "" : bounds[0];
  const std::string* asked = string_member(args, "root");
  if (asked) {
    std::string want = *asked;
    if (want.empty() || want == ".") {
      want = opt_.root;
    } else {
      if (want[0] != '/') want = opt_.root + "/" + want;
      for (size_t k = 0; k <= want.size();) {
        size_t e = want.find('/', k);
        if (e == std::string::npos) e = want.size();
        if (want.compare(k, e - k, "..") == 0 && e - k == 2) {
          refusal = tack_error("INVALID_ARGS", "path.dotdot", "the root '" + *asked + "' has a '..' component.",
                               "name the directory without '..'", Json::object({{"path", *asked}}));
          return std::nullopt;
        }
        k = e + 1;
      }
      std::string r = real(want);
      want = r.empty() ? want : r;
    }
    root.clear();
    for (auto& b : bounds)
      if (beneath(want, b)) root = want;
  }
  if (root.empty()) {
    std::string shown = asked ? *asked : opt_.root;
    refusal = tack_error("PERMISSION_DENIED", "path.outside-root",
                         "'" + shown + "' is outside the roots this server may use.",
                         "use a directory beneath one of the client's roots",
                         Json::object({{"path", shown}, {"roots", [&] {
                                                          Json a = Json::array();
                                                          for (auto& b : bounds) a.push(b);
                                                          return a;
                                                        }()}}));
    return std::nullopt;
  }
  (void)t;
  return root;
}

Json Server::call(const Job& job) {
  const ToolEntry& t = *job.tool;
  auto text_result = [](const std::string& text, bool error) {
    return Json::object({{"content", Json::array({Json::object({{"type", "text"}, {"text", text}})})},
                         {"isError", error}});
  };
  // A tagged error the server finds itself (a root outside the client's, an argument no
  // property has), answered in the tool's own shape.
  auto refuse = [&](const Json& err) {
    Json structured;
    if (t.stream) {
      structured = Json::object({{"records", Json::array({Json::object({{"type", "error"}, {"error", err}})})},
                                 {"end", Json::object({{"type", "end"}, {"ok", false}, {"command", t.name},
                                                       {"schema", t.schema_id}, {"complete", false},
                                                       {"truncated", false}, {"next", Json()}})}});
    } else {
      structured = Json::object({{"ok", false}, {"command", t.name}, {"schema", t.schema_id},
                                 {"error", err}, {"errors", Json::array({err})},
                                 {"meta", Json::object({{"version", TACK_VERSION}})}});
    }
    Json res = text_result(opt_.content_json ? Json::object({{"ok", false}, {"errors", Json::array({err})}}).dump()
                                             : error_text(t, err),
                           true);
    res.set("structuredContent", std::move(structured));
    return res;
  };
  Json refusal;
  std::string root = opt_.root;
  if (t.takes_root) {
    auto r = call_root(t, job.arguments, refusal);
    if (!r) return refuse(refusal);
    root = *r;
  }
  std::string stdin_data;
  std::optional<ArgumentError> bad;
  std::vector<std::string> argv = build_argv(t, job.arguments, root, stdin_data, bad);
  if (bad) {
    Json err = tack_error("INVALID_ARGS", bad->rule, bad->message, bad->hint, bad->detail);
    if (bad->hint.empty()) err.set("hint", Json());
    // One fix that clears it: the same call with the argument it meant, as a retry.
    std::string unused;
    std::optional<ArgumentError> still;
    std::vector<std::string> fixed;
    if (!bad->retry.is_null()) fixed = build_argv(t, bad->retry, root, unused, still);
    if (!fixed.empty() && !still) {
      Json plain = Json::array({t.name});
      for (size_t i = t.takes_root ? 3 : 1; i < fixed.size(); ++i) plain.push(fixed[i]);
      err.set("repair", Json::object({{"kind", "retry"}, {"argv", std::move(plain)}, {"tool", t.name},
                                      {"arguments", bad->retry}}));
    }
    return refuse(err);
  }
  ChildResult c = run_child(argv, stdin_data, opt_.timeout_ms, opt_.max_output, job.cancel.get());
  if (!c.spawn_error.empty()) return text_result("tack-mcp: " + t.name + " could not start: " + c.spawn_error, true);
  if (c.timed_out)
    return text_result("tack-mcp: limit.timeout: " + t.name + " ran past " + std::to_string(opt_.timeout_ms) +
                           " ms and was killed; nothing it printed is returned.", true);
  if (c.capped)
    return text_result("tack-mcp: limit.output: " + t.name + " printed more than " + std::to_string(opt_.max_output) +
                           " bytes and was killed; ask for less (a smaller range or --max-count).", true);
  if (c.signal != 0)
    return text_result("tack-mcp: " + t.name + " was ended by signal " + std::to_string(c.signal) + ".", true);

  // A retry repair also comes as the arguments of the same tool.
  auto add_arguments = [&](Json& err) {
    const Json* rep = err.get("repair");
    const std::string* kind = rep ? string_member(*rep, "kind") : nullptr;
    if (!kind || *kind != "retry") return;
    const Json* rargv = rep->get("argv");
    if (!rargv || rargv->type() != Json::Type::Array) return;
    std::vector<std::string> a;
    for (auto& x : rargv->items()) {
      if (x.type() != Json::Type::Str) return;
      a.push_back(x.str());
    }
    // The repair may name another tool beside this one (seek's long line: peek --bytes).
    const std::string base = a[0].substr(a[0].rfind('/') + 1);
    auto target = std::find_if(tools_.begin(), tools_.end(), [&](const ToolEntry& e) { return e.name == base; });
    if (target == tools_.end()) return;
    if (auto args = argv_to_arguments(*target, a, root, opt_.root, stdin_data)) {
      Json r = *rep;
      r.set("tool", target->name);
      r.set("arguments", std::move(*args));
      // The argv as the tool's own, without this machine's paths: its name, then the rest
      // without the root the server gave it.
      Json plain = Json::array({target->name});
      for (size_t i = 1; i < a.size(); ++i) {
        if (a[i] == "--root" && i + 1 < a.size() && a[i + 1] == root) {
          ++i;
          continue;
        }
        if (a[i] == "--root=" + root) continue;
        plain.push(a[i]);
      }
      r.set("argv", std::move(plain));
      err.set("repair", std::move(r));
    }
  };

  Json structured;
  std::string text;
  bool ok = false;
  if (!t.stream) {
    auto doc = parse_json(c.out);
    if (!doc || doc->type() != Json::Type::Object)
      return text_result("tack-mcp: " + t.name + " gave no JSON answer (exit " + std::to_string(c.exit_code) +
                             "): " + c.err.substr(0, 400), true);
    Json d = *doc;
    if (const Json* errs = d.get("errors")) {
      Json fixed = Json::array();
      for (auto e : errs->items()) {
        add_arguments(e);
        fixed.push(std::move(e));
      }
      d.set("error", fixed.items().empty() ? Json() : fixed.items()[0]);
      d.set("errors", std::move(fixed));
    }
    ok = d.get("ok") && d.get("ok")->as_bool();
    text = opt_.content_json ? compact_text(d) : document_text(t, d);
    structured = std::move(d);
  } else {
    Json records = Json::array();
    Json end;
    bool have_end = false;
    size_t start = 0;
    while (start < c.out.size()) {
      size_t nl = c.out.find('\n', start);
      if (nl == std::string::npos) nl = c.out.size();
      auto rec = parse_json(std::string_view(c.out).substr(start, nl - start));
      start = nl + 1;
      if (!rec) continue;
      const std::string* type = string_member(*rec, "type");
      if (type && *type == "end") {
        end = *rec;
        have_end = true;
        continue;
      }
      Json r = *rec;
      if (type && *type == "error") {
        if (const Json* e = r.get("error")) {
          Json ee = *e;
          add_arguments(ee);
          r.set("error", std::move(ee));
        }
      }
      records.push(std::move(r));
    }
    if (!have_end)
      return text_result("tack-mcp: " + t.name + "'s answer ended without its end record (exit " +
                             std::to_string(c.exit_code) + "): treat it as cut short.", true);
    ok = end.get("ok") && end.get("ok")->as_bool();
    if (opt_.content_json) {
      for (auto& r : records.items()) text += r.dump() + "\n";
      text += end.dump();
    } else {
      text = stream_text(t, records, end);
    }
    structured = Json::object({{"records", std::move(records)}, {"end", std::move(end)}});
  }
  // Bytes that are not UTF-8 (a Latin-1 line) reach the model \xNN-escaped, never altered.
  if (!contract::valid_utf8(text)) text = contract::printable(text);
  if (!opt_.content_json) cut_content(text, opt_.max_content);
  Json res = text_result(text, !ok);
  res.set("structuredContent", std::move(structured));
  return res;
}

void Server::worker() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    Json result;
    if (!job.cancel->load()) result = call(job);
    bool cancelled = job.cancel->load();
    {
      std::lock_guard<std::mutex> lock(mu_);
      running_.erase(job.key);
    }
    // A cancelled request gets no answer (the client has stopped waiting for one).
    if (!cancelled) reply(job.id, std::move(result));
  }
}

// The server's own authority, held by the kernel as a tool's is (os/sandbox.h), as run's
// supervisor row: it reads and executes anywhere (it starts the tools), and it writes nothing
// itself, but what it starts inherits its domain, so the kernel lets it write where its tools
// may: beneath the root, /tmp and its cgroup (run's TMPDIR and pids cgroup). No internet
// socket, no ptrace, mount or bpf. Each call's tool then narrows this to its own row (a
// reader, under --read-only every tool, to no write at all).
std::optional<std::string> Server::confine() const {
  contract::Tool self;
  self.name = "tack-mcp";
  self.effects = contract::kReadFiles | contract::kReadStdin | contract::kStartPrograms;
  if (std::any_of(chosen_.begin(), chosen_.end(), [](const Built* b) { return b->writes; }))
    self.effects |= contract::kWriteFiles;
  int root_fd = open(opt_.root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) return "io.not-found: the root cannot be opened";
  std::optional<contract::Error> e = os::apply_sandbox(self, root_fd, {});
  close(root_fd);
  if (e) return std::string(e->rule) + ": " + e->message;
  return std::nullopt;
}

int Server::run() {
  {
    std::string self = real("/proc/self/exe");
    dir_ = self.substr(0, self.rfind('/'));
  }
  Chosen chosen = choose_tools(opt_, dir_);
  if (chosen.exit != 0) {
    say(chosen.error);
    return chosen.exit;
  }
  chosen_ = std::move(chosen.tools);
  contract_ = instructions();

  if (auto failed = confine()) {
    say(*failed);
    return 1;
  }


  FrameReader frames(kMaxMessage);
  char chunk[65536];
  for (;;) {
    ssize_t n = ::read(0, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the client went away
    frames.feed(chunk, static_cast<size_t>(n), [&](std::string_view line, bool oversized) {
      if (oversized) {
        reply_error(Json(), -32600, "message longer than " + std::to_string(kMaxMessage) + " bytes");
      } else if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
        auto msg = parse_json(line);
        if (!msg)
          reply_error(Json(), -32700, "Parse error");
        else
          handle(*msg);
      }
    });
  }
  // No one is left to answer: stop everything that runs, and leave.
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    queue_.clear();
    for (auto& [k, flag] : running_) flag->store(true);
  }
  cv_.notify_all();
  kill_all_children();
  for (auto& w : workers_) w.join();
  return 0;
}

}  // namespace

int serve(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      ssize_t ignored = ::write(1, kUsage, std::strlen(kUsage));
      (void)ignored;
      return 0;
    }
    if (std::strcmp(argv[i], "--version") == 0) {
      std::string v = std::string("tack-mcp ") + TACK_VERSION + "\n";
      ssize_t ignored = ::write(1, v.data(), v.size());
      (void)ignored;
      return 0;
    }
  }
  signal(SIGPIPE, SIG_IGN);
  Options o;
  std::string error;
  if (!parse_options(argc, argv, o, error)) {
    std::string usage = kUsage;
    usage.pop_back();  // its last '\n': say() ends the line
    say(error + "\n" + usage);
    return 2;
  }
  // SIGTERM, SIGINT or SIGHUP to the server ends every call it started, then the server.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set] {
    int sig = 0;
    sigwait(&set, &sig);
    kill_all_children();
    _exit(128 + sig);
  }).detach();
  Server s(std::move(o));
  return s.run();
}

}  // namespace mcp
