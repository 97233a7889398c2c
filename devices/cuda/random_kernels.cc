// CUDA kernels of the random family (graph/ops/random.cc): _random_X,
// _random_X_like, _sample_X, _random_randint, _shuffle and
// _sample_multinomial (with its backward) and _sample_unique_zipfian. Each call takes one key
// from the device's generator, as the CPU kernels do (devices/cpu/
// random_kernels.cc); the draws are devices/cuda/random.cu's.
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/random_launch.h"
#include "devices/geometry/random_operands.h"
#include "graph/ops/random.h"

namespace symx {
namespace cuda {
namespace {

// _random_X and _random_X_like (whose input only gives the shape).
absl::Status RandomForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<RandomParam>();
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, out.dtype()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchRandomDraws(t, static_cast<int>(p.dist), device->rng()(), nullptr, nullptr, p.a,
                             p.b, 1, out.raw_data(), out.size(), device->stream()));
  return absl::OkStatus();
}

absl::Status SampleForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<SampleParam>();
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(const int64_t params, SampleParamCount(ctx));
  if (params == 0) return absl::OkStatus();  // an empty output
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, out.dtype()));
  double* wide = static_cast<double*>(ctx.workspace.raw_data());
  for (size_t k = 0; k < ctx.inputs.size(); ++k) {
    SYMX_ASSIGN_OR_RETURN(Elem from, AnyElem(ctx, ctx.inputs[k].dtype()));
    SYMX_CUDA_LAUNCH(ctx, LaunchCast(from, ctx.inputs[k].read_raw_data(), Elem::kF64,
                                     wide + k * params, params, device->stream()));
  }
  const double* pb = ctx.inputs.size() > 1 ? wide + params : nullptr;
  SYMX_CUDA_LAUNCH(
      ctx, LaunchRandomDraws(t, static_cast<int>(p.dist), device->rng()(), wide, pb, 0.0, 0.0,
                             out.size() / params, out.raw_data(), out.size(), device->stream()));
  return absl::OkStatus();
}

absl::Status RandIntForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<RandIntParam>();
  const Tensor& out = ctx.outputs[0];
  if (!(p.low < p.high)) return Fail(ctx, "high must be greater than low");
  SYMX_ASSIGN_OR_RETURN(Elem t, AnyElem(ctx, out.dtype()));
  if (t != Elem::kI32 && t != Elem::kI64) return UnsupportedDType(ctx, out.dtype());
  const uint64_t range = static_cast<uint64_t>(p.high) - static_cast<uint64_t>(p.low);
  SYMX_CUDA_LAUNCH(ctx, LaunchRandInt(t, device->rng()(), p.low, range, out.raw_data(), out.size(),
                                      device->stream()));
  return absl::OkStatus();
}

size_t ShuffleWorkspace(const NodeAttrs&, const std::vector<Shape>& in_shapes,
                        const std::vector<Shape>&, DType) {
  const Shape& s = in_shapes[0];
  return s.ndim() > 0 ? static_cast<size_t>(s[0]) * sizeof(int64_t) : 0;
}

absl::Status ShuffleForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  if (in.size() != out.size()) return Fail(ctx, "output size differs from the data's");
  if (in.shape().ndim() == 0 || in.size() == 0) return CopyOnStream(ctx, in, out);
  const int64_t rows = in.shape()[0];
  if (ctx.workspace.nbytes() < static_cast<size_t>(rows) * sizeof(int64_t)) {
    return Fail(ctx, "workspace too small for the permutation");
  }
  SYMX_CUDA_LAUNCH(
      ctx, LaunchShuffle(device->rng()(), static_cast<int64_t*>(ctx.workspace.raw_data()), rows,
                         DTypeSize(in.dtype()), in.size() / rows, in.read_raw_data(),
                         out.raw_data(), device->stream()));
  return absl::OkStatus();
}

