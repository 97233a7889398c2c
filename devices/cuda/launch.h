// Launchers of the CUDA kernels (devices/cuda/*.cu), in plain C++ so that the
// kernel registrations (*.cc, compiled by the host compiler) call them without
// nvcc ever seeing absl or the graph.
//
// Every launcher enqueues its work on `stream` and returns the launch's error
// (cudaSuccess for empty work); failures while running surface at the next
// synchronization, naming the device there.
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

// Every type Elem names (F16/BF16 compute in float).
bool IsKnownElem(Elem t);

// y = f(x). Activation's types and the unary math ops.
enum class UnaryFn {
  kIdentity,
  kNegative,
  kExp,
  kLog,
  kSqrt,
  kSquare,
  kAbs,
  kRelu,
  kSigmoid,
  kLogSigmoid,
  kTanh,
  kSoftRelu,
  kSoftSign,
  kMish,
  kSignPositive,  // 1 where x > 0, else -1 (MAERegressionOutput's gradient)
  kLogicalNot,    // 1 where x == 0, else 0
};
cudaError_t LaunchUnary(UnaryFn f, Elem t, const void* x, void* y, int64_t n, cudaStream_t s);

// dx = g * f'(...) from the head gradient g, the forward output y and input x
// (each rule reads what it needs; pass y for x when the rule needs no input).
enum class UnaryGradFn {
  kReluFromOut,
  kSigmoidFromOut,
  kLogSigmoidFromOut,
  kTanhFromOut,
  kSoftReluFromOut,
  kSqrtFromOut,
  kSquareFromIn,
  kAbsFromIn,
  kSoftSignFromIn,
  kMishFromIn,
};
cudaError_t LaunchUnaryGrad(UnaryGradFn f, Elem t, const void* g, const void* y, const void* x,
                            void* dx, int64_t n, cudaStream_t s);

// The comparisons and logic ops give 1 or 0 in the operands' type.
enum class BinaryFn {
  kAdd, kSub, kMul, kDiv, kMax, kMin, kPow,
  kEqual, kNotEqual, kGreater, kGreaterEqual, kLesser, kLesserEqual,
  kLogicalAnd, kLogicalOr, kLogicalXor,
};
// out = f(a, b), same shapes.
cudaError_t LaunchBinary(BinaryFn f, Elem t, const void* a, const void* b, void* out, int64_t n,
                         cudaStream_t s);

// Up to kMaxDims dims: out[i] = f(a[i . a_strides], b[i . b_strides]) with
// element strides that are 0 on broadcast axes.
constexpr int kMaxDims = 8;
struct BroadcastDims {
  int ndim = 0;
  int64_t out_dims[kMaxDims] = {};
  int64_t a_strides[kMaxDims] = {};
  int64_t b_strides[kMaxDims] = {};
};
cudaError_t LaunchBroadcast(BinaryFn f, Elem t, const void* a, const void* b, void* out,
                            const BroadcastDims& d, int64_t n, cudaStream_t s);

// y = f(x, scalar).
enum class ScalarFn {
  kPlus, kMinus, kRMinus, kMul, kDiv, kRDiv, kMax, kMin, kPow, kRPow,
  kEqual, kNotEqual, kGreater, kGreaterEqual, kLesser, kLesserEqual,
  kLogicalAnd, kLogicalOr, kLogicalXor,
};
cudaError_t LaunchScalar(ScalarFn f, Elem t, const void* x, double scalar, void* y, int64_t n,
                         cudaStream_t s);

// dx = g * d/dx f(x, scalar), from v (the forward input, or output for kRPow).
enum class ScalarGradFn { kRDivFromIn, kMaxFromIn, kMinFromIn, kPowFromIn, kRPowFromOut };
cudaError_t LaunchScalarGrad(ScalarGradFn f, Elem t, const void* g, const void* v, double scalar,
                             void* dx, int64_t n, cudaStream_t s);

// y[i] = value for every element of any known type.
cudaError_t LaunchFill(Elem t, double value, void* y, int64_t n, cudaStream_t s);
// y[i] = the element whose bits are the low elem_bytes bytes of `bits`.
cudaError_t LaunchFillBits(size_t elem_bytes, uint64_t bits, void* y, int64_t n, cudaStream_t s);
// _arange: y[i] = start + (i / repeat) * step; integer types use int_start
// and int_step (the values cast to the type) in int64 arithmetic.
cudaError_t LaunchArange(Elem t, double start, double step, int64_t int_start, int64_t int_step,
                         int64_t repeat, void* y, int64_t n, cudaStream_t s);
// y = x converted, between any two known types (float to integer truncates
// toward zero, saturating; NaN becomes 0).
cudaError_t LaunchCast(Elem from, const void* x, Elem to, void* y, int64_t n, cudaStream_t s);

