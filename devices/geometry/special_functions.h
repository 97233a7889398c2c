// Special functions the math kernels need and the C library lacks, written
// once for the host and (compiled by nvcc) the GPU.
#ifndef SYMX_DEVICES_GEOMETRY_SPECIAL_FUNCTIONS_H_
#define SYMX_DEVICES_GEOMETRY_SPECIAL_FUNCTIONS_H_

#include <math.h>

#include <limits>

#if defined(__CUDACC__)
#define SYMX_HOST_DEVICE __host__ __device__
#else
#define SYMX_HOST_DEVICE
#endif

namespace symx {

// digamma(x) = d/dx log|gamma(x)|: reflection below 0, the recurrence
// psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series
// (Bernoulli terms B_2k / (2k x^2k), k = 1..7). NaN at the poles.
SYMX_HOST_DEVICE inline double Digamma(double x) {
  constexpr double kPi = 3.14159265358979323846;
  if (x != x) return x;
  if (x <= 0 && floor(x) == x) return std::numeric_limits<double>::quiet_NaN();
  double result = 0;
  if (x < 0) {
    result = -kPi / tan(kPi * x);
    x = 1 - x;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double r = 1 / (x * x);
  const double series =
      r * (1.0 / 12 -
           r * (1.0 / 120 -
                r * (1.0 / 252 -
                     r * (1.0 / 240 - r * (1.0 / 132 - r * (691.0 / 32760 - r * (1.0 / 12)))))));
  return result + log(x) - 0.5 / x - series;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_SPECIAL_FUNCTIONS_H_
