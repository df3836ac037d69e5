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
#include "mcp/built.h"
#include "mcp/call.h"
#include "mcp/catalog.h"
#include "mcp/confine.h"
#include "mcp/content.h"
#include "mcp/frames.h"
#include "mcp/json_in.h"
#include "mcp/options.h"
#include "mcp/pool.h"
#include "mcp/roots.h"

namespace mcp {

namespace {

using contract::Json;

constexpr const char* kVersions[] = {"2025-11-25", "2025-06-18"};  // the current, the previous
constexpr size_t kMaxMessage = 8u << 20;                           // one message, in bytes
// Processes kept waiting for each tool a session has called (pool.h): one for the next call,
// one more for a call that comes before the first's replacement has started.
constexpr size_t kWaitingPerTool = 2;

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
  explicit Server(Options o) : opt_(std::move(o)), roots_(opt_.root), pool_(kWaitingPerTool) {}
  int run();

 private:
  void send(const Json& msg);
  void reply(const Json& id, Json result);
  void reply_error(const Json& id, int code, const std::string& message);
  std::optional<Job> handle(const Json& msg);
  std::optional<Job> request(const Json& id, const std::string& method, const Json& params);
  void notification(const std::string& method, const Json& params);
  void ask_roots();
  std::optional<Job> read_until_call();
  void thread_loop();
  void serve(Job& job);
  Json call(const Job& job, Waiting& ending);
  Json tools_list();
  // The tools' entries, built from their introspect at the first request that needs them (a
  // start answers initialize without parsing a table); then fixed.
  const std::vector<ToolEntry>& tools();

  Options opt_;
  std::string dir_;                   // where the tools are: beside this binary
  std::vector<const Built*> chosen_;  // --tools, less the writers and starters with --read-only
  std::once_flag tools_once_;
  std::vector<std::thread> workers_;  // started by the first call, beside the main thread
  std::vector<ToolEntry> tools_;
  std::string contract_;  // the instructions of every initialize
  std::mutex out_mu_;
  bool out_failed_ = false;

  // The reader role (see thread_loop): whichever thread holds it reads and handles messages;
  // the frames read and not yet handled are its own.
  FrameReader frames_{kMaxMessage};
  std::deque<std::pair<std::string, bool>> lines_;  // a line, and whether it was oversized
  bool eof_ = false;

