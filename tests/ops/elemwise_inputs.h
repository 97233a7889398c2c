// Input generators of the elementwise conformance tables (elemwise_test.cc,
// binary_test.cc): values kept clear of kinks and ties, so central differences
// are exact up to rounding.
#ifndef SYMX_TESTS_OPS_ELEMWISE_INPUTS_H_
#define SYMX_TESTS_OPS_ELEMWISE_INPUTS_H_

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/dtype_switch.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace elemwise_inputs {

inline const std::vector<DType> kFloats = {DType::kFloat32, DType::kFloat64, DType::kFloat16};

using Init = std::function<Values(int, const Shape&)>;

// Uniform in [lo, hi), seeded by the input index.
inline Init Uniform(double lo, double hi) {
  return [lo, hi](int input, const Shape& s) {
    std::mt19937_64 rng(77 + input);
    std::uniform_real_distribution<double> u(lo, hi);
    Values v(NumElements(s));
    for (double& x : v) x = u(rng);
    return v;
  };
}

// |x| in [lo, hi) with a random sign: keeps clear of a kink at 0.
inline Init AwayFromZero(double lo = 0.1, double hi = 1.0) {
  return [lo, hi](int input, const Shape& s) {
    std::mt19937_64 rng(91 + input);
    std::uniform_real_distribution<double> u(lo, hi);
    Values v(NumElements(s));
    for (size_t k = 0; k < v.size(); ++k) v[k] = (rng() & 1) ? u(rng) : -u(rng);
    return v;
  };
}

// Values on two interleaved grids: input 0 takes -0.95 + 0.2 k, input 1
// -0.85 + 0.2 k, so any lhs and rhs (broadcast or not) differ by at least
// 0.1 and a scalar like 0.3 or 0.5 is never closer than 0.05.
inline Init Grid() {
  return [](int input, const Shape& s) {
    Values v(NumElements(s));
    for (size_t k = 0; k < v.size(); ++k) {
      v[k] = (input == 0 ? -0.95 : -0.85) + 0.2 * static_cast<double>((k * 7 + 3 * input) % 10);
    }
    return v;
  };
}

// Per-input generators.
inline Init PerInput(std::vector<Init> inits) {
  return [inits](int input, const Shape& s) { return inits[input](input, s); };
}

}  // namespace elemwise_inputs
}  // namespace testing
}  // namespace symx

#endif  // SYMX_TESTS_OPS_ELEMWISE_INPUTS_H_
