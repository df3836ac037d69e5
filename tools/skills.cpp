// skills.cpp — find and read agent skills: every SKILL.md (agentskills.io) beneath the given
// directories with its name, description and path, each invalid one with the cause, and with
// --show one skill's body. There is no classic tool for this; the nearest is `find -name
// SKILL.md | xargs head`. Unlike that it parses the YAML front matter (just the scalar keys the
// format defines: plain, quoted and block scalars), validates it against the format's rules,
// reports a broken skill as data instead of failing, never reads a SKILL.md through a link,
// caps the size it reads, and with --root reaches nothing outside the root.
//
// Decisions: an unknown --show NAME is io.not-found (the named input does not exist; detail
// lists the names there are). A name held by several skills is listed for each, and reported
// in data.duplicates; --show of such a name is precondition.count-mismatch (one skill was
// expected, several found) with a `choose` repair per skill: its SKILL.md as the operand.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>

#include "os/open.h"
#include "os/walk.h"
#include "runner/main.h"
#include "text/front_matter.h"
#include "tools/skills.schema.h"
#include "tools/render/render.h"

namespace {

using contract::Json;

struct Args {
  std::vector<std::string> dirs;
  std::optional<std::string> show;
  uint64_t skip = 0, max_bytes = 0;
};

constexpr uint64_t kFileCap = 1024 * 1024;  // a SKILL.md is prose: 1 MiB is far past any
constexpr uint64_t kMaxDepth = 64;
constexpr std::string_view kSkillFile = "SKILL.md";

using contract::Kind;
constexpr contract::Flag<Args> kFlags[] = {
    {.name = "show", .short_name = 's', .kind = Kind::Text, .bind = &Args::show,
     .value_name = "NAME",
     .help = "return the skill named NAME with its body (the markdown after the front matter)"},
    {.name = "skip", .kind = Kind::Nat, .bind = &Args::skip, .value_name = "N", .fallback = "0",
     .excludes = "show",
     .help = "leave out the first N entries (skills, then invalid ones); the cursor from a "
             "truncated list"},
    contract::max_bytes<Args>("the answer's size: the list, or a body, stops at a line once "
                              "past N bytes with truncated, cut and next (a body's: the "
                              "SKILL.md line where peek --lines goes on)"),
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "DIR", .role = contract::Role::PathRead, .min = 0, .max = contract::kMany,
     .bind = &Args::dirs,
     .help = "the directories to search for SKILL.md files (default: the root, or . without "
             "one); a path ending in SKILL.md may name that one file"},
};

using contract::Repairable;
constexpr contract::Rule kRules[] = {
    {"io.not-found", Repairable::Never, "a DIR does not exist, or no skill is named --show NAME"},
    {"io.read-failed", Repairable::Never, "the operating system failed to open or read a "
                                          "directory or a SKILL.md"},
    {"limit.input-too-large", Repairable::Never, "a SKILL.md larger than 1 MiB (not read)"},
    {"limit.too-deep", Repairable::Never,
     "a directory 64 levels down, the deepest the search goes, holds entries"},
    {"precondition.count-mismatch", Repairable::Never,
     "--show NAME names several skills; the repair offers each one's SKILL.md"},
};


constexpr contract::Example kExamples[] = {
    {"skills .",
     "every valid SKILL.md beneath . with name, description and path, and the invalid ones with their cause"},
    {"skills --show review .",
     "the body of the skill named review"},
};

const contract::Tool kTool{
    .name = "skills",
    .summary = "Find the agent skills (SKILL.md files with YAML front matter) beneath "
               "directories: name, description and path of each, the cause for each invalid "
               "one, or one skill's body with --show.",
    .differs = "Unlike find and head it parses and validates the front matter per "
               "agentskills.io, reports broken skills as data, never reads a SKILL.md through a "
               "link, caps what it reads, and with --root reaches nothing outside the root.",
    .usage = "skills [--root DIR] [--show NAME] [--skip N] [--max-bytes N] [--format json|text] "
             "[DIR...]",
    .output = contract::Output::Document,
    .schema = "skills.v1",
    .data_schema = tool_schema::kData,
    .text = render::skills,
    .rules = kRules,
    .key_flags = "show",
    .examples = kExamples,
    .mcp_flags = "show",
};

