// Whole-file reads and atomic writes: a failed write leaves the old file and
// no temporary behind; directories and missing folders are named.
#include "graph/file_io.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

using ::testing::HasSubstr;

std::string TempDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(t != nullptr ? t : "/tmp") + "/file_io_test";
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

absl::Status Write(const std::string& path, const std::string& text) {
  return WriteFileBytes(path, [&](const ByteSink& sink) { sink(text.data(), text.size()); });
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  ::closedir(d);
  return out;
}

TEST(FileIo, WritesReplacesAndReads) {
  const std::string path = TempDir() + "/a.txt";
  ASSERT_TRUE(Write(path, "first").ok());
  ASSERT_TRUE(Write(path, "second, longer").ok());
  EXPECT_EQ(*ReadFileBytes(path), "second, longer");
  // A new file gets the usual permissions (0666 less the umask), not 0600.
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
}

TEST(FileIo, KeepsPermissionsAndWritesThroughSymlinks) {
  const std::string dir = TempDir() + "/modes";
  ::mkdir(dir.c_str(), 0755);
  const std::string path = dir + "/private.params";
  ASSERT_TRUE(Write(path, "v1").ok());
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  ASSERT_TRUE(Write(path, "v2").ok());
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const std::string link = dir + "/latest.params";
  ASSERT_EQ(::symlink("private.params", link.c_str()), 0);
  ASSERT_TRUE(Write(link, "v3").ok());
  struct stat lst;
  ASSERT_EQ(::lstat(link.c_str(), &lst), 0);
  EXPECT_TRUE(S_ISLNK(lst.st_mode)) << "the link itself stays a link";
  EXPECT_EQ(*ReadFileBytes(path), "v3");
}

TEST(FileIo, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  const std::string dir = TempDir() + "/throwing";
  ::mkdir(dir.c_str(), 0755);
  const std::string path = dir + "/model.params";
  ASSERT_TRUE(Write(path, "the previous checkpoint").ok());
  EXPECT_THROW(WriteFileBytes(path,
                              [&](const ByteSink& sink) {
                                sink("partial", 7);
                                throw std::runtime_error("producer failed");
                              }),
               std::runtime_error);
  EXPECT_EQ(*ReadFileBytes(path), "the previous checkpoint");
  EXPECT_EQ(Files(dir), std::vector<std::string>{"model.params"});
}

TEST(FileIo, ErrorsNameThePath) {
  const std::string dir = TempDir();
  absl::Status s = Write(dir, "x");
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(s.message(), HasSubstr("cannot open " + dir + " for writing: it is a directory"));
  s = Write(dir + "/no/such/folder/x.params", "x");
  EXPECT_THAT(s.message(), HasSubstr("cannot open " + dir +
                                     "/no/such/folder/x.params for writing: No such file"));
  EXPECT_THAT(ReadFileBytes(dir).status().message(),
              HasSubstr("cannot open " + dir + ": it is a directory, not a file"));
  EXPECT_THAT(ReadFileBytes(dir + "/missing").status().message(),
              HasSubstr("cannot open " + dir + "/missing: No such file or directory"));
}

}  // namespace
}  // namespace symx
