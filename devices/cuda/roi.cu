// ROIPooling, _contrib_ROIAlign and _contrib_box_iou on the GPU, over the
// geometry the CPU kernels use (devices/roi_geometry.h, box_geometry.h): the
// same compute type per dtype, so bins and IoUs agree with the CPU to the
// last bit.
#include <cfloat>

#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/launch.h"
#include "devices/box_geometry.h"
#include "devices/roi_geometry.h"

namespace symx {
namespace cuda {
namespace {

template <typename T>
__global__ void RoiPoolKernel(const T* x, const T* rois, RoiDims d, T* y, T* argmax,
                              int64_t total) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(e, total) {  // over (R, C_out, PH, PW)
    const int64_t j = e % d.pw, i = (e / d.pw) % d.ph, c = (e / (d.pw * d.ph)) % d.co;
    const int64_t n = e / (d.pw * d.ph * d.co);
    const T* roi = rois + n * 5;
    const int64_t b = static_cast<int64_t>(Rd(roi, 0));
    if (b < 0 || b >= d.n) {
      Wr(y, e, C(0));
      Wr(argmax, e, C(-1));
      continue;
    }
    const RoiPoolWindow win = RoiPoolBin<C>(Rd(roi, 1), Rd(roi, 2), Rd(roi, 3), Rd(roi, 4),
                                            static_cast<C>(d.scale), i, j, d.ph, d.pw, d.h, d.w);
    if (win.h1 <= win.h0 || win.w1 <= win.w0) {
      Wr(y, e, C(0));
      Wr(argmax, e, C(-1));
      continue;
    }
    const T* xp = x + (b * d.c + c) * d.h * d.w;
    C best = -FLT_MAX;
    int64_t best_at = -1;
    for (int64_t h = win.h0; h < win.h1; ++h) {
      for (int64_t w = win.w0; w < win.w1; ++w) {
        const C v = Rd(xp, h * d.w + w);
        if (v > best) {
          best = v;
          best_at = h * d.w + w;
        }
      }
    }
    Wr(y, e, best);
    Wr(argmax, e, static_cast<C>(best_at));
  }
}

template <typename T, typename A>
__global__ void RoiPoolGradKernel(const T* g, const T* rois, const T* argmax, RoiDims d, A* acc,
                                  int64_t total) {
  SYMX_GRID_STRIDE(e, total) {
    const int64_t c = (e / (d.pw * d.ph)) % d.co, n = e / (d.pw * d.ph * d.co);
    const int64_t b = static_cast<int64_t>(Rd(rois, n * 5));
    if (b < 0 || b >= d.n) continue;
    const int64_t m = static_cast<int64_t>(Rd(argmax, e));
    if (m < 0 || m >= d.h * d.w) continue;
    atomicAdd(acc + (b * d.c + c) * d.h * d.w + m, static_cast<A>(Rd(g, e)));
  }
}

// Calls fn(sample, weight scale) for every bilinear sample of output e; false
// when the roi has no valid batch index or is empty with aligned=True (then
// *bad is set).
template <typename T, typename Fn>
__device__ void ForAlignSamples(const T* rois, const RoiDims& d, int64_t e, int64_t* plane,
                                unsigned long long* first_bad, Fn&& fn) {
  using C = GeomC<T>;
  const int64_t j = e % d.pw, i = (e / d.pw) % d.ph, c = (e / (d.pw * d.ph)) % d.co;
  const int64_t n = e / (d.pw * d.ph * d.co);
  const T* roi = rois + n * 5;
  const int64_t b = static_cast<int64_t>(Rd(roi, 0));
  *plane = -1;
  if (b < 0 || b >= d.n) return;
  const RoiAlignGrid<C> grid =
      MakeRoiAlignGrid<C>(Rd(roi, 1), Rd(roi, 2), Rd(roi, 3), Rd(roi, 4), static_cast<C>(d.scale),
                          d.aligned, d.ph, d.pw, d.sample_ratio);
  if (!grid.valid) {
    atomicMin(first_bad, static_cast<unsigned long long>(n));
    return;
  }
  const int64_t cin = d.position_sensitive ? (c * d.ph + i) * d.pw + j : c;
  *plane = (b * d.c + cin) * d.h * d.w;
  for (int64_t iy = 0; iy < grid.gh; ++iy) {
    for (int64_t ix = 0; ix < grid.gw; ++ix) {
      C y, x;
      RoiAlignPoint(grid, i, j, iy, ix, &y, &x);
      fn(RoiBilinearSample<C>(y, x, d.h, d.w), grid.count);
    }
  }
}

template <typename T>
__global__ void RoiAlignKernel(const T* x, const T* rois, RoiDims d, T* y,
                               unsigned long long* first_bad, int64_t total) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(e, total) {
    C sum = 0, count = 1;
    int64_t plane = -1;
    ForAlignSamples(rois, d, e, &plane, first_bad, [&](const RoiSample<C>& s, C n) {
      count = n;
      if (s.count == 0) return;
      const T* xp = x + (plane >= 0 ? plane : 0);
      sum += s.wt[0] * Rd(xp, s.at[0]) + s.wt[1] * Rd(xp, s.at[1]) + s.wt[2] * Rd(xp, s.at[2]) +
             s.wt[3] * Rd(xp, s.at[3]);
    });
    Wr(y, e, plane < 0 ? C(0) : sum / count);
  }
}

template <typename T, typename A>
__global__ void RoiAlignGradKernel(const T* g, const T* rois, RoiDims d, A* acc,
                                   unsigned long long* first_bad, int64_t total) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(e, total) {
    int64_t plane = -1;
    const C go = Rd(g, e);
    ForAlignSamples(rois, d, e, &plane, first_bad, [&](const RoiSample<C>& s, C count) {
      const C v = go / count;
      for (int k = 0; k < s.count; ++k) {
        atomicAdd(acc + plane + s.at[k], static_cast<A>(v * s.wt[k]));
      }
    });
  }
}

