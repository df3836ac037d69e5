// os_write_error_test.cpp — a failed write-side system call becomes one tagged error: the
// rule from the errno, the stage and the symbolic errno name in detail, the path as bytes.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "os/write_error.h"

namespace {

std::string rule_of(int err) {
  return std::string(os::write_error(err, "a.txt", "rename").rule);
}

TEST(OsWriteError, TheRuleComesFromTheErrno) {
  EXPECT_EQ(rule_of(EACCES), "io.permission-denied");
  EXPECT_EQ(rule_of(EPERM), "io.permission-denied");
  EXPECT_EQ(rule_of(EROFS), "io.permission-denied");
  EXPECT_EQ(rule_of(ENOENT), "io.not-found");
  EXPECT_EQ(rule_of(ENOSPC), "io.write-failed");
  EXPECT_EQ(rule_of(EIO), "io.write-failed");
}

TEST(OsWriteError, DetailNamesThePathTheStageAndTheErrno) {
  contract::Error e = os::write_error(ENOSPC, "dir/\xff.txt", "fsync");
  EXPECT_EQ(e.detail.get("stage")->dump(), "\"fsync\"");
  EXPECT_EQ(e.detail.get("errno")->dump(), "\"ENOSPC\"");
  EXPECT_EQ(e.detail.get("path")->type(), contract::Json::Type::Bytes);
  EXPECT_NE(e.message.find("(fsync)"), std::string::npos);
  EXPECT_EQ(e.message.find('\xff'), std::string::npos);  // a message is printable
  EXPECT_EQ(os::quoted("a b"), "'a b'");
  EXPECT_EQ(os::errno_tag(EEXIST), "EEXIST");
}

}  // namespace
