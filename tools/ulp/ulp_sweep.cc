#include "tools/ulp/ulp_sweep.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/half.h"  // part of //devices:tensor
#include "devices/tensor.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "graph/symbol.h"
#include "tools/ulp/ulp_error.h"

namespace symx::ulp {
namespace {

Format FormatOf(DType dtype) {
  switch (dtype) {
    case DType::kFloat64:
      return kFloat64;
    case DType::kFloat16:
      return kFloat16;
    case DType::kBFloat16:
      return kBFloat16;
    default:
      return kFloat32;
  }
}

// Element i of a host tensor of a float dtype, exactly.
long double ValueAt(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kFloat64:
      return t.read_data<double>()[i];
    case DType::kFloat16:
      return HalfToFloat(t.read_data<uint16_t>()[i]);
    case DType::kBFloat16:
      return BFloat16ToFloat(t.read_data<uint16_t>()[i]);
    default:
      return t.read_data<float>()[i];
  }
}

// The inputs of one sweep, produced a chunk at a time into a host tensor.
class InputSource {
 public:
  explicit InputSource(const SweepOptions& o) : o_(o), rng_(20261127) {
    switch (o.dtype) {
      case DType::kFloat16:
      case DType::kBFloat16:
        total_ = 1 << 16;
        break;
      case DType::kFloat64:
        total_ = o.float64_samples * (o.coverage == Coverage::kFull ? 16 : 1);
        break;
      default:
        total_ = o.coverage == Coverage::kFull
                     ? (int64_t{1} << 32)
                     : static_cast<int64_t>(((uint64_t{1} << 32) + o.float32_stride - 1) /
                                            o.float32_stride);
    }
  }
  int64_t total() const { return total_; }

  // Writes inputs [begin, begin + n) into `t` (n <= t.size(); the rest zero).
  void Fill(int64_t begin, int64_t n, const Tensor& t) {
    std::memset(t.raw_data(), 0, t.nbytes());
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t k = static_cast<uint64_t>(begin + i);
      switch (o_.dtype) {
        case DType::kFloat16:
        case DType::kBFloat16:
          t.data<uint16_t>()[i] = static_cast<uint16_t>(k);
          break;
        case DType::kFloat64: {
          double v;
          if (k % 2 == 0) {
            const uint64_t bits = rng_();
            std::memcpy(&v, &bits, sizeof v);
          } else {
            v = std::uniform_real_distribution<double>(-40, 40)(rng_);
          }
          t.data<double>()[i] = v;
          break;
        }
        default: {
          const uint32_t bits =
              static_cast<uint32_t>(o_.coverage == Coverage::kFull ? k : k * o_.float32_stride);
          float v;
          std::memcpy(&v, &bits, sizeof v);
          t.data<float>()[i] = v;
        }
      }
    }
  }

 private:
  const SweepOptions& o_;
  std::mt19937_64 rng_;
  int64_t total_ = 0;
};

// Folds the errors of elements [0, n) of one chunk into `r`, on every core.
void Compare(const UlpCase& c, const Format& f, const Tensor& in, const Tensor& out, int64_t n,
             SweepResult& r) {
  const int threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<SweepResult> part(threads);
  std::vector<std::thread> pool;
  for (int w = 0; w < threads; ++w) {
    pool.emplace_back([&, w] {
      SweepResult& p = part[w];
      for (int64_t i = w; i < n; i += threads) {
        const long double x = ValueAt(in, i);
        const long double want = c.reference(x);
        const long double got = ValueAt(out, i);
        const long double e = UlpError(f, got, want);
        if (e > r.bound && r.bound > 0) ++p.over_bound;
        if (e > p.max_ulp || (std::isnan(e) && !std::isnan(p.max_ulp))) {
          p.max_ulp = e;
          p.worst_input = static_cast<double>(x);
          p.worst_got = got;
          p.worst_want = want;
        }
      }
    });
  }
  for (auto& t : pool) t.join();
  for (const SweepResult& p : part) {
    r.over_bound += p.over_bound;
    if (p.max_ulp > r.max_ulp) {
      r.max_ulp = p.max_ulp;
      r.worst_input = p.worst_input;
      r.worst_got = p.worst_got;
      r.worst_want = p.worst_want;
    }
  }
  r.tested += n;
}

// `values` as a constant vector: one _full per run of equal values.
Symbol ConstantVector(const std::vector<double>& values, DType dtype) {
  OpCall concat("Concat");
  int parts = 0;
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    while (j < values.size() && values[j] == values[i]) ++j;
    concat.Input(OpCall("_full")
                     .Attr("shape", absl::StrCat("(", j - i, ",)"))
                     .Attr("value", absl::StrCat(values[i]))
                     .Attr("dtype", std::string(DTypeName(dtype)))
                     .Build());
    ++parts;
    i = j;
  }
  return concat.Attr("dim", "0").Attr("num_args", absl::StrCat(parts)).Build();
}