// out[c] = scale * sum over r of in[r, c] for a rows x cols matrix, or
// out[c] += that when `accumulate` (float types; float32 accumulation for the
// half types).
cudaError_t LaunchColumnSums(Elem t, const void* in, int64_t rows, int64_t cols, double scale,
                             bool accumulate, void* out, cudaStream_t s);

// Reductions over the middle axis of an (outer, len, inner) view.
enum class ReduceFn { kSum, kMax, kMin };
// y[o, i] = scale * reduce_l x[o, l, i] (kSum), or the max/min.
cudaError_t LaunchReduce(ReduceFn f, Elem t, const void* x, int64_t outer, int64_t len,
                         int64_t inner, double scale, void* y, cudaStream_t s);

// argmax/argmin over the middle axis: y[o, i] = the first position of the
// largest (smallest) value, a NaN winning (its first position), written as a
// value of the data's type.
cudaError_t LaunchArgExtreme(Elem t, const void* x, int64_t outer, int64_t len, int64_t inner,
                             bool max, void* y, cudaStream_t s);

// Softmax over the middle axis of (outer, len, inner): y = softmax(x / temperature),
// or its log when `log`.
cudaError_t LaunchSoftmax(Elem t, const void* x, int64_t outer, int64_t len, int64_t inner,
                          double temperature, bool log, void* y, cudaStream_t s);
// Its gradient from the output y and head gradient g:
// softmax: dx = (g - sum(g * y)) * y / temperature;
// log_softmax: dx = (g - exp(y) * sum(g)) / temperature.
cudaError_t LaunchSoftmaxGrad(Elem t, const void* g, const void* y, int64_t outer, int64_t len,
                              int64_t inner, double temperature, bool log, void* dx,
                              cudaStream_t s);

// SoftmaxOutput's gradient for class-index labels over (outer, classes,
// inner): gx = (y - target) * scale, target = 1 - smooth_alpha for the label's
// class and smooth_alpha / (classes - 1) for the others; positions whose
// label is `ignore` get 0 when use_ignore. With valid_normalization the scale
// is further divided by the count of labels (of `entries`) that are not
// `ignore` (at least 1), counted on the device into `workspace` (8 bytes).
struct SoftmaxOutputGradArgs {
  int64_t outer = 0, classes = 0, inner = 0;
  int64_t entries = 0;
  double scale = 1;
  double smooth_alpha = 0;
  int64_t ignore = 0;
  bool use_ignore = false;
  bool valid_normalization = false;
};
cudaError_t LaunchSoftmaxOutputGrad(Elem t, const void* y, const void* label,
                                    const SoftmaxOutputGradArgs& a, void* workspace, void* gx,
                                    cudaStream_t s);

// A strided view for data movement: out element i (row-major over `dims`)
// moves between src[i . src_strides] and dst[i . dst_strides] (element
// strides; 0 repeats, negative walks backwards from the base pointer).
struct StridedDims {
  int ndim = 0;
  int64_t dims[kMaxDims] = {};
  int64_t src_strides[kMaxDims] = {};
  int64_t dst_strides[kMaxDims] = {};
};
// dst[.] = src[.] for elements of `elem_bytes` (1, 2, 4 or 8) bytes, any dtype.
cudaError_t LaunchStridedCopy(size_t elem_bytes, const void* src, void* dst, const StridedDims& d,
                              int64_t n, cudaStream_t s);

// y[j] = reduce over the reduced index space of x[kept(j) + reduced(r)]:
// output j walks `kept` (row-major, contiguous y), each output reduces over
// `reduced`; src strides only are used. Sum is scaled by `scale`; an empty
// reduced space gives 0 for sum and the identity for max/min.
cudaError_t LaunchReduceStrided(ReduceFn f, Elem t, const void* x, const StridedDims& kept,
                                const StridedDims& reduced, double scale, void* y,
                                int64_t outputs, cudaStream_t s);

// The per-element gradient terms of out = f(a, b) with broadcasting, over the
// full output shape (strides of a and b as in BroadcastDims): for the lhs
// (`rhs` false) or the rhs. MXNet's rules: max/min route the gradient to the
// lhs where a >= b (max) / a <= b (min), else to the rhs.
cudaError_t LaunchBroadcastGradTerms(BinaryFn f, bool rhs, Elem t, const void* g, const void* a,
                                     const void* b, const BroadcastDims& d, void* out, int64_t n,
                                     cudaStream_t s);

// max's gradient: dx[i] = x[i] == y[r(i)] ? g[r(i)] : 0, where r(i) = i . y_strides
// (the reduced output's strides, 0 on reduced axes) over `d` (dst strides unused).
cudaError_t LaunchMaxReduceGrad(Elem t, const void* x, const void* y, const void* g,
                                const StridedDims& d, void* dx, int64_t n, cudaStream_t s);

// _np_cumsum along n of an (outer, n, inner) view, one thread per column
// summing in the CPU kernel's order and types (devices/cpu/ordering_kernels.cc):
// each element converted to the output type, half types through double and
// rounded at each step. The gradient sums from the end, in double.
cudaError_t LaunchCumsum(Elem in_t, const void* x, Elem out_t, void* y, int64_t outer, int64_t n,
                         int64_t inner, cudaStream_t s);
