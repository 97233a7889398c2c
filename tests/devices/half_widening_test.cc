// Half-precision nodes of CPU ops whose kernels compute in float32/float64
// only (devices/half_widening.h): results equal the float32 computation on
// the same (rounded) values, rounded once, for forward, backward and
// grad_req add.
#include "devices/half_widening.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "executor/executor.h"
#include "graph/error.h"
#include "graph/op.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

struct Run {
  std::vector<double> out;
  std::map<std::string, std::vector<double>> grads;
};

// Binds `net` with every argument of `dtype`, fills the arguments with fixed
// values rounded to `round_to` (so float32 and half runs see equal inputs),
// runs forward and backward (head gradient of ones) `times` times.
Run Bind(const Symbol& net, const std::map<std::string, Shape>& shapes, DType dtype, DType round_to,
         GradReq req = GradReq::kWrite, int times = 1) {
  SimpleBindOptions o;
  o.shapes = shapes;
  o.grad_req = req;
  std::map<std::string, DType> types;
  for (const std::string& a : net.ListArguments()) types[a] = dtype;
  o.type_dict = types;
  std::unique_ptr<Executor> exe = Executor::SimpleBind(net, o);
  for (auto& [name, t] : exe->arg_dict()) {
    std::vector<double> v(t.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.5 * std::sin(0.7 * i + 3.0 * name.size());
    Tensor rounded = ValueOrThrow(
        CopyToNew(Tensor::FromVector(t.shape(), v, DType::kFloat64), Context::CPU(), round_to));
    ThrowIfError(CopyTensor(rounded, t));
  }
  Run r;
  for (int k = 0; k < times; ++k) {
    exe->Forward(true);
    std::vector<Tensor> heads;
    for (const Tensor& out : exe->outputs()) {
      heads.push_back(ValueOrThrow(Tensor::Zeros(out.shape(), out.dtype())));
      std::vector<double> ones(out.size(), 1.0);
      ThrowIfError(CopyTensor(Tensor::FromVector(out.shape(), ones, out.dtype()), heads.back()));
    }
    exe->Backward(heads);
  }
  r.out = exe->outputs()[0].ToDoubles();
  for (const auto& [name, g] : exe->grad_dict()) {
    if (g.defined()) r.grads[name] = g.ToDoubles();
  }
  return r;
}

// Every value of `got` within `tol` (relative to the largest of `want`).
void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, double tol,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double top = 1e-30;
  for (double v : want) top = std::max(top, std::abs(v));
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * top) << what << " [" << i << "]";
  }
}

void ExpectLikeFloat32(const Symbol& net, const std::map<std::string, Shape>& shapes,
                       GradReq req = GradReq::kWrite, int times = 1) {
  for (DType dt : {DType::kFloat16, DType::kBFloat16}) {
    // float16 keeps 11 significant bits, bfloat16 8.
    const double tol = dt == DType::kFloat16 ? 4e-3 : 3e-2;
    Run half = Bind(net, shapes, dt, dt, req, times);
    Run wide = Bind(net, shapes, DType::kFloat32, dt, req, times);
    ExpectClose(half.out, wide.out, tol, DTypeName(dt) + " output");
    ASSERT_EQ(half.grads.size(), wide.grads.size());
    for (const auto& [name, g] : wide.grads) {
      ExpectClose(half.grads.at(name), g, tol, DTypeName(dt) + " gradient of " + name);
    }
  }
}

Symbol Fc(int hidden) {
  return OpCall("FullyConnected")
      .Name("fc")
      .Attr("num_hidden", hidden)
      .Input("data", Symbol::Variable("x"))
      .Input("weight", Symbol::Variable("w"))
      .Input("bias", Symbol::Variable("b"));
}

TEST(HalfWidening, FullyConnected) { ExpectLikeFloat32(Fc(7), {{"x", Shape{5, 12}}}); }

TEST(HalfWidening, ConvolutionAndPooling) {
  Symbol conv = OpCall("Convolution")
                    .Name("conv")
                    .Attr("num_filter", 4)
                    .Attr("kernel", "(3, 3)")
                    .Attr("pad", "(1, 1)")
                    .Input("data", Symbol::Variable("x"))
                    .Input("weight", Symbol::Variable("w"))
                    .Input("bias", Symbol::Variable("b"));
  Symbol pool = OpCall("Pooling")
                    .Name("pool")
                    .Attr("kernel", "(2, 2)")
                    .Attr("stride", "(2, 2)")
                    .Attr("pool_type", "avg")
                    .Input("data", conv);
  ExpectLikeFloat32(pool, {{"x", Shape{2, 3, 6, 6}}});
}

