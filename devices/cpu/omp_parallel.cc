#include "devices/cpu/omp_parallel.h"

#include <omp.h>

#include <algorithm>

namespace symx {
namespace cpu {

void OmpParallelFor(int threads, int64_t n, int64_t align,
                    absl::FunctionRef<void(int64_t, int64_t)> fn) {
  if (n <= 0) return;
  align = std::max<int64_t>(align, 1);
  const int64_t units = (n + align - 1) / align;
  const int team = static_cast<int>(std::min<int64_t>(std::max(threads, 1), units));
  if (team <= 1) {
    fn(0, n);
    return;
  }
#pragma omp parallel num_threads(team)
  {
    // The team may be smaller than asked (nested regions run with one).
    const int64_t t = omp_get_thread_num(), size = omp_get_num_threads();
    const int64_t begin = std::min(n, units * t / size * align);
    const int64_t end = std::min(n, units * (t + 1) / size * align);
    if (begin < end) fn(begin, end);
  }
}

}  // namespace cpu
}  // namespace symx
