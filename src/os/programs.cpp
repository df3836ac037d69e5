// programs.cpp — see programs.h.
#include "os/programs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

namespace os {

using contract::Json;

namespace {

bool runnable(int dir, const char* name) {
  struct stat st {};
  return name[0] != '.' && fstatat(dir, name, &st, 0) == 0 && S_ISREG(st.st_mode) &&
         faccessat(dir, name, X_OK, AT_EACCESS) == 0;
}

// The symbolic errno name ("EACCES"), or the number when the system has none.
std::string errno_name(int e) {
  const char* n = strerrorname_np(e);
  return n ? n : std::to_string(e);
}

}  // namespace

std::string programs_dir_of(std::string_view exe) {
  if (exe.empty() || exe[0] != '/') return "";
  std::string_view dir = exe.substr(0, exe.rfind('/'));  // "" for a binary in /
  constexpr std::string_view kInstalled = "/lib/tack/bin";
  std::string_view prefix;
  if (dir.size() >= kInstalled.size() && dir.ends_with(kInstalled))
    prefix = dir.substr(0, dir.size() - kInstalled.size());
  else
    prefix = dir.substr(0, dir.empty() ? 0 : dir.rfind('/'));
  return std::string(prefix) + "/libexec/tack/programs";
}

std::string own_programs_dir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf);
  if (n <= 0 || static_cast<size_t>(n) >= sizeof buf) return "";
  return programs_dir_of(std::string_view(buf, static_cast<size_t>(n)));
}

std::vector<std::string> program_names(const char* programs_dir) {
  std::vector<std::string> names;
  int dir = open(programs_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (DIR* d = dir >= 0 ? fdopendir(dir) : nullptr) {
    while (dirent* e = readdir(d))
      if (runnable(dirfd(d), e->d_name)) names.emplace_back(e->d_name);
    closedir(d);
  } else if (dir >= 0) {
    close(dir);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::variant<std::string, contract::Error> find_program(const char* programs_dir,
                                                        const std::string& name) {
  auto not_found = [&](std::string why) {
    contract::Error e =
        contract::make_error("run.program-not-found",
                             "the programs directory holds no program '" +
                                 contract::printable(name) + "' (" + why + ").",
                             Json::object({{"program", Json::bytes(name)}, {"reason", why}}));
    e.hint = "`run --list` names the programs that may be run.";
    return e;
  };
  int dir = open(programs_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return not_found("the programs directory does not exist");
  struct stat st {};
  std::variant<std::string, contract::Error> out = std::string(programs_dir) + "/" + name;
  if (name[0] == '.') {
    out = not_found("a hidden name is never a program");
  } else if (fstatat(dir, name.c_str(), &st, 0) != 0) {
    struct stat lst {};
    bool dangling =
        fstatat(dir, name.c_str(), &lst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(lst.st_mode);
    out = not_found(dangling ? "a link to a missing target" : "no such name");
  } else if (!S_ISREG(st.st_mode)) {
    out = not_found("not a regular file");
  } else if (faccessat(dir, name.c_str(), X_OK, AT_EACCESS) != 0) {
    int err = errno;
    out = contract::make_error(
        "io.permission-denied",
        "the program '" + contract::printable(name) + "' is not executable.",
        Json::object({{"program", Json::bytes(name)}, {"errno", errno_name(err)}}));
  }
  close(dir);
  return out;
}

contract::Error spawn_error(const std::string& name, const char* stage, int err) {
  if (err == EACCES)
    return contract::make_error(
        "io.permission-denied",
        "the operating system refused to start '" + contract::printable(name) + "' (" + stage +
            ").",
        Json::object(
            {{"program", Json::bytes(name)}, {"stage", stage}, {"errno", errno_name(err)}}));
  return contract::make_error(
      "run.spawn-failed",
      "the program '" + contract::printable(name) + "' could not be started (" + stage + ": " +
          std::strerror(err) + ").",
      Json::object({{"program", Json::bytes(name)}, {"stage", stage}, {"errno", errno_name(err)}}));
}

}  // namespace os
