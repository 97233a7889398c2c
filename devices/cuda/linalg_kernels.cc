// CUDA kernels of _linalg_extractdiag, _linalg_makediag, _linalg_extracttrian
// and _linalg_maketrian (strided copies), _linalg_sumlogdiag and its backward
// (strided copies around the elementwise and reduce launchers)
// and of _linalg_gemm2, _linalg_gemm and _linalg_syrk (float32 and float64, as MXNet)
// through cuBLAS (devices/cuda/cublas_gemm.h): one strided-batched GEMM per
// block before the row axis, over the positions between the row axis and the
// last one (GemmLayout above). gemm first writes beta C into
// the output (zeros for beta 0, which ignores C as BLAS does), then adds the
// product.
//
// _linalg_potrf, _linalg_potri, _linalg_trmm, _linalg_trsm, _linalg_inverse,
// _linalg_det, _linalg_slogdet, _linalg_gelqf and _linalg_syevd and their
// backward ops run one thread per matrix (devices/cuda/linalg.cu).
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cuda/cublas_gemm.h"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/linalg_launch.h"
#include "devices/cuda/reduce_launch.h"
#include "devices/cuda/strided_launch.h"
#include "graph/ops/linalg.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {

namespace cuda {
namespace {

// What each kernel starts from: the step's device, the element type of
// its matrices `x` (float32 or float64, else an error naming the dtype), and
// for SquareStart the count and side of x's n x n matrices (checked square).
struct LinalgStep {
  CudaDevice* device = nullptr;
  Elem t = Elem::kF32;
  int64_t count = 0, n = 0;
};

absl::StatusOr<LinalgStep> LinalgStart(const KernelContext& ctx, const Tensor& x) {
  LinalgStep r;
  SYMX_ASSIGN_OR_RETURN(r.device, StepDevice(ctx));
  if (x.dtype() != DType::kFloat32 && x.dtype() != DType::kFloat64) {
    return UnsupportedDType(ctx, x.dtype());
  }
  SYMX_ASSIGN_OR_RETURN(r.t, FloatElem(ctx, x.dtype()));
  return r;
}

// out = alpha op(A) op(B) (+ beta C when `tc` is given) under `p`.
absl::Status GemmRun(const KernelContext& ctx, const LinalgGemmParam& p, const Tensor& ta,
                     const Tensor& tb, const Tensor* tc) {
  SYMX_ASSIGN_OR_RETURN(const LinalgStep step, LinalgStart(ctx, ta));
  CudaDevice* device = step.device;
  const Elem t = step.t;
  const DType dtype = ta.dtype();
  GemmLayout l;
  const Tensor& out = ctx.outputs[0];
  const bool with_c = tc != nullptr;
  absl::Status s =
      GetGemmOperands(p, ta.shape(), tb.shape(), with_c ? &tc->shape() : nullptr, out.shape(), &l);
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", s.message()));
  if (out.size() == 0) return absl::OkStatus();
  // Whether the output is written before the product is added to it.
  const bool prefilled = with_c || l.k == 0;
  if (with_c && p.beta != 0) {
    SYMX_CUDA_LAUNCH(ctx, LaunchScalar(ScalarFn::kMul, t, tc->read_raw_data(), p.beta,
                                       out.raw_data(), out.size(), device->stream()));
  } else if (prefilled) {
    SYMX_CUDA_LAUNCH(ctx, LaunchFill(t, 0.0, out.raw_data(), out.size(), device->stream()));
  }
  if (l.k == 0) return absl::OkStatus();
  const int64_t a_rows = p.transpose_a ? l.k : l.m, a_cols = p.transpose_a ? l.m : l.k;
  const int64_t b_rows = p.transpose_b ? l.n : l.k, b_cols = p.transpose_b ? l.k : l.n;
  const int64_t lda = l.mid * a_cols, ldb = l.mid * b_cols, ldc = l.mid * l.n;
  const int64_t elem = dtype == DType::kFloat64 ? 8 : 4;
  const char* a = static_cast<const char*>(ta.read_raw_data());
  const char* b = static_cast<const char*>(tb.read_raw_data());
  char* c = static_cast<char*>(out.raw_data());
  for (int64_t o = 0; o < l.outer; ++o) {
    SYMX_RETURN_IF_ERROR(Gemm(ctx, device, t, p.transpose_a, p.transpose_b, l.m, l.n, l.k,
                              a + o * a_rows * lda * elem, lda, b + o * b_rows * ldb * elem, ldb,
                              c + o * l.m * ldc * elem, ldc, p.alpha, prefilled ? 1.0 : 0.0, l.mid,
                              a_cols, b_cols, l.n));
  }
  return absl::OkStatus();
}

// extractdiag and makediag are strided copies of the diagonals (makediag
// zeroes the matrices first).
template <bool kExtract>
absl::Status Diag(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(const LinalgStep step, LinalgStart(ctx, in));
  CudaDevice* device = step.device;
  const Elem t = step.t;
  const DType dtype = in.dtype();
  const Shape& matrices = kExtract ? in.shape() : out.shape();
  const DiagLayout l = GetDiagLayout(matrices, ctx.param<LinalgDiagParam>().offset);
  if (matrices.ndim() < 2 || matrices[matrices.ndim() - 2] != l.n || l.length <= 0 ||
      (kExtract ? out : in).size() != l.count * l.length) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": input ", in.shape().ToString(),
                                                   " and output ", out.shape().ToString(),
                                                   " are not a diagonal and its matrices"));
  }
  if (!kExtract) {
    SYMX_CUDA_LAUNCH(ctx, LaunchFill(t, 0.0, out.raw_data(), out.size(), device->stream()));
  }
  if (l.count == 0) return absl::OkStatus();
  const int64_t elem = dtype == DType::kFloat64 ? 8 : 4;
  StridedDims d;
  d.ndim = 2;
  d.dims[0] = l.count;
  d.dims[1] = l.length;
  int64_t* matrix_strides = kExtract ? d.src_strides : d.dst_strides;
  int64_t* diag_strides = kExtract ? d.dst_strides : d.src_strides;
  matrix_strides[0] = l.n * l.n;
  matrix_strides[1] = l.n + 1;
  diag_strides[0] = l.length;
  diag_strides[1] = 1;
  const char* src = static_cast<const char*>(in.read_raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  if (kExtract) {
    src += l.start * elem;
  } else {
    dst += l.start * elem;
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchStridedCopy(static_cast<size_t>(elem), src, dst, d,
                                          l.count * l.length, device->stream()));
  return absl::OkStatus();
}

