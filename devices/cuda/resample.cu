// Pad and UpSampling on the GPU: one thread per output element for the
// forward copies, one per input element for the gradients, which gather
// what they sum (deterministic, no atomics). Pad's geometry is
// devices/geometry/pad_map.h, the function the CPU kernel uses.
#include "devices/cuda/block_reduce.cuh"
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/reduce_launch.h"
#include "devices/cuda/resample_launch.h"
#include "devices/geometry/pad_map.h"
#include "devices/geometry/resize_map.h"

namespace symx {
namespace cuda {
namespace {

template <typename T>
__global__ void UpNearestKernel(const T* x, UpDims d, bool add, T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {  // over (N, c, H, W)
    const int64_t ox = i % d.W;
    const int64_t oy = (i / d.W) % d.H;
    const int64_t c = (i / (d.W * d.H)) % d.c;
    const int64_t b = i / (d.W * d.H * d.c);
    const int64_t src = ((b * d.c + c) * d.h + oy / (d.H / d.h)) * d.w + ox / (d.W / d.w);
    const int64_t dst = ((b * d.C + d.offset + c) * d.H + oy) * d.W + ox;
    Store(y, dst, add ? Load(y, dst) + Load(x, src) : Load(x, src));
  }
}

template <typename T>
__global__ void UpNearestGradKernel(const T* g, UpDims d, T* gx, int64_t n) {
  using C = Acc<T>;
  const int64_t sh = d.H / d.h, sw = d.W / d.w;
  SYMX_GRID_STRIDE(i, n) {  // over (N, c, h, w)
    const int64_t ix = i % d.w;
    const int64_t iy = (i / d.w) % d.h;
    const int64_t c = (i / (d.w * d.h)) % d.c;
    const int64_t b = i / (d.w * d.h * d.c);
    const T* plane = g + (b * d.C + d.offset + c) * d.H * d.W;
    C acc = C(0);
    for (int64_t a = 0; a < sh; ++a) {
      for (int64_t e = 0; e < sw; ++e) acc += Load(plane, (iy * sh + a) * d.W + ix * sw + e);
    }
    Store(gx, i, acc);
  }
}

// Input rows (or columns) iy whose taps reach output row oy: ky = oy + pad -
// iy * stride in [0, k).
__device__ __forceinline__ void TapRange(int64_t o, int64_t stride, int64_t pad, int64_t k,
                                         int64_t len, int64_t* lo, int64_t* hi) {
  const int64_t top = o + pad;  // iy * stride <= top, > top - k
  int64_t a = top - k + 1;
  a = a <= 0 ? 0 : (a + stride - 1) / stride;
  int64_t b = top < 0 ? -1 : top / stride;
  if (b > len - 1) b = len - 1;
  *lo = a;
  *hi = b;
}

template <typename T>
__global__ void DepthwiseUpKernel(const T* x, const T* w, DepthwiseUpDims d, T* y, int64_t n) {
  using C = Acc<T>;
  SYMX_GRID_STRIDE(i, n) {  // over (N, C, H, W)
    const int64_t ox = i % d.W;
    const int64_t oy = (i / d.W) % d.H;
    const int64_t plane = i / (d.W * d.H);
    const int64_t c = plane % d.c;
    int64_t y0, y1, x0, x1;
    TapRange(oy, d.stride, d.pad, d.k, d.h, &y0, &y1);
    TapRange(ox, d.stride, d.pad, d.k, d.w, &x0, &x1);
    C acc = C(0);
    for (int64_t iy = y0; iy <= y1; ++iy) {
      const int64_t ky = oy + d.pad - iy * d.stride;
      for (int64_t ix = x0; ix <= x1; ++ix) {
        const int64_t kx = ox + d.pad - ix * d.stride;
        acc += Load(x, (plane * d.h + iy) * d.w + ix) * Load(w, (c * d.k + ky) * d.k + kx);
      }
    }
    Store(y, i, acc);
  }
}

template <typename T>
__global__ void DepthwiseUpDataGradKernel(const T* g, const T* w, DepthwiseUpDims d, T* gx,
                                          int64_t n) {
  using C = Acc<T>;
  SYMX_GRID_STRIDE(i, n) {  // over (N, C, h, w)
    const int64_t ix = i % d.w;
    const int64_t iy = (i / d.w) % d.h;
    const int64_t plane = i / (d.w * d.h);
    const int64_t c = plane % d.c;
    C acc = C(0);
    for (int64_t ky = 0; ky < d.k; ++ky) {
      const int64_t oy = iy * d.stride - d.pad + ky;
      if (oy < 0 || oy >= d.H) continue;
      for (int64_t kx = 0; kx < d.k; ++kx) {
        const int64_t ox = ix * d.stride - d.pad + kx;
        if (ox < 0 || ox >= d.W) continue;
        acc += Load(g, (plane * d.H + oy) * d.W + ox) * Load(w, (c * d.k + ky) * d.k + kx);
      }
    }
    Store(gx, i, acc);
  }
}

// One block per weight element (c, ky, kx): the sum over the batch and the
// input pixels of g at the tap's output times x.
template <typename T>
__global__ void DepthwiseUpWeightGradKernel(const T* g, const T* x, DepthwiseUpDims d, T* gw) {
  using C = Acc<T>;
  const Reducer<C> sum{ReduceFn::kSum};
  const int64_t weights = d.c * d.k * d.k;
  const int64_t count = d.n * d.h * d.w;
  for (int64_t j = blockIdx.x; j < weights; j += gridDim.x) {
    const int64_t kx = j % d.k, ky = (j / d.k) % d.k, c = j / (d.k * d.k);
    C acc = C(0);
    for (int64_t e = threadIdx.x; e < count; e += blockDim.x) {
      const int64_t ix = e % d.w, iy = (e / d.w) % d.h, b = e / (d.w * d.h);
      const int64_t oy = iy * d.stride - d.pad + ky, ox = ix * d.stride - d.pad + kx;
      if (oy < 0 || oy >= d.H || ox < 0 || ox >= d.W) continue;
      const int64_t plane = b * d.c + c;
      acc += Load(g, (plane * d.H + oy) * d.W + ox) * Load(x, (plane * d.h + iy) * d.w + ix);
    }
    const C total = BlockReduce(acc, sum);
    if (threadIdx.x == 0) Store(gw, j, total);
  }
}

// Output cells along one axis whose bins hold input index y: a window
// around y * out / in, checked exactly by the caller.
__device__ __forceinline__ void CellRange(int64_t y, int64_t in, int64_t out, int64_t* lo,
                                          int64_t* hi) {
  int64_t a = (y * out) / in - 1;
  int64_t b = ((y + 1) * out + in - 1) / in;
  *lo = a < 0 ? 0 : a;
  *hi = b > out - 1 ? out - 1 : b;
}

// Sums in double, as the CPU kernel's.
template <typename T>
__global__ void AdaptiveAvgPoolKernel(const T* x, ResizeDims d, T* y, int64_t n) {
  using C = double;
  SYMX_GRID_STRIDE(i, n) {  // over (planes, h, w)
    const int64_t j = i % d.w, r = (i / d.w) % d.h, p = i / (d.w * d.h);
    const int64_t y0 = BinBegin(r, d.H, d.h), y1 = BinEnd(r, d.H, d.h);
    const int64_t x0 = BinBegin(j, d.W, d.w), x1 = BinEnd(j, d.W, d.w);
    const T* plane = x + p * d.H * d.W;
    C sum = C(0);
    for (int64_t yy = y0; yy < y1; ++yy) {
      for (int64_t xx = x0; xx < x1; ++xx) sum += Load(plane, yy * d.W + xx);
    }
    const int64_t count = (y1 - y0) * (x1 - x0);
    Store(y, i, static_cast<Acc<T>>(count > 0 ? sum / static_cast<C>(count) : C(0)));
  }
}

template <typename T>
__global__ void AdaptiveAvgPoolGradKernel(const T* g, ResizeDims d, T* gx, int64_t n) {
  using C = double;
  SYMX_GRID_STRIDE(i, n) {  // over (planes, H, W)
    const int64_t xx = i % d.W, yy = (i / d.W) % d.H, p = i / (d.W * d.H);
    int64_t r0, r1, c0, c1;
    CellRange(yy, d.H, d.h, &r0, &r1);
    CellRange(xx, d.W, d.w, &c0, &c1);
    const T* plane = g + p * d.h * d.w;
    C acc = C(0);
    for (int64_t r = r0; r <= r1; ++r) {
      const int64_t y0 = BinBegin(r, d.H, d.h), y1 = BinEnd(r, d.H, d.h);
      if (yy < y0 || yy >= y1) continue;
      for (int64_t j = c0; j <= c1; ++j) {
        const int64_t x0 = BinBegin(j, d.W, d.w), x1 = BinEnd(j, d.W, d.w);
        if (xx < x0 || xx >= x1) continue;
        acc += Load(plane, r * d.w + j) / static_cast<C>((y1 - y0) * (x1 - x0));
      }
    }
    Store(gx, i, static_cast<Acc<T>>(acc));
  }
}

template <typename T>
__global__ void BilinearResizeKernel(const T* x, ResizeDims d, T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {  // over (planes, h, w)
    const int64_t j = i % d.w, r = (i / d.w) % d.h, p = i / (d.w * d.h);
    const ResizeTap a = TapAt(r, d.H, d.h, d.align_corners);
    const ResizeTap c = TapAt(j, d.W, d.w, d.align_corners);
    const T* b = x + p * d.H * d.W;
    const double v = (1 - a.l) * (1 - c.l) * ToDouble(b[a.i0 * d.W + c.i0]) +
                     (1 - a.l) * c.l * ToDouble(b[a.i0 * d.W + c.i1]) +
                     a.l * (1 - c.l) * ToDouble(b[a.i1 * d.W + c.i0]) +
                     a.l * c.l * ToDouble(b[a.i1 * d.W + c.i1]);
    y[i] = FromDouble<T>(v);
  }
}

// Output indices along one axis whose taps may touch input index y (the
// caller weighs each exactly, so the window only has to be wide enough).
__device__ __forceinline__ void TapRangeOf(int64_t y, int64_t in, int64_t out, int64_t* lo,
                                           int64_t* hi) {
  const double r1 = static_cast<double>(out) / static_cast<double>(in);
  const double r2 = in > 1 ? static_cast<double>(out - 1) / static_cast<double>(in - 1) : r1;
  const double rmin = r1 < r2 ? r1 : r2, rmax = r1 < r2 ? r2 : r1;
  int64_t a = static_cast<int64_t>(floor((y - 1) * rmin)) - 2;
  int64_t b = static_cast<int64_t>(ceil((y + 2) * rmax)) + 2;
  if (y == in - 1) b = out - 1;  // every output past the last sample reads it
  *lo = a < 0 ? 0 : a;
  *hi = b > out - 1 ? out - 1 : b;
}

template <typename T>
__global__ void BilinearResizeGradKernel(const T* g, ResizeDims d, T* gx, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {  // over (planes, H, W)
    const int64_t xx = i % d.W, yy = (i / d.W) % d.H, p = i / (d.W * d.H);
    int64_t r0, r1, c0, c1;
    TapRangeOf(yy, d.H, d.h, &r0, &r1);
    TapRangeOf(xx, d.W, d.w, &c0, &c1);
    const T* plane = g + p * d.h * d.w;
    double acc = 0;
    for (int64_t r = r0; r <= r1; ++r) {
      const double wr = TapWeight(TapAt(r, d.H, d.h, d.align_corners), yy);
      if (wr == 0) continue;
      for (int64_t j = c0; j <= c1; ++j) {
        const double wc = TapWeight(TapAt(j, d.W, d.w, d.align_corners), xx);
        if (wc != 0) acc += wr * wc * ToDouble(plane[r * d.w + j]);
      }
    }
    gx[i] = FromDouble<T>(acc);
  }
}

}  // namespace

cudaError_t LaunchUpSampleNearest(Elem t, const void* x, const UpDims& d, bool add, void* y,
                                  cudaStream_t s) {
  const int64_t n = d.n * d.c * d.H * d.W;
  if (n == 0) return cudaSuccess;
  if (d.h <= 0 || d.w <= 0) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    UpNearestKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(x), d, add, static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchUpSampleNearestGrad(Elem t, const void* g, const UpDims& d, void* gx,
                                      cudaStream_t s) {
  const int64_t n = d.n * d.c * d.h * d.w;
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    UpNearestGradKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(g), d, static_cast<T*>(gx), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchDepthwiseUp(Elem t, const void* x, const void* weight, const DepthwiseUpDims& d,
                              void* y, cudaStream_t s) {
  const int64_t n = d.n * d.c * d.H * d.W;
  if (n == 0) return cudaSuccess;
  if (d.stride < 1) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    DepthwiseUpKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(weight), d, static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchDepthwiseUpGrad(Elem t, const void* g, const void* x, const void* weight,
                                  const DepthwiseUpDims& d, void* gx, void* gweight,
                                  cudaStream_t s) {
  const int64_t n = d.n * d.c * d.h * d.w;
  const int64_t weights = d.c * d.k * d.k;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    if (gx != nullptr && n > 0) {
      DepthwiseUpDataGradKernel<T><<<GridFor(n), kThreads, 0, s>>>(
          static_cast<const T*>(g), static_cast<const T*>(weight), d, static_cast<T*>(gx), n);
    }
    if (gweight != nullptr && weights > 0) {
      const int64_t blocks = weights < 65535 * 8 ? weights : 65535 * 8;
      DepthwiseUpWeightGradKernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(
          static_cast<const T*>(g), static_cast<const T*>(x), d, static_cast<T*>(gweight));
    }
  });
  return LastLaunchError();
}

cudaError_t LaunchAdaptiveAvgPool(Elem t, const void* x, const ResizeDims& d, void* y,
                                  cudaStream_t s) {
  const int64_t n = d.planes * d.h * d.w;
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    AdaptiveAvgPoolKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(x), d, static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchAdaptiveAvgPoolGrad(Elem t, const void* g, const ResizeDims& d, void* gx,
                                      cudaStream_t s) {
  const int64_t n = d.planes * d.H * d.W;
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    AdaptiveAvgPoolGradKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(g), d, static_cast<T*>(gx), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchBilinearResize(Elem t, const void* x, const ResizeDims& d, void* y,
                                 cudaStream_t s) {
  const int64_t n = d.planes * d.h * d.w;
  if (n == 0) return cudaSuccess;
  if (d.H == 0 || d.W == 0) {  // nothing to sample: zeros, as on the CPU
    SYMX_CUDA_FLOAT_SWITCH(t, T, { return cudaMemsetAsync(y, 0, n * sizeof(T), s); });
  }
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    BilinearResizeKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(x), d, static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchBilinearResizeGrad(Elem t, const void* g, const ResizeDims& d, void* gx,
                                     cudaStream_t s) {
  const int64_t n = d.planes * d.H * d.W;
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    BilinearResizeGradKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(g), d, static_cast<T*>(gx), n);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
