// fuzz-sources: mcp/json_in.cpp mcp/answer.cpp src/contract/json.cpp src/text/json_bytes.cpp
// fuzz-libs: -lsimdjson
// fuzz-options: -max_len=65536
// libFuzzer target: tack-mcp's reading of its client, from bytes to messages. The input is cut
// into frames by the server's own reader (mcp/frames.h), fed in pieces whose sizes the input's
// first bytes choose, and every frame is read as the server reads it. Whatever the bytes (NUL
// bytes, lines past the cap, invalid UTF-8, deep nesting, huge arrays), nothing crashes and:
// the frames are the same however the bytes were split; they are the input's lines, each cut
// at the cap and said to be oversized when longer; a frame that parses writes back as JSON
// that parses again to the same text; the members the server looks at are read safely.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mcp/answer.h"
#include "mcp/frames.h"
#include "mcp/json_in.h"

namespace {

using Frames = std::vector<std::pair<std::string, bool>>;

Frames cut(std::string_view in, size_t max, const uint8_t* sizes, size_t n_sizes) {
  mcp::FrameReader r(max);
  Frames out;
  size_t pos = 0, k = 0;
  while (pos < in.size()) {
    size_t step = n_sizes ? 1 + sizes[k++ % n_sizes] % 97 : in.size();
    if (step > in.size() - pos) step = in.size() - pos;
    r.feed(in.data() + pos, step, [&](std::string_view line, bool big) { out.emplace_back(line, big); });
    if (r.pending() > max) __builtin_trap();
    pos += step;
  }
  return out;
}

// What the frames must be: the input's '\n'-ended lines, each cut at `max`.
Frames expected(std::string_view in, size_t max) {
  Frames out;
  for (size_t pos = 0;;) {
    size_t nl = in.find('\n', pos);
    if (nl == std::string_view::npos) break;
    std::string_view line = in.substr(pos, nl - pos);
    out.emplace_back(std::string(line.substr(0, max)), line.size() > max);
    pos = nl + 1;
  }
  return out;
}

void read_message(std::string_view line) {
  auto msg = mcp::parse_json(line);
  if (!msg) return;
  std::string once = msg->dump();
  auto again = mcp::parse_json(once);
  if (!again || again->dump() != once) __builtin_trap();
  // What Server::handle reads of a message, and of a roots/list answer.
  (void)mcp::string_member(*msg, "jsonrpc");
  (void)mcp::string_member(*msg, "method");
  if (msg->type() != contract::Json::Type::Object) return;
  if (const contract::Json* id = msg->get("id")) (void)id->dump();
  const contract::Json* result = msg->get("result");
  const contract::Json* roots =
      result && result->type() == contract::Json::Type::Object ? result->get("roots") : nullptr;
  if (!roots || roots->type() != contract::Json::Type::Array) return;
  for (auto& r : roots->items()) {
    const std::string* uri = mcp::string_member(r, "uri");
    if (!uri) continue;
    std::string path = mcp::decode_file_uri(*uri);
    if (!path.empty() && path[0] != '/') __builtin_trap();
    if (!mcp::beneath(path, path)) __builtin_trap();
    (void)mcp::beneath(path, "/");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The first byte: how many of the next bytes give the piece sizes (0-7).
  size_t n_sizes = size ? data[0] % 8 : 0;
  if (size < 1 + n_sizes) return 0;
  const uint8_t* sizes = data + 1;
  std::string_view in(reinterpret_cast<const char*>(data + 1 + n_sizes), size - 1 - n_sizes);
  for (size_t max : {size_t{16}, size_t{8} << 20}) {  // a small cap to reach, the server's own
    Frames whole = cut(in, max, nullptr, 0);
    if (whole != expected(in, max)) __builtin_trap();
    if (cut(in, max, sizes, n_sizes) != whole) __builtin_trap();
  }
  for (auto& [line, big] : cut(in, size_t{8} << 20, nullptr, 0))
    if (!big && line.find_first_not_of(" \t\r") != std::string::npos) read_message(line);
  return 0;
}
