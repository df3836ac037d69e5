// tail.cpp — seek --last's ring.
#include "tools/seek/tail.h"

namespace seek {

void Tail::context(uint64_t seq, uint64_t line, std::string bytes) {
  pending_bytes_ += bytes.size() + 1;
  pending_.push_back({seq, line, std::move(bytes)});
}

void Tail::match(uint64_t seq, uint64_t line, uint64_t ordinal, std::string bytes) {
  Entry e{seq, line, ordinal, std::move(pending_), std::move(bytes), 0};
  pending_.clear();
  pending_bytes_ = 0;
  e.size = e.bytes.size() + 1;
  for (const Ctx& c : e.before) e.size += c.bytes.size() + 1;
  held_ += e.size;
  entries_.push_back(std::move(e));
  auto drop = [&] {
    held_ -= entries_.front().size;
    entries_.pop_front();
  };
  if (entries_.size() > n_) drop();
  // The answer takes matches from the last back while it holds fewer bytes than the budget:
  // a match whose successors already hold that many is never shown.
  while (entries_.size() > 1 && held_ - entries_.front().size >= budget_) drop();
  while (!files_.empty() && files_.front().seq < entries_.front().seq) files_.pop_front();
}

void Tail::file(uint64_t seq, std::string path, uint64_t bytes, bool binary) {
  if (!holds(seq) || (!files_.empty() && files_.back().seq == seq)) return;
  files_.push_back({seq, std::move(path), bytes, binary});
}

uint64_t Tail::first_index() const {
  uint64_t acc = pending_bytes_;
  uint64_t i = entries_.size();
  while (i > 0) {
    if (i < entries_.size() && acc >= budget_) break;  // the last match always goes in
    --i;
    acc += entries_[i].size;
  }
  return i;
}

}  // namespace seek
