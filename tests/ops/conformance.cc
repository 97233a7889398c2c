#include "tests/ops/conformance.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "executor/executor.h"
#ifdef SYMX_WITH_ONEDNN
#include "devices/cpu/onednn.h"
#endif
#include "graph/error.h"
#include "graph/op.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"

namespace symx {
namespace testing {

std::vector<Context> DevicesPresent() {
  std::vector<Context> out = {Context::CPU(0)};
  for (int i = 0; i < 16; ++i) {
    if (!GetDevice(Context::GPU(i)).ok()) break;
    out.push_back(Context::GPU(i));
  }
  return out;
}

namespace {

struct Bound {
  Symbol symbol;
  std::vector<std::string> names;  // input i's variable name
  std::unique_ptr<Executor> exe;
};

// The single-op graph over variables in0..inN-1, bound with arrays of `dtype`.
Bound BindCase(const OpCase& c, const Context& ctx, DType dtype, bool with_grads) {
  Bound b;
  OpCall call(c.op);
  call.Name("op");
  for (const auto& [k, v] : c.attrs) call.Attr(k, v);
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    b.names.push_back(absl::StrCat("in", i));
    call.Input(Symbol::Variable(b.names.back()));
  }
  b.symbol = call.Build();
  std::set<std::string> aux_names;
  for (const std::string& a : b.symbol.ListAuxiliaryStates()) aux_names.insert(a);
  std::map<std::string, Tensor> args, grads, aux;
  std::set<int> no_grad(c.no_grad.begin(), c.no_grad.end());
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    Tensor t = ValueOrThrow(Tensor::Zeros(c.shapes[i], dtype, ctx));
    if (aux_names.count(b.names[i])) {
      aux[b.names[i]] = t;
      continue;
    }
    args[b.names[i]] = t;
    if (with_grads && !no_grad.count(static_cast<int>(i))) {
      grads[b.names[i]] = ValueOrThrow(Tensor::Zeros(c.shapes[i], dtype, ctx));
    }
  }
  BindOptions opt;
  opt.ctx = ctx;
  opt.engine = c.engine;
  std::optional<ArrayArgs> g;
  if (with_grads) g = ArrayArgs(grads);
  b.exe = Executor::Bind(b.symbol, opt, ArrayArgs(args), g, ArrayArgs(aux));
  return b;
}

Values InitValues(const OpCase& c, int i, std::mt19937_64* rng) {
  if (c.init) return c.init(i, c.shapes[i]);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Values v(NumElements(c.shapes[i]));
  for (double& x : v) x = u(*rng);
  return v;
}

Tensor InputArray(const Bound& b, int i) {
  auto args = b.exe->arg_dict();
  auto it = args.find(b.names[i]);
  if (it != args.end()) return it->second;
  return b.exe->aux_dict().at(b.names[i]);
}

// Loads values (rounded to the array's dtype) and returns what was stored.
std::vector<Values> LoadInputs(const Bound& b, const std::vector<Values>& values) {
  std::vector<Values> stored;
  for (size_t i = 0; i < values.size(); ++i) {
    Tensor t = InputArray(b, static_cast<int>(i));
    Tensor src = Tensor::FromVector(t.shape(), values[i], DType::kFloat64);
    ThrowIfError(CopyTensor(src, t));
    stored.push_back(t.ToDoubles());
  }
  return stored;
}

bool Close(double got, double want, double tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tol * (1.0 + std::fabs(want));
}

void ExpectValues(const Values& got, const Values& want, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what << ": element count";
  for (size_t k = 0; k < got.size(); ++k) {
    if (!Close(got[k], want[k], tol)) {
      ADD_FAILURE() << what << ": element " << k << " is " << got[k] << ", expected " << want[k]
                    << " (tolerance " << tol << ")";
      return;
    }
  }
}

double Objective(const Executor& exe, const std::vector<Values>& heads) {
  double sum = 0;
  for (size_t k = 0; k < exe.outputs().size(); ++k) {
    Values out = exe.outputs()[k].ToDoubles();
    for (size_t j = 0; j < out.size(); ++j) sum += out[j] * heads[k][j];
  }
  return sum;
}

void CheckForward(const OpCase& c, const Context& ctx, DType dtype) {
  std::string where =
      absl::StrCat(c.name, " [", c.op, ", ", DTypeName(dtype), ", ", ctx.ToString(), "]");
  Bound b = BindCase(c, ctx, dtype, /*with_grads=*/false);
  std::mt19937_64 rng(1234);
  std::vector<Values> values;
  for (size_t i = 0; i < c.shapes.size(); ++i)
    values.push_back(InitValues(c, static_cast<int>(i), &rng));
  std::vector<Values> stored = LoadInputs(b, values);
  b.exe->Forward(c.is_train);
  std::vector<Values> want = c.reference(stored, c.shapes);
  ASSERT_EQ(want.size(), b.exe->outputs().size()) << where << ": number of outputs";
  double tol = dtype == DType::kFloat64   ? c.forward_tol64
               : dtype == DType::kFloat16 ? 2e-3
                                          : c.forward_tol32;
  for (size_t k = 0; k < want.size(); ++k) {
    ExpectValues(b.exe->outputs()[k].ToDoubles(), want[k], tol, absl::StrCat(where, " output ", k));
  }
}

void CheckBackward(const OpCase& c, const Context& ctx) {
  std::string where = absl::StrCat(c.name, " [", c.op, " backward, float64, ", ctx.ToString(), "]");
  Bound b = BindCase(c, ctx, DType::kFloat64, /*with_grads=*/true);
  std::mt19937_64 rng(1234);
  std::vector<Values> values;
  for (size_t i = 0; i < c.shapes.size(); ++i)
    values.push_back(InitValues(c, static_cast<int>(i), &rng));
  std::vector<Values> stored = LoadInputs(b, values);
  b.exe->Forward(/*is_train=*/true);
  std::vector<Values> heads;
  std::vector<Tensor> head_arrays;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const std::set<int> no_head(c.no_head_grad.begin(), c.no_head_grad.end());
  for (const Tensor& out : b.exe->outputs()) {
    Values h(out.size());
    for (double& x : h) x = u(rng);
    if (no_head.count(static_cast<int>(heads.size()))) h.assign(h.size(), 0.0);
    heads.push_back(h);
    head_arrays.push_back(Tensor::FromVector(out.shape(), h, DType::kFloat64, ctx));
  }
  b.exe->Backward(head_arrays);
  auto grads = b.exe->grad_dict();
  std::set<int> no_grad(c.no_grad.begin(), c.no_grad.end());
  std::vector<Values> expected;
  if (c.expected_grads) expected = c.expected_grads(stored, c.shapes);
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    if (no_grad.count(static_cast<int>(i)) || !grads.count(b.names[i])) continue;
    Values analytic = grads.at(b.names[i]).ToDoubles();
    std::string what = absl::StrCat(where, " gradient of input ", i);
    if (c.expected_grads) {
      if (i < expected.size() && !expected[i].empty()) {
        ExpectValues(analytic, expected[i], c.grad_tol, what);
      }
      continue;
    }
    Tensor x = InputArray(b, static_cast<int>(i));
    Values numeric(analytic.size());
    for (size_t k = 0; k < numeric.size(); ++k) {
      Values plus = stored[i], minus = stored[i];
      plus[k] += c.eps;
      minus[k] -= c.eps;
      ThrowIfError(CopyTensor(Tensor::FromVector(x.shape(), plus, DType::kFloat64), x));
      b.exe->Forward(true);
      double lp = Objective(*b.exe, heads);
      ThrowIfError(CopyTensor(Tensor::FromVector(x.shape(), minus, DType::kFloat64), x));
      b.exe->Forward(true);
      double lm = Objective(*b.exe, heads);
      numeric[k] = (lp - lm) / (2 * c.eps);
    }
    ThrowIfError(CopyTensor(Tensor::FromVector(x.shape(), stored[i], DType::kFloat64), x));
    ExpectValues(analytic, numeric, c.grad_tol, what);
  }
}

