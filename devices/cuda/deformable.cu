// The deformable family's CUDA kernels (launchers in
// devices/cuda/deformable_launch.h): deformable im2col and col2im over the
// samples the CPU kernels take (devices/geometry/deformable_sample.h); the
// products are cuBLAS GEMMs in devices/cuda/deformable_kernels.cc.
//
// im2col runs one thread per column element. col2im runs two kernels: one
// thread per (channel, tap, pixel) adds the data gradient with atomics (so its
// sums have no fixed order), and one thread per (deformable group, tap, pixel)
// gathers the offset and mask gradients over the group's channels.
#include <type_traits>

#include "devices/cuda/deformable_launch.h"
#include "devices/cuda/elem_types.cuh"
#include "devices/geometry/deformable_sample.h"

namespace symx {
namespace cuda {
namespace {

struct Origin {
  int64_t h, w;
};
__device__ __forceinline__ Origin OriginOf(const DeformGeom& g, int64_t k, int64_t l) {
  const int64_t i = k / g.kernel_w, j = k % g.kernel_w;
  const int64_t y = l / g.out_w, x = l % g.out_w;
  return {y * g.stride_h - g.pad_h + i * g.dilate_h, x * g.stride_w - g.pad_w + j * g.dilate_w};
}

template <typename T>
__global__ void Im2colKernel(const T* x, const T* offset, const T* mask, DeformGeom g, T* col,
                             int64_t total) {
  using C = GeomC<T>;
  const int64_t taps = g.taps(), L = g.out_size();
  const int64_t per_group = g.channels / g.deformable_groups;
  SYMX_GRID_STRIDE(e, total) {  // over (channel, tap, pixel)
    const int64_t l = e % L, k = (e / L) % taps, c = e / (L * taps);
    const int64_t d = c / per_group;
    const T* off = offset + d * 2 * taps * L;
    const Origin o = OriginOf(g, k, l);
    const C h = static_cast<C>(o.h) + Rd(off, (2 * k) * L + l);
    const C w = static_cast<C>(o.w) + Rd(off, (2 * k + 1) * L + l);
    DeformSample<C> s;
    C v = 0;
    if (MakeDeformSample<C>(static_cast<DeformEdge>(g.edge), h, w, g.height, g.width, &s)) {
      const T* plane = x + c * g.height * g.width;
      for (int q = 0; q < 4; ++q) {
        if (s.at[q] >= 0) v += s.wt[q] * Rd(plane, s.at[q]);
      }
    }
    if (mask != nullptr) v *= Rd(mask, (d * taps + k) * L + l);
    Wr(col, e, v);
  }
}

template <typename T, typename A>
__global__ void DataGradKernel(const T* col, const T* offset, const T* mask, DeformGeom g, A* dx,
                               int64_t total) {
  using C = GeomC<T>;
  const int64_t taps = g.taps(), L = g.out_size();
  const int64_t per_group = g.channels / g.deformable_groups;
  SYMX_GRID_STRIDE(e, total) {  // over (channel, tap, pixel)
    const int64_t l = e % L, k = (e / L) % taps, c = e / (L * taps);
    const int64_t d = c / per_group;
    const T* off = offset + d * 2 * taps * L;
    const Origin o = OriginOf(g, k, l);
    const C h = static_cast<C>(o.h) + Rd(off, (2 * k) * L + l);
    const C w = static_cast<C>(o.w) + Rd(off, (2 * k + 1) * L + l);
    DeformSample<C> s;
    if (!MakeDeformSample<C>(static_cast<DeformEdge>(g.edge), h, w, g.height, g.width, &s)) {
      continue;
    }
    C top = Rd(col, e);
    if (mask != nullptr) top *= Rd(mask, (d * taps + k) * L + l);
    A* plane = dx + c * g.height * g.width;
    for (int q = 0; q < 4; ++q) {
      if (s.at[q] >= 0) atomicAdd(plane + s.at[q], static_cast<A>(s.wt[q] * top));
    }
  }
}

template <typename T>
__global__ void CoordGradKernel(const T* col, const T* x, const T* offset, const T* mask,
                                DeformGeom g, T* doffset, T* dmask, int64_t total) {
  using C = GeomC<T>;
  const int64_t taps = g.taps(), L = g.out_size();
  const int64_t per_group = g.channels / g.deformable_groups;
  SYMX_GRID_STRIDE(e, total) {  // over (deformable group, tap, pixel)
    const int64_t l = e % L, k = (e / L) % taps, d = e / (L * taps);
    const T* off = offset + d * 2 * taps * L;
    const Origin o = OriginOf(g, k, l);
    const C h = static_cast<C>(o.h) + Rd(off, (2 * k) * L + l);
    const C w = static_cast<C>(o.w) + Rd(off, (2 * k + 1) * L + l);
    const C m = mask != nullptr ? Rd(mask, (d * taps + k) * L + l) : C(1);
    DeformSample<C> s;
    C gh = 0, gw = 0, gm = 0;
    if (MakeDeformSample<C>(static_cast<DeformEdge>(g.edge), h, w, g.height, g.width, &s)) {
      for (int64_t c = d * per_group; c < (d + 1) * per_group; ++c) {
        const C top = Rd(col, (c * taps + k) * L + l);
        const T* plane = x + c * g.height * g.width;
        for (int q = 0; q < 4; ++q) {
          if (s.at[q] < 0) continue;
          const C v = Rd(plane, s.at[q]);
          gh += s.dh[q] * v * top;
          gw += s.dw[q] * v * top;
          gm += s.wt[q] * v * top;
        }
      }
    }
    if (doffset != nullptr) {
      Wr(doffset, (d * 2 * taps + 2 * k) * L + l, gh * m);
      Wr(doffset, (d * 2 * taps + 2 * k + 1) * L + l, gw * m);
    }
    if (dmask != nullptr) Wr(dmask, (d * taps + k) * L + l, gm);
  }
}

template <typename T>
__global__ void AddBiasKernel(const T* bias, int64_t f, int64_t l, T* y, int64_t total) {
  SYMX_GRID_STRIDE(e, total) { Wr(y, e, Rd(y, e) + Rd(bias, (e / l) % f)); }
}

template <typename T>
__global__ void BiasGradKernel(const T* dy, int64_t n, int64_t f, int64_t l, T* db) {
  using C = GeomC<T>;
  __shared__ C part[kThreads];
  const int64_t ch = blockIdx.x;
  C sum = 0;
  for (int64_t i = threadIdx.x; i < n * l; i += blockDim.x) {
    sum += Rd(dy, ((i / l) * f + ch) * l + i % l);
  }
  part[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half >>= 1) {
    if (static_cast<int>(threadIdx.x) < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) Wr(db, ch, part[0]);
}

template <typename T>
__global__ void RoundKernel(const float* acc, T* out, int64_t n) {
  SYMX_GRID_STRIDE(i, n) { Store(out, i, acc[i]); }
}

template <typename T>
constexpr bool kHalfType = !std::is_same_v<T, float> && !std::is_same_v<T, double>;

}  // namespace

cudaError_t LaunchDeformIm2col(Elem t, const void* x, const void* offset, const void* mask,
                               const DeformGeom& g, void* col, cudaStream_t s) {
  const int64_t total = g.col_elems();
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    Im2colKernel<T><<<GridFor(total), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(offset), static_cast<const T*>(mask), g,
        static_cast<T*>(col), total);
  });
  return LastLaunchError();
}

