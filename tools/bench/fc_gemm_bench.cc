// FullyConnected forward at 1024x1024x1024 float32 (no bias) through the
// executor, as a fraction of a bare Eigen GEMM of the same size measured
// alternately in the same run. Target: at least 0.9.
#define EIGEN_USE_THREADS
#include <cstdio>
#include <thread>

#include "Eigen/Core"
#include "executor/executor.h"
#include "graph/symbol.h"
#include "tools/bench/bench_util.h"
#include "unsupported/Eigen/CXX11/Tensor"

int main() {
  using namespace symx;
  constexpr int64_t kN = 1024;
  Symbol x = Symbol::Variable("data");
  Symbol fc = OpCall("FullyConnected")
                  .Name("fc")
                  .Attr("num_hidden", static_cast<int>(kN))
                  .Attr("no_bias", true)
                  .Input("data", x);
  auto exe =
      Executor::SimpleBind(fc, {.shapes = {{"data", Shape{kN, kN}}}, .grad_req = GradReq::kNull});
  exe->arg_dict().at("data").Fill(0.5);
  exe->arg_dict().at("fc_weight").Fill(0.25);

  // The reference: Eigen's tensor contraction on a thread pool of the same
  // size, the fastest multi-threaded Eigen GEMM available without OpenMP.
  using Mat = Eigen::Tensor<float, 2, Eigen::RowMajor>;
  Mat a(kN, kN), w(kN, kN), out(kN, kN);
  a.setConstant(0.5f);
  w.setConstant(0.25f);
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  Eigen::ThreadPool pool(threads);
  Eigen::ThreadPoolDevice dev(&pool, threads);
  Eigen::array<Eigen::IndexPair<int>, 1> dims = {Eigen::IndexPair<int>(1, 1)};
  auto eigen_gemm = [&] { out.device(dev) = a.contract(w, dims); };
  auto [fc_s, gemm_s] =
      bench::MedianSecondsPaired([&] { exe->Forward(false); }, eigen_gemm, /*reps=*/15);
  double flops = 2.0 * kN * kN * kN;
  std::printf("FullyConnected forward %lldx%lldx%lld float32, %d threads\n",
              static_cast<long long>(kN), static_cast<long long>(kN), static_cast<long long>(kN),
              threads);
  std::printf("  symx FullyConnected %.2f ms  %.1f GFLOP/s\n", fc_s * 1e3, flops / fc_s * 1e-9);
  std::printf("  bare Eigen GEMM     %.2f ms  %.1f GFLOP/s\n", gemm_s * 1e3, flops / gemm_s * 1e-9);
  std::printf("  ratio (symx / Eigen GFLOP/s): %.3f (target >= 0.9: %s)\n", gemm_s / fc_s,
              gemm_s / fc_s >= 0.9 ? "met" : "NOT met");
  return 0;
}
