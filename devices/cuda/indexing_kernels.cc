// CUDA kernels of the indexing family (graph/ops/indexing.cc): Embedding,
// gather_nd, one_hot, pick, take, with their backward ops.
//
// CUDA kernels of one_hot, pick, take and gather_nd (and their backwards),
// with the CPU kernels' semantics and messages (devices/cpu/indexing_kernels.cc).
//
// Positions live in the workspace: [positions (int64) | first bad element
// (uint64) | float accumulator of the half-type gradients]. take's raise mode
// and gather_nd check every value, which costs one synchronization per call
// (the host reads the first bad element, to name it); clip and wrap do not.
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/indexing_launch.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/strided_kernels.h"
#include "devices/cuda/strided_launch.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/axis_layout.h"
#include "devices/geometry/index_position.h"
#include "devices/geometry/ravel_index.h"
#include "devices/kernel.h"
#include "graph/infer_util.h"
#include "graph/ops/indexing.h"
#include "graph/ops/ordering.h"

namespace symx {
namespace cuda {
namespace {

size_t Aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

size_t ScratchBytes(int64_t positions, int64_t acc_floats) {
  return Aligned(static_cast<size_t>(positions) * sizeof(int64_t)) + Aligned(sizeof(uint64_t)) +
         static_cast<size_t>(acc_floats) * sizeof(float);
}

struct Scratch {
  int64_t* pos = nullptr;
  unsigned long long* first_bad = nullptr;
  void* acc = nullptr;
};

absl::StatusOr<Scratch> Carve(const KernelContext& ctx, int64_t positions, int64_t acc_floats) {
  SYMX_ASSIGN_OR_RETURN(char* base, WorkspaceOf(ctx, ScratchBytes(positions, acc_floats)));
  Scratch s;
  s.pos = reinterpret_cast<int64_t*>(base);
  base += Aligned(static_cast<size_t>(positions) * sizeof(int64_t));
  s.first_bad = reinterpret_cast<unsigned long long*>(base);
  s.acc = base + Aligned(sizeof(uint64_t));
  return s;
}

// Element `i` of an index tensor on the device, as a double.
absl::StatusOr<double> ReadIndex(CudaDevice* device, const Tensor& t, int64_t i) {
  uint64_t bits = 0;
  const size_t width = DTypeSize(t.dtype());
  SYMX_RETURN_IF_ERROR(device->CopyToHost(
      static_cast<const char*>(t.read_raw_data()) + static_cast<size_t>(i) * width, &bits, width));
  double v = 0;
  SYMX_DTYPE_SWITCH_ALL(t.dtype(), I, {
    I x;
    std::memcpy(&x, &bits, sizeof(I));
    v = ToDouble(x);
  });
  return v;
}

IndexPosMode PosMode(IndexMode m) {
  return m == IndexMode::kWrap
             ? IndexPosMode::kWrap
             : (m == IndexMode::kRaise ? IndexPosMode::kRaise : IndexPosMode::kClip);
}

// ------------------------------------------------------------------ one_hot

absl::Status OneHot(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<OneHotParam>();
  const Tensor& idx = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  if (out.size() != idx.size() * p.depth) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " does not match ", idx.size(),
                                  " indices of depth ", p.depth));
  }
  SYMX_ASSIGN_OR_RETURN(Elem it, AnyElem(ctx, idx.dtype()));
  if (out.dtype() == DType::kUnknown) return UnsupportedDType(ctx, out.dtype());
  uint64_t on = 0, off = 0;
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, {
    const T a = CastValue<T>(p.on_value), b = CastValue<T>(p.off_value);
    std::memcpy(&on, &a, sizeof(T));
    std::memcpy(&off, &b, sizeof(T));
  });
  SYMX_CUDA_LAUNCH(
      ctx, LaunchOneHot(it, idx.read_raw_data(), idx.size(), p.depth, DTypeSize(out.dtype()), on,
                        off, out.raw_data(), device->stream()));
  return absl::OkStatus();
}

// ------------------------------------------------------------------ pick