cudaError_t LaunchDeformCol2im(Elem t, const void* col, const void* x, const void* offset,
                               const void* mask, const DeformGeom& g, void* dx_acc, void* doffset,
                               void* dmask, cudaStream_t s) {
  const int64_t total = g.col_elems();
  const int64_t coord_total = g.deformable_groups * g.taps() * g.out_size();
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    using A = std::conditional_t<kHalfType<T>, float, T>;
    if (dx_acc != nullptr && total > 0) {
      DataGradKernel<T, A><<<GridFor(total), kThreads, 0, s>>>(
          static_cast<const T*>(col), static_cast<const T*>(offset), static_cast<const T*>(mask), g,
          static_cast<A*>(dx_acc), total);
    }
    if ((doffset != nullptr || dmask != nullptr) && coord_total > 0) {
      CoordGradKernel<T><<<GridFor(coord_total), kThreads, 0, s>>>(
          static_cast<const T*>(col), static_cast<const T*>(x), static_cast<const T*>(offset),
          static_cast<const T*>(mask), g, static_cast<T*>(doffset), static_cast<T*>(dmask),
          coord_total);
    }
  });
  return LastLaunchError();
}

cudaError_t LaunchDeformAddBias(Elem t, const void* bias, int64_t n, int64_t f, int64_t l, void* y,
                                cudaStream_t s) {
  const int64_t total = n * f * l;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    AddBiasKernel<T><<<GridFor(total), kThreads, 0, s>>>(static_cast<const T*>(bias), f, l,
                                                         static_cast<T*>(y), total);
  });
  return LastLaunchError();
}

cudaError_t LaunchDeformBiasGrad(Elem t, const void* dy, int64_t n, int64_t f, int64_t l, void* db,
                                 cudaStream_t s) {
  if (f == 0) return cudaSuccess;
  if (f > 0x7fffffff) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    BiasGradKernel<T><<<static_cast<unsigned>(f), kThreads, 0, s>>>(static_cast<const T*>(dy), n, f,
                                                                    l, static_cast<T*>(db));
  });
  return LastLaunchError();
}

cudaError_t LaunchDeformRoundHalf(Elem t, const float* acc, int64_t count, void* out,
                                  cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  switch (t) {
    case Elem::kF16:
      RoundKernel<__half>
          <<<GridFor(count), kThreads, 0, s>>>(acc, static_cast<__half*>(out), count);
      break;
    case Elem::kBF16:
      RoundKernel<__nv_bfloat16>
          <<<GridFor(count), kThreads, 0, s>>>(acc, static_cast<__nv_bfloat16*>(out), count);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
