// The mixed-precision rewrite (train/mixed_precision.h), the loss scaler
// (train/loss_scaler.h) and mixed-precision training end to end on the CPU,
// where half-precision GEMMs and convolutions compute through the float32
// widening (devices/half_widening.h).
#include "train/mixed_precision.h"

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "executor/executor.h"
#include "graph/error.h"
#include "graph/indexed_graph.h"
#include "graph/op.h"
#include "gtest/gtest.h"
#include "tests/expect_contains.h"
#include "tools/examples/models.h"
#include "train/checkpoint.h"
#include "train/loss_scaler.h"
#include "train/trainer.h"

namespace symx::train {
namespace {

// Op name -> count in the graph.
std::map<std::string, int> OpCounts(const Symbol& s) {
  std::map<std::string, int> counts;
  IndexedGraph g(s.outputs());
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    if (!g[nid].node->is_variable()) ++counts[g[nid].node->op()->name()];
  }
  return counts;
}

// The dtype of every internal output, by name, with float32 arguments.
std::map<std::string, DType> InternalTypes(const Symbol& s) {
  Symbol internals = s.GetInternals();
  TypeInference ti = internals.InferType({});
  std::vector<std::string> names = internals.ListOutputs();
  std::map<std::string, DType> out;
  for (size_t i = 0; i < names.size(); ++i) out[names[i]] = ti.out_types[i];
  return out;
}

// The classes are properties of the ops (graph/op.h); these are the ones
// registered, which the rewrite below relies on.
TEST(MixedPrecision, OpsDeclareTheirPrecisionClassAndIndexInputs) {
  std::set<std::string> float32, loss_heads;
  for (const Op* op : OpRegistry::Global().List()) {
    if (op->precision_class() == PrecisionClass::kFloat32) float32.insert(op->name());
    if (op->precision_class() == PrecisionClass::kFloat32LossHead) loss_heads.insert(op->name());
  }
  EXPECT_EQ(float32, (std::set<std::string>{"BatchNorm",
                                            "BatchNorm_v1",
                                            "_contrib_SyncBatchNorm",
                                            "_contrib_BatchNormWithReLU",
                                            "LRN",
                                            "L2Normalization",
                                            "LayerNorm",
                                            "InstanceNorm",
                                            "GroupNorm",
                                            "softmax",
                                            "log_softmax",
                                            "SoftmaxActivation",
                                            "exp",
                                            "expm1",
                                            "log",
                                            "log1p",
                                            "log2",
                                            "log10",
                                            "rsqrt",
                                            "reciprocal",
                                            "_power_scalar",
                                            "_rpower_scalar",
                                            "sum",
                                            "mean",
                                            "prod",
                                            "nansum",
                                            "nanprod",
                                            "norm",
                                            "moments",
                                            "argmax",
                                            "argmin",
                                            "argsort",
                                            "topk",
                                            "sort",
                                            "_hypot",
                                            "broadcast_hypot",
                                            "_hypot_scalar",
                                            "khatri_rao",
                                            "_linalg_gemm",
                                            "_linalg_gemm2",
                                            "_linalg_extractdiag",
                                            "_linalg_makediag",
                                            "_linalg_extracttrian",
                                            "_linalg_maketrian",
                                            "_linalg_syrk",
                                            "_linalg_sumlogdiag",
                                            "_linalg_potrf",
                                            "_linalg_potri",
                                            "_linalg_trmm",
                                            "_linalg_trsm",
                                            "_linalg_inverse",
                                            "_linalg_det",
                                            "_linalg_slogdet",
                                            "_linalg_gelqf",
                                            "_linalg_syevd",
                                            "softmax_cross_entropy",
                                            "IdentityAttachKLSparseReg"}));
  EXPECT_EQ(loss_heads, (std::set<std::string>{"SoftmaxOutput", "LinearRegressionOutput",
                                               "LogisticRegressionOutput", "MAERegressionOutput",
                                               "MakeLoss", "CTCLoss", "SVMOutput"}));
  const Op* ctc = OpRegistry::Global().Find("CTCLoss");
  EXPECT_FALSE(ctc->IsIndexInput(0));
  for (int i : {1, 2, 3}) EXPECT_TRUE(ctc->IsIndexInput(i)) << i;
  EXPECT_TRUE(OpRegistry::Global().Find("Embedding")->IsIndexInput(0));
  EXPECT_FALSE(OpRegistry::Global().Find("Embedding")->IsIndexInput(1));
  EXPECT_TRUE(OpRegistry::Global().Find("take")->IsIndexInput(1));
  for (const char* op : {"SequenceMask", "SequenceLast", "SequenceReverse"}) {
    EXPECT_FALSE(OpRegistry::Global().Find(op)->IsIndexInput(0)) << op;
    EXPECT_TRUE(OpRegistry::Global().Find(op)->IsIndexInput(1)) << op;
  }
  EXPECT_FALSE(OpRegistry::Global().Find("Convolution")->IsIndexInput(0));
}

TEST(MixedPrecision, LeNetComputesInFloat16WithFloat32HeadAndWeights) {
  Symbol net = examples::LeNet();
  Symbol low = ToMixedPrecision(net, {DType::kFloat16, /*loss_scale=*/true});
  // The same arguments, plus the loss scale; the same outputs.
  std::vector<std::string> args = net.ListArguments();
  args.push_back(kLossScaleName);
  std::vector<std::string> got = low.ListArguments();
  std::sort(args.begin(), args.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, args);
  EXPECT_EQ(low.ListOutputs(), net.ListOutputs());

  std::map<std::string, DType> types = InternalTypes(low);
  EXPECT_EQ(types.at("conv1_output"), DType::kFloat16);
  EXPECT_EQ(types.at("tanh1_output"), DType::kFloat16);
  EXPECT_EQ(types.at("fc2_output"), DType::kFloat16);
  EXPECT_EQ(types.at("softmax_output"), DType::kFloat32);
  // Weights are float32 arguments cast once each.
  EXPECT_EQ(types.at("conv1_weight_as_float16_output"), DType::kFloat16);
  TypeInference ti = low.InferType({});
  for (DType t : ti.arg_types) EXPECT_EQ(t, DType::kFloat32);

  std::map<std::string, int> ops = OpCounts(low);
  EXPECT_EQ(ops["_symx_loss_scale"], 1);
  // data, 4 weights, 4 biases down; fc2's output up for the head. The label
  // is an index input and stays as it is.
  EXPECT_EQ(ops["Cast"], 10);
  EXPECT_EQ(types.count("softmax_label_as_float16_output"), 0u);
}

TEST(MixedPrecision, Bfloat16WithoutLossScale) {
  Symbol low = ToMixedPrecision(examples::Mlp(), {DType::kBFloat16, /*loss_scale=*/false});
  EXPECT_EQ(OpCounts(low).count("_symx_loss_scale"), 0u);
  for (const std::string& a : low.ListArguments()) EXPECT_NE(a, kLossScaleName);
  EXPECT_EQ(InternalTypes(low).at("fc1_output"), DType::kBFloat16);
}

TEST(MixedPrecision, BatchNormAndIndexInputsStayFloat32) {
  Symbol idx = Symbol::Variable("idx");
  Symbol emb = OpCall("Embedding")
                   .Name("emb")
                   .Attr("input_dim", 5000)
                   .Attr("output_dim", 8)
                   .Input("data", idx)
                   .Input("weight", Symbol::Variable("emb_weight"));
  Symbol bn = OpCall("BatchNorm").Name("bn").Input("data", emb);
  Symbol act = OpCall("Activation").Name("relu").Attr("act_type", "relu").Input("data", bn);
  Symbol low = ToMixedPrecision(act, {DType::kFloat16, true});
  std::map<std::string, DType> types = InternalTypes(low);
  EXPECT_EQ(types.count("idx_as_float16_output"), 0u);  // 4097 is not a float16
  EXPECT_EQ(types.at("emb_output"), DType::kFloat16);
  EXPECT_EQ(types.at("bn_output"), DType::kFloat32);
  EXPECT_EQ(types.at("relu_output"), DType::kFloat16);
  // Aux states are read by BatchNorm as they are (no Cast can be mutated).
  TypeInference ti = low.InferType({});
  for (DType t : ti.aux_types) EXPECT_EQ(t, DType::kFloat32);
  // The graph's output keeps its float32 dtype.
  EXPECT_EQ(ti.out_types[0], DType::kFloat32);
  EXPECT_EQ(OpCounts(low).count("_symx_loss_scale"), 0u);  // no loss head
}

TEST(MixedPrecision, BadDtypeAndTakenNameAreErrors) {
  try {
    ToMixedPrecision(examples::Mlp(), {DType::kFloat64, false});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_CONTAINS(e.what(), "float16 or bfloat16, not float64");
  }
  Symbol taken = Symbol::Variable(kLossScaleName) + Symbol::Variable("x");
  try {
    ToMixedPrecision(taken, {DType::kFloat16, true});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_CONTAINS(e.what(), kLossScaleName);
  }
}

// fc1_weight's gradient of the MLP on fixed small values: in float32, or in
// float16 with the loss scale `scale` (divided out again).
std::vector<double> Fc1Grad(bool float16, double scale) {
  Symbol net = examples::Mlp();
  if (float16) net = ToMixedPrecision(net, {DType::kFloat16, true});
  SimpleBindOptions o;
  o.shapes = {{"data", Shape{8, 784}}, {"softmax_label", Shape{8}}};
  o.grad_req = GradReq::kWrite;
  std::unique_ptr<Executor> exe = Executor::SimpleBind(net, o);
  std::map<std::string, Tensor> args = exe->arg_dict();
  for (auto& [name, t] : args) {
    std::vector<double> v(t.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.01 * std::sin(0.37 * i + name.size());
    if (name == "softmax_label") {
      for (size_t i = 0; i < v.size(); ++i) v[i] = i % 10;
    }
    if (name == kLossScaleName) v = {scale};
    ThrowIfError(CopyTensor(Tensor::FromVector(t.shape(), v, t.dtype()), t));
  }
  exe->Forward(true);
  exe->Backward();
  const Tensor g = exe->grad_dict().at("fc1_weight");
  EXPECT_EQ(g.dtype(), DType::kFloat32);
  if (float16) {
    // The scale is a constant of backward.
    for (double v : exe->grad_dict().at(kLossScaleName).ToDoubles()) EXPECT_EQ(v, 0);
  }
  std::vector<double> out = g.ToDoubles();
  for (double& v : out) v /= scale;
  return out;
}

// Largest absolute difference, relative to the reference's largest value.
double RelativeError(const std::vector<double>& got, const std::vector<double>& want) {
  double err = 0, top = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    err = std::max(err, std::abs(got[i] - want[i]));
    top = std::max(top, std::abs(want[i]));
  }
  return err / top;
}

TEST(MixedPrecision, TheLossScaleKeepsSmallGradientsFromUnderflowing) {
  const std::vector<double> f32 = Fc1Grad(false, 1);
  const double unscaled = RelativeError(Fc1Grad(true, 1), f32);
  const double scaled = RelativeError(Fc1Grad(true, 1024), f32);
  // These gradients are ~1e-6, float16's subnormals, which keep a few bits:
  // scaling by 1024 brings them back to its normal range (measured: 1.5%
  // error unscaled, 0.3% scaled).
  EXPECT_GT(unscaled, 0.01);
  EXPECT_LT(scaled, unscaled / 3);
}

TEST(LossScaler, HalvesOnOverflowAndDoublesAfterTheWindow) {
  LossScalerOptions o;
  o.initial_scale = 8;
  o.window = 3;
  o.max_scale = 16;
  o.min_scale = 2;
  LossScaler s(o);
  EXPECT_FALSE(s.Update(false));
  EXPECT_EQ(s.scale(), 4);
  EXPECT_FALSE(s.Update(false));
  EXPECT_FALSE(s.Update(false));
  EXPECT_EQ(s.scale(), 2);  // the floor
  EXPECT_EQ(s.skipped(), 3);
  EXPECT_TRUE(s.Update(true));
  EXPECT_TRUE(s.Update(true));
  EXPECT_EQ(s.scale(), 2);
  EXPECT_TRUE(s.Update(true));
  EXPECT_EQ(s.scale(), 4);
  EXPECT_TRUE(s.Update(true));
  EXPECT_FALSE(s.Update(false));  // an overflow restarts the count
  EXPECT_EQ(s.scale(), 2);
  for (int i = 0; i < 6; ++i) s.Update(true);
  EXPECT_EQ(s.scale(), 8);
  for (int i = 0; i < 9; ++i) s.Update(true);
  EXPECT_EQ(s.scale(), 16);  // the ceiling
}

TEST(LossScaler, BadOptionsAreErrors) {
  LossScalerOptions o;
  o.initial_scale = 1000;
  EXPECT_THROW(LossScaler{o}, Error);
  o = LossScalerOptions();
  o.initial_scale = 2.0 * o.max_scale;
  EXPECT_THROW(LossScaler{o}, Error);
  o = LossScalerOptions();
  o.window = 0;
  EXPECT_THROW(LossScaler{o}, Error);
}

TEST(LossScaler, AllFiniteSeesInfAndNanInEveryFloatDtype) {
  for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16}) {
    EXPECT_TRUE(AllFinite(Tensor::FromVector(Shape{3}, {1, -2, 65504}, dt))) << DTypeName(dt);
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_FALSE(AllFinite(Tensor::FromVector(Shape{3}, {1, inf, 0}, dt))) << DTypeName(dt);
    EXPECT_FALSE(AllFinite(Tensor::FromVector(Shape{2}, {std::nan(""), 0}, dt))) << DTypeName(dt);
  }
  EXPECT_TRUE(AllFinite(Tensor::FromVector(Shape{2}, {7, 8}, DType::kInt32)));
  EXPECT_TRUE(AllFinite(Tensor()));
}