absl::Status MultinomialForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& data = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const int64_t k = data.shape().ndim() > 0 ? data.shape()[data.shape().ndim() - 1] : 0;
  if (k <= 0 || data.size() == 0) return Fail(ctx, "no categories to draw from");
  const int64_t rows = data.size() / k;
  const int64_t m = out.size() / rows;
  if (m * rows != out.size()) return Fail(ctx, "output size does not fit the input's rows");
  void* log_prob = nullptr;
  if (ctx.outputs.size() > 1) {
    if (ctx.outputs[1].size() != out.size()) return Fail(ctx, "prob's size differs from output's");
    log_prob = ctx.outputs[1].raw_data();
  }
  SYMX_ASSIGN_OR_RETURN(Elem pt, FloatElem(ctx, data.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem st, AnyElem(ctx, out.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchMultinomial(pt, st, device->rng()(), data.read_raw_data(), rows, k, m,
                                          out.raw_data(), log_prob, device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd of the log-probabilities, data, the samples.
absl::Status MultinomialBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& ograd = ctx.inputs[0];
  const Tensor& data = ctx.inputs[1];
  const Tensor& sample = ctx.inputs[2];
  const Tensor& grad = ctx.outputs[0];
  const int64_t k = data.shape().ndim() > 0 ? data.shape()[data.shape().ndim() - 1] : 0;
  if (k <= 0 || data.size() == 0 || grad.size() != data.size() || ograd.size() != sample.size()) {
    return Fail(ctx, "operands do not fit the probabilities");
  }
  const int64_t rows = data.size() / k;
  SYMX_ASSIGN_OR_RETURN(Elem pt, FloatElem(ctx, data.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem st, AnyElem(ctx, sample.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchMultinomialGrad(pt, st, ograd.read_raw_data(), data.read_raw_data(),
                                              sample.read_raw_data(), rows, k, sample.size() / rows,
                                              grad.raw_data(), device->stream()));
  return absl::OkStatus();
}

size_t UniqueZipfianWorkspace(const NodeAttrs& attrs, const std::vector<Shape>&,
                              const std::vector<Shape>& out_shapes, DType) {
  const auto& p = Param<UniqueZipfianParam>(attrs);
  const int64_t rows = out_shapes[0].ndim() == 2 ? out_shapes[0][0] : 0;
  return static_cast<size_t>(rows * ((p.range_max + 63) / 64)) * sizeof(uint64_t);
}

absl::Status UniqueZipfianForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<UniqueZipfianParam>();
  const Tensor& samples = ctx.outputs[0];
  const Tensor& tries = ctx.outputs[1];
  if (samples.shape().ndim() != 2 || samples.dtype() != DType::kInt64 ||
      tries.dtype() != DType::kInt64 || tries.size() != samples.shape()[0]) {
    return Fail(ctx, absl::StrCat("outputs ", samples.DebugString(), " and ", tries.DebugString(),
                                  " are not int64 (batch, n) and (batch,)"));
  }
  const int64_t rows = samples.shape()[0], n = samples.shape()[1];
  if (n > p.range_max) {
    return Fail(ctx, absl::StrCat("cannot sample ", n, " distinct classes of ", p.range_max));
  }
  const size_t need = static_cast<size_t>(rows * ((p.range_max + 63) / 64)) * sizeof(uint64_t);
  if (ctx.workspace.nbytes() < need) return Fail(ctx, "workspace too small for the bitmaps");
  SYMX_CUDA_LAUNCH(
      ctx, LaunchUniqueZipfian(device->rng()(), p.range_max, rows, n,
                               static_cast<uint64_t*>(ctx.workspace.raw_data()),
                               samples.data<int64_t>(), tries.data<int64_t>(), device->stream()));
  return absl::OkStatus();
}

const bool kRegistered = [] {
  for (const char* name : kRandomDistributionNames) {
    const std::string n = name;
    KernelRegistry::Register("_random_" + n, DeviceType::kGPU, KernelInfo{.fn = RandomForward});
    KernelRegistry::Register("_random_" + n + "_like", DeviceType::kGPU,
                             KernelInfo{.fn = RandomForward});
    KernelRegistry::Register("_sample_" + n, DeviceType::kGPU,
                             KernelInfo{.fn = SampleForward, .workspace = SampleWorkspace});
  }
  return true;
}();

}  // namespace

SYMX_REGISTER_KERNEL("_random_randint", kGPU, RandIntForward);
SYMX_REGISTER_KERNEL("_shuffle", kGPU, .fn = ShuffleForward, .workspace = ShuffleWorkspace);
SYMX_REGISTER_KERNEL("_sample_multinomial", kGPU, MultinomialForward);
SYMX_REGISTER_KERNEL("_sample_unique_zipfian", kGPU, .fn = UniqueZipfianForward,
                     .workspace = UniqueZipfianWorkspace);
SYMX_REGISTER_KERNEL("_backward_sample_multinomial", kGPU, MultinomialBackward);

}  // namespace cuda
}  // namespace symx