// extracttrian and maketrian: one strided copy per packed row, over the batch
// (maketrian zeroes the matrices first).
template <bool kExtract>
absl::Status Trian(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(const LinalgStep step, LinalgStart(ctx, in));
  CudaDevice* device = step.device;
  const Elem t = step.t;
  const DType dtype = in.dtype();
  const Shape& matrices = kExtract ? in.shape() : out.shape();
  const TrianLayout l = GetTrianLayout(matrices, ctx.param<LinalgTrianParam>());
  if (matrices.ndim() < 2 || matrices[matrices.ndim() - 2] != l.n || l.side < 0 ||
      (kExtract ? out : in).size() != l.count * l.Packed()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": input ", in.shape().ToString(),
                                                   " and output ", out.shape().ToString(),
                                                   " are not a packed triangle and its matrices"));
  }
  if (!kExtract) {
    SYMX_CUDA_LAUNCH(ctx, LaunchFill(t, 0.0, out.raw_data(), out.size(), device->stream()));
  }
  if (l.count == 0) return absl::OkStatus();
  const int64_t elem = dtype == DType::kFloat64 ? 8 : 4;
  for (int64_t r = 0; r < l.side; ++r) {
    StridedDims d;
    d.ndim = 2;
    d.dims[0] = l.count;
    d.dims[1] = r + 1;
    int64_t* matrix_strides = kExtract ? d.src_strides : d.dst_strides;
    int64_t* packed_strides = kExtract ? d.dst_strides : d.src_strides;
    matrix_strides[0] = l.n * l.n;
    matrix_strides[1] = l.step;
    packed_strides[0] = l.Packed();
    packed_strides[1] = 1;
    const int64_t matrix_at = l.RowStart(r) * elem, packed_at = r * (r + 1) / 2 * elem;
    const char* src =
        static_cast<const char*>(in.read_raw_data()) + (kExtract ? matrix_at : packed_at);
    char* dst = static_cast<char*>(out.raw_data()) + (kExtract ? packed_at : matrix_at);
    SYMX_CUDA_LAUNCH(ctx, LaunchStridedCopy(static_cast<size_t>(elem), src, dst, d,
                                            l.count * (r + 1), device->stream()));
  }
  return absl::OkStatus();
}

