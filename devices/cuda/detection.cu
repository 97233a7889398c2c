// MultiBoxPrior and box_nms (forward and gradient) on the GPU, over the box
// arithmetic the CPU kernels use (devices/box_geometry.h) in the same compute
// type, so IoU ties with the threshold fall the same way on both devices.
// box_nms: the candidates' scores become sort keys (-inf for rows that are
// not candidates), CUB's stable segmented sort orders each batch (the CPU's
// std::stable_sort order), then one block per batch runs the greedy
// suppression: each kept box suppresses the later ones in parallel.
#include <cfloat>

#include "devices/box_geometry.h"
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {
namespace {

// Compute type of a storage type: float for float and the half types.
template <typename T>
using BoxC = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
__device__ __forceinline__ BoxC<T> Rd(const T* p, int64_t i) {
  return static_cast<BoxC<T>>(Load(p, i));
}

template <typename T>
__device__ __forceinline__ void Wr(T* p, int64_t i, BoxC<T> v) {
  Store(p, i, static_cast<Acc<T>>(v));
}

__global__ void PriorKernel(int64_t in_w, int64_t anchors, float step_y, float step_x,
                            float off_y, float off_x, const float* half, bool clip, float* out,
                            int64_t count) {
  SYMX_GRID_STRIDE(k, count) {
    const int64_t j = k % anchors, cell = k / anchors;
    const int64_t r = cell / in_w, c = cell % in_w;
    const float cy = (static_cast<float>(r) + off_y) * step_y;
    const float cx = (static_cast<float>(c) + off_x) * step_x;
    PriorCorners(cx, cy, half[2 * j], half[2 * j + 1], clip, out + k * 4);
  }
}

template <typename T>
__device__ __forceinline__ bool NmsCandidate(const T* row, const BoxNmsArgs& a) {
  using C = BoxC<T>;
  if (!(Rd(row, a.score_index) > static_cast<C>(a.valid_thresh))) return false;
  return !(a.id_index >= 0 && a.background_id >= 0 &&
           Rd(row, a.id_index) == static_cast<C>(a.background_id));
}

// keys[b, i]: row i's score when it is a candidate (-0 as +0, which the CPU's
// comparison cannot tell apart), else -inf, which sorts after every candidate.
template <typename T>
__global__ void NmsKeysKernel(const T* x, BoxNmsArgs a, BoxC<T>* keys, int64_t rows) {
  using C = BoxC<T>;
  SYMX_GRID_STRIDE(i, rows) {
    const T* row = x + i * a.width;
    C key = -static_cast<C>(INFINITY);
    if (NmsCandidate(row, a)) {
      key = Rd(row, a.score_index);
      if (key == C(0)) key = C(0);
    }
    keys[i] = key;
  }
}

template <typename T>
__device__ __forceinline__ Box<BoxC<T>> NmsBox(const T* row, const BoxNmsArgs& a) {
  const int64_t cs = a.coord_start;
  return ToCorner(Rd(row, cs), Rd(row, cs + 1), Rd(row, cs + 2), Rd(row, cs + 3), a.in_center);
}

template <typename T>
__global__ void NmsKernel(const T* x, const BoxC<T>* sorted_keys, const int32_t* pos,
                          BoxNmsArgs a, uint8_t* dead_all, T* out, T* rec) {
  using C = BoxC<T>;
  const int64_t b = blockIdx.x, n = a.n, width = a.width, cs = a.coord_start;
  const T* xb = x + b * n * width;
  const C* kb = sorted_keys + b * n;
  const int32_t* order = pos + b * n;
  uint8_t* dead = dead_all + b * n;
  T* ob = out + b * n * width;
  T* rb = rec + b * n;
  const int64_t tid = threadIdx.x, nt = blockDim.x;
  __shared__ unsigned long long m_shared;
  __shared__ int64_t kept;
  if (tid == 0) {
    m_shared = static_cast<unsigned long long>(n);
    kept = 0;
  }
  __syncthreads();
  // Candidates come first in the sorted order: m is the first -inf key.
  for (int64_t i = tid; i < n; i += nt) {
    if (kb[i] == -static_cast<C>(INFINITY)) atomicMin(&m_shared, static_cast<unsigned long long>(i));
  }
  __syncthreads();
  int64_t m = static_cast<int64_t>(m_shared);
  if (a.topk > 0 && a.topk < m) m = a.topk;
  for (int64_t i = tid; i < m; i += nt) dead[i] = 0;
  for (int64_t s = 0; s < m; ++s) {
    __syncthreads();  // dead[s] and kept are final here
    if (dead[s]) continue;
    const T* ra = xb + static_cast<int64_t>(order[s]) * width;
    const Box<C> ba = NmsBox(ra, a);
    for (int64_t c = s + 1 + tid; c < m; c += nt) {
      if (dead[c]) continue;
      const T* rc = xb + static_cast<int64_t>(order[c]) * width;
      if (a.id_index >= 0 && !a.force_suppress && Rd(ra, a.id_index) != Rd(rc, a.id_index)) {
        continue;
      }
      if (Iou(ba, NmsBox(rc, a)) > static_cast<C>(a.overlap_thresh)) dead[c] = 1;
    }
    // Row s is final: copy it to the next output row.
    T* o = ob + kept * width;
    for (int64_t j = tid; j < width; j += nt) o[j] = ra[j];
    __syncthreads();
    if (tid == 0) {
      C coords[4];
      if (NmsOutputCoords(Rd(ra, cs), Rd(ra, cs + 1), Rd(ra, cs + 2), Rd(ra, cs + 3),
                          a.in_center, a.out_center, coords)) {
        for (int j = 0; j < 4; ++j) Wr(o, cs + j, coords[j]);
      }
      Wr(rb, kept, static_cast<C>(order[s]));
      ++kept;
    }
  }
  __syncthreads();
  for (int64_t e = kept * width + tid; e < n * width; e += nt) Wr(ob, e, C(-1));
  for (int64_t i = kept + tid; i < n; i += nt) Wr(rb, i, C(-1));
}

// grad[b * n + rec[i], :] (+)= ograd[i, :] for every kept output row i.
template <typename T>
__global__ void NmsGradKernel(const T* og, const T* rec, int64_t n, int64_t width, bool add,
                              T* grad, int64_t count) {
  SYMX_GRID_STRIDE(e, count) {
    const int64_t i = e / width, j = e % width;
    const double src = ToDouble(rec[i]);
    if (!(src >= 0 && src < static_cast<double>(n))) continue;
    const int64_t dst = ((i / n) * n + static_cast<int64_t>(src)) * width + j;
    const double v = ToDouble(og[e]) + (add ? ToDouble(grad[dst]) : 0.0);
    grad[dst] = FromDouble<T>(v);
  }
}

}  // namespace

cudaError_t LaunchMultiBoxPrior(int64_t in_h, int64_t in_w, int64_t anchors, float step_y,
                                float step_x, float off_y, float off_x, const float* half,
                                bool clip, float* out, cudaStream_t s) {
  const int64_t count = in_h * in_w * anchors;
  if (count == 0) return cudaSuccess;
  PriorKernel<<<GridFor(count), kThreads, 0, s>>>(in_w, anchors, step_y, step_x, off_y, off_x,
                                                  half, clip, out, count);
  return LastLaunchError();
}

Elem BoxNmsKeyElem(Elem t) { return t == Elem::kF64 ? Elem::kF64 : Elem::kF32; }

cudaError_t LaunchBoxNmsKeys(Elem t, const void* x, const BoxNmsArgs& a, void* keys,
                             cudaStream_t s) {
  const int64_t rows = a.batches * a.n;
  if (rows == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    NmsKeysKernel<T><<<GridFor(rows), kThreads, 0, s>>>(static_cast<const T*>(x), a,
                                                         static_cast<BoxC<T>*>(keys), rows);
  });
  return LastLaunchError();
}

cudaError_t LaunchBoxNms(Elem t, const void* x, const void* sorted_keys, const int32_t* positions,
                         const BoxNmsArgs& a, uint8_t* dead, void* out, void* rec,
                         cudaStream_t s) {
  if (a.batches == 0) return cudaSuccess;
  if (a.batches > 0x7fffffff) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    NmsKernel<T><<<static_cast<unsigned>(a.batches), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const BoxC<T>*>(sorted_keys), positions, a, dead,
        static_cast<T*>(out), static_cast<T*>(rec));
  });
  return LastLaunchError();
}

cudaError_t LaunchBoxNmsGrad(Elem t, const void* og, const void* rec, int64_t rows, int64_t n,
                             int64_t width, bool add, void* grad, cudaStream_t s) {
  const int64_t count = rows * width;
  if (count == 0 || n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    NmsGradKernel<T><<<GridFor(count), kThreads, 0, s>>>(
        static_cast<const T*>(og), static_cast<const T*>(rec), n, width, add,
        static_cast<T*>(grad), count);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