cudaError_t LaunchCumsumGrad(Elem og_t, const void* g, Elem grad_t, void* gx, int64_t outer,
                             int64_t n, int64_t inner, cudaStream_t s);

// sort/argsort/topk: every row (along n of an (outer, n, inner) view) sorted
// with CUB's segmented radix sort, which is stable: equal keys keep their
// order (MXNet's GPU order, not the CPU's std::sort). Radix order is the
// bits' order: -0 sorts before +0, and NaNs by their sign bit (positive NaNs
// after +inf, negative ones before -inf, ascending). The workspace holds the
// gathered rows, the sorted keys and positions, and CUB's scratch; after
// LaunchSortRows, `*keys` and `*positions` (int32, rows * n) point into it.
struct SortDims {
  int64_t outer = 0, n = 0, inner = 1;
};
// Bytes of workspace LaunchSortRows needs (0 when rows * n exceeds int32, the
// type is not sortable, or CUB cannot size its scratch).
size_t SortWorkspaceBytes(Elem t, const SortDims& d);
cudaError_t LaunchSortRows(Elem t, const void* x, const SortDims& d, bool ascending,
                           void* workspace, size_t workspace_bytes, const void** keys,
                           const int32_t** positions, cudaStream_t s);
// From the sorted rows, the first k of each row: values (null: not wanted),
// indices as values of `idx_t` (null: not wanted), or with `mask` a 1/0 mask
// of data's shape in `values` marking the top k.
cudaError_t LaunchTopKOutputs(Elem t, const void* keys, const int32_t* positions,
                              const SortDims& d, int64_t k, bool mask, void* values, Elem idx_t,
                              void* indices, cudaStream_t s);
// The gradient: gx zeroed, then g's (row, j < k) added at the position
// indices[row, j] names; positions outside [0, n) leave the first such
// element number in *first_bad (set to all ones beforehand).
cudaError_t LaunchTopKGrad(Elem t, const void* g, Elem idx_t, const void* indices,
                           const SortDims& d, int64_t k, void* gx,
                           unsigned long long* first_bad, cudaStream_t s);

// BatchNorm over the channels of an (outer, channels, inner) view, with
// MXNet's semantics (devices/cpu/norm_kernels.cc): batch statistics when
// batch_stats (the moving ones updated with `momentum`), else the moving
// ones; mean/var receive the statistics used. Backward: null outputs are
// not wanted.
struct BatchNormDims {
  int64_t outer = 1, channels = 1, inner = 1;
};
cudaError_t LaunchBatchNormForward(Elem t, const void* x, const void* gamma, const void* beta,
                                   void* moving_mean, void* moving_var, void* y, void* mean,
                                   void* var, const BatchNormDims& d, double eps, double momentum,
                                   bool fix_gamma, bool batch_stats, cudaStream_t s);
cudaError_t LaunchBatchNormBackward(Elem t, const void* dy, const void* x, const void* gamma,
                                    const void* mean, const void* var, void* dx, void* dgamma,
                                    void* dbeta, const BatchNormDims& d, double eps,
                                    bool fix_gamma, bool batch_stats, cudaStream_t s);

// Normalizations over the columns of an (outer, n, inner) view, one block
// per column, two-pass statistics in the compute type (the CPU kernels,
// devices/cpu/norm_kernels.cc, state the semantics):
// - kLayer (LayerNorm): gamma/beta per position k along n; stat1 = mean,
//   stat2 = sqrt(var + eps).
// - kGroupStd (GroupNorm) / kGroupVar (InstanceNorm): columns are (batch,
//   group) pairs, gamma/beta per column % groups; stat1 = mean, stat2 = std or
//   var.
// - kL2 (L2Normalization): y = x / sqrt(sum x^2 + eps); stat1 = that norm;
//   its backward reads the output y in place of x.
// Backward: null outputs are not wanted.
enum class ColumnNormFn { kLayer, kGroupStd, kGroupVar, kL2 };
struct ColumnNormDims {
  int64_t columns = 0, n = 0, inner = 1, groups = 1;
};
cudaError_t LaunchColumnNormForward(ColumnNormFn f, Elem t, const void* x, const void* gamma,
                                    const void* beta, void* y, void* stat1, void* stat2,
                                    const ColumnNormDims& d, double eps, cudaStream_t s);
cudaError_t LaunchColumnNormBackward(ColumnNormFn f, Elem t, const void* dy, const void* x,
                                     const void* gamma, const void* stat1, const void* stat2,
                                     void* dx, void* dgamma, void* dbeta, const ColumnNormDims& d,
                                     double eps, cudaStream_t s);

