// GridGenerator, BilinearSampler and SpatialTransformer on the GPU, over the
// sampling geometry the CPU kernels use (devices/geometry/spatial_sample.h), in double.
#include "devices/cuda/block_reduce.cuh"
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/reduce_launch.h"
#include "devices/cuda/spatial_launch.h"
#include "devices/geometry/spatial_sample.h"

namespace symx {
namespace cuda {
namespace {

// The grid point (h, w) of sample n: from loc (N, 6) or the grid (N, 2, H, W).
template <typename T>
__device__ void GridPoint(const T* grid, const SamplerDims& d, int64_t n, int64_t h, int64_t w,
                          double* gx, double* gy) {
  if (d.affine) {
    double a[6];
    for (int k = 0; k < 6; ++k) a[k] = ToDouble(grid[n * 6 + k]);
    AffineGridPoint(a, h, w, d.h, d.w, gx, gy);
    return;
  }
  const int64_t hw = d.h * d.w, at = h * d.w + w;
  *gx = ToDouble(grid[n * 2 * hw + at]);
  *gy = ToDouble(grid[(n * 2 + 1) * hw + at]);
}

template <typename T>
__global__ void GridGeneratorKernel(const T* in, SamplerDims d, T* grid, int64_t points) {
  const int64_t hw = d.h * d.w;
  SYMX_GRID_STRIDE(i, points) {  // over (N, H, W)
    const int64_t at = i % hw, n = i / hw, h = at / d.w, w = at % d.w;
    double gx, gy;
    if (d.affine) {
      GridPoint(in, d, n, h, w, &gx, &gy);
    } else {
      gx = (ToDouble(in[n * 2 * hw + at]) + w) / ((d.w - 1) / 2.0) - 1;
      gy = (ToDouble(in[(n * 2 + 1) * hw + at]) + h) / ((d.h - 1) / 2.0) - 1;
    }
    grid[n * 2 * hw + at] = FromDouble<T>(gx);
    grid[(n * 2 + 1) * hw + at] = FromDouble<T>(gy);
  }
}

// warp: the flow gradient, per point.
template <typename T>
__global__ void GridWarpGradKernel(const T* g, SamplerDims d, T* gin, int64_t points) {
  const int64_t hw = d.h * d.w;
  SYMX_GRID_STRIDE(i, points) {
    const int64_t at = i % hw, n = i / hw;
    gin[n * 2 * hw + at] = FromDouble<T>(ToDouble(g[n * 2 * hw + at]) / ((d.w - 1) / 2.0));
    gin[(n * 2 + 1) * hw + at] =
        FromDouble<T>(ToDouble(g[(n * 2 + 1) * hw + at]) / ((d.h - 1) / 2.0));
  }
}

// Sums the six loc gradient terms of every point of sample blockIdx into loc.
__device__ void ReduceLoc(double acc[6], int64_t n, double* out6) {
  const Reducer<double> sum{ReduceFn::kSum};
  for (int k = 0; k < 6; ++k) {
    const double total = BlockReduce(acc[k], sum);
    if (threadIdx.x == 0) out6[k] = total;
  }
}

// affine: loc's gradient from the grid gradient, one block per sample.
template <typename T>
__global__ void GridAffineGradKernel(const T* g, SamplerDims d, T* gin) {
  const int64_t hw = d.h * d.w;
  for (int64_t n = blockIdx.x; n < d.n; n += gridDim.x) {
    double acc[6] = {0, 0, 0, 0, 0, 0};
    for (int64_t at = threadIdx.x; at < hw; at += blockDim.x) {
      double terms[6];
      AffineLocGrad(ToDouble(g[n * 2 * hw + at]), ToDouble(g[(n * 2 + 1) * hw + at]), at / d.w,
                    at % d.w, d.h, d.w, terms);
      for (int k = 0; k < 6; ++k) acc[k] += terms[k];
    }
    double out[6];
    ReduceLoc(acc, n, out);
    if (threadIdx.x == 0) {
      for (int k = 0; k < 6; ++k) gin[n * 6 + k] = FromDouble<T>(out[k]);
    }
  }
}

template <typename T>
__global__ void SamplerKernel(const T* data, const T* grid, SamplerDims d, T* out, int64_t points) {
  const int64_t hw = d.h * d.w;
  SYMX_GRID_STRIDE(i, points) {  // over (N, H, W)
    const int64_t at = i % hw, n = i / hw;
    double gx, gy;
    GridPoint(grid, d, n, at / d.w, at % d.w, &gx, &gy);
    const SamplePoint p = Locate(gx, gy, d.ih, d.iw);
    for (int64_t c = 0; c < d.c; ++c) {
      const T* src = data + (n * d.c + c) * d.ih * d.iw;
      double v = 0;
      for (int a = 0; a < 2; ++a) {
        for (int b = 0; b < 2; ++b) {
          if (p.at[a][b] >= 0) v += p.wy[a] * p.wx[b] * ToDouble(src[p.at[a][b]]);
        }
      }
      out[(n * d.c + c) * hw + at] = FromDouble<T>(v);
    }
  }
}

// One block per sample: each point's data gradient added with atomics into
// acc (A: float, or double for double), its grid gradient written (or, for
// affine, its loc terms summed by the block).
template <typename T, typename A>
__global__ void SamplerGradKernel(const T* g, const T* data, const T* grid, SamplerDims d,
                                  A* acc_data, T* ggrid) {
  const int64_t hw = d.h * d.w;
  for (int64_t n = blockIdx.x; n < d.n; n += gridDim.x) {
    double loc[6] = {0, 0, 0, 0, 0, 0};
    for (int64_t at = threadIdx.x; at < hw; at += blockDim.x) {
      const int64_t h = at / d.w, w = at % d.w;
      double gx, gy;
      GridPoint(grid, d, n, h, w, &gx, &gy);
      const SamplePoint p = Locate(gx, gy, d.ih, d.iw);
      double sx = 0, sy = 0;
      for (int64_t c = 0; c < d.c; ++c) {
        const int64_t plane = (n * d.c + c) * d.ih * d.iw;
        const double go = ToDouble(g[(n * d.c + c) * hw + at]);
        double v[2][2] = {{0, 0}, {0, 0}};
        for (int a = 0; a < 2; ++a) {
          for (int b = 0; b < 2; ++b) {
            const int64_t src = p.at[a][b];
            if (src < 0) continue;
            v[a][b] = ToDouble(data[plane + src]);
            if (acc_data != nullptr) {
              atomicAdd(acc_data + plane + src, static_cast<A>(go * p.wy[a] * p.wx[b]));
            }
          }
        }
        AddGridGrad(p, v, go, &sx, &sy);
      }
      if (ggrid == nullptr) continue;
      double dgx, dgy;
      GridGradScale(sx, sy, d.ih, d.iw, &dgx, &dgy);
      if (d.affine) {
        double terms[6];
        AffineLocGrad(dgx, dgy, h, w, d.h, d.w, terms);
        for (int k = 0; k < 6; ++k) loc[k] += terms[k];
      } else {
        ggrid[n * 2 * hw + at] = FromDouble<T>(dgx);
        ggrid[(n * 2 + 1) * hw + at] = FromDouble<T>(dgy);
      }
    }
    if (ggrid != nullptr && d.affine) {
      double out[6];
      ReduceLoc(loc, n, out);
      if (threadIdx.x == 0) {
        for (int k = 0; k < 6; ++k) ggrid[n * 6 + k] = FromDouble<T>(out[k]);
      }
    }
  }
}

template <typename T>
__global__ void ToStorageKernel(const float* acc, T* out, int64_t n) {
  SYMX_GRID_STRIDE(i, n) { Store(out, i, acc[i]); }
}

unsigned SampleBlocks(int64_t n) {
  return static_cast<unsigned>(n < 1 ? 1 : (n > 65535 ? 65535 : n));
}

template <typename T>
cudaError_t SamplerGrad(const T* g, const T* data, const T* grid, const SamplerDims& d, T* gdata,
                        T* ggrid, void* scratch, cudaStream_t s) {
  constexpr bool kHalf = !std::is_same_v<T, float> && !std::is_same_v<T, double>;
  using A = std::conditional_t<kHalf, float, T>;
  const int64_t size = d.n * d.c * d.ih * d.iw;
  A* acc = nullptr;
  if (gdata != nullptr) {
    if constexpr (kHalf) {
      acc = static_cast<A*>(scratch);
    } else {
      acc = gdata;
    }
    if (size > 0) {
      const cudaError_t e = cudaMemsetAsync(acc, 0, static_cast<size_t>(size) * sizeof(A), s);
      if (e != cudaSuccess) return e;
    }
  }
  if (d.n > 0 && (acc != nullptr || ggrid != nullptr)) {
    SamplerGradKernel<T, A><<<SampleBlocks(d.n), kThreads, 0, s>>>(g, data, grid, d, acc, ggrid);
  }
  if constexpr (kHalf) {
    if (gdata != nullptr && size > 0) {
      ToStorageKernel<T><<<GridFor(size), kThreads, 0, s>>>(acc, gdata, size);
    }
  }
  return cudaSuccess;
}

// ---------------------------------------------------------------- Correlation

template <typename T>
__global__ void CorrelationKernel(const T* a, const T* b, CorrelationGeom g, T* out,
                                  int64_t total) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(e, total) {
    const CorrelationTap t = CorrelationTapOf(g, e);
    C sum = 0;
    for (int64_t h = 0; h < g.k; ++h) {
      for (int64_t w = 0; w < g.k; ++w) {
        const int64_t y1 = t.y1 + h, x1 = t.x1 + w, y2 = t.y2 + h, x2 = t.x2 + w;
        const bool in1 = g.Inside(y1, x1), in2 = g.Inside(y2, x2);
        if (!in1 && !in2) continue;
        for (int64_t c = 0; c < g.c; ++c) {
          const C v1 = in1 ? Rd(a, ((t.n * g.c + c) * g.h + y1) * g.w + x1) : C(0);
          const C v2 = in2 ? Rd(b, ((t.n * g.c + c) * g.h + y2) * g.w + x2) : C(0);
          sum += g.multiply ? v1 * v2 : fabs(v1 - v2);
        }
      }
    }
    Wr(out, e, sum / static_cast<C>(g.k * g.k * g.c));
  }
}

// The gradient of data1 (kSecond false) or data2 at element e = ((n * c + ch)
// * h + y) * w + x: every output (k, i, j) whose window covers it.
template <typename T, bool kSecond>
__global__ void CorrelationGradKernel(const T* og, const T* a, const T* b, CorrelationGeom g,
                                      T* grad, int64_t total) {
  using C = GeomC<T>;
  const C scale = C(1) / static_cast<C>(g.k * g.k * g.c);
  SYMX_GRID_STRIDE(e, total) {
    const int64_t x = e % g.w, y = (e / g.w) % g.h, ch = (e / (g.w * g.h)) % g.c;
    const int64_t n = e / (g.w * g.h * g.c);
    C sum = 0;
    for (int64_t k = 0; k < g.oc; ++k) {
      const int64_t dx = kSecond ? (k % g.grid - g.radius) * g.stride2 : 0;
      const int64_t dy = kSecond ? (k / g.grid - g.radius) * g.stride2 : 0;
      for (int64_t h = 0; h < g.k; ++h) {
        const int64_t ry = y - dy - h + g.pad - g.max_displacement;  // i * stride1
        if (ry < 0 || ry % g.stride1 != 0 || ry / g.stride1 >= g.oh) continue;
        const int64_t i = ry / g.stride1;
        for (int64_t w = 0; w < g.k; ++w) {
          const int64_t rx = x - dx - w + g.pad - g.max_displacement;
          if (rx < 0 || rx % g.stride1 != 0 || rx / g.stride1 >= g.ow) continue;
          const int64_t j = rx / g.stride1;
          const int64_t out_at = ((n * g.oc + k) * g.oh + i) * g.ow + j;
          const CorrelationTap t = CorrelationTapOf(g, out_at);
          const int64_t y1 = t.y1 + h, x1 = t.x1 + w, y2 = t.y2 + h, x2 = t.x2 + w;
          const C v1 = g.Inside(y1, x1) ? Rd(a, ((n * g.c + ch) * g.h + y1) * g.w + x1) : C(0);
          const C v2 = g.Inside(y2, x2) ? Rd(b, ((n * g.c + ch) * g.h + y2) * g.w + x2) : C(0);
          const C go = Rd(og, out_at) * scale;
          if (g.multiply) {
            sum += go * (kSecond ? v1 : v2);
          } else {
            const C sign = v1 >= v2 ? C(1) : C(-1);
            sum += kSecond ? -go * sign : go * sign;
          }
        }
      }
    }
    Wr(grad, e, sum);
  }
}

}  // namespace

cudaError_t LaunchGridGenerator(Elem t, const void* in, const SamplerDims& d, void* grid,
                                cudaStream_t s) {
  const int64_t points = d.n * d.h * d.w;
  if (points == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    GridGeneratorKernel<T><<<GridFor(points), kThreads, 0, s>>>(static_cast<const T*>(in), d,
                                                                static_cast<T*>(grid), points);
  });
  return LastLaunchError();
}