template <typename T>
__global__ void RoundToStorage(const float* acc, T* out, int64_t n) {
  SYMX_GRID_STRIDE(i, n) { Store(out, i, acc[i]); }
}

// Zeroes the accumulator (gx itself, or float scratch for the half types),
// runs `add`, and rounds the scratch into gx.
template <typename T, typename Add>
cudaError_t Accumulate(T* gx, void* scratch, int64_t size, cudaStream_t s, Add&& add) {
  constexpr bool kHalf = !std::is_same_v<T, float> && !std::is_same_v<T, double>;
  using A = std::conditional_t<kHalf, float, T>;
  A* acc = nullptr;
  if constexpr (kHalf) {
    acc = static_cast<A*>(scratch);
  } else {
    acc = gx;
  }
  if (size > 0) {
    const cudaError_t e = cudaMemsetAsync(acc, 0, static_cast<size_t>(size) * sizeof(A), s);
    if (e != cudaSuccess) return e;
  }
  add(acc);
  if constexpr (kHalf) {
    if (size > 0) RoundToStorage<T><<<GridFor(size), kThreads, 0, s>>>(acc, gx, size);
  }
  return cudaSuccess;
}

template <typename T>
__global__ void BoxIouKernel(const T* a, const T* b, int64_t nr, bool center, T* out,
                             int64_t total) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(e, total) {
    const int64_t i = e / nr, j = e % nr;
    const T* pa = a + i * 4;
    const T* pb = b + j * 4;
    const Box<C> ba = ToCorner<C>(Rd(pa, 0), Rd(pa, 1), Rd(pa, 2), Rd(pa, 3), center);
    const Box<C> bb = ToCorner<C>(Rd(pb, 0), Rd(pb, 1), Rd(pb, 2), Rd(pb, 3), center);
    Wr(out, e, Iou(ba, bb));
  }
}

}  // namespace

cudaError_t LaunchRoiPool(Elem t, const void* x, const void* rois, const RoiDims& d, void* y,
                          void* argmax, cudaStream_t s) {
  const int64_t total = d.r * d.co * d.ph * d.pw;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    RoiPoolKernel<T><<<GridFor(total), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(rois), d, static_cast<T*>(y),
        static_cast<T*>(argmax), total);
  });
  return LastLaunchError();
}

cudaError_t LaunchRoiPoolGrad(Elem t, const void* g, const void* rois, const void* argmax,
                              const RoiDims& d, void* gx, void* scratch, cudaStream_t s) {
  const int64_t total = d.r * d.co * d.ph * d.pw, size = d.n * d.c * d.h * d.w;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    const cudaError_t e = Accumulate<T>(static_cast<T*>(gx), scratch, size, s, [&](auto* acc) {
      using A = std::remove_pointer_t<decltype(acc)>;
      if (total > 0) {
        RoiPoolGradKernel<T, A><<<GridFor(total), kThreads, 0, s>>>(
            static_cast<const T*>(g), static_cast<const T*>(rois), static_cast<const T*>(argmax),
            d, acc, total);
      }
    });
    if (e != cudaSuccess) return e;
  });
  return LastLaunchError();
}

cudaError_t LaunchRoiAlign(Elem t, const void* x, const void* rois, const RoiDims& d, void* y,
                           unsigned long long* first_bad, cudaStream_t s) {
  const int64_t total = d.r * d.co * d.ph * d.pw;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    RoiAlignKernel<T><<<GridFor(total), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(rois), d, static_cast<T*>(y), first_bad,
        total);
  });
  return LastLaunchError();
}

cudaError_t LaunchRoiAlignGrad(Elem t, const void* g, const void* rois, const RoiDims& d,
                               void* gx, void* scratch, unsigned long long* first_bad,
                               cudaStream_t s) {
  const int64_t total = d.r * d.co * d.ph * d.pw, size = d.n * d.c * d.h * d.w;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    const cudaError_t e = Accumulate<T>(static_cast<T*>(gx), scratch, size, s, [&](auto* acc) {
      using A = std::remove_pointer_t<decltype(acc)>;
      if (total > 0) {
        RoiAlignGradKernel<T, A><<<GridFor(total), kThreads, 0, s>>>(
            static_cast<const T*>(g), static_cast<const T*>(rois), d, acc, first_bad, total);
      }
    });
    if (e != cudaSuccess) return e;
  });
  return LastLaunchError();
}

cudaError_t LaunchBoxIou(Elem t, const void* lhs, int64_t nl, const void* rhs, int64_t nr,
                         bool center, void* out, cudaStream_t s) {
  const int64_t total = nl * nr;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    BoxIouKernel<T><<<GridFor(total), kThreads, 0, s>>>(
        static_cast<const T*>(lhs), static_cast<const T*>(rhs), nr, center, static_cast<T*>(out),
        total);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
