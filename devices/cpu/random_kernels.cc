// CPU kernels of the random family (graph/ops/random.cc): _random_X,
// _random_X_like, _sample_X, _random_randint, _shuffle and
// _sample_multinomial (with its backward) and _sample_unique_zipfian.
//
// Each call takes one key from the device's generator (ctx.device->rng(),
// seeded by SeedAllDevices / mx.random.seed) and output element i draws from
// its own Philox stream (devices/geometry/random_draws.h), so the numbers
// depend on the seed and the call's place in the device's sequence of draws,
// never on the thread count. Values are drawn in double and rounded once to
// the output's dtype (float16 included: no widening needed).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/geometry/random_draws.h"
#include "devices/geometry/random_operands.h"
#include "graph/ops/random.h"

namespace symx {
namespace cpu {
namespace {

static_assert(
    static_cast<int>(RandomDistribution::kUniform) == static_cast<int>(RandomDraw::kUniform) &&
        static_cast<int>(RandomDistribution::kNormal) == static_cast<int>(RandomDraw::kNormal) &&
        static_cast<int>(RandomDistribution::kGamma) == static_cast<int>(RandomDraw::kGamma) &&
        static_cast<int>(RandomDistribution::kExponential) ==
            static_cast<int>(RandomDraw::kExponential) &&
        static_cast<int>(RandomDistribution::kPoisson) == static_cast<int>(RandomDraw::kPoisson) &&
        static_cast<int>(RandomDistribution::kNegativeBinomial) ==
            static_cast<int>(RandomDraw::kNegativeBinomial) &&
        static_cast<int>(RandomDistribution::kGeneralizedNegativeBinomial) ==
            static_cast<int>(RandomDraw::kGeneralizedNegativeBinomial),
    "the schemas' and the kernels' distributions differ");

// Rough cost of one draw in scalar operations (Philox, logarithms, the
// rejection loops' expected rounds), for ParallelFor's split.
constexpr double kDrawCost = 200.0;

absl::StatusOr<uint64_t> CallKey(const KernelContext& ctx) {
  if (ctx.device == nullptr) return Fail(ctx, "no device to draw random numbers from");
  return ctx.device->rng()();
}

// out[i] = a draw of `dist` with the parameters of distribution i / block
// (pa/pb when given, else the scalars a/b).
template <typename T>
void FillDraws(const KernelContext& ctx, uint64_t key, RandomDraw dist, const double* pa,
               const double* pb, double a, double b, int64_t block, T* out, int64_t n) {
  ParallelFor(ctx, n, kDrawCost, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t j = i / block;
      RandomStream s(key, static_cast<uint64_t>(i));
      out[i] =
          FromDouble<T>(DrawSample(dist, pa != nullptr ? pa[j] : a, pb != nullptr ? pb[j] : b, &s));
    }
  });
}

// _random_X and _random_X_like (whose input only gives the shape).
absl::Status RandomForward(const KernelContext& ctx) {
  const auto& p = ctx.param<RandomParam>();
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(uint64_t key, CallKey(ctx));
  const auto dist = static_cast<RandomDraw>(p.dist);
  SYMX_FLOAT_STORAGE_SWITCH(
      ctx, out.dtype(), T,
      FillDraws<T>(ctx, key, dist, nullptr, nullptr, p.a, p.b, 1, out.data<T>(), out.size()));
  return absl::OkStatus();
}

absl::Status SampleForward(const KernelContext& ctx) {
  const auto& p = ctx.param<SampleParam>();
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(const int64_t params, SampleParamCount(ctx));
  if (params == 0) return absl::OkStatus();  // an empty output
  double* wide = reinterpret_cast<double*>(ctx.workspace.raw_data());
  for (size_t k = 0; k < ctx.inputs.size(); ++k) {
    const Tensor& in = ctx.inputs[k];
    double* dst = wide + k * params;
    bool known = true;
    SYMX_DTYPE_SWITCH_ALL(in.dtype(), T, {
      const T* src = in.read_data<T>();
      for (int64_t j = 0; j < params; ++j) dst[j] = ToDouble<T>(src[j]);
    });
    if (in.dtype() == DType::kUnknown) known = false;
    if (!known) return UnsupportedDType(ctx, in.dtype());
  }
  SYMX_ASSIGN_OR_RETURN(uint64_t key, CallKey(ctx));
  const double* pb = ctx.inputs.size() > 1 ? wide + params : nullptr;
  const auto dist = static_cast<RandomDraw>(p.dist);
  SYMX_FLOAT_STORAGE_SWITCH(ctx, out.dtype(), T,
                            FillDraws<T>(ctx, key, dist, wide, pb, 0.0, 0.0, out.size() / params,
                                         out.data<T>(), out.size()));
  return absl::OkStatus();
}

template <typename T>
void FillRandInt(const KernelContext& ctx, uint64_t key, int64_t low, uint64_t range, T* out,
                 int64_t n) {
  ParallelFor(ctx, n, kDrawCost, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      RandomStream s(key, static_cast<uint64_t>(i));
      out[i] = static_cast<T>(static_cast<uint64_t>(low) + DrawBelow(range, &s));
    }
  });
}