cudaError_t LaunchGridGeneratorGrad(Elem t, const void* g, const SamplerDims& d, void* gin,
                                    cudaStream_t s) {
  const int64_t points = d.n * d.h * d.w;
  if (d.n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    if (d.affine) {
      GridAffineGradKernel<T><<<SampleBlocks(d.n), kThreads, 0, s>>>(static_cast<const T*>(g), d,
                                                                     static_cast<T*>(gin));
    } else if (points > 0) {
      GridWarpGradKernel<T><<<GridFor(points), kThreads, 0, s>>>(static_cast<const T*>(g), d,
                                                                 static_cast<T*>(gin), points);
    }
  });
  return LastLaunchError();
}

cudaError_t LaunchSampler(Elem t, const void* data, const void* grid, const SamplerDims& d,
                          void* out, cudaStream_t s) {
  const int64_t points = d.n * d.h * d.w;
  if (points == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    SamplerKernel<T><<<GridFor(points), kThreads, 0, s>>>(
        static_cast<const T*>(data), static_cast<const T*>(grid), d, static_cast<T*>(out), points);
  });
  return LastLaunchError();
}

cudaError_t LaunchSamplerGrad(Elem t, const void* g, const void* data, const void* grid,
                              const SamplerDims& d, void* gdata, void* ggrid, void* scratch,
                              cudaStream_t s) {
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    const cudaError_t e = SamplerGrad<T>(static_cast<const T*>(g), static_cast<const T*>(data),
                                         static_cast<const T*>(grid), d, static_cast<T*>(gdata),
                                         static_cast<T*>(ggrid), scratch, s);
    if (e != cudaSuccess) return e;
  });
  return LastLaunchError();
}

cudaError_t LaunchCorrelation(Elem t, const void* a, const void* b, const CorrelationGeom& g,
                              void* out, cudaStream_t s) {
  const int64_t total = g.n * g.oc * g.oh * g.ow;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    CorrelationKernel<T><<<GridFor(total), kThreads, 0, s>>>(
        static_cast<const T*>(a), static_cast<const T*>(b), g, static_cast<T*>(out), total);
  });
  return LastLaunchError();
}

cudaError_t LaunchCorrelationGrad(Elem t, const void* og, const void* a, const void* b,
                                  const CorrelationGeom& g, void* ga, void* gb, cudaStream_t s) {
  const int64_t total = g.n * g.c * g.h * g.w;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    if (ga != nullptr) {
      CorrelationGradKernel<T, false><<<GridFor(total), kThreads, 0, s>>>(
          static_cast<const T*>(og), static_cast<const T*>(a), static_cast<const T*>(b), g,
          static_cast<T*>(ga), total);
    }
    if (gb != nullptr) {
      CorrelationGradKernel<T, true><<<GridFor(total), kThreads, 0, s>>>(
          static_cast<const T*>(og), static_cast<const T*>(a), static_cast<const T*>(b), g,
          static_cast<T*>(gb), total);
    }
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
