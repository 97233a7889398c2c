// Speed of the accurate elementwise math (devices/cpu/vector_math.h) against
// the Eigen expressions the CPU kernels used before it (Eigen 3.4's fast
// logistic and tanh, its clamping exp), measured alternately in one run on one
// thread over 2^20 elements. Two input sets: activations in [-8, 8], and a
// wide one in [-120, 120] that sends many packets down the denormal and
// saturation paths. Target: no function slower than 1.5x the old one.
#include <cmath>
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

// log_softmax over rows of n: the kernel's row formula before (one sum of
// exps, x - (max + log(sum))) and now ((x - max) - log(sum), but log1p of the
// exps beside the first maximum's where sum < 2; devices/cpu/softmax_kernels.cc),
// float32.
void RunLogSoftmaxRows(int64_t n, double* worst) {
  using namespace symx::cpu;
  const int64_t rows = (1 << 20) / n;
  std::vector<float> in(rows * n), out(rows * n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-8, 8);
  for (float& v : in) v = u(rng);
  using Row = Eigen::Map<const Eigen::ArrayXf>;
  using RowOut = Eigen::Map<Eigen::ArrayXf>;
  // row(x, y) over every row.
  auto over_rows = [&](auto&& row) {
    for (int64_t r = 0; r < rows; ++r) {
      RowOut y(out.data() + r * n, n);
      row(Row(in.data() + r * n, n), y);
    }
  };
  auto old_fn = [&] {
    over_rows([](const Row& x, RowOut& y) {
      const float m = x.maxCoeff();
      const float sum = (x - m).unaryExpr(ExpOp<float>()).sum();
      y = x - (m + std::log(sum));
    });
  };
  auto new_fn = [&] {
    over_rows([n](const Row& x, RowOut& y) {
      const float m = x.maxCoeff();
      const float sum = (x - m).unaryExpr(ExpOp<float>()).sum();
      Eigen::Index k = n;
      if (sum < 2.0f) {
        k = 0;
        while (k < n && x[k] != m) ++k;
      }
      const float log_sum = k < n ? std::log1p((x.head(k) - m).unaryExpr(ExpOp<float>()).sum() +
                                               (x.tail(n - k - 1) - m).unaryExpr(ExpOp<float>()).sum())
                                  : std::log(sum);
      y = (x - m) - log_sum;
    });
  };
  auto [t_new, t_old] = symx::bench::MedianSecondsPaired(new_fn, old_fn, 21, 3);
  const double ratio = t_new / t_old;
  if (ratio > *worst) *worst = ratio;
  std::printf("  log_softmax rows of %-5lld        old %7.3f ns/elem  new %7.3f ns/elem  new/old %.2fx\n",
              static_cast<long long>(n), t_old / (rows * n) * 1e9, t_new / (rows * n) * 1e9, ratio);
}

}  // namespace

int main() {
  std::printf("accurate elementwise math vs Eigen's fast forms, 1 thread, 2^20 elements\n");
  double worst = 0;
  for (auto [lo, hi] : {std::pair{-8.0, 8.0}, std::pair{-120.0, 120.0}}) {
    Run<float>("float32", lo, hi, &worst);
    Run<double>("float64", lo, hi, &worst);
  }
  for (int64_t n : {10, 1000}) RunLogSoftmaxRows(n, &worst);
  std::printf("slowest new/old: %.2fx (target <= 1.5x: %s)\n", worst,
              worst <= 1.5 ? "met" : "NOT met");
  return 0;
}