  std::mutex mu_;
  std::condition_variable cv_;
  bool reading_ = false;  // a thread holds the reader role
  size_t calls_ = 0;      // calls being served
  size_t writers_ending_ = 0;  // writers answered and not yet reaped (serve)
  std::condition_variable reaped_;  // writers_ending_ fell
  std::deque<Job> queue_;  // calls past --max-concurrent, served as others end
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> running_;
  bool stopping_ = false;
  Roots roots_;
  Pool pool_;
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
  if (auto id = roots_.ask()) send(Json::object({{"jsonrpc", "2.0"}, {"id", *id}, {"method", "roots/list"}}));
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

std::optional<Job> Server::request(const Json& id, const std::string& method, const Json& params) {
  if (method == "initialize") {
    std::string asked = string_member(params, "protocolVersion") ? *string_member(params, "protocolVersion") : "";
    std::string version = kVersions[0];
    for (const char* v : kVersions)
      if (asked == v) version = v;
    const Json* caps = params.type() == Json::Type::Object ? params.get("capabilities") : nullptr;
    roots_.offered(caps && caps->type() == Json::Type::Object && caps->get("roots") != nullptr);
    reply(id, Json::object({{"protocolVersion", version},
                            {"capabilities", Json::object({{"tools", Json::object({{"listChanged", false}})}})},
                            {"serverInfo", Json::object({{"name", "tack-mcp"}, {"title", "tack"}, {"version", TACK_VERSION}})},
                            {"instructions", contract_}}));
    return std::nullopt;
  }
  if (method == "ping") return reply(id, Json::object()), std::nullopt;
  if (method == "tools/list") return reply(id, tools_list()), std::nullopt;
  if (method == "tools/call") {
    const std::string* name = string_member(params, "name");
    if (!name) return reply_error(id, -32602, "tools/call needs params.name"), std::nullopt;
    auto t = std::find_if(tools().begin(), tools().end(), [&](const ToolEntry& e) { return e.name == *name; });
    if (t == tools().end()) return reply_error(id, -32602, "Unknown tool: " + *name), std::nullopt;
    const Json* args = params.get("arguments");
    if (args && args->type() != Json::Type::Object && !args->is_null())
      return reply_error(id, -32602, "tools/call: arguments must be an object"), std::nullopt;
    Job job;
    job.id = id;
    job.key = id.dump();
    job.tool = &*t;
    job.arguments = args && !args->is_null() ? *args : Json::object();
    job.cancel = std::make_shared<std::atomic<bool>>(false);
    // The threads start with the first call: a session that only lists starts none.
    if (workers_.empty())
      for (size_t i = 0; i < opt_.max_concurrent; ++i) workers_.emplace_back([this] { thread_loop(); });
    std::lock_guard<std::mutex> lock(mu_);
    if (running_.count(job.key))
      return reply_error(id, -32600, "a request with this id is still running"), std::nullopt;
    running_[job.key] = job.cancel;
    return job;
  }
  reply_error(id, -32601, "Method not found: " + method);
  return std::nullopt;
}

std::optional<Job> Server::handle(const Json& msg) {
  if (msg.type() != Json::Type::Object) return reply_error(Json(), -32600, "not a JSON-RPC message"), std::nullopt;
  const Json* id = msg.get("id");
  const std::string* version = string_member(msg, "jsonrpc");
  const std::string* method = string_member(msg, "method");
  if (!version || *version != "2.0")
    return reply_error(id ? *id : Json(), -32600, "jsonrpc must be \"2.0\""), std::nullopt;
  if (!method && msg.get("method")) {
    // A request whose method is not a string: invalid, answered with its id where it has one.
    const bool usable = id && (id->type() == Json::Type::Str || id->type() == Json::Type::Int ||
                               id->type() == Json::Type::Uint);
    return reply_error(usable ? *id : Json(), -32600, "method must be a string"), std::nullopt;
  }
  if (!method) {
    // A response to the server's own request (roots/list).
    if (!id) return reply_error(Json(), -32600, "a message with neither method nor id"), std::nullopt;
    return roots_.response(*id, msg), std::nullopt;
  }
  const Json params = msg.get("params") ? *msg.get("params") : Json::object();
  if (!id) return notification(*method, params), std::nullopt;
  if (id->type() != Json::Type::Str && id->type() != Json::Type::Int && id->type() != Json::Type::Uint)
    return reply_error(Json(), -32600, "id must be a string or an integer"), std::nullopt;
  return request(*id, *method, params);
}

Json Server::call(const Job& job, Waiting& ending) {
  const ToolEntry& t = *job.tool;
  CallRoot root{opt_.root, os::Fd(), {}};
  if (t.takes_root) {
    Json refused;
    auto r = roots_.for_call(job.arguments, refused);
    if (!r) return refusal(opt_, t, refused);
    root = std::move(*r);
  }
  // The directory stays open here until the call is answered, and the tool works only in it
  // (runner/waiting.h).
  return call_tool(CallEnv{opt_, tools(), pool_}, t, job.arguments, root.path, root.id,
                   job.cancel.get(), ending);
}

void Server::serve(Job& job) {
  Json result;
  Waiting ending;  // a process whose answer came before its end: reaped after the reply
  {
    // A writer answered and not yet reaped may still hold its locks: no call starts before
    // it is gone, so a call sent after an answer never meets the call answered.
    std::unique_lock<std::mutex> lock(mu_);
    reaped_.wait(lock, [&] { return writers_ending_ == 0; });
  }
  if (!job.cancel->load()) result = call(job, ending);
  bool cancelled = job.cancel->load();
  const bool writer = ending.pid > 0 && job.tool->writes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_.erase(job.key);
    if (writer) ++writers_ending_;  // before the reply: the next call waits for the reaping
  }
  // A cancelled request gets no answer (the client has stopped waiting for one).
  if (!cancelled) reply(job.id, std::move(result));
  discard(ending);
  if (writer) {
    std::lock_guard<std::mutex> lock(mu_);
    --writers_ending_;
    reaped_.notify_all();
  }
  pool_.refill_now();
}

// Messages read and handled in order until one is a call to serve; nothing at the end of input.
std::optional<Job> Server::read_until_call() {
  char chunk[65536];
  for (;;) {
    while (!lines_.empty()) {
      auto [line, oversized] = std::move(lines_.front());
      lines_.pop_front();
      if (oversized) {
        reply_error(Json(), -32600, "message longer than " + std::to_string(kMaxMessage) + " bytes");
      } else if (line.find_first_not_of(" \t\r") != std::string::npos) {
        auto msg = parse_json(line);
        if (!msg)
          reply_error(Json(), -32700, "Parse error");
        else if (auto job = handle(*msg))
          return job;
      }
    }
    if (eof_) return std::nullopt;
    ssize_t n = ::read(0, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof_ = true;  // the client went away
      continue;
    }
    frames_.feed(chunk, static_cast<size_t>(n), [&](std::string_view line, bool oversized) {
      lines_.emplace_back(oversized ? std::string() : std::string(line), oversized);
    });
  }
}

// Every thread, the main one too, runs this loop. One holds the reader role at a time: it
// reads and answers messages itself until one is a call, then hands the role on and serves the
// call on the same thread, so no call waits for a hand-off between threads (a thread woken to
// read next is woken beside the call, not before it). Past --max-concurrent calls, a call waits
// in the queue for the first thread whose call ends.
void Server::thread_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (!queue_.empty() && calls_ < opt_.max_concurrent) {
      Job job = std::move(queue_.front());
      queue_.pop_front();
      ++calls_;
      lock.unlock();
      serve(job);
      lock.lock();
      --calls_;
      continue;
    }
    if (stopping_) return;
    if (reading_) {
      cv_.wait(lock);
      continue;
    }
    reading_ = true;
    lock.unlock();
    std::optional<Job> job = read_until_call();
    lock.lock();
    reading_ = false;
    if (!job) {
      // No one is left to answer: stop everything that runs, and leave.
      stopping_ = true;
      queue_.clear();
      for (auto& [k, flag] : running_) flag->store(true);
      cv_.notify_all();
      lock.unlock();
      kill_all_children();
      lock.lock();
      continue;
    }
    cv_.notify_one();  // another thread takes the reader role
    if (calls_ >= opt_.max_concurrent) {
      queue_.push_back(std::move(*job));
      continue;
    }
    ++calls_;
    lock.unlock();
    serve(*job);
    lock.lock();
    --calls_;
  }
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

  if (auto failed = confine(chosen_, opt_.root)) {
    say(*failed);
    return 1;
  }


  thread_loop();
  for (auto& w : workers_) w.join();
  pool_.stop();
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
