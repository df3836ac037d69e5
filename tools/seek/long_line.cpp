// long_line.cpp — seek's limit.line-too-long error and its repairs.
#include "tools/seek/long_line.h"

#include "contract/json.h"

namespace seek {

using contract::Json;

contract::Error long_line_error(const Args& a, const std::string& path, const text::ScanResult& r,
                                const text::ReadAt& read) {
  Json lines = Json::array();
  for (uint64_t n : r.long_lines) lines.push(n);
  Json detail = Json::object({{"path", Json::bytes(path)},
                              {"lines", std::move(lines)},
                              {"count", r.long_count},
                              {"longest", r.longest},
                              {"searched", !r.long_unsearched},
                              {"max_line_bytes", a.max_line_bytes},
                              {"ceiling", kLineCeiling}});
  std::string where;
  Json offsets = Json::array();
  for (uint64_t o : r.long_offsets) offsets.push(o);
  if (r.long_located && r.long_candidates && !r.long_offsets.empty()) {
    // A regex: where the literal every match contains occurs, the only places to look.
    detail.set("offsets", Json());
    detail.set("offsets_unknown",
               "an RE2 pattern is matched against a whole line, and a line past "
               "--max-line-bytes is never held; candidates are where the literal every match "
               "must contain occurs, and long lines without it cannot match");
    detail.set("candidates", std::move(offsets));
    detail.set("candidate_count", r.long_occurrences);
    const auto [from, to] = text::window_around(r, 0, kWindowSide, read);
    detail.set("window", Json::object({{"from", from}, {"to", to}}));
    where = " A match can only be near where the literal every match contains occurs, " +
            std::to_string(r.long_occurrences) + " time(s), first at byte " +
            std::to_string(r.long_offsets.front()) + ".";
  } else if (r.long_located && !r.long_offsets.empty()) {
    detail.set("offsets", std::move(offsets));
    detail.set("occurrences", r.long_occurrences);
    const auto [from, to] = text::window_around(r, a.pattern.size(), kWindowSide, read);
    detail.set("window", Json::object({{"from", from}, {"to", to}}));
    where = " The pattern occurs " + std::to_string(r.long_occurrences) +
            " time(s) in them, first at byte " + std::to_string(r.long_offsets.front()) + ".";
  } else {
    detail.set("offsets", Json());
    detail.set("offsets_unknown",
               r.long_unsearched
                   ? "an RE2 pattern is matched against a whole line, and a line past "
                     "--max-line-bytes is never held; RE2 cannot carry a match from one piece "
                     "of it to the next"
                   : "the matcher says only whether a piece of the line matches, not where");
  }
  const std::string what = r.long_unsearched
                               ? " line(s) of '" + contract::printable(path) +
                                     "' are longer than --max-line-bytes " +
                                     std::to_string(a.max_line_bytes) +
                                     " and were not searched (a regex needs the whole line)"
                               : " line(s) of '" + contract::printable(path) +
                                     "' that match are longer than "
                                     "--max-line-bytes " +
                                     std::to_string(a.max_line_bytes) + " and are not shown";
  return contract::make_error("limit.line-too-long",
                              std::to_string(r.long_count) + what + "; the longest is " +
                                  std::to_string(r.longest) + " bytes." + where,
                              std::move(detail));
}

namespace {

std::string path_bytes(const Json* path) {
  std::string p = path->str();
  if (path->type() == Json::Type::Object) contract::unbase64(path->get("b64")->str(), p);
  return p;
}

}  // namespace

void repair_long_line(contract::Error& e, const Args& a, const Invocation& call) {
  const uint64_t longest = e.detail.get("longest")->as_uint();
  if (longest <= kLineCeiling) {
    e.repair = contract::Repair::retry(
        show_long_lines(a, call, path_bytes(e.detail.get("path")), longest));
    e.hint = "retry on this file with --max-line-bytes " + std::to_string(longest) + ".";
  } else if (const Json* w = e.detail.get("window")) {
    const std::string range =
        std::to_string(w->get("from")->as_uint()) + ":" + std::to_string(w->get("to")->as_uint());
    e.repair = contract::Repair::retry(peek_window(call, path_bytes(e.detail.get("path")), range));
    e.hint = e.detail.get("candidates")
                 ? "read the bytes around the first place a match can be with peek --bytes " +
                       range + "; detail.candidates has the others."
                 : "read the bytes around the first occurrence with peek --bytes " + range +
                       "; detail.offsets has the others.";
  } else {
    e.repair = contract::Repair::none(
        "the line is longer than the ceiling of --max-line-bytes; read it in pieces with "
        "peek --bytes");
    e.hint = "read the line in pieces with peek --bytes.";
  }
}

// Same root, same path: nothing wider.
std::vector<std::string> peek_window(const Invocation& call, const std::string& path,
                                     const std::string& range) {
  const size_t slash = call.self.rfind('/');
  std::vector<std::string> v = {
      slash == std::string::npos ? "peek" : call.self.substr(0, slash + 1) + "peek"};
  if (!call.root.empty()) v.insert(v.end(), {"--root", call.root});
  v.push_back("--bytes=" + range);
  if (call.text) v.push_back("--format=text");
  v.insert(v.end(), {"--", path});
  return v;
}

// A narrower call, so that it clears exactly this error; --skip counted over all files, so it
// goes, as do the walk's filters, which a named file ignores.
std::vector<std::string> show_long_lines(const Args& a, const Invocation& call,
                                         const std::string& path, uint64_t longest) {
  std::vector<std::string> v = {call.self};
  if (!call.root.empty()) v.insert(v.end(), {"--root", call.root});
  if (a.regex) v.push_back("--regex");
  if (a.icase) v.push_back("--ignore-case");
  if (a.word) v.push_back("--word");
  if (a.count) v.push_back("--count");
  if (a.files) v.push_back("--files-with-matches");
  for (const std::string& p : a.patterns) v.push_back("--pattern=" + p);
  if (call.max_count_given) v.push_back("--max-count=" + std::to_string(a.max_count));
  if (a.context) v.push_back("--context=" + std::to_string(a.context));
  if (a.witness) v.push_back("--witness");
  v.push_back("--max-line-bytes=" + std::to_string(longest));
  if (call.text) v.push_back("--format=text");
  v.push_back("--");
  if (a.patterns.empty()) v.push_back(a.pattern);
  v.push_back(path);
  return v;
}

}  // namespace seek
