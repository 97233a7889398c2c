// The op conformance harness: each op is a small table entry (OpCase); the
// harness binds the single-op graph on every device present, checks the
// forward against a straightforward reference in float32 and float64, and the
// backward against central finite differences in float64.
//
// How the gradient check works: with random head gradients h_k for each
// visible output y_k, the analytic input gradients from Backward must equal
// d/dx of L = sum_k <y_k, h_k>, estimated per element as
// (L(x + eps) - L(x - eps)) / (2 eps). Loss ops (SoftmaxOutput, MakeLoss, the
// regression outputs) define their gradient instead of deriving it; give
// `expected_grads` for them.
#ifndef SYMX_TESTS_OPS_CONFORMANCE_H_
#define SYMX_TESTS_OPS_CONFORMANCE_H_

#include <functional>
#include <string>
#include <vector>

#include "devices/engine_options.h"
#include "devices/tensor.h"
#include "graph/attrs.h"
#include "graph/dtype.h"
#include "graph/shape.h"
#include "graph/symbol.h"
#include "tests/executor/executor_test_util.h"
#include "tests/expect_contains.h"

namespace symx {
namespace testing {

// Row-major values of one tensor.
using Values = std::vector<double>;

struct OpCase {
  std::string name;  // a label for messages: "relu 2-D", "Convolution stride 2"
  std::string op;
  AttrMap attrs;
  // Every input in the schema's order, aux states included.
  std::vector<Shape> shapes;
  // Expected visible outputs from the inputs (shapes as above). Must be a
  // plain loop implementation, independent of the kernel under test.
  std::function<std::vector<Values>(const std::vector<Values>& in,
                                    const std::vector<Shape>& shapes)>
      reference;
  // Optional: values for input i (default: uniform in [-1, 1] from a fixed
  // seed). Use it for labels, indices, positive inputs of log/sqrt, or to
  // keep inputs away from kinks (relu at 0, max ties, abs at 0).
  std::function<Values(int input, const Shape& shape)> init;
  // Inputs excluded from the gradient check (labels, indices, aux states).
  std::vector<int> no_grad;
  // Outputs whose head gradient the check sets to zero: for ops whose
  // gradient, as MXNet's, ignores what reaches those outputs (hawkesll's
  // out_state).
  std::vector<int> no_head_grad;
  // For loss ops: the expected gradient of each input (empty Values = skip).
  std::function<std::vector<Values>(const std::vector<Values>& in,
                                    const std::vector<Shape>& shapes)>
      expected_grads;
  bool is_train = true;         // Forward(is_train)
  bool check_backward = true;   // false for non-differentiable ops
  double forward_tol32 = 1e-5;  // relative+absolute tolerance, float32
  double forward_tol64 = 1e-10;
  double grad_tol = 1e-6;  // finite differences in float64
  double eps = 1e-6;
  // Whether oneDNN takes this case (builds with oneDNN check that it does or
  // does not, and compare it with the reference kernels either way).
  bool onednn = false;
  // The dtypes the forward is checked in.
  std::vector<DType> dtypes = {DType::kFloat32, DType::kFloat64};
  // The bind's switches (the oneDNN comparison turns `onednn` off for its
  // reference run).
  EngineOptions engine;
};

// cpu(0) and every gpu(N) this build and machine have.
std::vector<Context> DevicesPresent();

// Runs every check for `c` on every device present and reports failures
// through gtest (EXPECT_*), naming the case, the dtype, the output/input and
// the first mismatching element.
void CheckOp(const OpCase& c);

// Helpers for references.
int64_t NumElements(const Shape& s);
// Row-major strides of `s`.
std::vector<int64_t> Strides(const Shape& s);
// The value of broadcast input `v` (shape `from`) at the multi-index of
// output position `flat` in `to` (numpy broadcasting: `from` is right-aligned
// and may have fewer dims).
double BroadcastAt(const Values& v, const Shape& from, const Shape& to, int64_t flat);

// Helpers for executor-level comparisons (float32 tensors).
// Fills `t` with uniform values in [lo, hi) from `seed`.
void FillUniform(const Tensor& t, uint64_t seed, float lo = -1.f, float hi = 1.f);
// |got - want| <= rtol * (1 + |want|) everywhere (ASSERT-style: stops at the
// first mismatch, naming `what` and the element).
void ExpectAllClose(const Tensor& got, const Tensor& want, double rtol, const std::string& what);

// Direct runs of one op, for kernels' error paths.
// A cpu(0) tensor of dtype `t` holding `v`.
Tensor MakeTensor(const Shape& s, const Values& v, DType t);
// Binds `op` (node `name`) over inputs in0.. with the given arrays on cpu(0)
// and runs Forward(is_train=false); errors throw symx::Error.
std::vector<Tensor> RunOp(const std::string& op, const AttrMap& attrs,
                          const std::vector<Tensor>& inputs, const std::string& name = "op");
// ErrorOf(fn) (tests/executor/executor_test_util.h) gives the message, and
// EXPECT_CONTAINS (tests/expect_contains.h) checks it.

// Layers for executor tests of CNN graphs: a square convolution (3x3 padded
// by 1, else unpadded), BatchNorm and relu.
Symbol ConvLayer(const std::string& name, const Symbol& in, int filters, int kernel,
                 bool no_bias = true);
Symbol BatchNormLayer(const std::string& name, const Symbol& in, bool fix_gamma = false);
Symbol ReluLayer(const std::string& name, const Symbol& in);

}  // namespace testing
}  // namespace symx

#endif  // SYMX_TESTS_OPS_CONFORMANCE_H_
