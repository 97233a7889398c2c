// Intra-op parallel loops on the calling thread's OpenMP team.
//
// oneDNN's CPU engine runs its primitives on the OpenMP team of the thread
// that calls it (libgomp, notes/onednn.md). In builds with oneDNN the other
// CPU kernels run their parallel loops on that same team, not on a second
// pool: with two sets of threads, the team's workers spin after every
// primitive while the pool's threads compute, and a device takes twice its
// share of the cores (ResNet-50 training: a tenth of all cycles were such
// spinning). Each device's executor thread is the master of its own team,
// sized to that device's share.
#ifndef SYMX_DEVICES_CPU_OMP_PARALLEL_H_
#define SYMX_DEVICES_CPU_OMP_PARALLEL_H_

#include <cstdint>

#include "absl/functional/function_ref.h"

namespace symx {
namespace cpu {

// Runs fn(begin, end) over [0, n) cut into at most `threads` contiguous
// ranges, one per team member, each start a multiple of `align` (>= 1). On
// the calling thread alone when one range is all there is. The cut depends
// only on n, threads and align. fn must not throw.
void OmpParallelFor(int threads, int64_t n, int64_t align,
                    absl::FunctionRef<void(int64_t, int64_t)> fn);

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_OMP_PARALLEL_H_
