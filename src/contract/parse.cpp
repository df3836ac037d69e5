// parse.cpp — tokens against the table. getopt-like (`--x=v`, `--x v`, `-x v`, `-xv`, bundled
// boolean shorts, `--` ends flags, a lone `-` is an operand) but every problem is collected as
// a tagged error instead of stopping at the first.
#include "contract/parse.h"

#include <algorithm>
#include <charconv>

namespace contract {

namespace {

std::string dashed(const FlagInfo& f) { return "--" + std::string(f.name); }

Error arg_error(std::string_view rule, std::string message, std::string_view flag) {
  Error e = make_error(rule, std::move(message));
  if (!flag.empty()) e.detail.set("flag", flag);
  return e;
}

const FlagInfo* by_long(const std::vector<FlagInfo>& flags, std::string_view name, size_t& idx) {
  for (size_t i = 0; i < flags.size(); ++i)
    if (flags[i].name == name) return &flags[(idx = i)];
  return nullptr;
}

const FlagInfo* by_short(const std::vector<FlagInfo>& flags, char c, size_t& idx) {
  for (size_t i = 0; i < flags.size(); ++i)
    if (flags[i].short_name == c) return &flags[(idx = i)];
  return nullptr;
}

bool parse_int(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  bool neg = s[0] == '-';
  std::string_view digits = neg ? s.substr(1) : s;
  if (digits.empty() || digits.size() > 18) return false;
  for (char c : digits)
    if (c < '0' || c > '9') return false;
  int64_t v = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), v);
  out = neg ? -v : v;
  return true;
}

}  // namespace

size_t edit_distance(std::string_view a, std::string_view b, size_t cap) {
  size_t n = a.size(), m = b.size();
  if ((n > m ? n - m : m - n) > cap) return cap + 1;
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return std::min(d[n][m], cap + 1);
}