// Pooling over (planes, d0, d1, d2) data, MXNet's window rules
// (devices/cpu/pooling_kernels.cc states them; devices/pool_geom.h builds the
// geometry). Backward gathers, per input element, the gradient of every
// window that holds it, so no atomics are needed and the result is
// deterministic.
enum class PoolFn { kMax, kAvg, kSum, kLp };
struct PoolDims {
  int64_t planes = 0;
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
  PoolFn type = PoolFn::kMax;
  bool count_include_pad = true;
  int64_t p = 1;
};
cudaError_t LaunchPoolForward(Elem t, const void* x, const PoolDims& d, void* y, cudaStream_t s);
// (ograd, data, output) -> grad of data. Max pooling needs `workspace` for
// one int64 per output (PoolBackwardWorkspaceBytes).
cudaError_t LaunchPoolBackward(Elem t, const void* dy, const void* x, const void* y,
                               const PoolDims& d, void* workspace, void* dx, cudaStream_t s);

// The unary math ops of graph/ops/math.cc on floating types, and their
// gradients (from the input x or the output y, as each backward op takes;
// devices/cpu/math_kernels.cc has the same rules). `param` is smooth_l1's
// sigma.
enum class MathFn {
  kLog2, kLog10, kLog1p, kExpm1, kSin, kCos, kTan, kArcsin, kArccos, kArctan, kSinh, kCosh,
  kArcsinh, kArccosh, kArctanh, kDegrees, kRadians, kReciprocal, kRsqrt, kCbrt, kRcbrt, kErf,
  kErfinv, kGamma, kGammaln, kFloor, kCeil, kRound, kRint, kTrunc, kSign, kSmoothL1,
};
enum class MathGradFn {
  kLog2, kLog10, kLog1p, kExpm1FromOut, kSin, kCos, kTanFromOut, kArcsin, kArccos, kArctan,
  kSinh, kCosh, kArcsinh, kArccosh, kArctanh, kDegrees, kRadians, kReciprocal, kRsqrt,
  kCbrtFromOut, kRcbrt, kErf, kErfinvFromOut, kGamma, kGammaln, kSmoothL1,
};
cudaError_t LaunchMath(MathFn f, Elem t, const void* x, double param, void* y, int64_t n,
                       cudaStream_t s);
cudaError_t LaunchMathGrad(MathGradFn f, Elem t, const void* g, const void* v, double param,
                           void* dx, int64_t n, cudaStream_t s);

// Dropout's mask, drawn exactly as the CPU kernel draws it (so a device
// seeded alike gives the same mask): chunks of 2^16 elements, chunk c from a
// SplitMix64 seeded with mix(base + c * 0xd1b54a32d192ed03); each 64-bit draw
// gives two 32-bit uniforms; kept where the uniform is below keep * 2^32,
// with the value `scale` (else 0).
cudaError_t LaunchDropoutMask(Elem t, uint64_t base, double keep, double scale, void* mask,
                              int64_t n, cudaStream_t s);

// Embedding: out row i = weight row clip(trunc(idx[i]), 0, rows - 1) (NaN and
// negatives read row 0), `dim` values per row; indices of any known type.
cudaError_t LaunchEmbedding(Elem idx_t, const void* idx, int64_t n, Elem t, const void* weight,
                            int64_t rows, int64_t dim, void* out, cudaStream_t s);
// The weight gradient: each ograd row added into its index's row (atomic
// adds: the order of the sums is not fixed). float16/bfloat16 accumulate in
// `scratch` (rows * dim float32 values), rounded once at the end.
cudaError_t LaunchEmbeddingGrad(Elem idx_t, const void* idx, int64_t n, Elem t,
                                const void* ograd, int64_t rows, int64_t dim, void* grad_weight,
                                void* scratch, cudaStream_t s);

// Index positions (devices/index_position.h) for pick, take and gather_nd,
// into `pos` (count int64s). Values the mode rejects (take's raise, any
// gather_nd value out of range) leave -1 there and the smallest such element
// number in `*first_bad`, which the caller sets to all ones beforehand.
enum class IndexPosMode { kClip, kWrap, kRaise };
cudaError_t LaunchIndexPositions(Elem idx_t, const void* idx, int64_t count, int64_t n,
                                 IndexPosMode mode, int64_t* pos, unsigned long long* first_bad,
                                 cudaStream_t s);
// gather_nd: column y of the (m, count) indices gives the row-major offset,
// in slices, of the coordinates it names in dims[0..m).
cudaError_t LaunchGatherNdOffsets(Elem idx_t, const void* idx, int64_t count, int m,
                                  const int64_t* dims, int64_t* pos,
                                  unsigned long long* first_bad, cudaStream_t s);
// y[(o * m + i) * inner + r] = x[(o * n + pos[i]) * inner + r] (take; gather_nd
// with outer 1), for elements of `elem_bytes` bytes.
cudaError_t LaunchGatherRows(size_t elem_bytes, const void* x, const int64_t* pos, int64_t outer,
                             int64_t n, int64_t m, int64_t inner, void* y, cudaStream_t s);