absl::Status RandIntForward(const KernelContext& ctx) {
  const auto& p = ctx.param<RandIntParam>();
  const Tensor& out = ctx.outputs[0];
  if (!(p.low < p.high)) return Fail(ctx, "high must be greater than low");
  SYMX_ASSIGN_OR_RETURN(uint64_t key, CallKey(ctx));
  const uint64_t range = static_cast<uint64_t>(p.high) - static_cast<uint64_t>(p.low);
  switch (out.dtype()) {
    case DType::kInt32:
      FillRandInt(ctx, key, p.low, range, out.data<int32_t>(), out.size());
      return absl::OkStatus();
    case DType::kInt64:
      FillRandInt(ctx, key, p.low, range, out.data<int64_t>(), out.size());
      return absl::OkStatus();
    default:
      return UnsupportedDType(ctx, out.dtype());
  }
}

// _shuffle: a Fisher-Yates permutation of the rows drawn from one stream
// (element 0 of the call's key), so the CUDA kernel draws the same one; the
// rows are then gathered in parallel.
size_t ShuffleWorkspace(const NodeAttrs&, const std::vector<Shape>& in_shapes,
                        const std::vector<Shape>&, DType) {
  const Shape& s = in_shapes[0];
  return s.ndim() > 0 ? static_cast<size_t>(s[0]) * sizeof(int64_t) : 0;
}

absl::Status ShuffleForward(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, in, out));
  if (in.shape().ndim() == 0 || in.size() == 0) {
    if (in.size() > 0) std::memcpy(out.raw_data(), in.read_raw_data(), in.nbytes());
    return absl::OkStatus();
  }
  const int64_t rows = in.shape()[0];
  if (ctx.workspace.nbytes() < static_cast<size_t>(rows) * sizeof(int64_t)) {
    return Fail(ctx, "workspace too small for the permutation");
  }
  SYMX_ASSIGN_OR_RETURN(uint64_t key, CallKey(ctx));
  int64_t* perm = reinterpret_cast<int64_t*>(ctx.workspace.raw_data());
  ShufflePermutation(key, perm, rows);
  const size_t row_bytes = in.nbytes() / static_cast<size_t>(rows);
  const char* src = static_cast<const char*>(in.read_raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  ParallelFor(ctx, rows, static_cast<double>(row_bytes), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      std::memcpy(dst + i * row_bytes, src + perm[i] * row_bytes, row_bytes);
    }
  });
  return absl::OkStatus();
}

