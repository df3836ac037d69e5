// place_fixture.h — the tree the unit tests of the units that change files work in
// (os_place_test.cpp, os_dir_lock_test.cpp, os_temp_file_test.cpp,
// os_rename_noreplace_test.cpp, os_whole_file_test.cpp): a root with a directory, a file, and
// links to a sibling outside it, opened as --root is; and helpers to place a path in it.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "os/place.h"

namespace place_fixture {

namespace fs = std::filesystem;

class Tree : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    base_ = fs::temp_directory_path() / ("tack-place-" + std::to_string(getpid()) + "-" +
                                         info->test_suite_name() + "-" + info->name());
    fs::remove_all(base_);
    root_ = base_ / "root";
    fs::create_directories(root_ / "dir");
    fs::create_directories(base_ / "outside");
    put(base_ / "outside" / "secret.txt", "secret\n");
    put(root_ / "file.txt", "old\n");
    fs::create_directory_symlink(base_ / "outside", root_ / "link_dir");
    fs::create_symlink(base_ / "outside" / "secret.txt", root_ / "link_file");
    root_fd_ = open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(root_fd_, 0);
  }
  void TearDown() override {
    close(root_fd_);
    fs::remove_all(base_);
  }
  static void put(const fs::path& p, std::string_view s) {
    std::ofstream(p, std::ios::binary) << s;
  }
  static std::string get(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  std::vector<std::string> names(const fs::path& dir) {
    std::vector<std::string> out;
    for (auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  os::Place place(std::string_view path, os::Parents parents = os::Parents::Refuse) {
    auto r = os::open_place(root_fd_, path, parents);
    if (auto* e = std::get_if<contract::Error>(&r)) {
      ADD_FAILURE() << "open_place " << path << ": " << e->rule << " " << e->message;
      return {};
    }
    return std::move(std::get<os::Place>(r));
  }
  std::string rule(std::string_view path, os::Parents parents = os::Parents::Refuse) {
    auto r = os::open_place(root_fd_, path, parents);
    if (auto* e = std::get_if<contract::Error>(&r)) return std::string(e->rule);
    return "ok";
  }
  fs::path base_, root_;
  int root_fd_ = -1;
};

}  // namespace place_fixture
