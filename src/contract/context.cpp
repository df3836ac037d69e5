// context.cpp — what run() reports through: errors and records written in their place, and
// the argv with one thing changed, for repairs (see context.h).
#include "contract/context.h"

#include "contract/parse.h"

namespace contract {

void Context::error(Error e) {
  if (tool_.output == Output::Stream) {
    if (format_ == Format::Json) {
      std::string& b = out_.buffer();
      JsonWriter w(b);
      Json::object({{"type", "error"}, {"error", e.to_json()}}).write(w);
      commit();
    } else {
      text_errors_to_stderr(tool_.name, std::span<const Error>(&e, 1));
    }
  }
  errors_.push_back(std::move(e));
}

void Context::error_streamed(Error e) {
  if (errors_.empty() || tool_.output != Output::Stream) return error(std::move(e));
  if (format_ == Format::Json) {
    JsonWriter w(out_.buffer());
    Json::object({{"type", "error"}, {"error", e.to_json()}}).write(w);
    commit();
  } else {
    text_errors_to_stderr(tool_.name, std::span<const Error>(&e, 1));
  }
}

void Context::record(const Json& rec) {
  if (format_ == Format::Json) {
    JsonWriter w(out_.buffer());
    rec.write(w);
    commit();
  } else if (tool_.text) {
    tool_.text(rec, out_.buffer(), {});
    out_.maybe_flush();
  }
}

std::vector<std::string> Context::argv_with_token(size_t index, std::string token) const {
  std::vector<std::string> a = argv_;
  if (index < a.size()) a[index] = std::move(token);
  return a;
}

std::vector<std::string> Context::argv_with_flag(std::string_view flag, std::string value) const {
  std::vector<std::string> a = remove_flag(argv_, flags_, flag);
  a.insert(a.begin() + 1, "--" + std::string(flag) + "=" + value);
  return a;
}

std::vector<std::string> Context::argv_with_flag_for_operand(size_t k, std::string_view flag,
                                                             std::string value) const {
  std::vector<std::string> kept;
  for (size_t i = 0; i < argv_.size(); ++i) {
    bool other = false;
    for (size_t j = 0; j < operand_tokens_.size(); ++j)
      other = other || (j != k && operand_tokens_[j] == i);
    if (!other) kept.push_back(argv_[i]);
  }
  std::vector<std::string> a = remove_flag(kept, flags_, flag);
  a.insert(a.begin() + 1, "--" + std::string(flag) + "=" + value);
  return a;
}

}  // namespace contract