// _sample_multinomial: draw j of row i reads stream i * M + j and picks the
// first category whose running sum exceeds u * (the row's sum).
template <typename P, typename S>
void MultinomialRows(const KernelContext& ctx, uint64_t key, const P* prob, int64_t rows, int64_t k,
                     int64_t m, S* sample, P* log_prob) {
  ParallelFor(ctx, rows, static_cast<double>(m * k + k), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const P* p = prob + i * k;
      double total = 0;
      for (int64_t c = 0; c < k; ++c) total += ToDouble<P>(p[c]);
      for (int64_t j = 0; j < m; ++j) {
        RandomStream s(key, static_cast<uint64_t>(i * m + j));
        const int64_t c =
            PickCategory(p, k, total * s.Uniform(), [](P v) { return ToDouble<P>(v); });
        sample[i * m + j] = FromDouble<S>(static_cast<double>(c));
        if (log_prob != nullptr) log_prob[i * m + j] = FromDouble<P>(std::log(ToDouble<P>(p[c])));
      }
    }
  });
}

absl::Status MultinomialForward(const KernelContext& ctx) {
  const Tensor& data = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const int64_t k = data.shape().ndim() > 0 ? data.shape()[data.shape().ndim() - 1] : 0;
  if (k <= 0 || data.size() == 0) return Fail(ctx, "no categories to draw from");
  const int64_t rows = data.size() / k;
  const int64_t m = out.size() / rows;
  if (m * rows != out.size()) return Fail(ctx, "output size does not fit the input's rows");
  const Tensor* log_prob = ctx.outputs.size() > 1 ? &ctx.outputs[1] : nullptr;
  if (log_prob != nullptr) SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, out, *log_prob));
  SYMX_ASSIGN_OR_RETURN(uint64_t key, CallKey(ctx));
  SYMX_FLOAT_STORAGE_SWITCH(ctx, data.dtype(), P, {
    P* lp = log_prob != nullptr ? log_prob->data<P>() : nullptr;
    switch (out.dtype()) {
      case DType::kUint8:
        MultinomialRows(ctx, key, data.read_data<P>(), rows, k, m, out.data<uint8_t>(), lp);
        break;
      case DType::kInt32:
        MultinomialRows(ctx, key, data.read_data<P>(), rows, k, m, out.data<int32_t>(), lp);
        break;
      case DType::kFloat16:
        MultinomialRows(ctx, key, data.read_data<P>(), rows, k, m, out.data<float16_t>(), lp);
        break;
      case DType::kFloat32:
        MultinomialRows(ctx, key, data.read_data<P>(), rows, k, m, out.data<float>(), lp);
        break;
      case DType::kFloat64:
        MultinomialRows(ctx, key, data.read_data<P>(), rows, k, m, out.data<double>(), lp);
        break;
      default:
        return UnsupportedDType(ctx, out.dtype());
    }
  });
  return absl::OkStatus();
}

// Inputs: ograd of the log-probabilities, data, the samples. Row i's
// gradient sums ograd / p over its draws (one row per task: no races).
template <typename P, typename S>
void MultinomialGradRows(const KernelContext& ctx, const P* ograd, const P* prob, const S* sample,
                         int64_t rows, int64_t k, int64_t m, P* grad) {
  ParallelFor(ctx, rows, static_cast<double>(m + k), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      for (int64_t c = 0; c < k; ++c) grad[i * k + c] = FromDouble<P>(0.0);
      for (int64_t j = 0; j < m; ++j) {
        const auto c = static_cast<int64_t>(ToDouble<S>(sample[i * m + j]));
        if (c < 0 || c >= k) continue;
        const double g = ToDouble<P>(grad[i * k + c]) +
                         ToDouble<P>(ograd[i * m + j]) / ToDouble<P>(prob[i * k + c]);
        grad[i * k + c] = FromDouble<P>(g);
      }
    }
  });
}