std::optional<std::string> parse_value(const FlagInfo& f, std::string_view text, Value& out) {
  out.text = std::string(text);
  switch (f.kind) {
    case Kind::Bool:
    case Kind::Text:
    case Kind::List:
    case Kind::Path:
      return std::nullopt;
    case Kind::Nat: {
      uint64_t ceiling = f.ceiling ? f.ceiling : UINT64_MAX;
      if (text.empty() ||
          !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return "a whole number written in decimal digits";
      uint64_t v = 0;
      auto r = std::from_chars(text.data(), text.data() + text.size(), v);
      if (r.ec != std::errc())
        return "a whole number from " + std::to_string(f.floor) + " to " + std::to_string(ceiling);
      if (v < f.floor || v > ceiling)
        return "a whole number from " + std::to_string(f.floor) + " to " + std::to_string(ceiling);
      out.nat = v;
      return std::nullopt;
    }
    case Kind::Choice: {
      std::string_view rest = f.choices;
      while (true) {
        size_t bar = rest.find('|');
        if (rest.substr(0, bar) == text) return std::nullopt;
        if (bar == std::string_view::npos) break;
        rest.remove_prefix(bar + 1);
      }
      std::string want(f.choices);
      std::replace(want.begin(), want.end(), '|', ',');
      return "one of " + want;
    }
    case Kind::Range: {
      // A, A:B, A:, :B — each end an integer, possibly negative.
      Span s;
      s.given = true;
      size_t colon = text.find(':');
      std::string_view a = text.substr(0, colon);
      std::string_view b = colon == std::string_view::npos ? a : text.substr(colon + 1);
      int64_t v;
      if (!a.empty()) {
        if (!parse_int(a, v)) return "A:B, A: or A, each end a whole number";
        s.from = v;
      }
      if (colon != std::string_view::npos && b.empty()) {
        s.open_end = true;
      } else if (!b.empty()) {
        if (!parse_int(b, v)) return "A:B, A: or A, each end a whole number";
        s.to = v;
      }
      if (!s.from && !s.to) return "A:B, A: or A, each end a whole number";
      out.span = s;
      return std::nullopt;
    }
  }
  return std::nullopt;
}

namespace {
// Whether a token starting with '-' could be a flag: a name of letters, digits and hyphens with
// at least one letter, then optionally "=value".
bool flag_shaped(std::string_view tok) {
  size_t dashes = tok.size() > 1 && tok[1] == '-' ? 2 : 1;
  std::string_view name = tok.substr(dashes, tok.find('=') == std::string_view::npos
                                                 ? std::string_view::npos
                                                 : tok.find('=') - dashes);
  bool letter = false;
  for (char c : name) {
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    letter = letter || alpha;
    if (!alpha && !(c >= '0' && c <= '9') && c != '-') return false;
  }
  return letter;
}

Parsed parse_once(const std::vector<std::string>& argv, const std::vector<FlagInfo>& flags,
                  const std::vector<OperandInfo>& operands);
}  // namespace

Parsed parse_argv(const std::vector<std::string>& argv, const std::vector<FlagInfo>& flags,
                  const std::vector<OperandInfo>& operands) {
  Parsed p = parse_once(argv, flags, operands);
  // A suggested flag is offered as a retry only when the retried argv really clears the error
  // without bringing another (the nearest flag might need a value that is not there, or be
  // given already): otherwise it stays a hint.
  for (auto& e : p.errors) {
    if (e.rule != "args.unknown-flag" || e.repair.kind != Repair::Kind::Retry) continue;
    Parsed again = parse_once(e.repair.argvs[0], flags, operands);
    // An operand moved after "--" may also fill the operand slot it left missing.
    bool moved = std::find(e.repair.argvs[0].begin(), e.repair.argvs[0].end(), "--") !=
                 e.repair.argvs[0].end();
    bool cleared = std::none_of(again.errors.begin(), again.errors.end(),
                                [](const Error& x) { return x.rule == "args.unknown-flag"; });
    if (moved ? !(cleared && again.errors.size() < p.errors.size())
              : again.errors.size() + 1 != p.errors.size())
      e.repair = Repair{};
  }
  return p;
}

namespace {
Parsed parse_once(const std::vector<std::string>& argv, const std::vector<FlagInfo>& flags,
                  const std::vector<OperandInfo>& operands) {
  Parsed p;
  std::vector<bool> seen(flags.size());
  std::vector<std::pair<std::string, size_t>> positional;
  bool flags_ended = false;

  auto take = [&](size_t idx, std::optional<std::string> value, size_t token,
                  std::string prefix) {
    const FlagInfo& f = flags[idx];
    if (seen[idx] && f.kind != Kind::List) {
      p.errors.push_back(arg_error("args.duplicate-flag", dashed(f) + " was given more than once.", f.name));
      return;
    }
    seen[idx] = true;
    Value v;
    v.token = token;
    v.token_prefix = std::move(prefix);
    if (f.kind == Kind::Bool) {
      if (value) {
        p.errors.push_back(arg_error("args.unexpected-value", dashed(f) + " takes no value.", f.name));
        return;
      }
      if (f.name == "help") p.help = true;
      if (f.name == "version") p.version = true;
      p.values.emplace_back(idx, std::move(v));
      return;
    }
    if (!value) {
      p.errors.push_back(arg_error("args.missing-value",
                                   dashed(f) + " needs a value (" + std::string(f.value_name) + ").", f.name));
      return;
    }
    if (auto why = parse_value(f, *value, v)) {
      Error e = arg_error("args.bad-value", dashed(f) + " must be " + *why + ".", f.name);
      e.detail.set("value", Json::bytes(*value));
      e.detail.set("expected", *why);
      p.errors.push_back(std::move(e));
      return;
    }
    p.values.emplace_back(idx, std::move(v));
  };

  // Tokens that start with '-' but could not be a flag of any tool (a space, no letter, a byte no
  // flag name has): surely an operand such as a pattern "- [ ]", given before "--".
  std::vector<std::pair<size_t, size_t>> dashed_operands;  // (token, index into p.errors)
  auto unknown = [&](const std::string& tok, std::string_view name, size_t i, bool has_eq,
                     bool is_short) {
    if (!operands.empty() && !flag_shaped(tok)) {
      Error e = make_error("args.unknown-flag", printable(tok) + " is not a flag; an operand that starts with '-' goes after '--'.");
      e.detail.set("flag", Json::bytes(tok));
      e.hint = "put -- before it: every token after -- is an operand.";
      dashed_operands.emplace_back(i, p.errors.size());
      p.errors.push_back(std::move(e));
      return false;
    }
    Error e = make_error("args.unknown-flag", "unknown flag " + printable(is_short ? "-" + std::string(name) : tok) + ".");
    e.detail.set("flag", Json::bytes(is_short ? "-" + std::string(name) : tok));
    std::vector<size_t> best;
    size_t best_d = 3;
    // A one-letter name is within distance 2 of every short word: no suggestion for it.
    for (size_t k = 0; k < flags.size() && !is_short; ++k) {
      size_t d = edit_distance(name, flags[k].name, 2);
      if (d < best_d) {
        best_d = d;
        best.clear();
      }
      if (d == best_d && d <= 2) best.push_back(k);
    }
    bool consumes = false;
    // --root is never suggested as a repair: a repair must not add or change the root, nor
    // add a flag that lets the call touch more (that one is named, not retried).
    if (best.size() == 1 && flags[best[0]].role == Role::Root) {
      e.hint = "did you mean --root?";
    } else if (best.size() == 1 && flags[best[0]].widens) {
      e.detail.set("nearest", dashed(flags[best[0]]));
      e.hint = "did you mean " + dashed(flags[best[0]]) + "?";
    } else if (best.size() == 1) {
      const FlagInfo& f = flags[best[0]];
      e.detail.set("nearest", dashed(f));
      e.hint = "did you mean " + dashed(f) + "?";
      std::string fixed = dashed(f);
      size_t eq = tok.find('=');
      if (has_eq) fixed += tok.substr(eq);
      std::vector<std::string> a = argv;
      a[i] = fixed;
      e.repair = Repair::retry(std::move(a));
      consumes = f.kind != Kind::Bool && !has_eq;
    }
    p.errors.push_back(std::move(e));
    return consumes;
  };

  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& tok = argv[i];
    if (flags_ended || tok.size() < 2 || tok[0] != '-') {
      positional.emplace_back(tok, i);
      continue;
    }
    if (tok == "--") {
      flags_ended = true;
      continue;
    }
    if (tok[1] == '-') {
      size_t eq = tok.find('=');
      std::string name = tok.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      size_t idx;
      if (!by_long(flags, name, idx)) {
        if (unknown(tok, name, i, eq != std::string::npos, false) && i + 1 < argv.size()) ++i;
        continue;
      }
      if (eq != std::string::npos) {
        take(idx, tok.substr(eq + 1), i, tok.substr(0, eq + 1));
      } else if (flags[idx].kind == Kind::Bool) {
        take(idx, std::nullopt, i, "");
      } else if (i + 1 < argv.size()) {
        take(idx, argv[i + 1], i + 1, "");
        ++i;
      } else {
        take(idx, std::nullopt, i, "");
      }
      continue;
    }
    // A cluster of short flags: -iw, -n5, -n 5.
    for (size_t j = 1; j < tok.size(); ++j) {
      size_t idx;
      if (!by_short(flags, tok[j], idx)) {
        unknown(tok, tok.substr(j, 1), i, false, true);
        break;
      }
      if (flags[idx].kind == Kind::Bool) {
        take(idx, std::nullopt, i, "");
        continue;
      }
      if (j + 1 < tok.size()) {
        take(idx, tok.substr(j + 1), i, tok.substr(0, j + 1));
      } else if (i + 1 < argv.size()) {
        take(idx, argv[i + 1], i + 1, "");
        ++i;
      } else {
        take(idx, std::nullopt, i, "");
      }
      break;
    }
  }

  // The repair for operands that look like flags: the flags as they were, then "--", then every
  // operand in its order (so a pattern stays the first operand).
  if (!dashed_operands.empty()) {
    std::vector<std::string> fixed = {argv[0]};
    std::vector<size_t> ops;
    for (auto& [tok, idx] : positional) ops.push_back(idx);
    for (auto& [tok, err] : dashed_operands) ops.push_back(tok);
    std::sort(ops.begin(), ops.end());
    for (size_t k = 1; k < argv.size(); ++k)
      if (argv[k] != "--" && !std::binary_search(ops.begin(), ops.end(), k)) fixed.push_back(argv[k]);
    fixed.push_back("--");
    for (size_t k : ops) fixed.push_back(argv[k]);
    p.errors[dashed_operands[0].second].repair = Repair::retry(std::move(fixed));
  }

  // Conflicts, reported once per pair (either flag may declare it).
  std::vector<std::pair<size_t, size_t>> reported;
  for (size_t i = 0; i < flags.size(); ++i) {
    if (!seen[i] || flags[i].excludes.empty()) continue;
    std::string_view rest = flags[i].excludes;
    while (!rest.empty()) {
      size_t sp = rest.find(' ');
      std::string_view other = rest.substr(0, sp);
      size_t j;
      if (by_long(flags, other, j) && seen[j] &&
          std::find(reported.begin(), reported.end(), std::make_pair(std::min(i, j), std::max(i, j))) ==
              reported.end()) {
        reported.emplace_back(std::min(i, j), std::max(i, j));
        Error e = make_error("args.conflict", dashed(flags[i]) + " and --" + std::string(other) +
                                                  " cannot be given together.");
        e.detail.set("flags", Json::array({dashed(flags[i]), "--" + std::string(other)}));
        p.errors.push_back(std::move(e));
      }
      if (sp == std::string_view::npos) break;
      rest.remove_prefix(sp + 1);
    }
  }

  // Operands fill their slots left to right, each leaving enough for the slots after it.
  size_t next = 0;
  auto skipped = [&](size_t s) {
    size_t j;
    return !operands[s].unless.empty() && by_long(flags, operands[s].unless, j) && seen[j];
  };
  for (size_t s = 0; s < operands.size(); ++s) {
    if (skipped(s)) continue;
    size_t later_min = 0;
    for (size_t t = s + 1; t < operands.size(); ++t) later_min += skipped(t) ? 0 : operands[t].min;
    size_t available = positional.size() - next;
    size_t want = available > later_min ? available - later_min : 0;
    size_t n = std::max(std::min(operands[s].min, available), std::min(want, operands[s].max));
    if (n < operands[s].min) {
      Error e = make_error("args.missing-operand", "missing operand " + std::string(operands[s].name) + ".");
      e.detail.set("operand", operands[s].name);
      p.errors.push_back(std::move(e));
      break;
    }
    for (size_t k = 0; k < n; ++k, ++next)
      p.operands.push_back({s, positional[next].first, positional[next].second});
  }
  bool missing = std::any_of(p.errors.begin(), p.errors.end(),
                             [](const Error& e) { return e.rule == "args.missing-operand"; });
  if (next < positional.size() && !missing) {
    Error e = make_error("args.too-many-operands", "too many operands: " + printable(positional[next].first) + " is one more than the tool takes.");
    e.detail.set("operand", Json::bytes(positional[next].first));
    size_t most = 0;  // every operand is bounded here, or none would be one too many
    for (auto& o : operands) most = o.max == kMany ? kMany : most + o.max;
    e.detail.set("max", most);
    p.errors.push_back(std::move(e));
  }
  return p;
}
}  // namespace

