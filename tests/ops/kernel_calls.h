// Direct calls of one CPU kernel with a hand-made context, for the kernel tests
// of the dropout, indexing, loss, reduce, shape and softmax families
// (randomness, ties, in-place runs, integer and bool dtypes, large tensors).
#ifndef SYMX_TESTS_OPS_KERNEL_CALLS_H_
#define SYMX_TESTS_OPS_KERNEL_CALLS_H_

#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "gmock/gmock.h"
#include "graph/node.h"
#include "graph/op.h"
#include "gtest/gtest.h"

namespace symx {
namespace kernel_calls {

using ::testing::HasSubstr;

inline Device* Cpu() { return GetDevice(Context::CPU(0)).value(); }

// Runs op `op`'s CPU kernel on `inputs`, writing `outputs`.
inline absl::Status RunKernel(const std::string& op, AttrMap attrs, std::vector<Tensor> inputs,
                              std::vector<Tensor> outputs, bool is_train = true) {
  std::vector<NodeEntry> entries;
  for (size_t i = 0; i < inputs.size(); ++i) {
    entries.push_back(NodeEntry{MakeVariableNode("in" + std::to_string(i)), 0, 0});
  }
  absl::StatusOr<NodePtr> node = MakeOpNode(op, "n", std::move(attrs), entries);
  if (!node.ok()) return node.status();
  const KernelInfo* info = KernelRegistry::Find(op, DeviceType::kCPU);
  if (info == nullptr) return absl::NotFoundError("no kernel for " + op);
  KernelContext ctx;
  ctx.attrs = &(*node)->attrs;
  ctx.device = Cpu();
  ctx.is_train = is_train;
  ctx.inputs = std::move(inputs);
  ctx.outputs = std::move(outputs);
  ctx.req.assign(ctx.outputs.size(), OpReq::kWrite);
  return info->fn(ctx);
}

inline Tensor Empty(const Shape& s, DType t = DType::kFloat32) {
  return Tensor::Empty(s, t).value();
}

inline std::vector<double> Ramp(int64_t n, double scale = 1.0, double offset = 0.0) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(0.37 * i + offset) * scale;
  return v;
}

}  // namespace kernel_calls
}  // namespace symx

#endif  // SYMX_TESTS_OPS_KERNEL_CALLS_H_