// Its gradient: grad (outer, n, inner) zeroed, then each row of g added into
// row pos[i] (atomic adds: the order of the sums is not fixed). float16 and
// bfloat16 accumulate in `scratch` (outer * n * inner floats).
cudaError_t LaunchScatterAddRows(Elem t, const void* g, const int64_t* pos, int64_t outer,
                                 int64_t n, int64_t m, int64_t inner, void* grad, void* scratch,
                                 cudaStream_t s);
// pick: y[i] = x[(o * n + pos[i]) * inner + r] with i = o * inner + r; its
// gradient (`scatter`) zeroes grad and writes g[i] there (distinct places).
cudaError_t LaunchPick(size_t elem_bytes, const void* x, const int64_t* pos, int64_t outer,
                       int64_t n, int64_t inner, void* y, bool scatter, cudaStream_t s);
// one_hot: out row i is `off` but for column OneHotColumn(idx[i], depth),
// `on`; on/off are the output dtype's bit patterns, elem_bytes wide.
cudaError_t LaunchOneHot(Elem idx_t, const void* idx, int64_t count, int64_t depth,
                         size_t elem_bytes, uint64_t on, uint64_t off, void* out, cudaStream_t s);

// Pad (devices/pad_map.h) over up to kMaxDims dims: y = x at each output's
// source, or `value` for the constant. The gradient gathers, per input
// element, every output that copies it (the one position inside, plus the
// edge/reflect copies in the pad regions): no atomics, deterministic.
struct PadDims {
  int ndim = 0;
  int kind = 0;  // PadKind
  int64_t in[kMaxDims] = {};
  int64_t out[kMaxDims] = {};
  int64_t before[kMaxDims] = {};
};
cudaError_t LaunchPad(Elem t, const void* x, const PadDims& d, double value, void* y, int64_t n,
                      cudaStream_t s);
cudaError_t LaunchPadGrad(Elem t, const void* g, const PadDims& d, void* gx, int64_t n,
                          cudaStream_t s);

// UpSampling nearest, for one input of (N, c, h, w) into channels [offset,
// offset + c) of the (N, C, H, W) output (H, W multiples of h, w): y = x of
// the covering pixel, added when `add` (multi_input_mode=sum past the first
// input). The gradient sums each pixel's block of the output gradient.
struct UpDims {
  int64_t n = 0, c = 0, h = 0, w = 0;  // this input
  int64_t C = 0, H = 0, W = 0;         // the output
  int64_t offset = 0;                  // first output channel
};
cudaError_t LaunchUpSampleNearest(Elem t, const void* x, const UpDims& d, bool add, void* y,
                                  cudaStream_t s);
cudaError_t LaunchUpSampleNearestGrad(Elem t, const void* g, const UpDims& d, void* gx,
                                      cudaStream_t s);
// UpSampling bilinear: a depthwise transposed convolution of (N, C, h, w) data
// with weight (C, 1, k, k), stride and pad, into (N, C, H, W), gathered per
// output pixel; gradients of data (gathered per input pixel) and weight (one
// block per weight element, a fixed-order sum).
struct DepthwiseUpDims {
  int64_t n = 0, c = 0, h = 0, w = 0, H = 0, W = 0, k = 0, stride = 1, pad = 0;
};
cudaError_t LaunchDepthwiseUp(Elem t, const void* x, const void* weight,
                              const DepthwiseUpDims& d, void* y, cudaStream_t s);
cudaError_t LaunchDepthwiseUpGrad(Elem t, const void* g, const void* x, const void* weight,
                                  const DepthwiseUpDims& d, void* gx, void* gweight,
                                  cudaStream_t s);

// _contrib_AdaptiveAvgPooling2D and _contrib_BilinearResize2D over planes of
// (H, W) input and (h, w) output (devices/resize_map.h, shared with the CPU).
// Gradients gather, per input pixel, every output that samples it.
struct ResizeDims {
  int64_t planes = 0, H = 0, W = 0, h = 0, w = 0;
  bool align_corners = false;
};
cudaError_t LaunchAdaptiveAvgPool(Elem t, const void* x, const ResizeDims& d, void* y,
                                  cudaStream_t s);
cudaError_t LaunchAdaptiveAvgPoolGrad(Elem t, const void* g, const ResizeDims& d, void* gx,
                                      cudaStream_t s);
cudaError_t LaunchBilinearResize(Elem t, const void* x, const ResizeDims& d, void* y,
                                 cudaStream_t s);
cudaError_t LaunchBilinearResizeGrad(Elem t, const void* g, const ResizeDims& d, void* gx,
                                     cudaStream_t s);

