// Small helpers shared by the executor tests.
#ifndef SYMX_TESTS_EXECUTOR_EXECUTOR_TEST_UTIL_H_
#define SYMX_TESTS_EXECUTOR_EXECUTOR_TEST_UTIL_H_

#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "devices/tensor.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "gtest/gtest.h"

namespace symx {
namespace testing {

// The device the executor suites bind on as "device n": cpu(n), or gpu(n)
// when SYMX_TEST_DEVICE=gpu (tools/gpu/run.sh runs the placement and
// shared_exec suites that way, with SYMX_LOGICAL_GPUS so that gpu(0..7)
// exist on one physical GPU).
inline bool TestOnGpu() {
  const char* v = std::getenv("SYMX_TEST_DEVICE");
  return v != nullptr && std::string(v) == "gpu";
}
inline Context TestDevice(int n) { return TestOnGpu() ? Context::GPU(n) : Context::CPU(n); }

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

// Random values for every argument and aux state of `like`: arguments in
// [-1, 1) (those named *label*: class ids below `label_classes`), aux states
// in [0.25, 0.75) (a positive variance). The same values can be copied into
// several executors of one symbol.
struct RandomParams {
  std::map<std::string, Tensor> args, aux;
};
inline RandomParams MakeRandomParams(const Executor& like, uint32_t seed, int label_classes = 2) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  RandomParams p;
  for (const auto& [name, t] : like.arg_dict()) {
    std::vector<double> v(t.size());
    for (double& x : v) {
      x = name.find("label") != std::string::npos ? (rng() % label_classes) : u(rng);
    }
    p.args[name] = Tensor::FromVector(t.shape(), v, t.dtype());
  }
  for (const auto& [name, t] : like.aux_dict()) {
    std::vector<double> v(t.size());
    for (double& x : v) x = 0.5 + 0.25 * u(rng);
    p.aux[name] = Tensor::FromVector(t.shape(), v, t.dtype());
  }
  return p;
}

}  // namespace testing
}  // namespace symx

#endif  // SYMX_TESTS_EXECUTOR_EXECUTOR_TEST_UTIL_H_
