// Direct runs of one CPU kernel on a node of its op, for the kernel tests of the
// activation, binary and elemwise families (what the conformance tables cannot
// reach: large tensors on the pool, float16 backward, in-place runs, errors).
#ifndef SYMX_TESTS_OPS_KERNEL_RUNS_H_
#define SYMX_TESTS_OPS_KERNEL_RUNS_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "gmock/gmock.h"
#include "graph/node.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace kernel_runs {

using ::symx::testing::BroadcastAt;
using ::testing::HasSubstr;

struct KernelRun {
  NodePtr node;
  KernelContext ctx;
};

// A node of `op` over fresh variables, and a context over the given tensors.
inline KernelRun MakeRun(const std::string& op, AttrMap attrs, std::vector<Tensor> inputs,
                         std::vector<Tensor> outputs, bool is_train = false) {
  std::vector<NodeEntry> entries;
  for (size_t i = 0; i < inputs.size(); ++i) {
    entries.push_back(NodeEntry{MakeVariableNode(absl::StrCat("in", i)), 0, 0});
  }
  auto node = MakeOpNode(op, "n", std::move(attrs), entries);
  EXPECT_TRUE(node.ok()) << node.status();
  KernelRun r;
  r.node = *node;
  r.ctx.attrs = &r.node->attrs;
  r.ctx.device = GetDevice(Context::CPU(0)).value();
  r.ctx.is_train = is_train;
  r.ctx.inputs = std::move(inputs);
  r.ctx.outputs = std::move(outputs);
  r.ctx.req.assign(r.ctx.outputs.size(), OpReq::kWrite);
  return r;
}

inline absl::Status Call(const std::string& op, const KernelRun& r) {
  const KernelInfo* k = KernelRegistry::Find(op, DeviceType::kCPU);
  if (k == nullptr) return absl::NotFoundError(absl::StrCat("no kernel for ", op));
  return k->fn(r.ctx);
}

inline absl::Status RunOp(const std::string& op, AttrMap attrs, std::vector<Tensor> inputs,
                          std::vector<Tensor> outputs, bool is_train = false) {
  KernelRun r = MakeRun(op, std::move(attrs), std::move(inputs), std::move(outputs), is_train);
  return Call(op, r);
}

inline std::vector<double> Random(int64_t n, double lo, double hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

inline Tensor Make(const Shape& s, const std::vector<double>& v, DType t = DType::kFloat32) {
  return Tensor::FromVector(s, v, t);
}

inline Tensor Empty(const Shape& s, DType t = DType::kFloat32) {
  return Tensor::Empty(s, t).value();
}

inline void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol,
                       const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::fabs(got[i] - want[i]) > tol * (1 + std::fabs(want[i]))) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected " << want[i];
      return;
    }
  }
}

}  // namespace kernel_runs
}  // namespace symx

#endif  // SYMX_TESTS_OPS_KERNEL_RUNS_H_
