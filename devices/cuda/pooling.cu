// Pooling forward (one thread per output) and backward (one thread per input
// element, gathering from the windows that hold it; max pooling first finds
// each window's first maximal element, once per output) on the GPU.
#include <cfloat>

#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/pooling_launch.h"

namespace symx {
namespace cuda {
namespace {

// One dim of a window: [lo, hi) inside the input, and the length avg pooling
// counts when padding is included (the window is cut at size + pad).
struct Span {
  int64_t lo, hi, padded;
};

__device__ __forceinline__ Span SpanAt(const PoolDims& d, int k, int64_t o) {
  const int64_t start = o * d.stride[k] - d.pad[k];
  const int64_t end = min(start + d.kernel[k], d.in[k] + d.pad[k]);
  return Span{max(start, int64_t{0}), min(end, d.in[k]), max(end - start, int64_t{0})};
}

__device__ __forceinline__ int64_t Len(const Span& s) { return max(s.hi - s.lo, int64_t{0}); }

template <typename C>
__device__ __forceinline__ C Lowest() {
  if constexpr (std::is_same_v<C, double>) {
    return -DBL_MAX;
  } else {
    return -FLT_MAX;
  }
}

template <typename C>
__device__ __forceinline__ C IntPow(C x, int64_t p) {
  C r = x;
  for (int64_t i = 1; i < p; ++i) r *= x;
  return r;
}

template <typename C>
__device__ __forceinline__ C LpRoot(C sum, int64_t p) {
  if (p == 1) return sum;
  if (p == 2) return sqrt(sum);
  if (p == 3) return cbrt(sum);
  if (p % 2 == 1) return sum < C(0) ? -pow(-sum, C(1) / C(p)) : pow(sum, C(1) / C(p));
  return pow(sum, C(1) / C(p));
}

// Flat index i over (planes, dims[0], dims[1], dims[2]) as its plane and
// three coordinates.
__device__ __forceinline__ int64_t Unflatten(int64_t i, const int64_t* dims, int64_t* c) {
  c[2] = i % dims[2];
  i /= dims[2];
  c[1] = i % dims[1];
  i /= dims[1];
  c[0] = i % dims[0];
  return i / dims[0];
}

__device__ __forceinline__ int64_t Count(const PoolDims& d, const Span& z, const Span& y,
                                         const Span& x) {
  return d.count_include_pad ? z.padded * y.padded * x.padded : Len(z) * Len(y) * Len(x);
}

template <typename T>
__global__ void PoolForwardKernel(const T* in, PoolDims d, T* out, int64_t n) {
  using C = Acc<T>;
  const int64_t in_plane = d.in[0] * d.in[1] * d.in[2];
  SYMX_GRID_STRIDE(i, n) {
    int64_t o[3];
    const int64_t plane = Unflatten(i, d.out, o);
    const Span z = SpanAt(d, 0, o[0]), y = SpanAt(d, 1, o[1]), x = SpanAt(d, 2, o[2]);
    const T* p = in + plane * in_plane;
    C acc = d.type == PoolFn::kMax ? Lowest<C>() : C(0);
    for (int64_t iz = z.lo; iz < z.hi; ++iz) {
      for (int64_t iy = y.lo; iy < y.hi; ++iy) {
        const int64_t base = (iz * d.in[1] + iy) * d.in[2];
        for (int64_t ix = x.lo; ix < x.hi; ++ix) {
          const C v = Load(p, base + ix);
          if (d.type == PoolFn::kMax) {
            acc = v > acc ? v : acc;
          } else if (d.type == PoolFn::kLp) {
            acc += IntPow(v, d.p);
          } else {
            acc += v;
          }
        }
      }
    }
    if (d.type == PoolFn::kAvg) {
      const int64_t count = Count(d, z, y, x);
      acc = count > 0 ? acc / static_cast<C>(count) : C(0);
    } else if (d.type == PoolFn::kLp) {
      acc = LpRoot(acc, d.p);
    }
    Store(out, i, acc);
  }
}

// Output windows along one dim that hold input index i: [first, last].
__device__ __forceinline__ void Covering(const PoolDims& d, int k, int64_t i, int64_t* first,
                                         int64_t* last) {
  const int64_t pos = i + d.pad[k];  // in padded coordinates
  // o * stride <= pos < o * stride + kernel
  int64_t lo = pos - d.kernel[k] + 1;
  *first = lo <= 0 ? 0 : (lo + d.stride[k] - 1) / d.stride[k];
  *last = min(pos / d.stride[k], d.out[k] - 1);
}

// Max pooling's backward, pass 1: per output, the plane offset of the first
// element (row-major) of its window equal to the output (-1: none).
template <typename T>
__global__ void PoolArgmaxKernel(const T* in, const T* out, PoolDims d, int64_t* argmax,
                                 int64_t n) {
  const int64_t in_plane = d.in[0] * d.in[1] * d.in[2];
  SYMX_GRID_STRIDE(i, n) {
    int64_t o[3];
    const int64_t plane = Unflatten(i, d.out, o);
    const Span z = SpanAt(d, 0, o[0]), y = SpanAt(d, 1, o[1]), x = SpanAt(d, 2, o[2]);
    const T* p = in + plane * in_plane;
    const Acc<T> target = Load(out, i);
    int64_t first = -1;
    for (int64_t iz = z.lo; iz < z.hi && first < 0; ++iz) {
      for (int64_t iy = y.lo; iy < y.hi && first < 0; ++iy) {
        const int64_t base = (iz * d.in[1] + iy) * d.in[2];
        for (int64_t ix = x.lo; ix < x.hi; ++ix) {
          if (Load(p, base + ix) == target) {
            first = base + ix;
            break;
          }
        }
      }
    }
    argmax[i] = first;
  }
}

// Pass 2 (and the whole backward of the other types): per input element, the
// sum over the windows that hold it.
template <typename T>
__global__ void PoolBackwardKernel(const T* dy, const T* in, const T* out, const int64_t* argmax,
                                   PoolDims d, T* dx, int64_t n) {
  using C = Acc<T>;
  const int64_t in_plane = d.in[0] * d.in[1] * d.in[2];
  const int64_t out_plane = d.out[0] * d.out[1] * d.out[2];
  SYMX_GRID_STRIDE(i, n) {
    int64_t c[3];
    const int64_t plane = Unflatten(i, d.in, c);
    const int64_t iz = c[0], iy = c[1], ix = c[2];
    const T* g = dy + plane * out_plane;
    const T* o = out + plane * out_plane;
    const int64_t self = (iz * d.in[1] + iy) * d.in[2] + ix;
    const C v = Load(in + plane * in_plane, self);
    int64_t z0, z1, y0, y1, x0, x1;
    Covering(d, 0, iz, &z0, &z1);
    Covering(d, 1, iy, &y0, &y1);
    Covering(d, 2, ix, &x0, &x1);
    C acc = C(0);
    for (int64_t oz = z0; oz <= z1; ++oz) {
      const Span z = SpanAt(d, 0, oz);
      for (int64_t oy = y0; oy <= y1; ++oy) {
        const Span y = SpanAt(d, 1, oy);
        for (int64_t ox = x0; ox <= x1; ++ox) {
          const int64_t oi = (oz * d.out[1] + oy) * d.out[2] + ox;
          const C grad = Load(g, oi);
          if (d.type == PoolFn::kMax) {
            if (argmax[plane * out_plane + oi] == self) acc += grad;
          } else if (d.type == PoolFn::kAvg) {
            const int64_t count = Count(d, z, y, SpanAt(d, 2, ox));
            acc += count > 0 ? grad / static_cast<C>(count) : C(0);
          } else if (d.type == PoolFn::kLp) {
            acc += d.p == 1 ? grad : grad * IntPow(v / Load(o, oi), d.p - 1);
          } else {
            acc += grad;
          }
        }
      }
    }
    Store(dx, plane * in_plane + self, acc);
  }
}

// Pooling_v1 over (planes, 1, h, w) (devices/geometry/pool_geom.h gives its
// window rules): windows in padded coordinates reading zeros outside the data;
// avg multiplies by the float reciprocal of the kernel size as MXNet does.
template <typename C>
__device__ __forceinline__ C PoolV1Scale(const PoolDims& d) {
  return d.type == PoolFn::kAvg ? static_cast<C>(1.0f / static_cast<float>(d.kernel[1] * d.kernel[2]))
                                : C(1);
}

template <typename T>
__global__ void PoolV1ForwardKernel(const T* in, PoolDims d, T* out, int64_t n) {
  using C = Acc<T>;
  const int64_t h = d.in[1], w = d.in[2];
  const int64_t hp = h + 2 * d.pad[1], wp = w + 2 * d.pad[2];
  SYMX_GRID_STRIDE(i, n) {
    const int64_t ox = i % d.out[2], oy = (i / d.out[2]) % d.out[1];
    const int64_t plane = i / (d.out[1] * d.out[2]);
    const T* p = in + plane * h * w;
    const int64_t y0 = oy * d.stride[1], y1 = min(y0 + d.kernel[1], hp);
    const int64_t x0 = ox * d.stride[2], x1 = min(x0 + d.kernel[2], wp);
    C acc = d.type == PoolFn::kMax ? Lowest<C>() : C(0);
    for (int64_t py = y0; py < y1; ++py) {
      const int64_t iy = py - d.pad[1];
      for (int64_t px = x0; px < x1; ++px) {
        const int64_t ix = px - d.pad[2];
        const C v = iy >= 0 && iy < h && ix >= 0 && ix < w ? Load(p, iy * w + ix) : C(0);
        acc = d.type == PoolFn::kMax ? (v > acc ? v : acc) : acc + v;
      }
    }
    Store(out, i, d.type == PoolFn::kAvg ? PoolV1Scale<C>(d) * acc : acc);
  }
}

// Per input element, the gradients of the windows holding it (under max, of
// those whose maximum it equals: ties all receive it).
template <typename T>
__global__ void PoolV1BackwardKernel(const T* dy, const T* in, const T* out, PoolDims d, T* dx,
                                     int64_t n) {
  using C = Acc<T>;
  const int64_t h = d.in[1], w = d.in[2];
  const int64_t out_plane = d.out[1] * d.out[2];
  SYMX_GRID_STRIDE(i, n) {
    const int64_t ix = i % w, iy = (i / w) % h, plane = i / (h * w);
    const int64_t py = iy + d.pad[1], px = ix + d.pad[2];
    const int64_t oy0 = py < d.kernel[1] ? 0 : (py - d.kernel[1] + d.stride[1]) / d.stride[1];
    const int64_t oy1 = min(py / d.stride[1] + 1, d.out[1]);
    const int64_t ox0 = px < d.kernel[2] ? 0 : (px - d.kernel[2] + d.stride[2]) / d.stride[2];
    const int64_t ox1 = min(px / d.stride[2] + 1, d.out[2]);
    const T* g = dy + plane * out_plane;
    const T* o = out + plane * out_plane;
    const C v = Load(in, i);
    C acc = C(0);
    for (int64_t oy = oy0; oy < oy1; ++oy) {
      for (int64_t ox = ox0; ox < ox1; ++ox) {
        const int64_t oi = oy * d.out[2] + ox;
        if (d.type != PoolFn::kMax || Load(o, oi) == v) acc += Load(g, oi);
      }
    }
    Store(dx, i, d.type == PoolFn::kAvg ? PoolV1Scale<C>(d) * acc : acc);
  }
}

}  // namespace

cudaError_t LaunchPoolV1Forward(Elem t, const void* x, const PoolDims& d, void* y,
                                cudaStream_t s) {
  const int64_t n = d.planes * d.out[1] * d.out[2];
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    PoolV1ForwardKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(x), d, static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchPoolV1Backward(Elem t, const void* dy, const void* x, const void* y,
                                 const PoolDims& d, void* dx, cudaStream_t s) {
  const int64_t n = d.planes * d.in[1] * d.in[2];
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    PoolV1BackwardKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        static_cast<const T*>(dy), static_cast<const T*>(x), static_cast<const T*>(y), d,
        static_cast<T*>(dx), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchPoolForward(Elem t, const void* x, const PoolDims& d, void* y, cudaStream_t s) {
  const int64_t n = d.planes * d.out[0] * d.out[1] * d.out[2];
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    PoolForwardKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(x), d, static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchPoolBackward(Elem t, const void* dy, const void* x, const void* y,
                               const PoolDims& d, void* workspace, void* dx, cudaStream_t s) {
  const int64_t n = d.planes * d.in[0] * d.in[1] * d.in[2];
  const int64_t outputs = d.planes * d.out[0] * d.out[1] * d.out[2];
  if (n == 0) return cudaSuccess;
  if (d.type == PoolFn::kMax && outputs > 0 && workspace == nullptr) return cudaErrorInvalidValue;
  auto* argmax = static_cast<int64_t*>(workspace);
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    if (d.type == PoolFn::kMax && outputs > 0) {
      PoolArgmaxKernel<T><<<GridFor(outputs), kThreads, 0, s>>>(
          static_cast<const T*>(x), static_cast<const T*>(y), d, argmax, outputs);
    }
    PoolBackwardKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        static_cast<const T*>(dy), static_cast<const T*>(x), static_cast<const T*>(y), argmax, d,
        static_cast<T*>(dx), n);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