// The (outer, n, inner) of pick's data and its index's fit.
absl::StatusOr<AxisLayout> PickRows(const KernelContext& ctx, const Shape& data,
                                    const Tensor& index, int64_t out_size) {
  const auto& p = ctx.param<PickParam>();
  if (!p.axis.has_value()) return Fail(ctx, "axis=None is not supported");
  SYMX_ASSIGN_OR_RETURN(const AxisLayout r, LayoutAlong(ctx, data, *p.axis));
  if (index.size() != r.outer * r.inner || out_size != index.size()) {
    return Fail(
        ctx, absl::StrCat("index ", index.DebugString(), " does not fit data ", data.ToString()));
  }
  if (r.n == 0 && index.size() > 0) {
    return Fail(ctx, absl::StrCat("cannot pick from the empty axis of data ", data.ToString()));
  }
  return r;
}

// Forward (inputs data, index) or backward (inputs ograd, index; output grad).
template <bool kForward>
absl::Status Pick(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& index = ctx.inputs[1];
  const Tensor& data = kForward ? ctx.inputs[0] : ctx.outputs[0];
  const Tensor& small = kForward ? ctx.outputs[0] : ctx.inputs[0];
  if (data.dtype() != small.dtype()) return UnsupportedDType(ctx, small.dtype());
  SYMX_ASSIGN_OR_RETURN(AxisLayout r, PickRows(ctx, data.shape(), index, small.size()));
  SYMX_ASSIGN_OR_RETURN(Elem it, AnyElem(ctx, index.dtype()));
  SYMX_ASSIGN_OR_RETURN(Scratch s, Carve(ctx, index.size(), 0));
  const IndexMode mode = ctx.param<PickParam>().mode;
  // pick has no raise: it reads as clip, as on the CPU.
  SYMX_CUDA_LAUNCH(ctx, LaunchIndexPositions(
                            it, index.read_raw_data(), index.size(), r.n,
                            mode == IndexMode::kWrap ? IndexPosMode::kWrap : IndexPosMode::kClip,
                            s.pos, s.first_bad, device->stream()));
  const size_t width = DTypeSize(data.dtype());
  if (kForward) {
    SYMX_CUDA_LAUNCH(ctx, LaunchPick(width, data.read_raw_data(), s.pos, r.outer, r.n, r.inner,
                                     small.raw_data(), false, device->stream()));
  } else {
    SYMX_CUDA_LAUNCH(ctx, LaunchPick(width, small.read_raw_data(), s.pos, r.outer, r.n, r.inner,
                                     data.raw_data(), true, device->stream()));
  }
  return absl::OkStatus();
}

size_t PickWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                     DType) {
  return in.size() < 2 ? 0 : ScratchBytes(in[1].Size(), 0);
}

// ------------------------------------------------------------------ take

// Positions of take's indices along an axis of n, checked for raise mode.
absl::Status TakePositions(const KernelContext& ctx, CudaDevice* device, const Tensor& indices,
                           int64_t n, const Scratch& s) {
  const IndexMode mode = ctx.param<TakeParam>().mode;
  if (mode != IndexMode::kRaise && n == 0 && indices.size() > 0) {
    return Fail(ctx, "cannot take from an empty axis");
  }
  SYMX_ASSIGN_OR_RETURN(Elem it, AnyElem(ctx, indices.dtype()));
  if (mode == IndexMode::kRaise) {
    SYMX_RETURN_IF_ERROR(ResetFirstFlagged(device, s.first_bad));
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchIndexPositions(it, indices.read_raw_data(), indices.size(), n,
                                             PosMode(mode), s.pos, s.first_bad, device->stream()));
  if (mode != IndexMode::kRaise) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(int64_t bad, ReadFirstFlagged(device, s.first_bad));
  if (bad < 0) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(double v, ReadIndex(device, indices, bad));
  return absl::OutOfRangeError(
      absl::StrCat(ctx.Where(), ": index ", FormatIndexValue(v), " (element ", bad,
                   " of indices) is out of range for an axis of ", n, " elements (mode='raise')"));
}

absl::StatusOr<AxisLayout> TakeRows(const KernelContext& ctx, const Shape& a, const Tensor& indices,
                                    int64_t out_size) {
  SYMX_ASSIGN_OR_RETURN(const AxisLayout r, LayoutAlong(ctx, a, ctx.param<TakeParam>().axis));
  if (out_size != r.outer * indices.size() * r.inner) {
    return Fail(ctx, absl::StrCat("indices ", indices.DebugString(), " and a ", a.ToString(),
                                  " do not give ", out_size, " elements"));
  }
  return r;
}

