// CUDA kernels of the scatter family (graph/ops/scatter.cc): _slice_assign,
// _slice_assign_scalar, scatter_nd, _scatter_set_nd and _contrib_index_copy.
//
// Each copies its base to the output on the stream (none in place), then
// writes: the slice assignments as strided copies (the scalar from a
// one-element source of stride 0 in the workspace), the others as an
// indexed row copy (devices/cuda/scatter.cu) whose row table the host
// computes with the CPU kernels' function (devices/geometry/scatter_plan.h)
// from the index values it reads back, and uploads into the workspace.
// Coinciding rows keep one of their writes (the CPU keeps the last).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/elemwise_kernels.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/scatter_launch.h"
#include "devices/cuda/strided_kernels.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/layout_view.h"
#include "devices/geometry/scatter_plan.h"
#include "graph/ops/scatter.h"

namespace symx {
namespace cuda {
namespace {

absl::Status CopyBase(const KernelContext& ctx, const Tensor& base, const Tensor& out) {
  if (base.nbytes() != out.nbytes() || base.dtype() != out.dtype()) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " does not match input ",
                                  base.DebugString()));
  }
  return CopyOnStream(ctx, base, out);
}

absl::Status SliceAssign(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CopyBase(ctx, ctx.inputs[0], out));
  StridedView v;
  SYMX_RETURN_IF_ERROR(SliceParamView(ctx, ctx.param<SliceAssignParam>().slice, out.shape(), &v));
  return CopyView(ctx, v, out, ctx.inputs[1], /*gather=*/false);
}

size_t ScalarWorkspace(const NodeAttrs&, const std::vector<Shape>&, const std::vector<Shape>&,
                       DType) {
  return sizeof(uint64_t);
}

absl::Status SliceAssignScalar(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& out = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CopyBase(ctx, ctx.inputs[0], out));
  const auto& p = ctx.param<SliceAssignParam>();
  StridedView v;
  SYMX_RETURN_IF_ERROR(SliceParamView(ctx, p.slice, out.shape(), &v));
  if (v.size() == 0) return absl::OkStatus();
  uint64_t bits = 0;
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, {
    const T value = CastValue<T>(p.scalar);
    std::memcpy(&bits, &value, sizeof(T));
  });
  SYMX_ASSIGN_OR_RETURN(char* scalar, WorkspaceOf(ctx, sizeof(bits)));
  SYMX_RETURN_IF_ERROR(device->CopyFromHost(&bits, scalar, sizeof(bits)));
  v.Simplify();
  StridedDims d;
  for (size_t k = 0; k < v.dims.size(); ++k) {
    SYMX_RETURN_IF_ERROR(Push(ctx, &d, v.dims[k], 0, v.steps[k]));
  }
  char* dst = static_cast<char*>(out.raw_data()) + v.offset * DTypeSize(out.dtype());
  return Copy(ctx, scalar, dst, d, v.size(), out.dtype());
}

// out row rows[i] = src row i (rows of `slice` elements), the table uploaded
// into the workspace.
absl::Status WriteRows(const KernelContext& ctx, const Tensor& src,
                       const std::vector<int64_t>& rows, int64_t slice, const Tensor& out) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  if (src.dtype() != out.dtype() || src.size() != static_cast<int64_t>(rows.size()) * slice) {
    return Fail(ctx, absl::StrCat(src.DebugString(), " does not hold ", rows.size(), " rows of ",
                                  slice, " for ", out.DebugString()));
  }
  if (rows.empty() || slice == 0) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(char* table, WorkspaceOf(ctx, rows.size() * sizeof(int64_t)));
  SYMX_RETURN_IF_ERROR(device->CopyFromHost(rows.data(), table, rows.size() * sizeof(int64_t)));
  SYMX_CUDA_LAUNCH(ctx, LaunchRowCopy(DTypeSize(out.dtype()), src.read_raw_data(), nullptr,
                                      out.raw_data(), reinterpret_cast<const int64_t*>(table),
                                      static_cast<int64_t>(rows.size()), slice, device->stream()));
  return absl::OkStatus();
}

// A row table of at most as many entries as input `index` has elements.
template <int index>
size_t RowsWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                     DType) {
  return in.size() <= index ? 0 : static_cast<size_t>(in[index].Size()) * sizeof(int64_t);
}

absl::Status ScatterNdImpl(const KernelContext& ctx, const Tensor* base, const Tensor& src,
                           const Tensor& indices) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& out = ctx.outputs[0];
  if (base) {
    SYMX_RETURN_IF_ERROR(CopyBase(ctx, *base, out));
  } else {
    SYMX_RETURN_IF_ERROR(device->Memset(out.raw_data(), 0, out.nbytes()));
  }
  SYMX_ASSIGN_OR_RETURN(std::vector<double> values, HostDoubles(indices));
  std::vector<int64_t> rows;
  int64_t slice = 0;
  SYMX_RETURN_IF_ERROR(NdRows(ctx, out.shape(), indices.shape(), values, &rows, &slice));
  return WriteRows(ctx, src, rows, slice, out);
}

absl::Status ScatterNd(const KernelContext& ctx) {
  return ScatterNdImpl(ctx, nullptr, ctx.inputs[0], ctx.inputs[1]);
}

absl::Status ScatterSetNd(const KernelContext& ctx) {
  return ScatterNdImpl(ctx, &ctx.inputs[0], ctx.inputs[1], ctx.inputs[2]);
}

