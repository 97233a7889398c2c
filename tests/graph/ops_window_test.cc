// Tests for the windowed nn ops: Convolution, Deconvolution, Pooling, UpSampling. Expected
// shapes are hand-computed from MXNet 1.x's rules.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/node.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/shape.h"
#include "gtest/gtest.h"
#include "tests/graph/op_test_util.h"

namespace symx {
namespace {

using ::symx::testing::Differentiate;
using ::symx::testing::ErrorContains;
using ::symx::testing::ExpectBackward;
using ::symx::testing::GradCase;
using ::symx::testing::InferOpShape;
using ::symx::testing::InputNames;
using ::symx::testing::ParseStatus;
using ::symx::testing::ShapeStatus;

constexpr int64_t X = kUnknownDim;
const Shape kUnknown;

// ---------------------------------------------------------------------------------------
// Convolution

const AttrMap kResNetStem = {
    {"num_filter", "64"}, {"kernel", "(7, 7)"}, {"pad", "(3, 3)"}, {"stride", "(2, 2)"}};

TEST(ConvolutionTest, ResNetStem) {
  auto r = InferOpShape("Convolution", kResNetStem, {Shape{1, 3, 224, 224}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{64, 3, 7, 7}));
  EXPECT_EQ(r->in[2], (Shape{64}));
  EXPECT_EQ(r->out[0], (Shape{1, 64, 112, 112}));
}

TEST(ConvolutionTest, OneAndThreeDimsDilationGroups) {
  auto r = InferOpShape("Convolution", {{"num_filter", "8"}, {"kernel", "(3,)"}},
                        {Shape{2, 4, 10}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{8, 4, 3}));
  EXPECT_EQ(r->out[0], (Shape{2, 8, 8}));

  r = InferOpShape("Convolution",
                   {{"num_filter", "6"},
                    {"kernel", "(3, 3, 3)"},
                    {"pad", "(1, 1, 1)"},
                    {"stride", "(2, 2, 2)"},
                    {"no_bias", "True"}},
                   {Shape{1, 2, 8, 8, 8}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{6, 2, 3, 3, 3}));
  EXPECT_EQ(r->out[0], (Shape{1, 6, 4, 4, 4}));

  // Dilation 2 makes a 3-wide kernel span 5: 10 - 5 + 1 = 6.
  r = InferOpShape("Convolution", {{"num_filter", "1"}, {"kernel", "(3, 3)"}, {"dilate", "(2, 2)"}},
                   {Shape{1, 1, 10, 10}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 1, 6, 6}));

  r = InferOpShape(
      "Convolution",
      {{"num_filter", "64"}, {"num_group", "4"}, {"kernel", "(3, 3)"}, {"pad", "(1, 1)"}},
      {Shape{1, 32, 14, 14}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{64, 8, 3, 3}));
  EXPECT_EQ(r->out[0], (Shape{1, 64, 14, 14}));
}

TEST(ConvolutionTest, PartialInference) {
  // MXNet's test: data (1, 0, 0, 0) gives weight (64, 0, 7, 7).
  auto r = InferOpShape("Convolution", kResNetStem, {Shape{1, X, X, X}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{64, X, 7, 7}));
  EXPECT_EQ(r->in[1].ToLegacy(), (std::vector<int64_t>{64, 0, 7, 7}));
  EXPECT_EQ(r->out[0], (Shape{1, 64, X, X}));

  // Nothing is known: nothing is inferred.
  r = InferOpShape("Convolution", kResNetStem, {kUnknown, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], kUnknown);
  EXPECT_EQ(r->out[0], kUnknown);

  // MXNet's test: Conv21 k3 p1 on a (0, 10, 0, 0), output (5, 21, 32, 32): a (5, 10, 32, 32).
  r = InferOpShape("Convolution", {{"num_filter", "21"}, {"kernel", "(3, 3)"}, {"pad", "(1, 1)"}},
                   {Shape{X, 10, X, X}, kUnknown, kUnknown}, {Shape{5, 21, 32, 32}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{5, 10, 32, 32}));

  // A strided output does not pin the input size; the weight gives the channels.
  r = InferOpShape("Convolution", kResNetStem, {kUnknown, Shape{64, 3, 7, 7}, kUnknown},
                   {Shape{1, 64, 112, 112}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{1, 3, X, X}));
}

TEST(ConvolutionTest, Conflicts) {
  EXPECT_TRUE(ErrorContains(ShapeStatus("Convolution", kResNetStem,
                                        {Shape{1, 3, 224, 224}, Shape{64, 3, 5, 5}, kUnknown}),
                            {"Shape inconsistent for input weight", "[64,3,5,5]", "[64,3,7,7]"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Convolution", kResNetStem, {Shape{1, 3, 224, 224}, kUnknown, kUnknown},
                  {Shape{1, 64, 100, 100}}),
      {"output"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Convolution", {{"num_filter", "4"}, {"num_group", "2"}, {"kernel", "(1, 1)"}},
                  {Shape{1, 3, 4, 4}, kUnknown, kUnknown}),
      {"num_group", "[1,3,4,4]"}));
}

TEST(ConvolutionTest, InvalidSizes) {
  EXPECT_TRUE(ErrorContains(ShapeStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(5, 5)"}},
                                        {Shape{1, 3, 2, 2}, kUnknown, kUnknown}),
                            {"Convolution", "kernel size 5", "[1,3,2,2]"}));
  // Huge dims do not overflow.
  EXPECT_TRUE(ShapeStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(3,)"}},
                          {Shape{1, 3, int64_t{1} << 62}, kUnknown, kUnknown})
                  .ok());
  EXPECT_FALSE(ShapeStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(3,)"}},
                           {Shape{1, 3, -7}, kUnknown, kUnknown})
                   .ok());
}

