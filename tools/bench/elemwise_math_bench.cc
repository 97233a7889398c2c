// Speed of the accurate elementwise math (devices/cpu/vector_math.h) against
// the Eigen expressions the CPU kernels used before it (Eigen 3.4's fast
// logistic and tanh, its clamping exp), measured alternately in one run on one
// thread over 2^20 elements. Two input sets: activations in [-8, 8], and a
// wide one in [-120, 120] that sends many packets down the denormal and
// saturation paths. Target: no function slower than 1.5x the old one.
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "devices/cpu/vector_math.h"
#include "tools/bench/bench_util.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace {

template <typename T>
using Map = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor>>;

template <typename T>
void Run(const char* type, double lo, double hi, double* worst) {
  using namespace symx::cpu;
  constexpr int64_t kN = 1 << 20;
  std::vector<T> in(kN), out(kN);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(lo, hi);
  for (T& v : in) v = static_cast<T>(u(rng));
  Map<T> x(in.data(), kN), y(out.data(), kN);
  struct Pair {
    const char* name;
    std::function<void()> old_fn, new_fn;
  };
  std::vector<Pair> pairs = {
      {"exp", [&] { y = x.exp(); }, [&] { y = Accurate<ExpOp>(x); }},
      {"sigmoid", [&] { y = x.sigmoid(); }, [&] { y = Accurate<SigmoidOp>(x); }},
      {"tanh", [&] { y = x.tanh(); }, [&] { y = Accurate<TanhOp>(x); }},
      {"softrelu", [&] { y = x.cwiseMax(T(0)) + (-x.abs()).exp().log1p(); },
       [&] { y = x.cwiseMax(T(0)) + Accurate<ExpOp>(-x.abs()).log1p(); }},
      {"mish", [&] { y = x * (x.cwiseMax(T(0)) + (-x.abs()).exp().log1p()).tanh(); },
       [&] { y = Accurate<MishOp>(x); }},
  };
  for (const Pair& p : pairs) {
    auto [t_new, t_old] = symx::bench::MedianSecondsPaired(p.new_fn, p.old_fn, 21, 3);
    const double ratio = t_new / t_old;
    if (ratio > *worst) *worst = ratio;
    std::printf("  %-8s %-7s [%5.0f, %4.0f]  old %7.3f ns/elem  new %7.3f ns/elem  new/old %.2fx\n",
                p.name, type, lo, hi, t_old / kN * 1e9, t_new / kN * 1e9, ratio);
  }
}

}  // namespace

int main() {
  std::printf("accurate elementwise math vs Eigen's fast forms, 1 thread, 2^20 elements\n");
  double worst = 0;
  for (auto [lo, hi] : {std::pair{-8.0, 8.0}, std::pair{-120.0, 120.0}}) {
    Run<float>("float32", lo, hi, &worst);
    Run<double>("float64", lo, hi, &worst);
  }
  std::printf("slowest new/old: %.2fx (target <= 1.5x: %s)\n", worst,
              worst <= 1.5 ? "met" : "NOT met");
  return 0;
}