TrainResult TrainMlp(DType dtype, double initial_scale = 65536) {
  TrainOptions o;
  o.epochs = 2;
  o.batch_size = 50;
  o.seed = 11;
  o.dtype = dtype;
  o.loss_scaler.initial_scale = initial_scale;
  return Train(o, SyntheticDataset(3000, 500, o.seed));
}

TEST(MixedPrecisionTraining, ReachesTheFloat32Accuracy) {
  const TrainResult f32 = TrainMlp(DType::kFloat32);
  for (DType dt : {DType::kFloat16, DType::kBFloat16}) {
    const TrainResult r = TrainMlp(dt);
    ASSERT_EQ(r.epochs.size(), 2u);
    EXPECT_GT(r.epochs[1].test_accuracy, f32.epochs[1].test_accuracy - 0.01) << DTypeName(dt);
    EXPECT_LT(r.epochs[1].train_loss, 2 * f32.epochs[1].train_loss + 0.01) << DTypeName(dt);
    // The master weights and the saved symbol are the float32 model's.
    EXPECT_EQ(r.symbol.ToJson(), examples::Mlp().ToJson());
    EXPECT_EQ(r.arg_params.count(kLossScaleName), 0u);
    for (const auto& [name, t] : r.arg_params) EXPECT_EQ(t.dtype(), DType::kFloat32) << name;
    // The weights did move away from float32's trajectory: the model ran in
    // low precision.
    EXPECT_NE(r.arg_params.at("fc1_weight").ToDoubles(),
              f32.arg_params.at("fc1_weight").ToDoubles());
    if (dt == DType::kBFloat16) {
      EXPECT_EQ(r.epochs[1].loss_scale, 0);
    }
  }
}

TEST(MixedPrecisionTraining, Float16SkipsOverflowingStepsAndLowersTheScale) {
  // 2^24 overflows float16 at once: the first steps are skipped until the
  // scale comes down, and training still gets there.
  const TrainResult r = TrainMlp(DType::kFloat16, 16777216.0);
  EXPECT_GT(r.epochs[0].skipped_steps, 0);
  EXPECT_LT(r.epochs[0].loss_scale, 16777216.0);
  EXPECT_EQ(r.epochs[1].skipped_steps, 0);
  EXPECT_GT(r.epochs[1].test_accuracy, 0.95);
}

}  // namespace
}  // namespace symx::train
