// CTCLoss on the GPU: one block per sample running devices/geometry/ctc_math.h's
// recurrences in double (the CPU's), threads across the extended label's
// symbols within a step and across steps for the log softmax and gradient.
// The samples' extended labels were read and checked on the host
// (devices/geometry/ctc_plan.h) and uploaded as `meta` (CtcMetaPerSample's layout).
#include "devices/geometry/ctc_math.h"
#include "devices/cuda/ctc_launch.h"
#include "devices/cuda/elem_types.cuh"

namespace symx {
namespace cuda {
namespace {

constexpr int kCtcThreads = 256;

template <typename T>
__global__ void CtcKernel(const T* x, int64_t tmax, int64_t nb, int64_t a, int64_t smax,
                          const int64_t* meta, double* scratch, int64_t per, T* g, T* loss) {
  const int64_t b = blockIdx.x;
  const int64_t* m = meta + b * CtcMetaPerSample(smax);
  const int64_t tb = m[0], S = m[1];
  const bool feasible = m[2] != 0;
  const int64_t* sym = m + 3;
  const int64_t* next = sym + smax;    // the next symbol position with the same class, or -1
  const int64_t* first = next + smax;  // 1 where a class occurs for the first time
  const int64_t tid = threadIdx.x, nt = blockDim.x;
  auto at = [&](int64_t t, int64_t k) { return (t * nb + b) * a + k; };
  // Rows past the sample's steps (every row when the label cannot fit) are 0.
  const int64_t z0 = feasible ? tb : 0;
  for (int64_t i = tid; i < (tmax - z0) * a; i += nt) {
    g[at(z0 + i / a, i % a)] = FromDouble<T>(0);
  }
  if (!feasible) {
    if (tid == 0) loss[b] = FromDouble<T>(0);
    return;
  }
  double* ly = scratch + b * per;  // log softmax, (tb, a)
  double* al = ly + tmax * a;      // log alpha, (tb, S)
  double* be = al + tmax * S;      // log beta, (tb, S)
  for (int64_t t = tid; t < tb; t += nt) {
    double mx = CtcNegInf();
    for (int64_t k = 0; k < a; ++k) {
      const double v = ToDouble(x[at(t, k)]);
      mx = mx < v ? v : mx;  // std::max's choice, as the CPU
    }
    double sum = 0;
    for (int64_t k = 0; k < a; ++k) sum += exp(ToDouble(x[at(t, k)]) - mx);
    const double lse = mx + log(sum);
    for (int64_t k = 0; k < a; ++k) ly[t * a + k] = ToDouble(x[at(t, k)]) - lse;
  }
  __syncthreads();
  if (tb > 0) {
    for (int64_t s = tid; s < S; s += nt) al[s] = s < 2 ? ly[sym[s]] : CtcNegInf();
    for (int64_t t = 1; t < tb; ++t) {
      __syncthreads();
      for (int64_t s = tid; s < S; s += nt) {
        al[t * S + s] = CtcAlpha(al + (t - 1) * S, sym, s, ly + t * a);
      }
    }
    for (int64_t s = tid; s < S; s += nt) be[(tb - 1) * S + s] = s >= S - 2 ? 0.0 : CtcNegInf();
    for (int64_t t = tb - 2; t >= 0; --t) {
      __syncthreads();
      for (int64_t s = tid; s < S; s += nt) {
        be[t * S + s] = CtcBeta(be + (t + 1) * S, sym, S, s, ly + (t + 1) * a);
      }
    }
  }
  __syncthreads();
  double log_p = S == 1 ? 0.0 : CtcNegInf();
  if (tb > 0) {
    log_p = al[(tb - 1) * S + S - 1];
    if (S >= 2) log_p = CtcLogAdd(log_p, al[(tb - 1) * S + S - 2]);
  }
  if (tid == 0) loss[b] = FromDouble<T>(-log_p);
  // Every class's softmax term first, then the label classes' posteriors
  // (each class summed over its positions in ascending order, as the CPU).
  for (int64_t i = tid; i < tb * a; i += nt) {
    g[at(i / a, i % a)] = FromDouble<T>(exp(ly[i]) - exp(CtcNegInf() - log_p));
  }
  __syncthreads();
  for (int64_t i = tid; i < tb * S; i += nt) {
    const int64_t t = i / S, s = i % S;
    if (!first[s]) continue;
    double post = CtcNegInf();
    for (int64_t q = s; q >= 0; q = next[q]) {
      post = CtcLogAdd(post, al[t * S + q] + be[t * S + q]);
    }
    const int64_t k = sym[s];
    g[at(t, k)] = FromDouble<T>(exp(ly[t * a + k]) - exp(post - log_p));
  }
}

}  // namespace

cudaError_t LaunchCtcLoss(Elem t, const void* x, int64_t tmax, int64_t batch, int64_t alphabet,
                          int64_t max_symbols, const int64_t* meta, double* scratch,
                          int64_t scratch_per_sample, void* grad, void* loss, cudaStream_t s) {
  if (batch == 0) return cudaSuccess;
  if (batch > 0x7fffffff) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    CtcKernel<T><<<static_cast<unsigned>(batch), kCtcThreads, 0, s>>>(
        static_cast<const T*>(x), tmax, batch, alphabet, max_symbols, meta, scratch,
        scratch_per_sample, static_cast<T*>(grad), static_cast<T*>(loss));
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