// GridGenerator, BilinearSampler and SpatialTransformer
// (devices/spatial_sample.h, shared with the CPU): data (N, C, IH, IW), output
// (N, C, H, W); the grid is (N, 2, H, W), or with `affine` loc (N, 6) applied
// to the output grid. The data gradient is added with atomics (in float
// scratch for the half types: `scratch`, N * C * IH * IW floats), so its sums
// have no fixed order; the grid and loc gradients are computed per point, and
// loc's summed per sample by one block (deterministic).
struct SamplerDims {
  int64_t n = 0, c = 0, ih = 0, iw = 0, h = 0, w = 0;
  bool affine = false;
};
cudaError_t LaunchGridGenerator(Elem t, const void* in, const SamplerDims& d, void* grid,
                                cudaStream_t s);
cudaError_t LaunchGridGeneratorGrad(Elem t, const void* g, const SamplerDims& d, void* gin,
                                    cudaStream_t s);
cudaError_t LaunchSampler(Elem t, const void* data, const void* grid, const SamplerDims& d,
                          void* out, cudaStream_t s);
cudaError_t LaunchSamplerGrad(Elem t, const void* g, const void* data, const void* grid,
                              const SamplerDims& d, void* gdata, void* ggrid, void* scratch,
                              cudaStream_t s);

// ROIPooling and _contrib_ROIAlign over (N, C, H, W) data and rois (R, 5)
// (devices/roi_geometry.h, shared with the CPU; float compute for the float
// and half types, double for double). One thread per output element; the
// data gradients add with atomics (float scratch for the half types,
// `scratch`, N * C * H * W floats), so their sums have no fixed order.
// ROIAlign rois that are empty with aligned=True leave their number in
// *first_bad (set to all ones beforehand).
struct RoiDims {
  int64_t n = 0, c = 0, h = 0, w = 0;     // data
  int64_t r = 0, co = 0, ph = 0, pw = 0;  // output
  float scale = 1;
  int64_t sample_ratio = -1;
  bool position_sensitive = false, aligned = false;
};
cudaError_t LaunchRoiPool(Elem t, const void* x, const void* rois, const RoiDims& d, void* y,
                          void* argmax, cudaStream_t s);
cudaError_t LaunchRoiPoolGrad(Elem t, const void* g, const void* rois, const void* argmax,
                              const RoiDims& d, void* gx, void* scratch, cudaStream_t s);
cudaError_t LaunchRoiAlign(Elem t, const void* x, const void* rois, const RoiDims& d, void* y,
                           unsigned long long* first_bad, cudaStream_t s);
cudaError_t LaunchRoiAlignGrad(Elem t, const void* g, const void* rois, const RoiDims& d,
                               void* gx, void* scratch, unsigned long long* first_bad,
                               cudaStream_t s);

// _contrib_box_iou: out[i * nr + j] = IoU of lhs box i and rhs box j
// (devices/box_geometry.h, shared with the CPU; float compute for the float
// and half types, double for double), boxes in corner or center form.
cudaError_t LaunchBoxIou(Elem t, const void* lhs, int64_t nl, const void* rhs, int64_t nr,
                         bool center, void* out, cudaStream_t s);

// LRN across channels of (N, C, S) data (S = H * W), as the CPU kernel
// (devices/cpu/lrn_kernels.cc): tmp = knorm + alpha / nsize * the window's sum
// of squares, y = x * tmp^-beta; the gradient gathers over each element's
// window (deterministic).
struct LrnDims {
  int64_t batch = 0, channels = 0, spatial = 0, nsize = 1;
  double alpha = 0, beta = 0, knorm = 0;
};
cudaError_t LaunchLrn(Elem t, const void* x, const LrnDims& d, void* y, void* tmp,
                      cudaStream_t s);
cudaError_t LaunchLrnGrad(Elem t, const void* g, const void* x, const void* tmp,
                          const LrnDims& d, void* gx, cudaStream_t s);

// where: out[i] = cond[i / row] != 0 ? x[i] : y[i] (row == 1: one condition
// per element). Backward: gx/gy get g where the condition picks them, else 0
// (null: not wanted).
cudaError_t LaunchWhere(Elem cond_t, const void* cond, Elem t, const void* x, const void* y,
                        int64_t row, void* out, int64_t n, cudaStream_t s);
cudaError_t LaunchWhereGrad(Elem cond_t, const void* cond, Elem t, const void* g, int64_t row,
                            void* gx, void* gy, int64_t n, cudaStream_t s);

// clip: y = x < lo ? lo : (x > hi ? hi : x) (NaN passes); the gradient passes
// where !(x < lo || x > hi).
cudaError_t LaunchClip(Elem t, const void* x, double lo, double hi, void* y, int64_t n,
                       cudaStream_t s);
cudaError_t LaunchClipGrad(Elem t, const void* g, const void* x, double lo, double hi, void* dx,
                           int64_t n, cudaStream_t s);

// LeakyReLU's types (MXNet 1.x formulas, as devices/cpu/activation_kernels.cc):
// leaky x*slope, elu slope*(e^x - 1), selu, exact gelu, and rrelu/prelu with a
// per-element (mask) or per-channel (gamma over (outer, channels, inner),
// or one shared value) slope for x <= 0.
enum class LeakyFn { kLeaky, kELU, kSELU, kGELU };
cudaError_t LaunchLeaky(LeakyFn f, Elem t, const void* x, double slope, void* y, int64_t n,
                        cudaStream_t s);