absl::Status MultinomialBackward(const KernelContext& ctx) {
  const Tensor& ograd = ctx.inputs[0];
  const Tensor& data = ctx.inputs[1];
  const Tensor& sample = ctx.inputs[2];
  const Tensor& grad = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, data, grad));
  SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, ograd, sample));
  const int64_t k = data.shape().ndim() > 0 ? data.shape()[data.shape().ndim() - 1] : 0;
  if (k <= 0 || data.size() == 0) return Fail(ctx, "no categories");
  const int64_t rows = data.size() / k;
  const int64_t m = sample.size() / rows;
  SYMX_FLOAT_STORAGE_SWITCH(ctx, data.dtype(), P, {
    const P* og = ograd.read_data<P>();
    const P* pr = data.read_data<P>();
    P* g = grad.data<P>();
    switch (sample.dtype()) {
      case DType::kUint8:
        MultinomialGradRows(ctx, og, pr, sample.read_data<uint8_t>(), rows, k, m, g);
        break;
      case DType::kInt32:
        MultinomialGradRows(ctx, og, pr, sample.read_data<int32_t>(), rows, k, m, g);
        break;
      case DType::kFloat16:
        MultinomialGradRows(ctx, og, pr, sample.read_data<float16_t>(), rows, k, m, g);
        break;
      case DType::kFloat32:
        MultinomialGradRows(ctx, og, pr, sample.read_data<float>(), rows, k, m, g);
        break;
      case DType::kFloat64:
        MultinomialGradRows(ctx, og, pr, sample.read_data<double>(), rows, k, m, g);
        break;
      default:
        return UnsupportedDType(ctx, sample.dtype());
    }
  });
  return absl::OkStatus();
}

// _sample_unique_zipfian: one row per task, each with its own bitmap of the
// classes taken in the workspace.
int64_t ZipfianWords(int64_t range_max) { return (range_max + 63) / 64; }

size_t UniqueZipfianWorkspace(const NodeAttrs& attrs, const std::vector<Shape>&,
                              const std::vector<Shape>& out_shapes, DType) {
  const auto& p = Param<UniqueZipfianParam>(attrs);
  const int64_t rows = out_shapes[0].ndim() == 2 ? out_shapes[0][0] : 0;
  return static_cast<size_t>(rows * ZipfianWords(p.range_max)) * sizeof(uint64_t);
}

absl::Status UniqueZipfianForward(const KernelContext& ctx) {
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
  const int64_t words = ZipfianWords(p.range_max);
  if (ctx.workspace.nbytes() < static_cast<size_t>(rows * words) * sizeof(uint64_t)) {
    return Fail(ctx, "workspace too small for the rows' bitmaps");
  }
  SYMX_ASSIGN_OR_RETURN(uint64_t key, CallKey(ctx));
  uint64_t* seen = reinterpret_cast<uint64_t*>(ctx.workspace.raw_data());
  int64_t* out = samples.data<int64_t>();
  int64_t* count = tries.data<int64_t>();
  ParallelFor(ctx, rows, kDrawCost * static_cast<double>(n), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      std::memset(seen + i * words, 0, static_cast<size_t>(words) * sizeof(uint64_t));
      count[i] = UniqueZipfianRow(key, i, p.range_max, n, seen + i * words, out + i * n);
    }
  });
  return absl::OkStatus();
}

const bool kRegistered = [] {
  for (const char* name : kRandomDistributionNames) {
    const std::string n = name;
    KernelRegistry::Register("_random_" + n, DeviceType::kCPU, KernelInfo{.fn = RandomForward});
    KernelRegistry::Register("_random_" + n + "_like", DeviceType::kCPU,
                             KernelInfo{.fn = RandomForward});
    KernelRegistry::Register("_sample_" + n, DeviceType::kCPU,
                             KernelInfo{.fn = SampleForward, .workspace = SampleWorkspace});
  }
  return true;
}();

SYMX_REGISTER_KERNEL("_random_randint", kCPU, RandIntForward);
SYMX_REGISTER_KERNEL("_shuffle", kCPU, .fn = ShuffleForward, .workspace = ShuffleWorkspace,
                     .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_sample_multinomial", kCPU, MultinomialForward);
SYMX_REGISTER_KERNEL("_sample_unique_zipfian", kCPU, .fn = UniqueZipfianForward,
                     .workspace = UniqueZipfianWorkspace);
SYMX_REGISTER_KERNEL("_backward_sample_multinomial", kCPU, MultinomialBackward);

}  // namespace
}  // namespace cpu
}  // namespace symx