// Inputs: a, indices.
absl::Status Take(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& a = ctx.inputs[0];
  const Tensor& indices = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  if (out.dtype() != a.dtype()) return UnsupportedDType(ctx, out.dtype());
  SYMX_ASSIGN_OR_RETURN(AxisLayout r, TakeRows(ctx, a.shape(), indices, out.size()));
  SYMX_ASSIGN_OR_RETURN(Scratch s, Carve(ctx, indices.size(), 0));
  SYMX_RETURN_IF_ERROR(TakePositions(ctx, device, indices, r.n, s));
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchGatherRows(DTypeSize(a.dtype()), a.read_raw_data(), s.pos, r.outer, r.n,
                                    indices.size(), r.inner, out.raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, indices. Output: grad a.
absl::Status TakeBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& og = ctx.inputs[0];
  const Tensor& indices = ctx.inputs[1];
  const Tensor& grad = ctx.outputs[0];
  if (og.dtype() != grad.dtype()) return UnsupportedDType(ctx, og.dtype());
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, grad.dtype()));
  SYMX_ASSIGN_OR_RETURN(AxisLayout r, TakeRows(ctx, grad.shape(), indices, og.size()));
  SYMX_ASSIGN_OR_RETURN(Scratch s,
                        Carve(ctx, indices.size(), IsHalf(grad.dtype()) ? grad.size() : 0));
  SYMX_RETURN_IF_ERROR(TakePositions(ctx, device, indices, r.n, s));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchScatterAddRows(t, og.read_raw_data(), s.pos, r.outer, r.n, indices.size(), r.inner,
                                grad.raw_data(), s.acc, device->stream()));
  return absl::OkStatus();
}

size_t TakeWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                     DType) {
  return in.size() < 2 ? 0 : ScratchBytes(in[1].Size(), 0);
}

size_t TakeBackwardWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                             const std::vector<Shape>& out, DType dtype) {
  if (in.size() < 2 || out.empty()) return 0;
  return ScratchBytes(in[1].Size(), IsHalf(dtype) ? out[0].Size() : 0);
}

// ------------------------------------------------------------------ gather_nd

struct NdGeometry {
  int m = 0;
  int64_t count = 0, slice = 1;
  std::vector<int64_t> dims;
};

absl::StatusOr<NdGeometry> GatherGeometry(const KernelContext& ctx, const Shape& data,
                                          const Tensor& indices, int64_t out_size) {
  const Shape& is = indices.shape();
  if (is.ndim() < 2 || is[0] < 1 || is[0] > data.ndim()) {
    return Fail(
        ctx, absl::StrCat("indices ", indices.DebugString(), " do not fit data ", data.ToString()));
  }
  NdGeometry g;
  g.m = static_cast<int>(is[0]);
  g.count = indices.size() / g.m;
  for (int d = g.m; d < data.ndim(); ++d) g.slice *= data[d];
  for (int d = 0; d < g.m; ++d) g.dims.push_back(data[d]);
  if (out_size != g.count * g.slice) {
    return Fail(ctx, absl::StrCat("output of ", out_size, " elements does not fit indices ",
                                  indices.DebugString(), " and data ", data.ToString()));
  }
  if (g.m > kMaxDims) {
    return Fail(ctx, absl::StrCat("more than ", kMaxDims, " indexed axes on the GPU"));
  }
  return g;
}

// Offsets of every indices column, each value checked.
absl::Status GatherOffsets(const KernelContext& ctx, CudaDevice* device, const Tensor& indices,
                           const NdGeometry& g, const Scratch& s) {
  SYMX_ASSIGN_OR_RETURN(Elem it, AnyElem(ctx, indices.dtype()));
  SYMX_RETURN_IF_ERROR(ResetFirstFlagged(device, s.first_bad));
  SYMX_CUDA_LAUNCH(ctx, LaunchGatherNdOffsets(it, indices.read_raw_data(), g.count, g.m,
                                              g.dims.data(), s.pos, s.first_bad, device->stream()));
  SYMX_ASSIGN_OR_RETURN(int64_t y, ReadFirstFlagged(device, s.first_bad));
  if (y < 0) return absl::OkStatus();
  for (int d = 0; d < g.m; ++d) {
    SYMX_ASSIGN_OR_RETURN(double v, ReadIndex(device, indices, d * g.count + y));
    if (GatherNdPosition(v, g.dims[d]) < 0) {
      return absl::OutOfRangeError(absl::StrCat(ctx.Where(), ": index ", FormatIndexValue(v),
                                                " is out of bounds for axis ", d, " with size ",
                                                g.dims[d], " (indices column ", y, ")"));
    }
  }
  return absl::InternalError(absl::StrCat(ctx.Where(), ": indices column ", y,
                                          " was rejected on the GPU but not on the host"));
}