TEST(ConvolutionTest, WrongNdim) {
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("Convolution", kResNetStem, {Shape{1, 3, 224}, kUnknown, kUnknown}),
                    {"input data", "4 dims"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Convolution", kResNetStem, {kUnknown, kUnknown, kUnknown}, {Shape{1, 64, 2}}),
      {"output"}));
}

TEST(ConvolutionTest, BadAttributes) {
  EXPECT_TRUE(ErrorContains(ParseStatus("Convolution", {{"num_filter", "4"}}), {"kernel"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(0, 3)"}}),
                            {"kernel"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(1, 2, 3, 4)"}}), {"kernel"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(3, 3)"}, {"stride", "(2,)"}}),
      {"stride", "2 values"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(3, 3)"}, {"pad", "(-1, 0)"}}),
      {"pad"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(3, 3)"}, {"layout", "NHWC"}}),
      {"layout", "channel-last"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(3, 3)"}, {"layout", "NCW"}}),
      {"layout"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Convolution",
                  {{"num_filter", "4"}, {"kernel", "(3, 3)"}, {"cudnn_tune", "slowest"}}),
      {"cudnn_tune"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Convolution", {{"num_filter", "0"}, {"kernel", "(3, 3)"}}),
                            {"num_filter"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Convolution", {{"num_filter", "6"}, {"num_group", "4"}, {"kernel", "(3, 3)"}}),
      {"num_group", "divisible"}));
  EXPECT_TRUE(ParseStatus("Convolution", {{"num_filter", "4"},
                                          {"kernel", "(3, 3)"},
                                          {"stride", "()"},
                                          {"layout", "NCHW"},
                                          {"cudnn_tune", "None"},
                                          {"workspace", "2048"}})
                  .ok());
}

TEST(ConvolutionTest, Gradient) {
  GradCase c = Differentiate("Convolution", kResNetStem, 3);
  ASSERT_EQ(c.grads.size(), 3u);
  ExpectBackward(c, "_backward_Convolution", 3,
                 {Out(c.head), c.node->inputs[0], c.node->inputs[1]});
}

// ---------------------------------------------------------------------------------------
// Deconvolution

const AttrMap kUpConv = {
    {"num_filter", "32"}, {"kernel", "(4, 4)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}};

TEST(DeconvolutionTest, Shapes) {
  // 2 * (56 - 1) + 4 - 2 * 1 = 112; no bias by default.
  EXPECT_EQ(InputNames("Deconvolution", kUpConv), (std::vector<std::string>{"data", "weight"}));
  auto r = InferOpShape("Deconvolution", kUpConv, {Shape{1, 64, 56, 56}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{64, 32, 4, 4}));
  EXPECT_EQ(r->out[0], (Shape{1, 32, 112, 112}));

  // adj adds to the output: 2 * 6 + 3 - 2 + 1 = 14.
  r = InferOpShape("Deconvolution",
                   {{"num_filter", "3"},
                    {"kernel", "(3,)"},
                    {"stride", "(2,)"},
                    {"pad", "(1,)"},
                    {"adj", "(1,)"},
                    {"no_bias", "False"}},
                   {Shape{2, 5, 7}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{5, 3, 3}));
  EXPECT_EQ(r->in[2], (Shape{3}));
  EXPECT_EQ(r->out[0], (Shape{2, 3, 14}));

  r = InferOpShape(
      "Deconvolution",
      {{"num_filter", "4"}, {"num_group", "2"}, {"kernel", "(2, 2, 2)"}, {"stride", "(2, 2, 2)"}},
      {Shape{1, 8, 3, 3, 3}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{8, 2, 2, 2, 2}));
  EXPECT_EQ(r->out[0], (Shape{1, 4, 6, 6, 6}));
}

TEST(DeconvolutionTest, TargetShape) {
  AttrMap attrs = kUpConv;
  attrs["target_shape"] = "(113, 112)";
  auto r = InferOpShape("Deconvolution", attrs, {Shape{1, 64, 56, 56}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 32, 113, 112}));
  // The target fixes the output size even before the input size is known.
  r = InferOpShape("Deconvolution", attrs, {Shape{1, 64, X, X}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 32, 113, 112}));
  attrs["target_shape"] = "(200, 200)";
  EXPECT_TRUE(ErrorContains(ShapeStatus("Deconvolution", attrs, {Shape{1, 64, 56, 56}, kUnknown}),
                            {"target_shape", "[1,64,56,56]"}));
  // All zeros means no target.
  attrs["target_shape"] = "(0, 0)";
  r = InferOpShape("Deconvolution", attrs, {Shape{1, 64, 56, 56}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 32, 112, 112}));
  attrs["target_shape"] = "(0, 5)";
  EXPECT_TRUE(ErrorContains(ParseStatus("Deconvolution", attrs), {"target_shape"}));
}

TEST(DeconvolutionTest, PartialAndBackward) {
  auto r = InferOpShape("Deconvolution", kUpConv, {kUnknown, Shape{64, 32, 4, 4}},
                        {Shape{1, 32, 112, 112}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{1, 64, 56, 56}));
  r = InferOpShape("Deconvolution", kUpConv, {Shape{X, 64, X, X}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{X, 32, X, X}));
}

TEST(DeconvolutionTest, ErrorsAndAttributes) {
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Deconvolution", {{"num_filter", "2"}, {"kernel", "(1, 1)"}, {"pad", "(5, 5)"}},
                  {Shape{1, 3, 1, 1}, kUnknown}),
      {"Deconvolution", "output size", "[1,3,1,1]"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Deconvolution", kUpConv, {Shape{1, 64, 56, 56}, Shape{64, 16, 4, 4}}),
      {"Shape inconsistent for input weight"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("Deconvolution", kUpConv, {Shape{1, 64, 56}, kUnknown}),
                            {"input data"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus(
          "Deconvolution",
          {{"num_filter", "2"}, {"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"adj", "(2, 0)"}}),
      {"adj", "stride"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Deconvolution", {{"num_filter", "2"}, {"kernel", "(3, 3)"}, {"adj", "(0,)"}}),
      {"adj"}));
  EXPECT_TRUE(
      ErrorContains(ParseStatus("Deconvolution",
                                {{"num_filter", "2"}, {"kernel", "(3, 3)"}, {"workspace", "-1"}}),
                    {"workspace"}));
}

TEST(DeconvolutionTest, Gradient) {
  GradCase c = Differentiate("Deconvolution", kUpConv, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ExpectBackward(c, "_backward_Deconvolution", 2,
                 {Out(c.head), c.node->inputs[0], c.node->inputs[1]});
}

// ---------------------------------------------------------------------------------------
// Pooling

TEST(PoolingTest, ResNetMaxPool) {
  auto r = InferOpShape(
      "Pooling",
      {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pool_type", "max"}},
      {Shape{1, 64, 112, 112}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 64, 56, 56}));
}

TEST(PoolingTest, Conventions) {
  AttrMap attrs = {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "avg"}};
  auto r = InferOpShape("Pooling", attrs, {Shape{1, 1, 7, 7}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 1, 3, 3}));
  attrs["pooling_convention"] = "full";
  r = InferOpShape("Pooling", attrs, {Shape{1, 1, 7, 7}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 1, 4, 4}));
  r = InferOpShape("Pooling",
                   {{"kernel", "(3,)"}, {"stride", "(3,)"}, {"pooling_convention", "same"}},
                   {Shape{1, 2, 10}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 2, 4}));
  r = InferOpShape("Pooling",
                   {{"kernel", "(2, 2, 2)"}, {"stride", "(2, 2, 2)"}, {"pool_type", "sum"}},
                   {Shape{2, 3, 4, 6, 8}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 3, 2, 3, 4}));
}

TEST(PoolingTest, GlobalPool) {
  auto r = InferOpShape("Pooling", {{"global_pool", "True"}, {"pool_type", "avg"}},
                        {Shape{2, 512, 7, 7}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 512, 1, 1}));
  r = InferOpShape("Pooling", {{"global_pool", "True"}, {"kernel", "(1, 1)"}},
                   {Shape{2, 3, 4, 5, 6}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 3, 1, 1, 1}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("Pooling", {{"global_pool", "True"}}, {Shape{2, 3}}),
                            {"input data", "3 to 5"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Pooling", {{"global_pool", "True"}, {"layout", "NCHW"}}, {Shape{2, 3, 4}}),
      {"input data", "4 dims"}));
}

TEST(PoolingTest, PartialInference) {
  AttrMap attrs = {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}};
  auto r = InferOpShape("Pooling", attrs, {Shape{X, 64, X, 8}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{X, 64, X, 4}));
  r = InferOpShape("Pooling", attrs, {kUnknown}, {Shape{4, 8, 5, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{4, 8, X, X}));
  r = InferOpShape("Pooling", attrs, {kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], kUnknown);
}

TEST(PoolingTest, Errors) {
  EXPECT_TRUE(ErrorContains(ShapeStatus("Pooling", {{"kernel", "(5, 5)"}}, {Shape{1, 3, 2, 2}}),
                            {"Pooling", "kernel size 5", "[1,3,2,2]"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("Pooling", {{"kernel", "(2, 2)"}}, {Shape{1, 3, 8}}),
                            {"input data", "4 dims"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Pooling", {{"kernel", "(2, 2)"}}, {Shape{1, 3, 8, 8}}, {Shape{1, 4, 7, 7}}),
      {"output"}));
}

TEST(PoolingTest, BadAttributes) {
  EXPECT_TRUE(ErrorContains(ParseStatus("Pooling", {{"pool_type", "max"}}), {"kernel"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Pooling", {{"kernel", "(2, 2)"}, {"pool_type", "median"}}),
                            {"pool_type", "median"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Pooling", {{"kernel", "(2, 2)"}, {"pool_type", "lp"}}),
                            {"p_value"}));
  EXPECT_TRUE(
      ParseStatus("Pooling", {{"kernel", "(2, 2)"}, {"pool_type", "lp"}, {"p_value", "2"}}).ok());
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Pooling", {{"kernel", "(3,)"}, {"pooling_convention", "same"}, {"pad", "(1,)"}}),
      {"pad", "same"}));
  EXPECT_TRUE(
      ErrorContains(ParseStatus("Pooling", {{"kernel", "(3, 3)"}, {"pooling_convention", "same"}}),
                    {"pooling_convention"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Pooling", {{"kernel", "(2, 2)"}, {"layout", "NHWC"}}),
                            {"layout"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Pooling", {{"kernel", "(2, 2)"}, {"strides", "(2, 2)"}}),
                            {"unknown attribute 'strides'"}));
  EXPECT_TRUE(ParseStatus("Pooling", {{"kernel", "(2, 2)"},
                                      {"count_include_pad", "None"},
                                      {"p_value", "None"},
                                      {"cudnn_off", "False"}})
                  .ok());
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Pooling", {{"kernel", "(2, 2)"}, {"count_include_pad", "perhaps"}}),
      {"count_include_pad"}));
}

TEST(PoolingTest, Gradient) {
  GradCase c = Differentiate("Pooling", {{"kernel", "(2, 2)"}}, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  ExpectBackward(c, "_backward_Pooling", 1, {Out(c.head), c.node->inputs[0], Out(c.node)});
}

// ---------------------------------------------------------------------------------------
// UpSampling

TEST(UpSamplingTest, Nearest) {
  AttrMap attrs = {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "1"}};
  auto r = InferOpShape("UpSampling", attrs, {Shape{1, 3, 4, 4}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 3, 8, 8}));
  r = InferOpShape("UpSampling", attrs, {kUnknown}, {Shape{1, 3, 8, 8}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{1, 3, 4, 4}));

  attrs["num_args"] = "2";
  EXPECT_EQ(InputNames("UpSampling", attrs), (std::vector<std::string>{"arg0", "arg1"}));
  r = InferOpShape("UpSampling", attrs, {Shape{1, 3, 4, 4}, Shape{1, 5, 2, 2}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 8, 8, 8}));
  r = InferOpShape("UpSampling", attrs, {Shape{1, 3, 4, 4}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, X, 8, 8}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("UpSampling", attrs, {Shape{1, 3, 4, 4}, Shape{1, 5, 3, 3}}),
                    {"input arg1", "dividing"}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("UpSampling", attrs, {Shape{1, 3, 4, 4}, Shape{2, 5, 2, 2}}),
                    {"input arg1", "batch"}));

  attrs["multi_input_mode"] = "sum";
  r = InferOpShape("UpSampling", attrs, {Shape{1, 3, 4, 4}, Shape{1, 3, 8, 8}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 3, 8, 8}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("UpSampling", attrs, {Shape{1, 3, 4, 4}, Shape{1, 5, 4, 4}}),
                    {"input arg1", "channels"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("UpSampling", attrs, {Shape{1, 3, 4}, Shape{1, 3, 4, 4}}),
                            {"input arg0", "4 dims"}));
}

TEST(UpSamplingTest, Bilinear) {
  AttrMap attrs = {
      {"scale", "2"}, {"sample_type", "bilinear"}, {"num_args", "1"}, {"num_filter", "3"}};
  EXPECT_EQ(InputNames("UpSampling", attrs), (std::vector<std::string>{"data", "weight"}));
  auto r = InferOpShape("UpSampling", attrs, {Shape{1, 3, 4, 4}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{3, 1, 4, 4}));
  EXPECT_EQ(r->out[0], (Shape{1, 3, 8, 8}));
  attrs["scale"] = "3";
  r = InferOpShape("UpSampling", attrs, {Shape{2, 3, 5, 6}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{3, 1, 5, 5}));
  EXPECT_EQ(r->out[0], (Shape{2, 3, 15, 18}));
  r = InferOpShape("UpSampling", attrs, {kUnknown, Shape{3, 1, 5, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{X, 3, X, X}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("UpSampling", attrs, {Shape{1, 4, 4, 4}, kUnknown}),
                            {"num_filter", "[1,4,4,4]"}));
}

TEST(UpSamplingTest, BadAttributes) {
  EXPECT_TRUE(ErrorContains(
      ParseStatus("UpSampling", {{"scale", "0"}, {"sample_type", "nearest"}, {"num_args", "1"}}),
      {"scale"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("UpSampling", {{"scale", "2"}, {"num_args", "1"}}),
                            {"sample_type", "missing"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("UpSampling", {{"scale", "2"}, {"sample_type", "bicubic"}, {"num_args", "1"}}),
      {"sample_type", "bicubic"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("UpSampling", {{"scale", "2"}, {"sample_type", "bilinear"}, {"num_args", "3"}}),
      {"num_args"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("UpSampling", {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "0"}}),
      {"num_args"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("UpSampling", {{"scale", "2"},
                                                       {"sample_type", "nearest"},
                                                       {"num_args", "1"},
                                                       {"multi_input_mode", "max"}}),
                            {"multi_input_mode"}));
}

TEST(UpSamplingTest, Gradient) {
  GradCase c = Differentiate("UpSampling",
                             {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "2"}}, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ExpectBackward(c, "_backward_UpSampling", 2, {Out(c.head)});
  c = Differentiate(
      "UpSampling",
      {{"scale", "2"}, {"sample_type", "bilinear"}, {"num_args", "2"}, {"num_filter", "4"}}, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ExpectBackward(c, "_backward_UpSampling", 2, {Out(c.head), c.node->inputs[0], c.node->inputs[1]});
}

}  // namespace
}  // namespace symx