absl::Status IndexCopy(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CopyBase(ctx, ctx.inputs[0], out));
  if (out.shape().ndim() < 1) return Fail(ctx, "old_tensor needs at least 1 dim");
  SYMX_ASSIGN_OR_RETURN(std::vector<double> values, HostDoubles(ctx.inputs[1]));
  std::vector<int64_t> rows;
  SYMX_RETURN_IF_ERROR(AxisRows(ctx, values, out.shape()[0], &rows));
  const int64_t slice = out.shape()[0] > 0 ? out.size() / out.shape()[0] : 0;
  return WriteRows(ctx, ctx.inputs[2], rows, slice, out);
}

// Copies src element sources[k] to dst element cells[k], the two tables
// uploaded into the workspace.
absl::Status CopyCells(const KernelContext& ctx, const void* src,
                       const std::vector<int64_t>& sources, const Tensor& out,
                       const std::vector<int64_t>& cells) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  if (cells.empty()) return absl::OkStatus();
  const size_t bytes = cells.size() * sizeof(int64_t);
  SYMX_ASSIGN_OR_RETURN(char* table, WorkspaceOf(ctx, 2 * bytes));
  SYMX_RETURN_IF_ERROR(device->CopyFromHost(cells.data(), table, bytes));
  SYMX_RETURN_IF_ERROR(device->CopyFromHost(sources.data(), table + bytes, bytes));
  SYMX_CUDA_LAUNCH(ctx, LaunchRowCopy(DTypeSize(out.dtype()), src,
                                      reinterpret_cast<const int64_t*>(table + bytes),
                                      out.raw_data(), reinterpret_cast<const int64_t*>(table),
                                      static_cast<int64_t>(cells.size()), 1, device->stream()));
  return absl::OkStatus();
}

// Two tables of at most as many entries as input `index` has elements,
// plus room for a scalar.
template <int index>
size_t CellsWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                      DType) {
  return in.size() <= index ? 0 : 2 * static_cast<size_t>(in[index].Size()) * sizeof(int64_t) + 256;
}

absl::Status FillElement0Index(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CopyBase(ctx, ctx.inputs[0], out));
  const Tensor& values = ctx.inputs[1];
  if (out.dtype() != DType::kFloat32 || values.dtype() != DType::kFloat32) {
    return UnsupportedDType(ctx, out.dtype() != DType::kFloat32 ? out.dtype() : values.dtype());
  }
  SYMX_ASSIGN_OR_RETURN(std::vector<double> idx, HostDoubles(ctx.inputs[2]));
  if (out.shape().ndim() != 2 || static_cast<int64_t>(idx.size()) != out.shape()[0] ||
      values.size() != out.shape()[0]) {
    return Fail(ctx, absl::StrCat("rhs ", ctx.inputs[2].DebugString(), " and mhs ",
                                  values.DebugString(), " do not fit lhs ", out.DebugString()));
  }
  std::vector<int64_t> cells, sources;
  RowColumnCells(idx, out.shape()[1], &cells, &sources);
  return CopyCells(ctx, values.read_raw_data(), sources, out, cells);
}

absl::Status OnehotEncode(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& out = ctx.outputs[0];
  if (out.dtype() != DType::kFloat32) return UnsupportedDType(ctx, out.dtype());
  SYMX_ASSIGN_OR_RETURN(std::vector<double> idx, HostDoubles(ctx.inputs[0]));
  if (out.shape().ndim() != 2 || static_cast<int64_t>(idx.size()) != out.shape()[0]) {
    return Fail(ctx, absl::StrCat("lhs ", ctx.inputs[0].DebugString(), " does not fit ",
                                  out.DebugString()));
  }
  SYMX_RETURN_IF_ERROR(device->Memset(out.raw_data(), 0, out.nbytes()));
  std::vector<int64_t> cells, sources;
  RowColumnCells(idx, out.shape()[1], &cells, &sources);
  if (cells.empty()) return absl::OkStatus();
  // Every cell reads the one 1.0f stored past the two tables.
  const size_t tables = 2 * cells.size() * sizeof(int64_t);
  SYMX_ASSIGN_OR_RETURN(char* base, WorkspaceOf(ctx, tables + sizeof(float)));
  const float one = 1.0f;
  SYMX_RETURN_IF_ERROR(device->CopyFromHost(&one, base + tables, sizeof(one)));
  std::fill(sources.begin(), sources.end(), 0);
  return CopyCells(ctx, base + tables, sources, out, cells);
}

}  // namespace

SYMX_REGISTER_KERNEL("fill_element_0index", kGPU, .fn = FillElement0Index,
                     .workspace = CellsWorkspace<2>);
SYMX_REGISTER_KERNEL("_onehot_encode", kGPU, .fn = OnehotEncode, .workspace = CellsWorkspace<0>);
SYMX_REGISTER_KERNEL("_slice_assign", kGPU, SliceAssign);
SYMX_REGISTER_KERNEL("_slice_assign_scalar", kGPU, .fn = SliceAssignScalar,
                     .workspace = ScalarWorkspace);
SYMX_REGISTER_KERNEL("scatter_nd", kGPU, .fn = ScatterNd, .workspace = RowsWorkspace<1>);
SYMX_REGISTER_KERNEL("_scatter_set_nd", kGPU, .fn = ScatterSetNd, .workspace = RowsWorkspace<2>);
SYMX_REGISTER_KERNEL("_contrib_index_copy", kGPU, .fn = IndexCopy, .workspace = RowsWorkspace<1>);

}  // namespace cuda
}  // namespace symx