// Inputs: data, indices.
absl::Status GatherNd(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& data = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  if (out.dtype() != data.dtype()) return UnsupportedDType(ctx, out.dtype());
  SYMX_ASSIGN_OR_RETURN(NdGeometry g, GatherGeometry(ctx, data.shape(), ctx.inputs[1], out.size()));
  SYMX_ASSIGN_OR_RETURN(Scratch s, Carve(ctx, g.count, 0));
  SYMX_RETURN_IF_ERROR(GatherOffsets(ctx, device, ctx.inputs[1], g, s));
  int64_t rows = 1;
  for (int64_t d : g.dims) rows *= d;
  SYMX_CUDA_LAUNCH(ctx, LaunchGatherRows(DTypeSize(data.dtype()), data.read_raw_data(), s.pos, 1,
                                         rows, g.count, g.slice, out.raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, indices. Output: grad data.
absl::Status GatherNdBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& og = ctx.inputs[0];
  const Tensor& grad = ctx.outputs[0];
  if (og.dtype() != grad.dtype()) return UnsupportedDType(ctx, og.dtype());
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, grad.dtype()));
  SYMX_ASSIGN_OR_RETURN(NdGeometry g, GatherGeometry(ctx, grad.shape(), ctx.inputs[1], og.size()));
  SYMX_ASSIGN_OR_RETURN(Scratch s, Carve(ctx, g.count, IsHalf(grad.dtype()) ? grad.size() : 0));
  SYMX_RETURN_IF_ERROR(GatherOffsets(ctx, device, ctx.inputs[1], g, s));
  int64_t rows = 1;
  for (int64_t d : g.dims) rows *= d;
  SYMX_CUDA_LAUNCH(ctx, LaunchScatterAddRows(t, og.read_raw_data(), s.pos, 1, rows, g.count,
                                             g.slice, grad.raw_data(), s.acc, device->stream()));
  return absl::OkStatus();
}

int64_t IndexColumns(const Shape& indices) {
  return indices.ndim() < 1 || indices[0] == 0 ? 0 : indices.Size() / indices[0];
}

size_t GatherNdWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                         DType) {
  return in.size() < 2 ? 0 : ScratchBytes(IndexColumns(in[1]), 0);
}

size_t GatherNdBackwardWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                                 const std::vector<Shape>& out, DType dtype) {
  if (in.size() < 2 || out.empty()) return 0;
  return ScratchBytes(IndexColumns(in[1]), IsHalf(dtype) ? out[0].Size() : 0);
}

}  // namespace

SYMX_REGISTER_KERNEL("one_hot", kGPU, OneHot);
SYMX_REGISTER_KERNEL("pick", kGPU, .fn = Pick<true>, .workspace = PickWorkspace);
SYMX_REGISTER_KERNEL("_backward_pick", kGPU, .fn = Pick<false>, .workspace = PickWorkspace);
SYMX_REGISTER_KERNEL("take", kGPU, .fn = Take, .workspace = TakeWorkspace);
SYMX_REGISTER_KERNEL("_backward_take", kGPU, .fn = TakeBackward,
                     .workspace = TakeBackwardWorkspace);
SYMX_REGISTER_KERNEL("gather_nd", kGPU, .fn = GatherNd, .workspace = GatherNdWorkspace);
SYMX_REGISTER_KERNEL("_backward_gather_nd", kGPU, .fn = GatherNdBackward,
                     .workspace = GatherNdBackwardWorkspace);

}  // namespace cuda