// One step of a 1-unit RNN over the n values of x (Form::kRnnTanhGate,
// kLstmSigmoidGate). MXNet's parameter layout per gate block: input weights,
// hidden weights, input biases, hidden biases; LSTM gates in the order i, f,
// g, o.
Symbol RnnGate(const Symbol& x, int64_t n, bool lstm, DType dtype) {
  const Symbol data = OpCall("Reshape").Attr("shape", "(1, -1, 1)").Input(x).Build();
  const std::string state_shape = absl::StrCat("(1, ", n, ", 1)");
  const std::string type(DTypeName(dtype));
  const Symbol state =
      OpCall("_full").Attr("shape", state_shape).Attr("value", "0").Attr("dtype", type).Build();
  OpCall rnn("RNN");
  rnn.Attr("state_size", "1").Attr("num_layers", "1").Input(data);
  if (!lstm) {
    rnn.Attr("mode", "rnn_tanh").Input(ConstantVector({1, 0, 0, 0}, dtype)).Input(state);
    return OpCall("Reshape").Attr("shape", "(-1,)").Input(rnn.Build()).Build();
  }
  // W_x = (1, 0, 0, 0), W_h = 0, b_x = (0, 0, 20, 0), b_h = 0: c = sigmoid(x) tanh(20).
  rnn.Attr("mode", "lstm").Attr("state_outputs", "1");
  rnn.Input(ConstantVector({1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 0, 0}, dtype));
  rnn.Input(state).Input(state);
  return OpCall("Reshape").Attr("shape", "(-1,)").Input(rnn.Build()[2]).Build();
}

// The case's operator applied to x (n values) as its Form says.
Symbol Measured(const UlpCase& c, const Symbol& x, int64_t n, DType dtype) {
  if (c.form == Form::kRnnTanhGate || c.form == Form::kLstmSigmoidGate) {
    return RnnGate(x, n, c.form == Form::kLstmSigmoidGate, dtype);
  }
  OpCall call(c.op);
  for (const auto& [k, v] : c.attrs) call.Attr(k, v);
  if (c.form == Form::kElementwise) return call.Input(x).Build();
  // kRowWithZero: op(stack([x, 0], axis=1), axis=1)[:, 0].
  const Symbol zero = OpCall("zeros_like").Input(x).Build();
  const Symbol rows =
      OpCall("stack").Attr("axis", "1").Attr("num_args", "2").Input(x).Input(zero).Build();
  const Symbol first = OpCall("slice_axis")
                           .Attr("axis", "1")
                           .Attr("begin", "0")
                           .Attr("end", "1")
                           .Input(call.Input(rows).Build())
                           .Build();
  return OpCall("Reshape").Attr("shape", "(-1,)").Input(first).Build();
}

}  // namespace

absl::StatusOr<SweepResult> Sweep(const UlpCase& c, const SweepOptions& options) {
  SweepResult result;
  auto it = c.bound.find(options.dtype);
  result.bound = it == c.bound.end() ? 0 : it->second;
  InputSource source(options);
  const int64_t chunk = std::min(options.chunk, source.total());
  std::unique_ptr<Executor> exe;
  try {
    const Symbol y = Measured(c, Symbol::Variable("x"), chunk, options.dtype);
    exe =
        Executor::SimpleBind(y, {.ctx = options.ctx,
                                 .shapes = {{"x", Shape{chunk}}},
                                 .grad_req = GradReq::kNull,
                                 .type_dict = std::map<std::string, DType>{{"x", options.dtype}}});
  } catch (const Error& e) {
    return absl::FailedPreconditionError(
        absl::StrCat(c.name, " in ", DTypeName(options.dtype), ": ", e.what()));
  }
  auto in = Tensor::Empty(Shape{chunk}, options.dtype);
  if (!in.ok()) return in.status();
  const Format f = FormatOf(options.dtype);
  for (int64_t begin = 0; begin < source.total(); begin += chunk) {
    const int64_t n = std::min(chunk, source.total() - begin);
    source.Fill(begin, n, *in);
    try {
      exe->Forward(false, {{"x", *in}});
    } catch (const Error& e) {
      return absl::InternalError(absl::StrCat(c.name, ": ", e.what()));
    }
    auto out = CopyToNew(exe->outputs()[0], Context::CPU(0), options.dtype);
    if (!out.ok()) return out.status();
    Compare(c, f, *in, *out, n, result);
  }
  return result;
}

}  // namespace symx::ulp