// sumlogdiag's and its backward's scratch: one value per diagonal element.
size_t SumLogDiagWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                           const std::vector<Shape>&, DType dtype) {
  if (in.empty()) return 0;
  const Shape& a = in.back();  // A: the forward's only input, the backward's last
  if (a.ndim() < 2 || a[a.ndim() - 1] == 0) return 0;
  return static_cast<size_t>(a.Size() / a[a.ndim() - 1]) * DTypeSize(dtype);
}

// The count of n x n matrices of `a` and n, checked against one value per
// matrix in `b` (the output, or the head gradient).
absl::Status SquareCount(const KernelContext& ctx, const Tensor& a, const Tensor& b, int64_t* count,
                         int64_t* n) {
  const Shape& s = a.shape();
  const int ndim = s.ndim();
  if (ndim < 2 || s[ndim - 1] != s[ndim - 2]) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": input A ", s.ToString(),
                                                   " is not a tensor of square matrices"));
  }
  *n = s[ndim - 1];
  *count = *n == 0 ? b.size() : a.size() / (*n * *n);
  if (*count != b.size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", b.shape().ToString(),
                                                   " does not hold one value per matrix of ",
                                                   s.ToString()));
  }
  return absl::OkStatus();
}

// The diagonals of `count` n x n matrices as a (count, n) strided view.
StridedDims DiagonalView(int64_t count, int64_t n, bool from_matrices) {
  StridedDims d;
  d.ndim = 2;
  d.dims[0] = count;
  d.dims[1] = n;
  int64_t* matrix_strides = from_matrices ? d.src_strides : d.dst_strides;
  int64_t* flat_strides = from_matrices ? d.dst_strides : d.src_strides;
  matrix_strides[0] = n * n;
  matrix_strides[1] = n + 1;
  flat_strides[0] = n;
  flat_strides[1] = 1;
  return d;
}

