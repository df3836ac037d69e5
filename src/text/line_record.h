// line_record.h — a line search's match and context records (seek.v1) rendered straight to
// bytes, one per line: an NDJSON object, or grep -n's `path:line:text` (`path-line-text` for
// context). A search may write millions of them, so the fixed parts skip the general
// serializer; the line's text goes through it (escaping, UTF-8, text_or_bytes) unless it is
// plain ASCII that needs no escape, where both would write the same bytes.
#pragma once

#include <string>

#include "text/scan.h"

namespace text {

enum class RecordForm { Json, Text };

class LineRecords {
 public:
  explicit LineRecords(RecordForm form) : form_(form) {}
  // The file the next records are about (serialized once, at its first record: most files
  // searched have none). `path` must outlive the records written of it.
  void set_path(const std::string& path);
  void set_path(std::string&&) = delete;
  // Append one record, '\n' included. `witness`: the match's witness text, or null for none.
  void match(std::string& out, const LineEvent& ev, const std::string* witness) const;
  void context(std::string& out, const LineEvent& ev) const;
  // Where the line number starts in each match (or context) record of the path set: the
  // bytes before it, the same for every record of that path.
  size_t line_at(bool match) const;

 private:
  // --format text's "PATH<sep>LINE<sep>", as grep -n writes it (':' a match, '-' context).
  void text_head(std::string& out, char sep, uint64_t line) const;
  // The JSON records' heads of the path set, made at its first record.
  void heads() const;
  RecordForm form_;
  const std::string* path_ = nullptr;
  mutable bool heads_ready_ = false;
  mutable std::string match_head_, context_head_;  // {"type":…,"path":…,"line":
};

}  // namespace text
