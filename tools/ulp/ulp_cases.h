// The functions tools/ulp measures: each an operator (with attributes) that
// maps one tensor elementwise (or a row op over rows [x, 0], see Form), a long
// double reference of the same function,
// and the error bound symx states for it per dtype (docs/numerics.md).
#ifndef SYMX_TOOLS_ULP_ULP_CASES_H_
#define SYMX_TOOLS_ULP_ULP_CASES_H_

#include <map>
#include <string>
#include <vector>

#include "graph/dtype.h"

namespace symx::ulp {

// How the operator is applied to the input vector x.
enum class Form {
  kElementwise,  // op(x)
  // op(stack([x, 0], axis=1), axis=1)[:, 0]: a softmax-like op over rows
  // [x, 0], whose first element is a function of x alone (softmax: sigmoid,
  // log_softmax: log_sigmoid), so every float32 x can be swept.
  kRowWithZero,
  // The RNN operator's gates, one step of a 1-unit cell over x as (1, N, 1)
  // with constant weights: rnn_tanh with weight 1 (output tanh(x)), and LSTM
  // with the input gate's weight 1 and the cell input tanh(20) = 1 (cell
  // state sigmoid(x)).
  kRnnTanhGate,
  kLstmSigmoidGate,
};

struct UlpCase {
  std::string name;  // "sigmoid", "Activation(softrelu)"
  std::string op;
  std::map<std::string, std::string> attrs;
  long double (*reference)(long double);
  // Stated bound in ulp of the output dtype, per dtype; a dtype not listed is
  // not claimed (the kernel may still run it).
  std::map<DType, double> bound;
  Form form = Form::kElementwise;
};

// Every measured function, in a fixed order.
const std::vector<UlpCase>& AllUlpCases();

}  // namespace symx::ulp

#endif  // SYMX_TOOLS_ULP_ULP_CASES_H_
