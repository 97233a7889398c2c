// Launchers of the CUDA kernels (devices/cuda/*.cu), in plain C++ so that the
// kernel registrations (*.cc, compiled by the host compiler) call them without
// nvcc ever seeing absl or the graph.
//
// Every launcher enqueues its work on `stream` and returns the launch's error
// (cudaSuccess for empty work); failures while running surface at the next
// synchronization, naming the device there.
//
// This header holds what every launcher shares (the element types); each
// family declares its launchers in devices/cuda/F_launch.h, defined in F.cu
// (strided_launch.h: the strided copies and reductions every data-moving
// family uses, defined in strided.cu).
#ifndef SYMX_DEVICES_CUDA_LAUNCH_H_
#define SYMX_DEVICES_CUDA_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace symx {
namespace cuda {

// Element types, numbered as graph/dtype.h (MXNet's type flags).
enum class Elem : int {
  kF32 = 0,
  kF64 = 1,
  kF16 = 2,
  kU8 = 3,
  kI32 = 4,
  kI8 = 5,
  kI64 = 6,
  kBool = 7,
  kBF16 = 12,
};

// The most dims a broadcast, strided or padded view has.
constexpr int kMaxDims = 8;

// Every type Elem names (F16/BF16 compute in float).
bool IsKnownElem(Elem t);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_LAUNCH_H_