namespace cuda {
namespace {

absl::Status CheckTable(const KernelContext& ctx, const Tensor& table) {
  const auto& p = ctx.param<EmbeddingParam>();
  if (table.shape().ndim() != 2 || table.shape()[0] != p.input_dim ||
      table.shape()[1] != p.output_dim) {
    return Fail(ctx, absl::StrCat("weight ", table.DebugString(), " should be (", p.input_dim, ", ",
                                  p.output_dim, ")"));
  }
  return absl::OkStatus();
}

// Inputs: data (indices), weight.
absl::Status EmbeddingForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<EmbeddingParam>();
  const Tensor& idx = ctx.inputs[0];
  const Tensor& weight = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckTable(ctx, weight));
  if (out.size() != idx.size() * p.output_dim || out.dtype() != weight.dtype()) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " does not match ", idx.size(),
                                  " indices of ", p.output_dim, " values"));
  }
  SYMX_ASSIGN_OR_RETURN(Elem it, AnyElem(ctx, idx.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, weight.dtype()));
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchEmbedding(it, idx.read_raw_data(), idx.size(), t, weight.read_raw_data(),
                                   p.input_dim, p.output_dim, out.raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, data (indices). Outputs: grad data (zero), grad weight.
absl::Status EmbeddingBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<EmbeddingParam>();
  const Tensor& ograd = ctx.inputs[0];
  const Tensor& idx = ctx.inputs[1];
  if (OutputWanted(ctx.req, 0) && ctx.outputs[0].defined()) {
    SYMX_RETURN_IF_ERROR(device->Memset(ctx.outputs[0].raw_data(), 0, ctx.outputs[0].nbytes()));
  }
  if (!OutputWanted(ctx.req, 1)) return absl::OkStatus();
  const Tensor& gw = ctx.outputs[1];
  SYMX_RETURN_IF_ERROR(CheckTable(ctx, gw));
  if (ograd.size() != idx.size() * p.output_dim) {
    return Fail(ctx, absl::StrCat("head gradient ", ograd.DebugString(), " does not match ",
                                  idx.size(), " indices"));
  }
  SYMX_ASSIGN_OR_RETURN(Elem it, AnyElem(ctx, idx.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, gw.dtype()));
  void* scratch =
      ctx.workspace.defined() && ctx.workspace.nbytes() > 0 ? ctx.workspace.raw_data() : nullptr;
  SYMX_CUDA_LAUNCH(ctx, LaunchEmbeddingGrad(it, idx.read_raw_data(), idx.size(), t,
                                            ograd.read_raw_data(), p.input_dim, p.output_dim,
                                            gw.raw_data(), scratch, device->stream()));
  return absl::OkStatus();
}

// A float32 accumulator for float16/bfloat16 weight gradients.
size_t EmbeddingBackwardWorkspace(const NodeAttrs& attrs, const std::vector<Shape>&,
                                  const std::vector<Shape>&, DType dtype) {
  if (dtype != DType::kFloat16 && dtype != DType::kBFloat16) return 0;
  const auto& p = Param<EmbeddingParam>(attrs);
  return static_cast<size_t>(p.input_dim * p.output_dim) * sizeof(float);
}

}  // namespace

SYMX_REGISTER_KERNEL("Embedding", kGPU, EmbeddingForward);
SYMX_REGISTER_KERNEL("_backward_Embedding", kGPU, .fn = EmbeddingBackward,
                     .workspace = EmbeddingBackwardWorkspace);

}  // namespace cuda

namespace cuda {
namespace {

// batch_take: a as (rows, m); out[i] = a[i, clip(indices[i])], pick's kernel
// along the last axis.
absl::Status BatchTake(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& a = ctx.inputs[0];
  const Tensor& index = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  const Shape& sh = a.shape();
  const int64_t m = sh.ndim() >= 2 ? sh[sh.ndim() - 1] : 0;
  if (m == 0 || a.size() / m != index.size() || out.size() != index.size() ||
      a.dtype() != out.dtype()) {
    return Fail(ctx,
                absl::StrCat("indices ", index.DebugString(), " do not fit a ", a.DebugString()));
  }
  SYMX_ASSIGN_OR_RETURN(Elem it, AnyElem(ctx, index.dtype()));
  SYMX_ASSIGN_OR_RETURN(Scratch s, Carve(ctx, index.size(), 0));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchIndexPositions(it, index.read_raw_data(), index.size(), m, IndexPosMode::kClip,
                                s.pos, s.first_bad, device->stream()));
  SYMX_CUDA_LAUNCH(ctx, LaunchPick(DTypeSize(a.dtype()), a.read_raw_data(), s.pos, index.size(), m,
                                   1, out.raw_data(), false, device->stream()));
  return absl::OkStatus();
}

size_t BatchTakeWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                          DType) {
  return in.size() < 2 ? 0 : ScratchBytes(in[1].Size(), 0);
}