std::vector<std::string> remove_flag(const std::vector<std::string>& argv,
                                     const std::vector<FlagInfo>& flags, std::string_view name) {
  std::vector<std::string> out;
  if (!argv.empty()) out.push_back(argv[0]);
  bool ended = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& tok = argv[i];
    if (ended || tok.size() < 2 || tok[0] != '-') {
      out.push_back(tok);
      if (tok == "--") ended = true;
      continue;
    }
    if (tok == "--") {
      ended = true;
      out.push_back(tok);
      continue;
    }
    if (tok[1] != '-') {
      // A cluster of short flags, read exactly as the parser reads it.
      std::string kept = "-";
      bool drop_next = false, keep_next = false;
      for (size_t j = 1; j < tok.size(); ++j) {
        size_t idx;
        const FlagInfo* g = by_short(flags, tok[j], idx);
        if (!g) {
          kept += tok.substr(j);
          break;
        }
        if (g->kind == Kind::Bool) {
          if (g->name != name) kept += tok[j];
          continue;
        }
        bool value_inline = j + 1 < tok.size();
        if (g->name == name)
          drop_next = !value_inline;
        else {
          kept += tok.substr(j);
          keep_next = !value_inline;
        }
        break;
      }
      if (kept != "-") out.push_back(kept);
      if (drop_next)
        ++i;
      else if (keep_next && i + 1 < argv.size())
        out.push_back(argv[++i]);
      continue;
    }
    size_t eq = tok.find('=');
    size_t idx;
    const FlagInfo* f = by_long(flags, tok.substr(2, eq == std::string::npos ? std::string::npos : eq - 2), idx);
    bool takes_next = f && f->kind != Kind::Bool && eq == std::string::npos;
    if (f && f->name == name) {
      if (takes_next) ++i;
      continue;
    }
    out.push_back(tok);
    if (takes_next && i + 1 < argv.size()) out.push_back(argv[++i]);
  }
  return out;
}

}  // namespace contract
