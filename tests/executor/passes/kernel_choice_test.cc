// ChooseKernels: the device's kernel, the widening kernel for a float16 node
// whose CPU kernel is float-only, and an error naming a node without any.
#include <algorithm>

#include "devices/half_widening.h"
#include "executor/passes/passes.h"
#include "graph/infer_util.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;
using ::testing::HasSubstr;

absl::Status SameShapeForTest(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  return InferSameShape(in, out);
}

// An op with a schema and no kernel on any device.
SYMX_REGISTER_OP("_test_kernelless")
    .Describe("A test op without kernels.")
    .SetInputNames({"data"})
    .SetInferShape(SameShapeForTest)
    .SetNonDifferentiable();

Symbol Fc() {
  return OpCall("FullyConnected").Name("fc").Attr("num_hidden", "2").Input(Symbol::Variable("x"));
}

TEST(ChooseKernels, TheDevicesKernel) {
  PassBind b(Fc(), {{"x", Shape{2, 3}}}, GradReq::kNull);
  ASSERT_TRUE(b.RunBefore("choose kernels").ok());
  ASSERT_TRUE(b.Run("choose kernels").ok());
  EXPECT_EQ(b.state().kernels[b.NodeId("fc")],
            KernelRegistry::Find("FullyConnected", DeviceType::kCPU));
  EXPECT_EQ(b.state().kernels[b.NodeId("x")], nullptr);
}

TEST(ChooseKernels, Float16WidensAFloatOnlyKernel) {
  const std::vector<std::string> widened = HalfWidenedOps();
  ASSERT_TRUE(std::binary_search(widened.begin(), widened.end(), "FullyConnected"));
  PassBind b(Fc(), {{"x", Shape{2, 3}}}, GradReq::kNull, false, DType::kFloat16);
  ASSERT_TRUE(b.RunThrough("choose kernels").ok());
  const KernelInfo* k = b.state().kernels[b.NodeId("fc")];
  EXPECT_NE(k, KernelRegistry::Find("FullyConnected", DeviceType::kCPU));
  EXPECT_EQ(k, HalfWideningKernel("FullyConnected", std::vector<DType>(4, DType::kFloat16)));
}

TEST(ChooseKernels, NoKernelNamesTheNode) {
  Symbol y = OpCall("_test_kernelless").Name("odd").Input(Symbol::Variable("x"));
  PassBind b(y, {{"x", Shape{2}}}, GradReq::kNull);
  absl::Status s = b.RunThrough("choose kernels");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("operator odd (_test_kernelless) has no kernel for cpu(0)"));
}

}  // namespace
}  // namespace symx