TEST(HalfWidening, GradReqAddAccumulatesInTheHalfArrays) {
  ExpectLikeFloat32(Fc(3), {{"x", Shape{4, 6}}}, GradReq::kAdd, /*times=*/3);
}

TEST(HalfWidening, Bfloat16ActivationWidensAndFloat16StaysNative) {
  const std::vector<DType> f16 = {DType::kFloat16, DType::kFloat16};
  const std::vector<DType> bf16 = {DType::kBFloat16, DType::kBFloat16};
  EXPECT_EQ(HalfWideningKernel("Activation", f16), nullptr);  // a float16 CPU kernel exists
  EXPECT_NE(HalfWideningKernel("Activation", bf16), nullptr);
  EXPECT_NE(HalfWideningKernel("FullyConnected", f16), nullptr);
  EXPECT_EQ(HalfWideningKernel("FullyConnected", {DType::kFloat32}), nullptr);
  EXPECT_EQ(HalfWideningKernel("Cast", bf16), nullptr);  // converts on purpose
  for (const std::string& op : HalfWidenedOps()) {
    EXPECT_NE(OpRegistry::Global().Find(op), nullptr) << op;
    EXPECT_NE(KernelRegistry::Find(op, DeviceType::kCPU), nullptr) << op;
  }
  // Declared where each kernel is registered (KernelInfo::widening).
  EXPECT_EQ(HalfWidenedOps(),
            (std::vector<std::string>{"BatchNorm",
                                      "BatchNorm_v1",
                                      "Convolution",
                                      "Convolution_v1",
                                      "Deconvolution",
                                      "Dropout",
                                      "Embedding",
                                      "FullyConnected",
                                      "IdentityAttachKLSparseReg",
                                      "LayerNorm",
                                      "LinearRegressionOutput",
                                      "LogisticRegressionOutput",
                                      "MAERegressionOutput",
                                      "MakeLoss",
                                      "Pooling",
                                      "Pooling_v1",
                                      "SVMOutput",
                                      "SoftmaxOutput",
                                      "_backward_BatchNorm",
                                      "_backward_Convolution",
                                      "_backward_Deconvolution",
                                      "_backward_DeformableConvolution",
                                      "_backward_Dropout",
                                      "_backward_Embedding",
                                      "_backward_FullyConnected",
                                      "_backward_LayerNorm",
                                      "_backward_LinearRegressionOutput",
                                      "_backward_LogisticRegressionOutput",
                                      "_backward_MAERegressionOutput",
                                      "_backward_MakeLoss",
                                      "_backward_ModulatedDeformableConvolution",
                                      "_backward_Pooling",
                                      "_backward_Pooling_v1",
                                      "_backward_SVMOutput",
                                      "_backward_SoftmaxOutput",
                                      "_backward_SyncBatchNorm",
                                      "_backward_batch_dot",
                                      "_backward_dot",
                                      "_backward_interleaved_matmul_encdec_qk",
                                      "_backward_interleaved_matmul_encdec_valatt",
                                      "_backward_interleaved_matmul_selfatt_qk",
                                      "_backward_interleaved_matmul_selfatt_valatt",
                                      "_backward_log_softmax",
                                      "_backward_max",
                                      "_backward_mean",
                                      "_backward_min",
                                      "_backward_moments",
                                      "_backward_nanprod",
                                      "_backward_nansum",
                                      "_backward_norm",
                                      "_backward_prod",
                                      "_backward_softmax",
                                      "_backward_softmax_cross_entropy",
                                      "_backward_sum",
                                      "_contrib_BatchNormWithReLU",
                                      "_contrib_DeformableConvolution",
                                      "_contrib_ModulatedDeformableConvolution",
                                      "_contrib_SyncBatchNorm",
                                      "_contrib_interleaved_matmul_encdec_qk",
                                      "_contrib_interleaved_matmul_encdec_valatt",
                                      "_contrib_interleaved_matmul_selfatt_qk",
                                      "_contrib_interleaved_matmul_selfatt_valatt",
                                      "_symx_fused_conv",
                                      "batch_dot",
                                      "dot",
                                      "khatri_rao",
                                      "log_softmax",
                                      "max",
                                      "mean",
                                      "min",
                                      "moments",
                                      "nanprod",
                                      "nansum",
                                      "norm",
                                      "prod",
                                      "softmax",
                                      "softmax_cross_entropy",
                                      "sum"}));
  for (const char* op : {"Cast", "_backward_Cast", "_CrossDeviceCopy"}) {
    EXPECT_EQ(HalfWideningKernel(op, bf16), nullptr) << op;
  }
}

}  // namespace
}  // namespace symx