// ravel / unravel: the index arithmetic on the host (the CPU kernels'
// rules), from the values read back, and the result uploaded: one
// synchronization per call, for arrays of indices.
absl::Status UploadValues(const KernelContext& ctx, const std::vector<double>& v,
                          const Tensor& out) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  if (out.dtype() == DType::kUnknown || out.dtype() == DType::kBool) {
    return UnsupportedDType(ctx, out.dtype());
  }
  if (v.empty()) return absl::OkStatus();
  std::vector<char> bytes(v.size() * DTypeSize(out.dtype()));
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, {
    for (size_t i = 0; i < v.size(); ++i) {
      const T x = CastValue<T>(v[i]);
      std::memcpy(bytes.data() + i * sizeof(T), &x, sizeof(T));
    }
  });
  return device->CopyFromHost(bytes.data(), out.raw_data(), bytes.size());
}

absl::Status RavelMultiIndex(const KernelContext& ctx) {
  const std::vector<int64_t>& shape = ctx.param<RavelParam>().shape;
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const int64_t k = static_cast<int64_t>(shape.size()), n = out.size();
  if (in.size() != k * n) {
    return Fail(ctx, absl::StrCat("input ", in.DebugString(), " does not hold ", k, " x ", n,
                                  " coordinates"));
  }
  SYMX_ASSIGN_OR_RETURN(std::vector<double> v, HostDoubles(in));
  return UploadValues(ctx, RavelColumns(shape, v, n), out);
}

absl::Status UnravelIndex(const KernelContext& ctx) {
  const std::vector<int64_t>& shape = ctx.param<RavelParam>().shape;
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const int64_t k = static_cast<int64_t>(shape.size()), n = in.size();
  if (out.size() != k * n) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " does not hold ", k, " x ", n,
                                  " coordinates"));
  }
  SYMX_ASSIGN_OR_RETURN(std::vector<double> v, HostDoubles(in));
  return UploadValues(ctx, UnravelColumns(shape, v), out);
}

// index_array: column j of the output is a strided copy of 0, 1, ..., an
// int64 ramp uploaded into the workspace, stepping along axes[j] only.
absl::Status IndexArray(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Shape& sh = ctx.inputs[0].shape();
  const Tensor& out = ctx.outputs[0];
  std::vector<int> axes;
  absl::Status st = IndexArrayAxes(ctx.param<IndexArrayParam>(), sh.ndim(), &axes);
  if (!st.ok()) return Fail(ctx, std::string(st.message()));
  if (out.dtype() != DType::kInt64) return UnsupportedDType(ctx, out.dtype());
  const int64_t m = static_cast<int64_t>(axes.size()), n = ctx.inputs[0].size();
  if (out.size() != n * m) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " does not fit ", sh.ToString()));
  }
  if (n == 0 || m == 0) return absl::OkStatus();
  int64_t longest = 1;
  for (int64_t d : sh.dims()) longest = d > longest ? d : longest;
  std::vector<int64_t> ramp(longest);
  for (int64_t i = 0; i < longest; ++i) ramp[i] = i;
  SYMX_ASSIGN_OR_RETURN(char* table, WorkspaceOf(ctx, ramp.size() * sizeof(int64_t)));
  SYMX_RETURN_IF_ERROR(device->CopyFromHost(ramp.data(), table, ramp.size() * sizeof(int64_t)));
  const std::vector<int64_t> st_in = StridesOf(sh);
  for (int64_t j = 0; j < m; ++j) {
    StridedDims d;
    for (int k = 0; k < sh.ndim(); ++k) {
      SYMX_RETURN_IF_ERROR(Push(ctx, &d, sh[k], k == axes[j] ? 1 : 0, st_in[k] * m));
    }
    int64_t* dst = out.data<int64_t>() + j;
    SYMX_RETURN_IF_ERROR(Copy(ctx, table, dst, d, n, DType::kInt64));
  }
  return absl::OkStatus();
}

size_t IndexArrayWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                           const std::vector<Shape>&, DType) {
  int64_t longest = 1;
  if (!in.empty() && in[0].ndim_known()) {
    for (int64_t d : in[0].dims()) longest = d > longest ? d : longest;
  }
  return static_cast<size_t>(longest) * sizeof(int64_t);
}