#ifdef SYMX_WITH_ONEDNN
// Forward (training mode) and backward in float32 with oneDNN, against the
// reference kernels (oneDNN off) on the same inputs and head gradients.
// Returns whether the oneDNN bind prepared any oneDNN step.
bool CheckOnednnAgainstReference(const OpCase& c, const Context& ctx) {
  const std::string where = absl::StrCat(c.name, " [", c.op, ", oneDNN vs reference, float32]");
  struct Run {
    std::vector<Values> outputs, grads;
  };
  std::set<int> no_grad(c.no_grad.begin(), c.no_grad.end());
  auto run = [&](bool onednn) {
    OpCase run_case = c;
    run_case.engine.onednn = onednn;
    Bound b = BindCase(run_case, ctx, DType::kFloat32, /*with_grads=*/c.check_backward);
    std::mt19937_64 rng(1234);
    std::vector<Values> values;
    for (size_t i = 0; i < c.shapes.size(); ++i)
      values.push_back(InitValues(c, static_cast<int>(i), &rng));
    LoadInputs(b, values);
    b.exe->Forward(c.check_backward ? true : c.is_train);
    Run r;
    std::vector<Tensor> heads;
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (const Tensor& out : b.exe->outputs()) {
      r.outputs.push_back(out.ToDoubles());
      Values h(out.size());
      for (double& x : h) x = u(rng);
      heads.push_back(Tensor::FromVector(out.shape(), h, DType::kFloat32, ctx));
    }
    if (!c.check_backward) return r;
    b.exe->Backward(heads);
    auto grads = b.exe->grad_dict();
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      bool skip = no_grad.count(static_cast<int>(i)) || !grads.count(b.names[i]);
      r.grads.push_back(skip ? Values{} : grads.at(b.names[i]).ToDoubles());
    }
    return r;
  };
  const int64_t before = cpu::OnednnStepsPrepared();
  Run fast = run(true);
  const bool used = cpu::OnednnStepsPrepared() > before;
  Run ref = run(false);
  const double tol = std::max(c.forward_tol32, 1e-4);
  for (size_t k = 0; k < ref.outputs.size(); ++k) {
    ExpectValues(fast.outputs[k], ref.outputs[k], tol, absl::StrCat(where, " output ", k));
  }
  for (size_t i = 0; i < ref.grads.size(); ++i) {
    ExpectValues(fast.grads[i], ref.grads[i], tol, absl::StrCat(where, " gradient of input ", i));
  }
  return used;
}
#endif

}  // namespace

