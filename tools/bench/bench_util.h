// Timing helpers for the benchmarks in tools/bench. Benchmarks report medians
// of repeated runs and ratios of two things measured side by side in the same
// process, because these machines are noisy.
#ifndef SYMX_TOOLS_BENCH_BENCH_UTIL_H_
#define SYMX_TOOLS_BENCH_BENCH_UTIL_H_

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

namespace symx::bench {

// Seconds per call of `fn`: the median over `reps` samples of `inner` calls
// each, after one warm-up sample.
inline double MedianSeconds(const std::function<void()>& fn, int reps, int inner = 1) {
  std::vector<double> samples;
  for (int r = 0; r <= reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < inner; ++i) fn();
    auto t1 = std::chrono::steady_clock::now();
    if (r > 0) samples.push_back(std::chrono::duration<double>(t1 - t0).count() / inner);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// Alternates two measurements so drift in machine load hits both alike;
// returns the medians {a, b}.
inline std::pair<double, double> MedianSecondsPaired(const std::function<void()>& a,
                                                     const std::function<void()>& b, int reps,
                                                     int inner = 1) {
  std::vector<double> sa, sb;
  a();
  b();
  for (int r = 0; r < reps; ++r) {
    for (int which = 0; which < 2; ++which) {
      const auto& fn = which == 0 ? a : b;
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < inner; ++i) fn();
      auto t1 = std::chrono::steady_clock::now();
      (which == 0 ? sa : sb).push_back(std::chrono::duration<double>(t1 - t0).count() / inner);
    }
  }
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  return {sa[sa.size() / 2], sb[sb.size() / 2]};
}

}  // namespace symx::bench

#endif  // SYMX_TOOLS_BENCH_BENCH_UTIL_H_
