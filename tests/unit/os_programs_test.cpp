// os_programs_test.cpp — the programs directory: only regular, executable, not hidden entries
// are listed (sorted), a name is looked up with the reason it is not a program, and a start
// refused by the system is permission-denied, any other failure spawn-failed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "os/programs.h"

namespace {

namespace fs = std::filesystem;

struct Programs {
  fs::path top;
  Programs() {
    char tmpl[] = "/tmp/tack-programs-XXXXXX";
    top = fs::canonical(mkdtemp(tmpl));
    for (const char* n : {"zed", "make", ".hidden", "plain"}) std::ofstream(top / n) << "x\n";
    for (const char* n : {"zed", "make", ".hidden"}) chmod((top / n).c_str(), 0755);
    chmod((top / "plain").c_str(), 0644);
    fs::create_directory(top / "dir");
    fs::create_symlink("make", top / "alias");
    fs::create_symlink("gone", top / "dangling");
  }
  ~Programs() { fs::remove_all(top); }
  const char* dir() const { return top.c_str(); }
};

std::string reason(const std::variant<std::string, contract::Error>& r) {
  const auto* e = std::get_if<contract::Error>(&r);
  if (!e) return "";
  const contract::Json* why = e->detail.get("reason");
  return std::string(e->rule) + (why ? ": " + why->str() : "");
}

TEST(OsPrograms, ListsRunnableNamesSorted) {
  Programs p;
  EXPECT_EQ(os::program_names(p.dir()), (std::vector<std::string>{"alias", "make", "zed"}));
  EXPECT_TRUE(os::program_names((p.top / "absent").c_str()).empty());
}

TEST(OsPrograms, FindsAProgramByName) {
  Programs p;
  auto found = os::find_program(p.dir(), "make");
  ASSERT_TRUE(std::holds_alternative<std::string>(found));
  EXPECT_EQ(std::get<std::string>(found), (p.top / "make").string());
  EXPECT_TRUE(std::holds_alternative<std::string>(os::find_program(p.dir(), "alias")));
}

TEST(OsPrograms, SaysWhyANameIsNoProgram) {
  Programs p;
  EXPECT_EQ(reason(os::find_program(p.dir(), "nope")), "run.program-not-found: no such name");
  EXPECT_EQ(reason(os::find_program(p.dir(), ".hidden")),
            "run.program-not-found: a hidden name is never a program");
  EXPECT_EQ(reason(os::find_program(p.dir(), "dir")), "run.program-not-found: not a regular file");
  EXPECT_EQ(reason(os::find_program(p.dir(), "dangling")),
            "run.program-not-found: a link to a missing target");
  EXPECT_EQ(reason(os::find_program((p.top / "absent").c_str(), "make")),
            "run.program-not-found: the programs directory does not exist");
  EXPECT_EQ(reason(os::find_program(p.dir(), "plain")), "io.permission-denied");
}

TEST(OsPrograms, SpawnErrorByErrno) {
  contract::Error e = os::spawn_error("make", "exec", EACCES);
  EXPECT_EQ(e.rule, "io.permission-denied");
  EXPECT_EQ(e.detail.get("errno")->str(), "EACCES");
  e = os::spawn_error("make", "exec", ENOEXEC);
  EXPECT_EQ(e.rule, "run.spawn-failed");
  EXPECT_EQ(e.detail.get("stage")->str(), "exec");
  EXPECT_EQ(e.detail.get("errno")->str(), "ENOEXEC");
}

}  // namespace
