// FuseForInference: convolution chains fuse only in an inference bind on CPU
// with the fusion switch on (and oneDNN, which the fused kernels need).
#include "devices/cpu/fused_conv_kernels.h"
#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;

Symbol ConvRelu() {
  Symbol conv = OpCall("Convolution")
                    .Name("conv")
                    .Attr("kernel", "(3,3)")
                    .Attr("num_filter", "4")
                    .Input(Symbol::Variable("data"));
  return OpCall("Activation").Name("relu").Attr("act_type", "relu").Input(conv);
}

// The op of the node producing the bind's single output after the pass.
std::string OutputOp(PassBind& b) { return b.state().full_outputs[0].node->op()->name(); }

TEST(FuseForInference, InferenceBindFusesWhenOneDnnPays) {
  PassBind b(ConvRelu(), {{"data", Shape{1, 2, 8, 8}}}, GradReq::kNull);
  ASSERT_TRUE(b.RunBefore("fuse for inference").ok());
  ASSERT_TRUE(b.Run("fuse for inference").ok());
  EXPECT_EQ(OutputOp(b), cpu::CpuFusionPays(b.bind.engine) ? "_symx_fused_conv" : "Activation");
}

TEST(FuseForInference, SwitchedOffLeavesTheGraph) {
  PassBind b(ConvRelu(), {{"data", Shape{1, 2, 8, 8}}}, GradReq::kNull);
  b.bind.engine.fusion = false;
  ASSERT_TRUE(b.RunThrough("fuse for inference").ok());
  EXPECT_EQ(OutputOp(b), "Activation");
}

TEST(FuseForInference, TrainingBindIsNotFused) {
  PassBind b(ConvRelu(), {{"data", Shape{1, 2, 8, 8}}});
  ASSERT_TRUE(b.RunThrough("fuse for inference").ok());
  for (size_t i = 0; i < b.state().full_outputs.size(); ++i) {
    EXPECT_NE(b.state().full_outputs[i].node->op()->name(), "_symx_fused_conv");
  }
  EXPECT_EQ(OutputOp(b), "Activation");
}

}  // namespace
}  // namespace symx
