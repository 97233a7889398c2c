// Small helpers shared by the executor tests.
#ifndef SYMX_TESTS_EXECUTOR_EXECUTOR_TEST_UTIL_H_
#define SYMX_TESTS_EXECUTOR_EXECUTOR_TEST_UTIL_H_

#include <functional>
#include <string>
#include <vector>

#include "devices/tensor.h"
#include "graph/error.h"
#include "gtest/gtest.h"

namespace symx {
namespace testing {

// A float tensor of `shape` with element i = f(i).
inline Tensor Iota(const Shape& shape, const std::function<double(int64_t)>& f,
                   DType dtype = DType::kFloat32) {
  std::vector<double> v(shape.Size());
  for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i) v[i] = f(i);
  return Tensor::FromVector(shape, v, dtype);
}

inline Tensor Full(const Shape& shape, double value, DType dtype = DType::kFloat32) {
  return Tensor::FromVector(shape, std::vector<double>(shape.Size(), value), dtype);
}

inline void ExpectNear(const Tensor& got, const std::vector<double>& want, double tol,
                       const std::string& what) {
  std::vector<double> g = got.ToDoubles();
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    ASSERT_NEAR(g[i], want[i], tol * (1 + std::abs(want[i]))) << what << " element " << i;
  }
}

// The message of the symx::Error `fn` throws ("" if none).
inline std::string ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace testing
}  // namespace symx

#endif  // SYMX_TESTS_EXECUTOR_EXECUTOR_TEST_UTIL_H_
