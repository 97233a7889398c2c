// Parameters of the random family (graph/ops/random.cc): the samplers
// _random_X (scalar parameters, an output `shape`), _random_X_like (the
// shape of its input) and _sample_X (parameters from arrays), read by the
// schemas and by the CPU and CUDA kernels.
#ifndef SYMX_GRAPH_OPS_RANDOM_H_
#define SYMX_GRAPH_OPS_RANDOM_H_

#include <cstdint>
#include <vector>

#include "graph/dtype.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {

// The samplers' distributions; the kernels' RandomDraw
// (devices/geometry/random_draws.h) has the same values.
enum class RandomDistribution : int {
  kUniform = 0,                      // a = low, b = high
  kNormal = 1,                       // a = loc (mu), b = scale (sigma)
  kGamma = 2,                        // a = alpha (shape), b = beta (scale)
  kExponential = 3,                  // a = lam (rate)
  kPoisson = 4,                      // a = lam
  kNegativeBinomial = 5,             // a = k, b = p
  kGeneralizedNegativeBinomial = 6,  // a = mu, b = alpha
};

// The X of the _random_X, _random_X_like and _sample_X names, in
// RandomDistribution's order (the kernels of both devices register by it).
inline constexpr const char* kRandomDistributionNames[] = {"uniform",
                                                           "normal",
                                                           "gamma",
                                                           "exponential",
                                                           "poisson",
                                                           "negative_binomial",
                                                           "generalized_negative_binomial"};

// _random_X and _random_X_like (X = uniform, normal, gamma, exponential,
// poisson, negative_binomial, generalized_negative_binomial). `a` and `b` are
// the distribution's parameters in MXNet's order (RandomDistribution says
// which). `shape` is MXNet's legacy form (0 = a dim inferred from the
// output's use; absent = wholly unknown); `dtype` kUnknown is MXNet's None
// (the output's inferred dtype, else float32). `ctx` is accepted and ignored:
// the executor places the node. The _like forms have neither.
struct RandomParam : OpParam {
  RandomDistribution dist = RandomDistribution::kUniform;
  double a = 0.0, b = 1.0;
  Shape shape;
  DType dtype = DType::kUnknown;
};

// _random_randint: integers uniform in [low, high), int32 (default) or int64.
struct RandIntParam : OpParam {
  int64_t low = 0, high = 1;
  Shape shape;
  DType dtype = DType::kUnknown;
};

// _sample_X: one distribution per element of its parameter arrays, `shape`
// samples from each (output shape = parameter shape + `shape`).
struct SampleParam : OpParam {
  RandomDistribution dist = RandomDistribution::kUniform;
  std::vector<int64_t> shape;
  DType dtype = DType::kUnknown;
};

// _sample_multinomial: `shape` draws from each distribution along the last
// axis of its input (probabilities), of dtype `dtype`; with get_prob also
// the log-probability of each draw.
struct MultinomialParam : OpParam {
  std::vector<int64_t> shape;
  bool get_prob = false;
  DType dtype = DType::kInt32;
};

// _sample_unique_zipfian: per row of `shape` (batch, num_sampled), distinct
// classes of [0, range_max) drawn from MXNet's approximately log-uniform
// base law, and the number of draws each row took. An empty `shape` comes
// from the output's use.
struct UniqueZipfianParam : OpParam {
  int64_t range_max = 0;
  std::vector<int64_t> shape;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_RANDOM_H_
