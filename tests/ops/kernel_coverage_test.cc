// Every registered op, forward and backward, has a CPU kernel, and every
// kernel belongs to a registered op (a typo in a kernel's name would
// otherwise register a kernel nothing can reach).
#include <set>
#include <string>

#include "devices/kernel.h"
#include "graph/op.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

TEST(KernelCoverageTest, EveryOpHasACpuKernel) {
  std::vector<std::string> missing;
  for (const Op* op : OpRegistry::Global().List()) {
    if (KernelRegistry::Find(op->name(), DeviceType::kCPU) == nullptr)
      missing.push_back(op->name());
  }
  EXPECT_TRUE(missing.empty()) << "ops without a CPU kernel: " << ::testing::PrintToString(missing);
}

TEST(KernelCoverageTest, EveryKernelNamesARegisteredOp) {
  for (const std::string& name : KernelRegistry::List(DeviceType::kCPU)) {
    const Op* op = OpRegistry::Global().Find(name);
    ASSERT_NE(op, nullptr) << "kernel registered for unknown op " << name;
    EXPECT_EQ(op->name(), name) << "kernel registered under an alias of " << op->name();
  }
}

}  // namespace
}  // namespace symx
