// Parameters of Activation, LeakyReLU and hard_sigmoid, shared by the schema
// and the kernels. The act_type string is kept for messages and round trips; the
// parser also fills an enum so kernels dispatch without string compares.
#ifndef SYMX_GRAPH_OPS_ACTIVATION_H_
#define SYMX_GRAPH_OPS_ACTIVATION_H_

#include <string>

#include "graph/param.h"

namespace symx {

enum class ActivationType { kRelu, kSigmoid, kLogSigmoid, kMish, kTanh, kSoftRelu, kSoftSign };

struct ActivationParam : OpParam {
  std::string act_type;
  ActivationType type = ActivationType::kRelu;
};

// Whether _backward_Activation takes the forward input as a third input
// (ograd, output, data); the other types differentiate from the output alone.
inline bool ActivationNeedsData(const ActivationParam& p) {
  return p.type == ActivationType::kMish || p.type == ActivationType::kSoftSign;
}

enum class LeakyReLUType { kLeaky, kPReLU, kELU, kSELU, kGELU, kRReLU };

struct LeakyReLUParam : OpParam {
  std::string act_type;
  LeakyReLUType type = LeakyReLUType::kLeaky;
  double slope = 0.25;
  double lower_bound = 0.125;
  double upper_bound = 0.334;

  bool has_gamma() const { return type == LeakyReLUType::kPReLU; }
  bool has_mask() const { return type == LeakyReLUType::kRReLU; }
};

// hard_sigmoid: y = clip(alpha x + beta, 0, 1); alpha and beta are float32
// values, as MXNet declares them.
struct HardSigmoidParam : OpParam {
  double alpha = static_cast<float>(0.2);
  double beta = 0.5;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_ACTIVATION_H_
