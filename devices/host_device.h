// SYMX_HOST_DEVICE marks the few plain C++ functions that the CPU kernels and
// the CUDA kernels (compiled by nvcc) share, so that both devices compute one
// definition (index positions, Pad's source index).
#ifndef SYMX_DEVICES_HOST_DEVICE_H_
#define SYMX_DEVICES_HOST_DEVICE_H_

#ifdef __CUDACC__
#define SYMX_HOST_DEVICE __host__ __device__
#else
#define SYMX_HOST_DEVICE
#endif

#endif  // SYMX_DEVICES_HOST_DEVICE_H_
