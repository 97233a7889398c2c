// A process killed (SIGKILL) while it saves a large .params file leaves the
// previous file intact: the save writes a temporary file, syncs it and
// renames it over the old one. A helper saves generation after generation;
// the test kills it at random moments and loads what is left.
#include <dirent.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "devices/params_io.h"
#include "gtest/gtest.h"

extern char** environ;

namespace symx {
namespace {

constexpr int64_t kElements = 24 << 20;  // 96 MB per save

std::string TempDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

int TemporaryFiles(const std::string& dir) {
  int n = 0;
  DIR* d = ::opendir(dir.c_str());
  while (dirent* e = ::readdir(d)) n += std::string(e->d_name).find(".tmp.") != std::string::npos;
  ::closedir(d);
  return n;
}

// The generation a saved file holds: every element must be the same.
int Generation(const std::string& path) {
  absl::StatusOr<NamedTensors> p = LoadParams(path);
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return -1;
  EXPECT_EQ(p->names, std::vector<std::string>{"arg:w"});
  const Tensor& t = p->tensors[0];
  EXPECT_EQ(t.size(), kElements);
  const float* d = t.data<float>();
  for (int64_t i = 0; i < t.size(); i += 4093) {
    if (d[i] != d[0]) {
      ADD_FAILURE() << "element " << i << " is " << d[i] << ", element 0 is " << d[0];
      return -1;
    }
  }
  return static_cast<int>(d[0]);
}

TEST(AtomicSave, KilledWhileSavingLeavesThePreviousFile) {
  const std::string helper = "tests/devices/save_params_loop";
  std::mt19937 rng(1);
  int interrupted = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const std::string dir = TempDir() + "/atomic" + std::to_string(trial);
    ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
    const std::string path = dir + "/model-0001.params";
    int out[2];
    ASSERT_EQ(::pipe(out), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::string elements = std::to_string(kElements);
    char* argv[] = {const_cast<char*>(helper.c_str()), const_cast<char*>(path.c_str()),
                    const_cast<char*>(elements.c_str()), nullptr};
    pid_t pid;
    ASSERT_EQ(posix_spawn(&pid, helper.c_str(), &actions, nullptr, argv, environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    // Wait for the first complete save, then kill during a later one.
    char buf[64];
    ASSERT_GT(::read(out[0], buf, sizeof(buf)), 0) << "the helper saved nothing";
    std::this_thread::sleep_for(std::chrono::milliseconds(50 + rng() % 400));
    ::kill(pid, SIGKILL);
    int status;
    ::waitpid(pid, &status, 0);
    ::close(out[0]);
    EXPECT_TRUE(WIFSIGNALED(status));
    interrupted += TemporaryFiles(dir) > 0;
    EXPECT_GE(Generation(path), 1) << "trial " << trial;
  }
  // The kills must have hit saves in progress (a stray temporary file is
  // what a killed save leaves), or this test proved nothing.
  EXPECT_GE(interrupted, 1);
}

}  // namespace
}  // namespace symx