// The diagonal goes to the workspace, its logarithm is taken there, and each
// matrix's n logarithms are summed.
absl::Status SumLogDiag(const KernelContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(const LinalgStep step, LinalgStart(ctx, a));
  CudaDevice* device = step.device;
  const Elem t = step.t;
  int64_t count = 0, n = 0;
  SYMX_RETURN_IF_ERROR(SquareCount(ctx, a, out, &count, &n));
  if (count == 0) return absl::OkStatus();
  if (n == 0) {
    SYMX_CUDA_LAUNCH(ctx, LaunchFill(t, 0.0, out.raw_data(), count, device->stream()));
    return absl::OkStatus();
  }
  const size_t elem = DTypeSize(a.dtype());
  SYMX_ASSIGN_OR_RETURN(char* ws, WorkspaceOf(ctx, static_cast<size_t>(count * n) * elem));
  SYMX_CUDA_LAUNCH(ctx, LaunchStridedCopy(elem, a.read_raw_data(), ws, DiagonalView(count, n, true),
                                          count * n, device->stream()));
  SYMX_CUDA_LAUNCH(ctx, LaunchUnary(UnaryFn::kLog, t, ws, ws, count * n, device->stream()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchReduce(ReduceFn::kSum, t, ws, count, n, 1, 1.0, out.raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, A. ograd / A_ii in the workspace (a broadcast division over
// the diagonals), copied onto the zeroed gradient's diagonals.
absl::Status SumLogDiagBackward(const KernelContext& ctx) {
  const Tensor& g = ctx.inputs[0];
  const Tensor& a = ctx.inputs[1];
  const Tensor& da = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(const LinalgStep step, LinalgStart(ctx, a));
  CudaDevice* device = step.device;
  const Elem t = step.t;
  int64_t count = 0, n = 0;
  SYMX_RETURN_IF_ERROR(SquareCount(ctx, a, g, &count, &n));
  if (da.size() == 0) return absl::OkStatus();
  SYMX_CUDA_LAUNCH(ctx, LaunchFill(t, 0.0, da.raw_data(), da.size(), device->stream()));
  const size_t elem = DTypeSize(a.dtype());
  SYMX_ASSIGN_OR_RETURN(char* ws, WorkspaceOf(ctx, static_cast<size_t>(count * n) * elem));
  BroadcastDims d;
  d.ndim = 2;
  d.out_dims[0] = count;
  d.out_dims[1] = n;
  d.a_strides[0] = 1;
  d.a_strides[1] = 0;
  d.b_strides[0] = n * n;
  d.b_strides[1] = n + 1;
  SYMX_CUDA_LAUNCH(ctx, LaunchBroadcast(BinaryFn::kDiv, t, g.read_raw_data(), a.read_raw_data(), ws,
                                        d, count * n, device->stream()));
  SYMX_CUDA_LAUNCH(ctx, LaunchStridedCopy(elem, ws, da.raw_data(), DiagonalView(count, n, false),
                                          count * n, device->stream()));
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("_linalg_sumlogdiag", kGPU, .fn = SumLogDiag,
                     .workspace = SumLogDiagWorkspace);
SYMX_REGISTER_KERNEL("_backward_linalg_sumlogdiag", kGPU, .fn = SumLogDiagBackward,
                     .workspace = SumLogDiagWorkspace);
SYMX_REGISTER_KERNEL("_linalg_extracttrian", kGPU, Trian<true>);
SYMX_REGISTER_KERNEL("_linalg_maketrian", kGPU, Trian<false>);
SYMX_REGISTER_KERNEL("_linalg_extractdiag", kGPU, Diag<true>);
SYMX_REGISTER_KERNEL("_linalg_makediag", kGPU, Diag<false>);
absl::Status GemmForward(const KernelContext& ctx) {
  const Tensor* c = ctx.inputs.size() > 2 ? &ctx.inputs[2] : nullptr;
  return GemmRun(ctx, ctx.param<LinalgGemmParam>(), ctx.inputs[0], ctx.inputs[1], c);
}

// syrk: alpha A A^T, or alpha A^T A with `transpose` (a full GEMM: both
// triangles are wanted).
absl::Status SyrkForward(const KernelContext& ctx) {
  return GemmRun(ctx, SyrkAsGemm(ctx.param<LinalgSyrkParam>()), ctx.inputs[0], ctx.inputs[0],
                 nullptr);
}

SYMX_REGISTER_KERNEL("_linalg_syrk", kGPU, SyrkForward);
SYMX_REGISTER_KERNEL("_linalg_gemm2", kGPU, GemmForward);
SYMX_REGISTER_KERNEL("_linalg_gemm", kGPU, GemmForward);

// ---------------------------------------------------------------------------
// potrf, potri, trmm, trsm, inverse, det, slogdet and their gradients: one
// thread per matrix (devices/cuda/linalg.cu). A failed factorization is read
// back (info per matrix) and named like the CPU's.

constexpr size_t kAlign = 256;
size_t AlignUp(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// The count and side of the square matrices of `s`, or zeros for no shape.
void SquareDims(const Shape& s, int64_t* count, int64_t* n) {
  *count = 0;
  *n = 0;
  if (s.ndim() < 2) return;
  *n = s[s.ndim() - 1];
  *count = *n == 0 ? 0 : s.Size() / (*n * *n);
}

// potrf, potri: info per matrix. inverse: its LU factors, pivots and info.
size_t InfoWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                     DType) {
  int64_t count = 0, n = 0;
  if (!in.empty()) SquareDims(in[0], &count, &n);
  return AlignUp(static_cast<size_t>(count) * sizeof(int64_t));
}
size_t InverseWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                        const std::vector<Shape>& out, DType dtype) {
  int64_t count = 0, n = 0;
  if (!in.empty()) SquareDims(in[0], &count, &n);
  return InfoWorkspace(attrs, in, out, dtype) +
         AlignUp(static_cast<size_t>(count * n * n) * DTypeSize(dtype)) +
         AlignUp(static_cast<size_t>(count * n) * sizeof(int32_t));
}
// inverse's gradient: an n x n product per matrix (input 1 is A).
size_t InverseBackwardWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                                const std::vector<Shape>&, DType dtype) {
  int64_t count = 0, n = 0;
  if (in.size() > 1) SquareDims(in[1], &count, &n);
  return AlignUp(static_cast<size_t>(count * n * n) * DTypeSize(dtype));
}

absl::Status Squares(const KernelContext& ctx, const Tensor& t, int64_t* count, int64_t* n) {
  absl::Status s = GetSquareBatch(t.shape(), "input A", count, n);
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", s.message()));
  return absl::OkStatus();
}

absl::StatusOr<LinalgStep> SquareStart(const KernelContext& ctx, const Tensor& x) {
  SYMX_ASSIGN_OR_RETURN(LinalgStep r, LinalgStart(ctx, x));
  SYMX_RETURN_IF_ERROR(Squares(ctx, x, &r.count, &r.n));
  return r;
}

// trmm's and trsm's operands: A and B (C for trsm's gradient).
absl::Status TriangOperands(const KernelContext& ctx, const LinalgTriangParam& p, const Tensor& a,
                            const Tensor& b, TriangLayout* l) {
  absl::Status s = GetTriangLayout(p, a.shape(), b.shape(), l);
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", s.message()));
  return absl::OkStatus();
}

// Reads the per-matrix info back and names the first failure.
absl::Status CheckInfo(const KernelContext& ctx, CudaDevice* device, const int64_t* info,
                       int64_t count, FactorFailure kind, const Shape& a) {
  std::vector<int64_t> host(static_cast<size_t>(count));
  SYMX_RETURN_IF_ERROR(
      device->CopyToHost(info, host.data(), static_cast<size_t>(count) * sizeof(int64_t)));
  for (int64_t b = 0; b < count; ++b) {
    if (host[static_cast<size_t>(b)] != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          ctx.Where(), ": ", FactorError(kind, a, b, host[static_cast<size_t>(b)]).message()));
    }
  }
  return absl::OkStatus();
}

template <LinalgFactor kFactor>
absl::Status Factor(const KernelContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(const LinalgStep step, SquareStart(ctx, a));
  const auto& [device, t, count, n] = step;
  if (count == 0 || n == 0) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(char* ws, WorkspaceOf(ctx, static_cast<size_t>(count) * sizeof(int64_t)));
  int64_t* info = reinterpret_cast<int64_t*>(ws);
  SYMX_CUDA_LAUNCH(
      ctx, LaunchLinalgFactor(t, kFactor, a.read_raw_data(), ctx.outputs[0].raw_data(), count, n,
                              ctx.param<LinalgCholeskyParam>().lower, info, device->stream()));
  return CheckInfo(ctx, device, info, count,
                   kFactor == LinalgFactor::kPotrf ? FactorFailure::kNotPositiveDefinite
                                                   : FactorFailure::kSingularFactor,
                   a.shape());
}

LinalgTriangArgs TriangArgs(const LinalgTriangParam& p, const TriangLayout& l, bool solve) {
  LinalgTriangArgs args;
  args.count = l.count;
  args.n = l.n;
  args.rows = l.rows;
  args.cols = l.cols;
  args.transpose = p.transpose;
  args.rightside = p.rightside;
  args.lower = p.lower;
  args.solve = solve;
  args.alpha = p.alpha;
  return args;
}

// trmm (kSolve false) and trsm.
template <bool kSolve>
absl::Status Triang(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(const LinalgStep step, LinalgStart(ctx, ctx.inputs[0]));
  const LinalgTriangParam& p = ctx.param<LinalgTriangParam>();
  TriangLayout l;
  SYMX_RETURN_IF_ERROR(TriangOperands(ctx, p, ctx.inputs[0], ctx.inputs[1], &l));
  if (ctx.outputs[0].size() == 0) return absl::OkStatus();
  SYMX_CUDA_LAUNCH(
      ctx, LaunchLinalgTriang(step.t, TriangArgs(p, l, kSolve), ctx.inputs[0].read_raw_data(),
                              ctx.inputs[1].read_raw_data(), ctx.outputs[0].raw_data(),
                              step.device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, A, B (trmm) or C (trsm). dA, dB.
template <bool kSolve>
absl::Status TriangBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(const LinalgStep step, LinalgStart(ctx, ctx.inputs[1]));
  const LinalgTriangParam& p = ctx.param<LinalgTriangParam>();
  TriangLayout l;
  SYMX_RETURN_IF_ERROR(TriangOperands(ctx, p, ctx.inputs[1], ctx.inputs[2], &l));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchLinalgTriangBackward(step.t, TriangArgs(p, l, kSolve),
                                      ctx.inputs[0].read_raw_data(), ctx.inputs[1].read_raw_data(),
                                      ctx.inputs[2].read_raw_data(), ctx.outputs[0].raw_data(),
                                      ctx.outputs[1].raw_data(), step.device->stream()));
  return absl::OkStatus();
}

absl::Status Inverse(const KernelContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(const LinalgStep step, SquareStart(ctx, a));
  const auto& [device, t, count, n] = step;
  if (count == 0 || n == 0) return absl::OkStatus();
  const size_t info_bytes = AlignUp(static_cast<size_t>(count) * sizeof(int64_t));
  const size_t lu_bytes = AlignUp(static_cast<size_t>(count * n * n) * DTypeSize(a.dtype()));
  SYMX_ASSIGN_OR_RETURN(
      char* ws, WorkspaceOf(ctx, info_bytes + lu_bytes + static_cast<size_t>(count * n) * 4));
  int64_t* info = reinterpret_cast<int64_t*>(ws);
  SYMX_CUDA_LAUNCH(
      ctx, LaunchLinalgInverse(t, a.read_raw_data(), ctx.outputs[0].raw_data(), ws + info_bytes,
                               reinterpret_cast<int32_t*>(ws + info_bytes + lu_bytes), count, n,
                               info, device->stream()));
  return CheckInfo(ctx, device, info, count, FactorFailure::kSingular, a.shape());
}

// det (kLog false): det, LU, pivot; slogdet: sign, logabsdet, LU, pivot.
template <bool kLog>
absl::Status Det(const KernelContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(const LinalgStep step, SquareStart(ctx, a));
  const auto& [device, t, count, n] = step;
  if (ctx.outputs[0].size() != count) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": output ", ctx.outputs[0].shape().ToString(),
                     " does not hold one value per matrix of ", a.shape().ToString()));
  }
  const int values = kLog ? 2 : 1;
  SYMX_CUDA_LAUNCH(ctx, LaunchLinalgDet(t, a.read_raw_data(), ctx.outputs[0].raw_data(),
                                        kLog ? ctx.outputs[1].raw_data() : nullptr,
                                        ctx.outputs[values].raw_data(),
                                        static_cast<int32_t*>(ctx.outputs[values + 1].raw_data()),
                                        count, n, device->stream()));
  return absl::OkStatus();
}