// From g, the data x and the output y.
cudaError_t LaunchLeakyGrad(LeakyFn f, Elem t, const void* g, const void* x, const void* y,
                            double slope, void* dx, int64_t n, cudaStream_t s);
struct ChannelDims {
  int64_t outer = 1, channels = 1, inner = 1;
  bool shared = false;  // one slope for every channel
};
// y = x > 0 ? x : slope * x, slope from gamma (per channel) or, with a null
// gamma, from mask (per element).
cudaError_t LaunchPReLU(Elem t, const void* x, const void* gamma, const void* mask,
                        const ChannelDims& d, void* y, cudaStream_t s);
// dx = x > 0 ? g : slope * g (as LaunchPReLU picks the slope); `terms`, when
// not null, gets x <= 0 ? x * g : 0 per element (prelu's gamma gradient,
// summed per channel afterwards).
cudaError_t LaunchPReLUGrad(Elem t, const void* g, const void* x, const void* gamma,
                            const void* mask, const ChannelDims& d, void* dx, void* terms,
                            cudaStream_t s);
// Uniform values in [lo, hi) from a counter-based generator keyed by `seed`
// (rrelu's training slopes).
cudaError_t LaunchUniform(Elem t, uint64_t seed, double lo, double hi, void* y, int64_t n,
                          cudaStream_t s);

// y[0, n) = value / max(1, count of x[i] > thresh), the count taken on the
// device into `workspace` (8 bytes): MakeLoss's normalization=valid.
cudaError_t LaunchFillDividedByCountAbove(Elem t, const void* x, int64_t n, double thresh,
                                          double value, void* workspace, void* y,
                                          cudaStream_t s);

// One step of the fused RNN for batch x hidden units (devices/rnn_cell.h's
// math; kind an RnnCellKind). Forward: x (batch, gates*hidden), this step's
// input-side products, becomes the gate activations; g the recurrent products;
// bx, bh their biases; hp, cp (batch, hidden) the previous states (cp, c: lstm
// only; hn: gru only, else null); writes h.
cudaError_t LaunchRnnStepForward(int kind, Elem t, int64_t batch, int64_t hidden, void* x,
                                 const void* bx, const void* g, const void* bh, const void* hp,
                                 const void* cp, void* c, void* hn, void* h, cudaStream_t s);
// Backward of one step from the carried hidden gradient dh plus the output's
// dy (rows dy_stride apart) and, for lstm, dc: writes the pre-activation
// gradients gx and gh (batch, gates*hidden) and the previous step's direct
// parts dhp (and dcp).
cudaError_t LaunchRnnStepBackward(int kind, Elem t, int64_t batch, int64_t hidden,
                                  const void* x, const void* c, const void* cp, const void* hn,
                                  const void* hp, const void* dh, const void* dy,
                                  int64_t dy_stride, const void* dc, void* gx, void* gh,
                                  void* dhp, void* dcp, cudaStream_t s);

// CTCLoss's loss (batch) and gradient (tmax, batch, alphabet) from the scores
// x, one block per sample: `meta` is the samples' table (devices/ctc_math.h's
// CtcMetaPerSample layout, on the device), `scratch` scratch_per_sample
// doubles per sample.
cudaError_t LaunchCtcLoss(Elem t, const void* x, int64_t tmax, int64_t batch, int64_t alphabet,
                          int64_t max_symbols, const int64_t* meta, double* scratch,
                          int64_t scratch_per_sample, void* grad, void* loss, cudaStream_t s);

// MultiBoxPrior's anchors for an (in_h, in_w) map: `half` (on the device)
// holds each anchor's half width and height (devices/detection_plan.h).
cudaError_t LaunchMultiBoxPrior(int64_t in_h, int64_t in_w, int64_t anchors, float step_y,
                                float step_x, float off_y, float off_x, const float* half,
                                bool clip, float* out, cudaStream_t s);

// MultiBoxDetection (float32/float64): cls_prob (batch, classes, anchors),
// loc_pred (batch, anchors * 4), anchors (anchors * 4).
struct MultiBoxArgs {
  int64_t batch = 0, classes = 0, anchors = 0;
  double threshold = 0, nms_threshold = 0, var[4] = {};
  int64_t nms_topk = -1;
  bool clip = true, force_suppress = false;
};
// Decodes every anchor into a candidate output row (rows: batch * anchors * 6)
// and its sort key (keys: batch * anchors, BoxNmsKeyElem(t); -inf for anchors
// without a class). Sorted descending (LaunchSortRows), the keys and their
// positions feed LaunchMultiBoxNms, which writes the output; `compact` is
// batch * anchors int32 of scratch.
cudaError_t LaunchMultiBoxDecode(Elem t, const void* cls, const void* loc, const void* anchors,
                                 const MultiBoxArgs& a, void* rows, void* keys, cudaStream_t s);
