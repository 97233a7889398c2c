// In a CUDA build every op has a GPU kernel, or is listed in
// gpu_kernels_missing.txt (a list that should become empty). The list is
// checked both ways: an op that gains a kernel must leave it.
#include <fstream>
#include <set>
#include <string>

#include "devices/kernel.h"
#include "graph/op.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

std::set<std::string> Listed() {
  std::ifstream in("tests/cuda/gpu_kernels_missing.txt");
  EXPECT_TRUE(in.good()) << "cannot read tests/cuda/gpu_kernels_missing.txt";
  std::set<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    out.insert(line.substr(0, line.find(' ')));
  }
  return out;
}

TEST(GpuKernelCoverageTest, EveryOpHasAGpuKernelOrIsListed) {
  const std::set<std::string> listed = Listed();
  std::set<std::string> missing;
  for (const Op* op : OpRegistry::Global().List()) {
    if (KernelRegistry::Find(op->name(), DeviceType::kGPU) == nullptr) missing.insert(op->name());
  }
  for (const std::string& name : missing) {
    EXPECT_TRUE(listed.count(name)) << name << " has no GPU kernel and is not listed";
  }
  for (const std::string& name : listed) {
    EXPECT_TRUE(missing.count(name)) << name << " has a GPU kernel now: remove it from the list";
  }
}

TEST(GpuKernelCoverageTest, EveryGpuKernelNamesARegisteredOp) {
  for (const std::string& name : KernelRegistry::List(DeviceType::kGPU)) {
    const Op* op = OpRegistry::Global().Find(name);
    ASSERT_NE(op, nullptr) << "GPU kernel registered for unknown op " << name;
    EXPECT_EQ(op->name(), name) << "GPU kernel registered under an alias of " << op->name();
  }
}

}  // namespace
}  // namespace symx
