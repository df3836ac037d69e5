// inputs.h — the files beneath PATH operands, in order, for a reader of files and trees
// (seek): each operand opened beneath the root; a file named is taken as it stands (the
// caller decides what to do with a binary one), a directory is walked (walk.h). Links and
// special files met in a walk are counted, never opened, as are the names the walk leaves out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "contract/error.h"
#include "os/open.h"
#include "os/walk.h"
#include "text/scan.h"

namespace os {

struct Input {
  enum class Type { Named, Walked, Error } type = Type::Error;
  std::string path;       // as shown: the operand, or the walked entry's path
  Opened named;           // Named: the operand, open, with its fstat
  Entry entry;            // Walked: to be opened with open_entry (its path moved to `path`)
  contract::Error error;  // Error: an operand that could not be opened, or the walk's error
  SkipCounts skipped;     // all that was left out before this input
};

class Inputs {
 public:
  // `root_fd`: the root's descriptor, or -1 for none. Ignore files are read from the root
  // down, or without one from the working directory down (not for an operand that is
  // absolute or climbs with '..', whose rules start at the operand itself).
  Inputs(int root_fd, std::vector<std::string> paths, WalkOptions opts);

  // The next input; false when there are no more.
  bool next(Input& out);
  // All that was left out so far (everything, once next() has returned false).
  SkipCounts skipped() const;

 private:
  int root_fd_;
  std::vector<std::string> paths_;
  size_t next_path_ = 0;
  WalkOptions opts_;
  Fd cwd_;
  std::optional<Walker> walker_;  // the operand being walked
  SkipCounts counted_;            // left out by operands walked before, and links, specials
};

// An input's bytes for the Scanner: pread that stops at the size fstat gave at open, so that
// a small file costs one read (not a second one to find its end).
text::ReadAt input_reader(int fd, uint64_t size);

// A walked file opened without fstat (Entry::whole_reads, open_entry(e)): its first read says
// what it is. Short of what it asked for, and not ending at a page boundary (where a read
// stops before a page it could not read), that read was the whole file; otherwise (a full
// read, one ending at a page boundary, an error) fstat is made then and reading goes on as
// input_reader's. `st` is filled either way (st_mode, st_size) once the first read is made;
// a FIFO, device or directory swapped in since the walk listed a regular file is found there
// and reads as empty (the caller checks st_mode).
text::ReadAt walked_reader(int fd, struct stat& st);

}  // namespace os