// potrf's (ograd, B), potri's (ograd, B, A) and inverse's (ograd, A) gradients.
template <LinalgGrad kGrad>
absl::Status FactorBackward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(const LinalgStep step, SquareStart(ctx, x));
  const auto& [device, t, count, n] = step;
  if (count == 0 || n == 0) return absl::OkStatus();
  char* scratch = nullptr;
  if (kGrad == LinalgGrad::kInverse) {
    SYMX_ASSIGN_OR_RETURN(
        scratch, WorkspaceOf(ctx, static_cast<size_t>(count * n * n) * DTypeSize(x.dtype())));
  }
  const bool lower = kGrad == LinalgGrad::kInverse || ctx.param<LinalgCholeskyParam>().lower;
  SYMX_CUDA_LAUNCH(ctx, LaunchLinalgBackward(
                            t, kGrad, ctx.inputs[0].read_raw_data(), x.read_raw_data(),
                            kGrad == LinalgGrad::kPotri ? ctx.inputs[2].read_raw_data() : nullptr,
                            scratch, count, n, lower, ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

// det's (ograd, det, LU, pivot) and slogdet's (ograd, logabsdet, LU, pivot).
template <bool kLog>
absl::Status DetBackward(const KernelContext& ctx) {
  const Tensor& lu = ctx.inputs[2];
  SYMX_ASSIGN_OR_RETURN(const LinalgStep step, SquareStart(ctx, lu));
  const auto& [device, t, count, n] = step;
  if (count == 0 || n == 0) return absl::OkStatus();
  SYMX_CUDA_LAUNCH(
      ctx, LaunchLinalgDetBackward(t, kLog, ctx.inputs[0].read_raw_data(),
                                   ctx.inputs[1].read_raw_data(), lu.read_raw_data(),
                                   static_cast<const int32_t*>(ctx.inputs[3].read_raw_data()),
                                   count, n, ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("_linalg_potrf", kGPU, .fn = Factor<LinalgFactor::kPotrf>,
                     .workspace = InfoWorkspace);
SYMX_REGISTER_KERNEL("_linalg_potri", kGPU, .fn = Factor<LinalgFactor::kPotri>,
                     .workspace = InfoWorkspace);
SYMX_REGISTER_KERNEL("_linalg_trmm", kGPU, Triang<false>);
SYMX_REGISTER_KERNEL("_linalg_trsm", kGPU, Triang<true>);
SYMX_REGISTER_KERNEL("_linalg_inverse", kGPU, .fn = Inverse, .workspace = InverseWorkspace);
SYMX_REGISTER_KERNEL("_linalg_det", kGPU, Det<false>);
SYMX_REGISTER_KERNEL("_linalg_slogdet", kGPU, Det<true>);
SYMX_REGISTER_KERNEL("_backward_linalg_potrf", kGPU, FactorBackward<LinalgGrad::kPotrf>);
SYMX_REGISTER_KERNEL("_backward_linalg_potri", kGPU, FactorBackward<LinalgGrad::kPotri>);
SYMX_REGISTER_KERNEL("_backward_linalg_trmm", kGPU, TriangBackward<false>);
SYMX_REGISTER_KERNEL("_backward_linalg_trsm", kGPU, TriangBackward<true>);
SYMX_REGISTER_KERNEL("_backward_linalg_inverse", kGPU, .fn = FactorBackward<LinalgGrad::kInverse>,
                     .workspace = InverseBackwardWorkspace);
SYMX_REGISTER_KERNEL("_backward_linalg_det", kGPU, DetBackward<false>);
SYMX_REGISTER_KERNEL("_backward_linalg_slogdet", kGPU, DetBackward<true>);

// gelqf's and syevd's scratch: the reflectors (count (m n + m) values) or
// the Jacobi matrices (count 2 n n doubles); their gradients' m x m products.
void MatrixDims(const Shape& s, int64_t* count, int64_t* m, int64_t* n) {
  *count = *m = *n = 0;
  if (s.ndim() < 2) return;
  *m = s[s.ndim() - 2];
  *n = s[s.ndim() - 1];
  *count = *m * *n == 0 ? 0 : s.Size() / (*m * *n);
}
size_t GelqfWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                      DType dtype) {
  int64_t count = 0, m = 0, n = 0;
  if (!in.empty()) MatrixDims(in[0], &count, &m, &n);
  return static_cast<size_t>(count * (m * n + m)) * DTypeSize(dtype);
}
size_t SyevdWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                      DType) {
  int64_t count = 0, m = 0, n = 0;
  if (!in.empty()) MatrixDims(in[0], &count, &m, &n);
  return static_cast<size_t>(count * 2 * n * n) * sizeof(double);
}
// Backward inputs: dX, dY, X (Q or U: count m x n), Y.
size_t DecompositionBackwardWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                                      const std::vector<Shape>&, DType dtype) {
  int64_t count = 0, m = 0, n = 0;
  if (in.size() > 2) MatrixDims(in[2], &count, &m, &n);
  return static_cast<size_t>(count * m * m) * DTypeSize(dtype);
}

absl::Status Gelqf(const KernelContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(const LinalgStep step, LinalgStart(ctx, a));
  CudaDevice* const device = step.device;
  const Elem t = step.t;
  int64_t count = 0, m = 0, n = 0;
  MatrixDims(a.shape(), &count, &m, &n);
  if (a.shape().ndim() < 2 || m > n) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": input A ", a.shape().ToString(),
                                                   " is not a tensor of m x n matrices, m <= n"));
  }
  if (count == 0) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(
      char* ws, WorkspaceOf(ctx, static_cast<size_t>(count * (m * n + m)) * DTypeSize(a.dtype())));
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchLinalgGelqf(t, a.read_raw_data(), ctx.outputs[0].raw_data(),
                                     ctx.outputs[1].raw_data(), ws, count, m, n, device->stream()));
  return absl::OkStatus();
}