int64_t NumElements(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s.dims()) n *= d;
  return n;
}

std::vector<int64_t> Strides(const Shape& s) {
  std::vector<int64_t> st(s.ndim(), 1);
  for (int i = s.ndim() - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

double BroadcastAt(const Values& v, const Shape& from, const Shape& to, int64_t flat) {
  // Walk the output's dims from the last; `from` is right-aligned into them.
  int64_t idx = 0, stride = 1, rest = flat;
  for (int d = to.ndim() - 1; d >= 0; --d) {
    int64_t coord = rest % to[d];
    rest /= to[d];
    int fd = d - (to.ndim() - from.ndim());
    if (fd < 0) continue;
    if (from[fd] != 1) idx += coord * stride;
    stride *= from[fd];
  }
  return v[idx];
}

// Whether `ctx` has every kernel the case needs (GPUs do not have them all
// yet: the ops that lack one are listed, and the list checked, by
// tests/cuda/gpu_kernel_coverage_test.cc). Bind is what knows which
// backward ops a gradient needs, so it is asked.
bool HasKernels(const OpCase& c, const Context& ctx, bool with_grads) {
  if (ctx.type == DeviceType::kCPU) return true;
  // Ops without a kernel for the device bind through the host fallback
  // (devices/host_fallback.h) and are checked that way, unless it is off.
  try {
    BindCase(c, ctx, DType::kFloat64, with_grads);
  } catch (const Error& e) {
    if (absl::StrContains(e.what(), "has no kernel for " + ctx.ToString())) {
      std::cout << c.name << ": skipped on " << ctx.ToString() << ": " << e.what() << "\n";
      return false;
    }
  }
  return true;
}

void CheckOp(const OpCase& c) {
  for (const Context& ctx : DevicesPresent()) {
    if (!HasKernels(c, ctx, false)) continue;
    for (DType dtype : c.dtypes) {
      SCOPED_TRACE(absl::StrCat(c.name, " forward ", DTypeName(dtype)));
      try {
        CheckForward(c, ctx, dtype);
      } catch (const Error& e) {
        ADD_FAILURE() << c.name << " [" << c.op << ", " << DTypeName(dtype) << "]: " << e.what();
      }
    }
    if (c.check_backward && HasKernels(c, ctx, true)) {
      SCOPED_TRACE(absl::StrCat(c.name, " backward"));
      try {
        CheckBackward(c, ctx);
      } catch (const Error& e) {
        ADD_FAILURE() << c.name << " [" << c.op << " backward]: " << e.what();
      }
    }
#ifdef SYMX_WITH_ONEDNN
    const bool float32 =
        std::find(c.dtypes.begin(), c.dtypes.end(), DType::kFloat32) != c.dtypes.end();
    if (ctx.type == DeviceType::kCPU && float32) {
      SCOPED_TRACE(absl::StrCat(c.name, " oneDNN"));
      try {
        const bool used = CheckOnednnAgainstReference(c, ctx);
        EXPECT_EQ(used, c.onednn) << c.name << " [" << c.op << "]: the oneDNN path was "
                                  << (used ? "" : "not ") << "taken";
      } catch (const Error& e) {
        ADD_FAILURE() << c.name << " [" << c.op << " oneDNN]: " << e.what();
      }
    }
#endif
  }
}

Symbol ConvLayer(const std::string& name, const Symbol& in, int filters, int kernel, bool no_bias) {
  const std::string k = "(" + std::to_string(kernel) + "," + std::to_string(kernel) + ")";
  return OpCall("Convolution")
      .Name(name)
      .Attr("kernel", k)
      .Attr("pad", kernel == 3 ? "(1,1)" : "(0,0)")
      .Attr("num_filter", filters)
      .Attr("no_bias", no_bias)
      .Input(in)
      .Build();
}

Symbol BatchNormLayer(const std::string& name, const Symbol& in, bool fix_gamma) {
  return OpCall("BatchNorm").Name(name).Attr("fix_gamma", fix_gamma).Input(in).Build();
}

Symbol ReluLayer(const std::string& name, const Symbol& in) {
  return OpCall("Activation").Name(name).Attr("act_type", "relu").Input(in).Build();
}

void FillUniform(const Tensor& t, uint64_t seed, float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.size(); ++i) p[i] = u(rng);
}

void ExpectAllClose(const Tensor& got, const Tensor& want, double rtol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  const float* g = got.data<float>();
  const float* w = want.data<float>();
  for (int64_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(g[i], w[i], rtol * (1 + std::abs(w[i]))) << what << " element " << i;
  }
}

Tensor MakeTensor(const Shape& s, const Values& v, DType t) {
  Tensor d = Tensor::FromVector(s, v, DType::kFloat64);
  Tensor out = ValueOrThrow(Tensor::Zeros(s, t, Context::CPU(0)));
  ThrowIfError(CopyTensor(d, out));
  return out;
}

std::vector<Tensor> RunOp(const std::string& op, const AttrMap& attrs,
                          const std::vector<Tensor>& inputs, const std::string& name) {
  OpCall call(op);
  call.Name(name);
  for (const auto& [k, v] : attrs) call.Attr(k, v);
  std::map<std::string, Tensor> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string n = absl::StrCat("in", i);
    call.Input(Symbol::Variable(n));
    args[n] = inputs[i];
  }
  BindOptions opt;
  opt.ctx = Context::CPU(0);
  auto exe = Executor::Bind(call.Build(), opt, ArrayArgs(args), std::nullopt);
  exe->Forward(false);
  return exe->outputs();
}

}  // namespace testing
}  // namespace symx
