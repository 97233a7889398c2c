// Errors in units in the last place (ulp) of a floating-point format: how far
// a kernel's result is from a long double reference, measured in the spacing
// of the output's format at the reference value (the denormal spacing below
// the normal range). Header only and independent of the engine, so the
// arithmetic itself is unit-tested (tests/numerics/ulp_error_test).
#ifndef SYMX_TOOLS_ULP_ULP_ERROR_H_
#define SYMX_TOOLS_ULP_ULP_ERROR_H_

#include <algorithm>
#include <cmath>
#include <limits>

namespace symx::ulp {

// A binary floating-point format by its significand digits (the implicit bit
// included), smallest normal exponent and largest finite value.
struct Format {
  int digits;
  int min_exponent;  // of the smallest normal, 2^min_exponent
  long double max_finite;
};

inline constexpr Format kFloat32{24, -126, 3.40282346638528859812e+38L};
inline constexpr Format kFloat64{53, -1022, 1.79769313486231570815e+308L};
inline constexpr Format kFloat16{11, -14, 65504.0L};
inline constexpr Format kBFloat16{8, -126, 3.38953138925153547590e+38L};

// The spacing of `f` at |r| (r finite).
inline long double UlpAt(const Format& f, long double r) {
  const int e = r == 0 ? f.min_exponent : std::max<int>(std::ilogb(r), f.min_exponent);
  return std::ldexp(1.0L, e - f.digits + 1);
}

// |got - want| in ulp of `f` at `want`. 0 when both are the same NaN/infinity
// or `want` rounds to the infinity `got` holds; +infinity for a special value
// where another was due (NaN for a number, a number for an overflow).
inline long double UlpError(const Format& f, long double got, long double want) {
  constexpr long double kInf = std::numeric_limits<long double>::infinity();
  if (std::isnan(want)) return std::isnan(got) ? 0 : kInf;
  if (std::isnan(got)) return kInf;
  // Values beyond max_finite + half an ulp round to infinity.
  const long double overflow = f.max_finite + UlpAt(f, f.max_finite) / 2;
  if (std::isinf(want) || std::fabs(want) >= overflow) {
    return std::isinf(got) && std::signbit(got) == std::signbit(want) ? 0 : kInf;
  }
  if (std::isinf(got)) return kInf;
  return std::fabs(got - want) / UlpAt(f, want);
}

}  // namespace symx::ulp

#endif  // SYMX_TOOLS_ULP_ULP_ERROR_H_