absl::Status Syevd(const KernelContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(const LinalgStep step, SquareStart(ctx, a));
  const auto& [device, t, count, n] = step;
  if (count == 0 || n == 0) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(char* ws,
                        WorkspaceOf(ctx, static_cast<size_t>(count * 2 * n * n) * sizeof(double)));
  SYMX_CUDA_LAUNCH(ctx, LaunchLinalgSyevd(t, a.read_raw_data(), ctx.outputs[0].raw_data(),
                                          ctx.outputs[1].raw_data(), reinterpret_cast<double*>(ws),
                                          count, n, device->stream()));
  return absl::OkStatus();
}

// Inputs: dQ, dL, Q, L (gelqf) or dU, dL, U, L (syevd). dA.
template <bool kEigen>
absl::Status DecompositionBackward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[2];
  SYMX_ASSIGN_OR_RETURN(const LinalgStep step, LinalgStart(ctx, x));
  CudaDevice* const device = step.device;
  const Elem t = step.t;
  int64_t count = 0, m = 0, n = 0;
  MatrixDims(x.shape(), &count, &m, &n);
  if (count == 0) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(
      char* ws, WorkspaceOf(ctx, static_cast<size_t>(count * m * m) * DTypeSize(x.dtype())));
  SYMX_CUDA_LAUNCH(ctx, LaunchLinalgDecompositionBackward(
                            t, kEigen, ctx.inputs[0].read_raw_data(), ctx.inputs[1].read_raw_data(),
                            x.read_raw_data(), ctx.inputs[3].read_raw_data(), ws, count, m, n,
                            ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("_linalg_gelqf", kGPU, .fn = Gelqf, .workspace = GelqfWorkspace);
SYMX_REGISTER_KERNEL("_linalg_syevd", kGPU, .fn = Syevd, .workspace = SyevdWorkspace);
SYMX_REGISTER_KERNEL("_backward_linalg_gelqf", kGPU, .fn = DecompositionBackward<false>,
                     .workspace = DecompositionBackwardWorkspace);
SYMX_REGISTER_KERNEL("_backward_linalg_syevd", kGPU, .fn = DecompositionBackward<true>,
                     .workspace = DecompositionBackwardWorkspace);

}  // namespace
}  // namespace cuda
}  // namespace symx