cudaError_t LaunchMultiBoxNms(Elem t, const void* rows, const void* keys, const void* sorted_keys,
                              const int32_t* positions, const MultiBoxArgs& a, int32_t* compact,
                              void* out, cudaStream_t s);

// MultiBoxTarget (float32/float64): anchor (anchors * 4), label (batch,
// labels, label_width), cls_pred (batch, classes, anchors).
struct MultiBoxTargetArgs {
  int64_t batch = 0, anchors = 0, labels = 0, label_width = 0, classes = 0;
  double overlap_threshold = 0, ignore_label = -1, negative_mining_ratio = -1,
         negative_mining_thresh = 0, var[4] = {};
};
// Device scratch: per batch aflag, match, best_iou and keys (anchors each),
// gflag (labels) and info (2 int64: boxes, negatives wanted).
struct MultiBoxTargetScratch {
  int32_t *aflag = nullptr, *match = nullptr, *gflag = nullptr;
  double *best_iou = nullptr, *keys = nullptr;
  int64_t* info = nullptr;
};
// Step 1 (one block per batch): resets the outputs, matches anchors to boxes
// and writes the hard-negative keys (batch * anchors doubles, +inf for
// anchors that cannot be negatives). Sorted ascending (LaunchSortRows), the
// keys and their positions feed step 2, which writes the targets.
cudaError_t LaunchMultiBoxMatch(Elem t, const void* anchors, const void* labels, const void* cls,
                                const MultiBoxTargetArgs& a, const MultiBoxTargetScratch& w,
                                void* loc_target, void* loc_mask, void* cls_target,
                                cudaStream_t s);
cudaError_t LaunchMultiBoxTargetOut(Elem t, const void* anchors, const void* labels,
                                    const double* sorted_keys, const int32_t* positions,
                                    const MultiBoxTargetArgs& a, const MultiBoxTargetScratch& w,
                                    void* loc_target, void* loc_mask, void* cls_target,
                                    cudaStream_t s);

// Proposal / MultiProposal (float32): cls_prob (n, 2a, h, w), bbox_pred
// (n, 4a, h, w), im_info (n, 3); devices/proposal_plan.h's sizes.
struct ProposalArgs {
  int64_t n = 0, a = 0, h = 0, w = 0, count = 0, pre = 0, post_nms = 0, rows = 0;
  int64_t stride = 16, min_size = 16;
  float threshold = 0.7f;
  bool iou_loss = false;
};
// Every proposal (props: n * count * 5) and its score as a sort key (keys:
// n * count); `anchors` (a * 4, on the device) are the base anchors. Sorted
// descending (LaunchSortRows), the positions feed LaunchProposalNms, which
// writes rois (n * rows, 5) and scores (n * rows) with per-image scratch
// ordered (pre * 5), area (pre), dead (pre) and keep (pre).
cudaError_t LaunchProposalDecode(const float* cls, const float* deltas, const float* info,
                                 const float* anchors, const ProposalArgs& a, float* props,
                                 float* keys, cudaStream_t s);
cudaError_t LaunchProposalNms(const float* props, const int32_t* positions, const ProposalArgs& a,
                              float* ordered, float* area, uint8_t* dead, int32_t* keep,
                              float* out, float* score, cudaStream_t s);

// box_nms over `batches` blocks of n rows of `width` (graph/ops/detection.h's
// BoxNmsParam, indices already checked against the width).
struct BoxNmsArgs {
  int64_t batches = 0, n = 0, width = 0;
  double overlap_thresh = 0, valid_thresh = 0;
  int64_t topk = -1, coord_start = 0, score_index = 0, id_index = -1, background_id = -1;
  bool force_suppress = false, in_center = false, out_center = false;
};
// The dtype of box_nms's sort keys: its compute type (float64 for float64,
// else float32).
Elem BoxNmsKeyElem(Elem t);
// keys (batches * n, BoxNmsKeyElem): each row's score when it is a
// candidate, else -inf. Sorted descending (LaunchSortRows), they and their
// positions feed LaunchBoxNms, which writes out and rec (the source row of
// each output row, -1 past the kept ones); `dead` is batches * n bytes.
cudaError_t LaunchBoxNmsKeys(Elem t, const void* x, const BoxNmsArgs& a, void* keys,
                             cudaStream_t s);
cudaError_t LaunchBoxNms(Elem t, const void* x, const void* sorted_keys, const int32_t* positions,
                         const BoxNmsArgs& a, uint8_t* dead, void* out, void* rec,
                         cudaStream_t s);
// box_nms's gradient: grad's row rec[i] of each batch (n rows) gets ograd's
// row i (added to it when `add`; rows with rec < 0 or >= n are skipped).
cudaError_t LaunchBoxNmsGrad(Elem t, const void* og, const void* rec, int64_t rows, int64_t n,
                             int64_t width, bool add, void* grad, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_LAUNCH_H_