static_assert(contract::valid<Args>(kFlags, kOperands));

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context&) {
  if (a.show && a.show->empty())
    errs.push_back(contract::make_error("args.bad-value", "--show is empty; a skill has a name.",
                                        Json::object({{"flag", "show"}})));
}

// --- the format's rules ------------------------------------------------------------------

// The scalar keys the format defines; metadata, allowed-tools and keys it may grow are skipped.
constexpr std::string_view kScalarKeys[] = {"name", "description", "license", "compatibility"};

size_t code_points(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The format's rules for the keys; the cause of the first broken one.
std::optional<std::string> validate(const text::FrontMatter& f, std::string_view dir_name) {
  auto it = f.values.find("name");
  if (it == f.values.end()) return "the front matter has no 'name'";
  const std::string& n = it->second;
  if (n.empty() || n.size() > 64) return "name must be 1 to 64 characters";
  for (size_t i = 0; i < n.size(); ++i) {
    char c = n[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
      return "name '" + n + "' may hold only lowercase letters, digits and hyphens";
  }
  if (n.front() == '-' || n.back() == '-' || n.find("--") != std::string::npos)
    return "name '" + n + "' starts or ends with a hyphen or holds two in a row";
  if (!dir_name.empty() && n != dir_name)
    return "name '" + n + "' differs from its directory's name '" + std::string(dir_name) + "'";
  auto d = f.values.find("description");
  if (d == f.values.end() || text::trim_blanks(d->second).empty())
    return "the front matter has no 'description'";
  if (code_points(d->second) > 1024)
    return "description is " + std::to_string(code_points(d->second)) +
           " characters; at most 1024";
  auto c = f.values.find("compatibility");
  if (c != f.values.end() && code_points(c->second) > 500)
    return "compatibility is " + std::to_string(code_points(c->second)) +
           " characters; at most 500";
  return std::nullopt;
}

// --- the search ----------------------------------------------------------------------------

struct Skill {
  std::string path, name, description, body;
  uint64_t body_line = 1;  // the line of the SKILL.md where the body starts
};
struct Invalid {
  std::string path, cause;
};

std::string last_component(std::string_view p) {
  size_t s = p.rfind('/');
  return std::string(s == std::string_view::npos ? p : p.substr(s + 1));
}

Json run(const Args& a, contract::Context& ctx) {
  std::vector<std::string> dirs = a.dirs;
  if (dirs.empty()) dirs.push_back(".");
  std::vector<Skill> skills;
  std::vector<Invalid> invalid;
  os::SkipCounts skipped;
  // One SKILL.md, open as `fd`: its front matter checked against `parent` (its directory's
  // name) and the skill kept, or the cause kept as an invalid one.
  auto take = [&](const std::string& path, int fd, const struct stat& st,
                  const std::string& parent) {
    if (!S_ISREG(st.st_mode)) {
      ++skipped.special;
      return;
    }
    if (static_cast<uint64_t>(st.st_size) > kFileCap) {
      ctx.error(contract::make_error(
          "limit.input-too-large",
          "'" + contract::printable(path) + "' is larger than " + std::to_string(kFileCap) +
              " bytes; a SKILL.md past that is not read.",
          Json::object({{"path", Json::bytes(path)},
                        {"bytes", static_cast<uint64_t>(st.st_size)},
                        {"cap", kFileCap}})));
      return;
    }
    std::string text(static_cast<size_t>(st.st_size), '\0');
    long long n = os::pread_full(fd, text.data(), text.size(), 0);
    if (n < 0) {
      ctx.error(os::errno_error(static_cast<int>(-n), path, "read"));
      return;
    }
    text.resize(static_cast<size_t>(n));
    auto parsed = text::parse_front_matter(text, kScalarKeys);
    if (auto* cause = std::get_if<std::string>(&parsed)) {
      invalid.push_back({path, *cause});
      return;
    }
    text::FrontMatter& f = std::get<text::FrontMatter>(parsed);
    if (auto cause = validate(f, parent)) {
      invalid.push_back({path, *cause});
      return;
    }
    Skill s{path, f.values["name"], f.values["description"], "", 1};
    if (a.show && *a.show == s.name) {
      s.body = text.substr(f.body);
      const std::string_view head = std::string_view(text).substr(0, f.body);
      s.body_line = 1 + static_cast<uint64_t>(std::count(head.begin(), head.end(), '\n'));
    }
    skills.push_back(std::move(s));
  };
  for (const std::string& dir : dirs) {
    // An operand named SKILL.md may be that one skill (what --show's repair names); any other
    // operand is a directory to search.
    const bool file_named = last_component(dir) == kSkillFile;
    auto opened = os::open_read(ctx.root_fd(), dir, file_named ? os::Want::Any : os::Want::Directory, dir);
    if (auto* e = std::get_if<contract::Error>(&opened)) {
      ctx.error(std::move(*e));
      continue;
    }
    os::Opened& o = std::get<os::Opened>(opened);
    // The name of a directory the operand names, for a SKILL.md directly in it.
    auto name_of = [&](const std::string& d) {
      return d != "." ? last_component(d)
                      : !ctx.root_abs().empty() ? last_component(ctx.root_abs()) : "";
    };
    if (!S_ISDIR(o.st.st_mode)) {
      const size_t slash = dir.rfind('/');
      take(dir, o.fd.get(), o.st, name_of(slash == std::string::npos ? "." : dir.substr(0, slash)));
      continue;
    }
    os::WalkOptions opts;
    // Skills live in hidden directories (.claude/skills, .github/skills) and are often not
    // checked in, so neither hidden names nor ignore files hide them; .git is never walked.
    opts.hidden = true;
    opts.no_ignore = true;
    opts.globs = {"!.git/"};
    opts.max_depth = kMaxDepth;
    opts.depth_is_a_limit = true;
    const std::string top = name_of(dir);
    os::Walker w(opts, std::move(o.fd), dir, -1, "");
    os::WalkItem item;
    while (w.next(item)) {
      if (item.type == os::WalkItem::Type::Error) {
        ctx.error(std::move(item.error));
        continue;
      }
      const os::Entry& e = item.entry;
      if (e.name != kSkillFile) continue;
      if (e.kind == os::EntryKind::Link) {
        ++skipped.symlink;  // never read through a link: it may lead anywhere
        continue;
      }
      if (e.kind != os::EntryKind::File) {
        ++skipped.special;
        continue;
      }
      struct stat st {};
      int fd = os::open_entry(e, st);
      if (fd < 0) {
        ctx.error(os::errno_error(-fd, e.path, "read"));
        continue;
      }
      os::Fd held(fd);
      take(e.path, fd, st, e.depth == 1 ? top : last_component(e.path.substr(0, e.path.rfind('/'))));
    }
    skipped += w.counts();
  }
  auto by_path = [](const auto& x, const auto& y) { return x.path < y.path; };
  std::sort(skills.begin(), skills.end(), by_path);
  std::sort(invalid.begin(), invalid.end(), by_path);

  if (a.show) {
    std::vector<const Skill*> hits;
    for (auto& s : skills)
      if (s.name == *a.show) hits.push_back(&s);
    if (hits.size() == 1) {
      // The body whole, or its lines up to the one that passes the budget (the first always).
      std::string_view body = hits[0]->body;
      size_t end = body.size();
      uint64_t lines = 0;
      if (body.size() > a.max_bytes) {
        end = 0;
        while (end < body.size() && (end == 0 || end < a.max_bytes)) {
          const size_t nl = body.find('\n', end);
          end = nl == std::string_view::npos ? body.size() : nl + 1;
          ++lines;
        }
      }
      const bool cut = end < body.size();
      return Json::object(
          {{"name", hits[0]->name},
           {"description", hits[0]->description},
           {"path", Json::bytes(hits[0]->path)},
           {"body", Json::bytes(body.substr(0, end))},
           {"truncated", cut},
           {"next", cut ? Json::object({{"line", hits[0]->body_line + lines}}) : Json()},
           {"cut", cut ? Json("max-bytes") : Json()}});
    }
    if (hits.empty()) {
      Json names = Json::array();
      for (size_t k = 0; k < skills.size() && k < 100; ++k) names.push(skills[k].name);
      contract::Error e = contract::make_error(
          "io.not-found", "no valid skill is named '" + contract::printable(*a.show) + "'.",
          Json::object({{"name", Json::bytes(*a.show)}, {"available", std::move(names)},
                        {"invalid", invalid.size()}}));
      e.hint = "run skills without --show to see every skill and why any is invalid.";
      ctx.error(std::move(e));
      return nullptr;
    }
    Json paths = Json::array();
    contract::Repair choose;
    choose.kind = contract::Repair::Kind::Choose;
    for (const Skill* s : hits) {
      paths.push(Json::bytes(s->path));
      // The skill's own SKILL.md as the only operand singles it out (its directory would
      // not: a skill of the same name may sit beneath it).
      std::vector<std::string> next{ctx.argv()[0]};
      if (!ctx.root().empty()) next.insert(next.end(), {"--root", ctx.root()});
      next.insert(next.end(), {"--show", *a.show, "--", s->path});
      choose.argvs.push_back(std::move(next));
    }
    contract::Error e = contract::make_error(
        "precondition.count-mismatch",
        std::to_string(hits.size()) + " skills are named '" + *a.show + "'; --show wants one.",
        Json::object({{"name", *a.show}, {"expected", 1}, {"found", hits.size()},
                      {"paths", std::move(paths)}}));
    e.repair = std::move(choose);
    ctx.error(std::move(e));
    return nullptr;
  }

  Json list = Json::array(), bad = Json::array(), dups = Json::array();
  std::map<std::string, std::vector<std::string>> by_name;
  // The page: the entries (skills, then invalid ones) from --skip on, while they hold fewer
  // bytes than the budget (the first always).
  uint64_t seen = 0, bytes = 0, shown = 0;
  bool cut = false;
  auto page = [&](Json entry, Json& into) {
    if (seen++ < a.skip || cut) return;
    if (shown > 0 && bytes >= a.max_bytes) {
      cut = true;
      return;
    }
    bytes += entry.dump().size() + 1;
    ++shown;
    into.push(std::move(entry));
  };
  for (auto& s : skills) {
    page(Json::object({{"name", s.name}, {"description", s.description},
                       {"path", Json::bytes(s.path)}}),
         list);
    by_name[s.name].push_back(s.path);
  }
  for (auto& i : invalid)
    page(Json::object({{"path", Json::bytes(i.path)}, {"cause", i.cause}}), bad);
  for (auto& [name, paths] : by_name) {
    if (paths.size() < 2) continue;
    Json p = Json::array();
    for (auto& x : paths) p.push(Json::bytes(x));
    dups.push(Json::object({{"name", name}, {"paths", std::move(p)}}));
  }
  return Json::object({{"skills", std::move(list)},
                       {"invalid", std::move(bad)},
                       {"duplicates", std::move(dups)},
                       {"skipped", skipped.to_json()},
                       {"truncated", cut},
                       {"next", cut ? Json::object({{"skip", a.skip + shown}}) : Json()},
                       {"cut", cut ? Json("max-bytes") : Json()}});
}


}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
