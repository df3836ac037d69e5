// dir_prefetch.h — directories opened and read ahead of a walk, on a thread of their own.
//
// A walk spends most of its time in the kernel (openat, getdents64, close), one directory at a
// time, while the caller works on the entries. Read ahead, the next directories' listings are
// ready when the walk reaches them. Each is opened exactly as the walk opens one (relative to
// its parent's descriptor, O_DIRECTORY|O_NOFOLLOW), so confinement is unchanged; what the walk
// reports, and in what order, does not depend on whether a listing was read ahead.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "os/open.h"

namespace os {

// A directory's names with their d_type, sorted bytewise.
using DirNames = std::vector<std::pair<std::string, unsigned char>>;

// Opens `name` below `parent` as the walk does; -errno on failure.
int open_dir_at(int parent, const char* name);
// Every name of the directory open at `fd` ("." and ".." left out), sorted; -errno on failure.
int read_dir_names(int fd, DirNames& out);

struct DirListing {
  int open_err = 0;  // errno of the open; 0: opened
  int read_err = 0;  // errno of the read; 0: names complete
  Fd fd;
  DirNames names;
};

class DirPrefetch {
 public:
  DirPrefetch() = default;
  ~DirPrefetch();
  DirPrefetch(const DirPrefetch&) = delete;
  DirPrefetch& operator=(const DirPrefetch&) = delete;

  // Asks for these directories below `parent` to be read ahead, in this order, before anything
  // asked earlier (a walk goes depth first). The thread starts at the first request.
  void ask(const std::shared_ptr<const Fd>& parent, const std::vector<std::string>& names);
  // The listing of parent/name if it was read ahead (waiting while it is under way). nullopt
  // when it was not asked for or not started yet: the request is dropped and the caller reads
  // the directory itself.
  std::optional<DirListing> take(const Fd* parent, const std::string& name);
  // The walk has left `parent`: whatever was asked below it and not taken is dropped (a
  // directory the walk did not enter: ignored, excluded, too deep).
  void forget(const Fd* parent);

 private:
  using Key = std::pair<uintptr_t, std::string>;  // the parent's address, the name
  struct Job {
    std::shared_ptr<const Fd> parent;
    std::string name;
  };
  void loop();

  static constexpr size_t kAhead = 64;  // listings held, read ahead and not yet taken
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<Job> queue_;
  std::map<Key, std::optional<DirListing>> ready_;  // nullopt: under way
  std::map<Key, std::shared_ptr<const Fd>> parents_;  // keeps a parent alive while it is read
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace os