// _contrib_boolean_mask: index read to the host (a synchronization; its values
// also set the output's length when the call was planned), then one strided
// copy per kept entry: `outer` blocks of `inner` elements each.
absl::Status BooleanMask(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& data = ctx.inputs[0];
  const Shape& s = data.shape();
  int axis = 0;
  SYMX_RETURN_IF_ERROR(Annotate(
      NormalizeAxis(ctx.param<BooleanMaskParam>().axis, s.ndim(), "axis", &axis), ctx.Where()));
  SYMX_ASSIGN_OR_RETURN(std::vector<double> index, HostDoubles(ctx.inputs[1]));
  std::vector<int64_t> kept;
  for (size_t i = 0; i < index.size(); ++i) {
    if (index[i] != 0.0) kept.push_back(static_cast<int64_t>(i));
  }
  const Shape& o = ctx.outputs[0].shape();
  if (o.ndim() != s.ndim() || o[axis] != static_cast<int64_t>(kept.size())) {
    return Fail(ctx, absl::StrCat("output ", o.ToString(), " does not hold the ", kept.size(),
                                  " entries index selects from data ", s.ToString()));
  }
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= s[d];
  for (int d = axis + 1; d < s.ndim(); ++d) inner *= s[d];
  const size_t block = static_cast<size_t>(inner) * DTypeSize(data.dtype());
  if (block == 0 || outer == 0) return absl::OkStatus();
  const auto* src = static_cast<const uint8_t*>(data.read_raw_data());
  auto* dst = static_cast<uint8_t*>(ctx.outputs[0].raw_data());
  const size_t n = static_cast<size_t>(s[axis]), m = kept.size();
  for (size_t k = 0; k < m; ++k) {
    SYMX_CUDA_LAUNCH(ctx, cudaMemcpy2DAsync(dst + k * block, m * block, src + kept[k] * block,
                                            n * block, block, static_cast<size_t>(outer),
                                            cudaMemcpyDeviceToDevice, device->stream()));
  }
  return absl::OkStatus();
}

// Its backward (inputs ograd, data, index): zeros, then the head gradient's
// entries copied back to the kept positions.
absl::Status BooleanMaskBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  const Shape& s = ctx.outputs[0].shape();
  int axis = 0;
  SYMX_RETURN_IF_ERROR(Annotate(
      NormalizeAxis(ctx.param<BooleanMaskParam>().axis, s.ndim(), "axis", &axis), ctx.Where()));
  SYMX_ASSIGN_OR_RETURN(std::vector<double> index, HostDoubles(ctx.inputs[2]));
  std::vector<int64_t> kept;
  for (size_t i = 0; i < index.size(); ++i) {
    if (index[i] != 0.0) kept.push_back(static_cast<int64_t>(i));
  }
  if (g.shape().ndim() != s.ndim() || g.shape()[axis] != static_cast<int64_t>(kept.size())) {
    return Fail(ctx, absl::StrCat("head gradient ", g.shape().ToString(), " does not hold the ",
                                  kept.size(), " entries index selects from ", s.ToString()));
  }
  SYMX_RETURN_IF_ERROR(device->Memset(ctx.outputs[0].raw_data(), 0, ctx.outputs[0].nbytes()));
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= s[d];
  for (int d = axis + 1; d < s.ndim(); ++d) inner *= s[d];
  const size_t block = static_cast<size_t>(inner) * DTypeSize(g.dtype());
  if (block == 0 || outer == 0) return absl::OkStatus();
  const auto* src = static_cast<const uint8_t*>(g.read_raw_data());
  auto* dst = static_cast<uint8_t*>(ctx.outputs[0].raw_data());
  const size_t n = static_cast<size_t>(s[axis]), m = kept.size();
  for (size_t k = 0; k < m; ++k) {
    SYMX_CUDA_LAUNCH(ctx, cudaMemcpy2DAsync(dst + kept[k] * block, n * block, src + k * block,
                                            m * block, block, static_cast<size_t>(outer),
                                            cudaMemcpyDeviceToDevice, device->stream()));
  }
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("batch_take", kGPU, .fn = BatchTake, .workspace = BatchTakeWorkspace);
SYMX_REGISTER_KERNEL("_contrib_boolean_mask", kGPU, BooleanMask);
SYMX_REGISTER_KERNEL("_backward_contrib_boolean_mask", kGPU, BooleanMaskBackward);
SYMX_REGISTER_KERNEL("_ravel_multi_index", kGPU, RavelMultiIndex);
SYMX_REGISTER_KERNEL("_unravel_index", kGPU, UnravelIndex);
SYMX_REGISTER_KERNEL("_contrib_index_array", kGPU, .fn = IndexArray,
                     .workspace = IndexArrayWorkspace);

}  // namespace cuda

}  // namespace symx
