// replace_file.cpp — see replace_file.h.
#include "writer/replace_file.h"

#include <algorithm>
#include <vector>

#include "os/hash.h"
#include "text/diff.h"
#include "text/eol.h"
#include "text/near_miss.h"
#include "text/replace.h"
#include "writer/replace_stream.h"
#include "writer/writer.h"

namespace writer {

namespace {

using contract::Json;
using Outcome = os::Result<Replaced>;

// The length of the longest proper prefix of `pat` that ends `text` (KMP over text).
size_t border_at_end(std::string_view pat, std::string_view text) {
  std::vector<size_t> fail(pat.size(), 0);
  for (size_t i = 1, k = 0; i < pat.size(); ++i) {
    while (k > 0 && pat[i] != pat[k]) k = fail[k - 1];
    if (pat[i] == pat[k]) ++k;
    fail[i] = k;
  }
  size_t k = 0;
  for (char c : text) {
    while (k > 0 && (k == pat.size() || c != pat[k])) k = fail[k - 1];
    if (c == pat[k]) ++k;
  }
  return k == pat.size() ? fail[k - 1] : k;
}

// Whether new text put in the old's place can make the old text anew with the bytes around
// it: an occurrence that holds the new text, or runs into it from either side. Then what is
// in the file cannot tell a first call from the repeat of one that landed (aab, ab -> b:
// ab), and a repeat would replace again.
bool could_recreate(std::string_view old_raw, std::string_view new_raw) {
  if (new_raw.empty() || old_raw.size() < 2) return new_raw.empty();
  if (new_raw.size() < old_raw.size() && old_raw.find(new_raw) != std::string_view::npos)
    return true;
  const std::string old_rev(old_raw.rbegin(), old_raw.rend()),
      new_rev(new_raw.rbegin(), new_raw.rend());
  return border_at_end(old_raw, new_raw) > 0 || border_at_end(old_rev, new_rev) > 0;
}

// Whether the journal's newest entry is this very call (the same arguments, but for
// --dry-run) and left `path` as it is now (`now`): the repeat of a call that landed, which
// changes nothing.
bool repeat_of_the_last_call(const contract::Context& ctx, const std::string& path,
                             const std::string& now) {
  auto opened = Journal::open(ctx.root_fd(), false);
  const Journal* j = std::get_if<Journal>(&opened);
  if (!j) return false;
  auto ids = j->ids();
  const auto* all = std::get_if<std::vector<uint64_t>>(&ids);
  if (!all || all->empty()) return false;
  auto read = j->read(all->back(), false);
  const Entry* e = std::get_if<Entry>(&read);
  // This call as it would have been journaled (a dry run asks what the call would do).
  std::vector<std::string> argv;
  for (const std::string& w : ctx.argv())
    if (w != "--dry-run") argv.push_back(w);
  if (!e || e->tool != "replace" || e->argv.size() != argv.size() ||
      !std::equal(argv.begin() + 1, argv.end(), e->argv.begin() + 1))
    return false;
  return std::any_of(e->changes.begin(), e->changes.end(),
                     [&](const Change& c) { return c.path == path && c.after == now; });
}

contract::Error too_large(const ReplaceJob& a, const contract::Context& ctx, uint64_t bytes) {
  return writer::too_large({.where = Json::object({{"path", Json::bytes(a.path)}}),
                            .what = "'" + contract::printable(a.path) + "'",
                            .bytes = bytes,
                            .say_exact = false,
                            .max_bytes = a.max_bytes,
                            .larger = "the file"},
                           ctx);
}

Replaced replaced(bool changed, bool already, uint64_t replacements, const std::string& before,
                  const std::string& after, uint64_t bytes, const text::Diff& d) {
  return {.changed = changed,
          .already = already,
          .replacements = replacements,
          .before = before,
          .after = after,
          .bytes = bytes,
          .diff = text::diff_json(d),
          .diff_truncated = d.truncated};
}

// --- One edit: the file streamed, never held whole (replace_stream.h) -----------------------

Outcome run_stream(const ReplaceJob& a, const contract::Context& ctx, const os::Place& place,
                   const os::Opened& file, const text::ReplaceEdit& e, int64_t index) {
  auto fail = [](contract::Error err) { return Outcome(std::move(err)); };
  const int fd = file.fd.get();

  // Pass 1: where old and new occur, in both forms of the text.
  text::EditFinders finders(e);
  auto scanned = scan(fd, a.path, finders.all(), a.max_bytes);
  if (auto* err = std::get_if<contract::Error>(&scanned)) return fail(std::move(*err));
  const Scanned& first = std::get<Scanned>(scanned);
  if (first.over) return fail(too_large(a, ctx, first.total));
  const std::string& before = first.sha256;
  if (a.must_be && before != *a.must_be) return fail(changed_meanwhile(a.path));
  const bool bom = first.bom;
  const text::Eol eol = first.eol;
  const bool crlf = eol == text::Eol::Crlf;
  const std::vector<text::Found>& at = finders.at(crlf);
  const std::vector<text::Found>& fresh = finders.fresh(crlf);
  const std::string old_raw = text::raw_form(e.old_text, crlf),
                    new_raw = text::raw_form(e.new_text, crlf);

  auto decided = text::decide(e, old_raw.size(), new_raw.size(), at, fresh, index, [&]() -> Json {
    // An error path: the file is read whole here (it is within --max-bytes), once.
    mem::Bytes text;
    auto read = os::read_whole(fd, a.path, &text, a.max_bytes, nullptr);
    if (!std::holds_alternative<os::WholeFile>(read) || !std::get<os::WholeFile>(read).kept)
      return Json::array();
    return text::near_of(text.view(), bom, eol, e.old_text);
  });
  if (auto* err = std::get_if<contract::Error>(&decided)) {
    err->detail.set("path", Json::bytes(a.path));
    err->detail.set("actual_sha256", before);
    return fail(std::move(*err));
  }
  text::Applied applied = std::get<text::Applied>(decided);
  if (applied.replacements > 0 && could_recreate(old_raw, new_raw) &&
      repeat_of_the_last_call(ctx, a.path, before))
    applied = text::Applied{0, true};
  const bool changed = applied.replacements > 0;  // old != new, so any replacement changes bytes
  text::DiffOptions opt;
  opt.max_lines = a.max_diff_lines;
  opt.max_bytes = a.max_diff_bytes;
  if (!changed)
    return replaced(false, applied.already, 0, before, before, first.total,
                    std::move(text::DiffBuilder(opt)).finish(eol, eol, bom, bom));
  // Checked after the edit is tried, so that a repeat of a call that landed (its --if-sha256
  // now stale) answers already_applied above rather than a mismatch.
  if (a.if_sha256 && os::lower_hex(*a.if_sha256) != before)
    return fail(os::hash_mismatch(a.path, os::lower_hex(*a.if_sha256), before));

  text::DiffBuilder diff(opt);
  if (auto err = diff_regions(fd, a.path, at, old_raw, new_raw, opt.context, diff))
    return fail(std::move(*err));

  // Pass 2: the file again, the occurrences replaced, into the temporary file.
  std::optional<os::TempFile> tmp;
  if (!a.dry_run) {
    auto made = os::TempFile::create(place, replacing(file.st));
    if (auto* err = std::get_if<contract::Error>(&made)) return fail(std::move(*err));
    tmp.emplace(std::move(std::get<os::TempFile>(made)));
  }
  auto rewritten = rewrite(fd, a.path, first, at, old_raw.size(), new_raw, tmp ? &*tmp : nullptr);
  if (auto* err = std::get_if<contract::Error>(&rewritten)) return fail(std::move(*err));
  const Rewritten& next = std::get<Rewritten>(rewritten);
  Replaced out = replaced(true, false, applied.replacements, before, next.sha256, next.size,
                          std::move(diff).finish(eol, next.eol, bom, next.bom));
  if (tmp && a.journal) {
    // Large: only the occurrences the rewrite took out.
    auto c = rewritten_file(a.path, file.st, before, out.after, out.diff, first.total, fd, [&] {
      const int64_t grow = static_cast<int64_t>(new_raw.size()) - static_cast<int64_t>(old_raw.size());
      std::vector<Patch> patches;
      for (size_t k = 0; k < at.size(); ++k)
        patches.push_back(Patch{static_cast<uint64_t>(static_cast<int64_t>(at[k].pos) +
                                                      static_cast<int64_t>(k) * grow),
                                new_raw.size(), old_raw, old_raw.size()});
      return os::Result<std::vector<Patch>>(std::move(patches));
    });
    if (auto* err = std::get_if<contract::Error>(&c)) return fail(std::move(*err));
    std::get<Change>(c).new_file = &*tmp;
    if (auto err = a.journal->stage(std::move(std::get<Change>(c)))) return fail(std::move(*err));
  }
  if (tmp)
    if (auto err = tmp->commit()) return fail(std::move(*err));
  return out;
}

// --- Several edits: the file in memory, each edit applied to the result of the last --------

Outcome run_batch(const ReplaceJob& a, const contract::Context& ctx, const os::Place& place,
                  const os::Opened& file, const std::vector<text::ReplaceEdit>& edits) {
  auto fail = [](contract::Error err) { return Outcome(std::move(err)); };
  auto read = read_file(file, a.path, a.max_bytes);
  if (auto* err = std::get_if<contract::Error>(&read)) return fail(std::move(*err));
  const Whole& whole = std::get<Whole>(read);
  if (!whole.kept) return fail(too_large(a, ctx, whole.size));
  const mem::Bytes& old = whole.bytes;
  const std::string& before = whole.sha256;
  if (a.must_be && before != *a.must_be) return fail(changed_meanwhile(a.path));

  // The BOM is kept out of matching; the line-ending policy is the file's as it was read.
  text::EolTally eols;
  eols.add(old.view());
  auto applied = text::apply_edits(old.view(), text::has_bom(old.view()), eols.result(), edits);
  if (auto* err = std::get_if<contract::Error>(&applied)) {
    err->detail.set("path", Json::bytes(a.path));
    err->detail.set("actual_sha256", before);
    return fail(std::move(*err));
  }
  const text::EditsApplied& done = std::get<text::EditsApplied>(applied);
  const bool risky = std::any_of(edits.begin(), edits.end(), [&](const text::ReplaceEdit& e) {
    const bool crlf = eols.result() == text::Eol::Crlf;
    return could_recreate(text::raw_form(e.old_text, crlf), text::raw_form(e.new_text, crlf));
  });
  const bool repeat = done.text && risky && repeat_of_the_last_call(ctx, a.path, before);
  const std::string_view text = done.text && !repeat ? std::string_view(*done.text) : old.view();
  const bool changed = text != old.view();
  const std::string after = changed ? os::sha256_hex(text) : before;
  // Checked after the edits are tried (see run_stream).
  if (a.if_sha256 && os::lower_hex(*a.if_sha256) != before && changed)
    return fail(os::hash_mismatch(a.path, os::lower_hex(*a.if_sha256), before));

  text::DiffOptions opt;
  opt.max_lines = a.max_diff_lines;
  opt.max_bytes = a.max_diff_bytes;
  Replaced out = replaced(changed, done.already || repeat, repeat ? 0 : done.replacements, before,
                          after, text.size(), text::diff_lines(old.view(), text, opt));
  if (a.dry_run || !changed) return out;
  auto made = os::TempFile::create(place, replacing(file.st));
  if (auto* err = std::get_if<contract::Error>(&made)) return fail(std::move(*err));
  os::TempFile& tmp = std::get<os::TempFile>(made);
  if (auto err = tmp.write(text)) return fail(std::move(*err));
  if (a.journal) {
    Change c = replaced_file(a.path, file.st, before, after, out.diff);
    c.new_file = &tmp;
    c.restore = Change::Restore::Blob;  // held whole already (within --max-bytes)
    const std::string_view earlier = old.view();
    c.content = &earlier;
    if (auto err = a.journal->stage(std::move(c))) return fail(std::move(*err));
  }
  if (auto err = tmp.commit()) return fail(std::move(*err));
  return out;
}

}  // namespace

os::Result<Replaced> replace_in_file(const ReplaceJob& job, const contract::Context& ctx,
                                     const os::Place& place, const os::Opened& file,
                                     const std::vector<text::ReplaceEdit>& edits, bool listed) {
  if (edits.size() == 1) return run_stream(job, ctx, place, file, edits[0], listed ? 0 : -1);
  return run_batch(job, ctx, place, file, edits);
}

}  // namespace writer
