// policy.h — what the deployer lets a program have beyond run's default confinement, written
// beside the programs in PROGRAMS_DIR/.policy (a hidden name, so never a program). One line a
// grant, `#` starts a comment:
//
//   NAME network          the program may use internet sockets (TCP bind and connect too)
//   NAME write /ABS/DIR   the program may also write beneath /ABS/DIR
//
// The caller has no say in it: no flag or variable names another file. A line of any other
// shape grants nothing (and is listed in `ignored`).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace os {

struct ProgramPolicy {
  bool network = false;
  std::vector<std::string> write;  // absolute directories
};

struct Policy {
  std::map<std::string, ProgramPolicy> programs;
  std::vector<size_t> ignored;  // 1-based numbers of the lines that grant nothing
  bool any_network() const;
  std::vector<std::string> all_write() const;
  const ProgramPolicy* find(const std::string& name) const;
};

Policy parse_policy(std::string_view text);
// PROGRAMS_DIR/.policy; an empty policy when there is none.
Policy read_policy(const std::string& programs_dir);

}  // namespace os
