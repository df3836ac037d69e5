// policy.cpp — see policy.h.
#include "os/policy.h"

#include <fcntl.h>
#include <unistd.h>

namespace os {

namespace {

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool plain_name(std::string_view n) {
  return !n.empty() && n != "." && n != ".." && n.find('/') == std::string_view::npos;
}

bool absolute_dir(std::string_view d) {
  if (d.empty() || d[0] != '/') return false;
  for (size_t i = 0; i < d.size();) {  // no `..` component: the grant is what it spells
    size_t j = d.find('/', i);
    if (j == std::string_view::npos) j = d.size();
    if (d.substr(i, j - i) == "..") return false;
    i = j + 1;
  }
  return true;
}

}  // namespace

Policy parse_policy(std::string_view text) {
  Policy p;
  size_t number = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++number;
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    auto w = words(line);
    if (w.empty()) continue;
    if (w.size() == 2 && plain_name(w[0]) && w[1] == "network") {
      p.programs[std::string(w[0])].network = true;
    } else if (w.size() == 3 && plain_name(w[0]) && w[1] == "write" && absolute_dir(w[2])) {
      p.programs[std::string(w[0])].write.emplace_back(w[2]);
    } else {
      p.ignored.push_back(number);
    }
  }
  return p;
}

Policy read_policy(const std::string& programs_dir) {
  if (programs_dir.empty()) return {};  // no programs directory: no policy, not /.policy
  std::string text;
  int fd = open((programs_dir + "/.policy").c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return {};
  char buf[4096];
  for (ssize_t n; text.size() < (1 << 20) && (n = read(fd, buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<size_t>(n));
  close(fd);
  return parse_policy(text);
}

bool Policy::any_network() const {
  for (auto& [name, p] : programs)
    if (p.network) return true;
  return false;
}

std::vector<std::string> Policy::all_write() const {
  std::vector<std::string> out;
  for (auto& [name, p] : programs) out.insert(out.end(), p.write.begin(), p.write.end());
  return out;
}

const ProgramPolicy* Policy::find(const std::string& name) const {
  auto it = programs.find(name);
  return it == programs.end() ? nullptr : &it->second;
}

}  // namespace os
