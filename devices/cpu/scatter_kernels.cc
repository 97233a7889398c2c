// CPU kernels of the scatter family (graph/ops/scatter.cc): _slice_assign,
// _slice_assign_scalar, scatter_nd, _scatter_set_nd and _contrib_index_copy.
//
// Each copies its base (lhs, old_tensor; zeros for scatter_nd) to the output
// unless the executor ran it in place, then writes: the slice assignments
// through slice's strided view, the others whole rows at the positions
// devices/geometry/scatter_plan.h computes from the index values, in index
// order (so the last of coinciding positions wins, as in MXNet's CPU loop).
// Elements move as bytes: every dtype.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/cpu/strided_copy.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/layout_view.h"
#include "devices/geometry/scatter_plan.h"
#include "graph/ops/scatter.h"

namespace symx {
namespace cpu {
namespace {

// out = base, unless they are one array (in place).
absl::Status CopyBase(const KernelContext& ctx, const Tensor& base, const Tensor& out) {
  if (base.nbytes() != out.nbytes() || base.dtype() != out.dtype()) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " does not match input ",
                                  base.DebugString()));
  }
  if (base.read_raw_data() != out.read_raw_data() && out.nbytes() > 0) {
    std::memcpy(out.raw_data(), base.read_raw_data(), out.nbytes());
  }
  return absl::OkStatus();
}

absl::Status SliceAssign(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CopyBase(ctx, ctx.inputs[0], out));
  StridedView v;
  SYMX_RETURN_IF_ERROR(SliceParamView(ctx, ctx.param<SliceAssignParam>().slice, out.shape(), &v));
  return CopyThroughView(ctx, v, out, ctx.inputs[1], /*gather=*/false);
}

absl::Status SliceAssignScalar(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CopyBase(ctx, ctx.inputs[0], out));
  const auto& p = ctx.param<SliceAssignParam>();
  StridedView v;
  SYMX_RETURN_IF_ERROR(SliceParamView(ctx, p.slice, out.shape(), &v));
  uint64_t bits = 0;
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, {
    const T value = CastValue<T>(p.scalar);
    std::memcpy(&bits, &value, sizeof(T));
  });
  return FillThroughView(ctx, v, out, bits);
}

// out[rows[i]] = src's row i, rows of `slice` elements, in order.
absl::Status WriteRows(const KernelContext& ctx, const Tensor& src,
                       const std::vector<int64_t>& rows, int64_t slice, const Tensor& out) {
  if (src.dtype() != out.dtype() || src.size() != static_cast<int64_t>(rows.size()) * slice) {
    return Fail(ctx, absl::StrCat(src.DebugString(), " does not hold ", rows.size(), " rows of ",
                                  slice, " for ", out.DebugString()));
  }
  const size_t bytes = static_cast<size_t>(slice) * DTypeSize(out.dtype());
  if (bytes == 0) return absl::OkStatus();
  const char* s = static_cast<const char*>(src.read_raw_data());
  char* d = static_cast<char*>(out.raw_data());
  for (size_t i = 0; i < rows.size(); ++i) {
    std::memcpy(d + static_cast<size_t>(rows[i]) * bytes, s + i * bytes, bytes);
  }
  return absl::OkStatus();
}

absl::Status ScatterNdImpl(const KernelContext& ctx, const Tensor* base, const Tensor& src,
                           const Tensor& indices) {
  const Tensor& out = ctx.outputs[0];
  if (base) {
    SYMX_RETURN_IF_ERROR(CopyBase(ctx, *base, out));
  } else {
    std::memset(out.raw_data(), 0, out.nbytes());
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

// fill_element_0index: out = lhs, then out[i, rhs[i]] = mhs[i] where in range.
absl::Status FillElement0Index(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CopyBase(ctx, ctx.inputs[0], out));
  const Tensor& values = ctx.inputs[1];
  if (out.dtype() != DType::kFloat32 || values.dtype() != DType::kFloat32) {
    return UnsupportedDType(ctx, out.dtype() != DType::kFloat32 ? out.dtype() : values.dtype());
  }
  const int64_t m = out.shape().ndim() == 2 ? out.shape()[1] : 0;
  SYMX_ASSIGN_OR_RETURN(std::vector<double> idx, HostDoubles(ctx.inputs[2]));
  if (out.shape().ndim() != 2 || static_cast<int64_t>(idx.size()) != out.shape()[0] ||
      values.size() != out.shape()[0]) {
    return Fail(ctx, absl::StrCat("rhs ", ctx.inputs[2].DebugString(), " and mhs ",
                                  values.DebugString(), " do not fit lhs ", out.DebugString()));
  }
  std::vector<int64_t> cells, sources;
  RowColumnCells(idx, m, &cells, &sources);
  float* y = out.data<float>();
  const float* v = values.read_data<float>();
  for (size_t k = 0; k < cells.size(); ++k) y[cells[k]] = v[sources[k]];
  return absl::OkStatus();
}

// _onehot_encode: zeros of rhs's shape, out[i, lhs[i]] = 1 where in range.
absl::Status OnehotEncode(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  if (out.dtype() != DType::kFloat32) return UnsupportedDType(ctx, out.dtype());
  SYMX_ASSIGN_OR_RETURN(std::vector<double> idx, HostDoubles(ctx.inputs[0]));
  if (out.shape().ndim() != 2 || static_cast<int64_t>(idx.size()) != out.shape()[0]) {
    return Fail(ctx, absl::StrCat("lhs ", ctx.inputs[0].DebugString(), " does not fit ",
                                  out.DebugString()));
  }
  std::vector<int64_t> cells, sources;
  RowColumnCells(idx, out.shape()[1], &cells, &sources);
  float* y = out.data<float>();
  std::fill(y, y + out.size(), 0.0f);
  for (int64_t c : cells) y[c] = 1.0f;
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("fill_element_0index", kCPU, FillElement0Index);
SYMX_REGISTER_KERNEL("_onehot_encode", kCPU, OnehotEncode);
SYMX_REGISTER_KERNEL("_slice_assign", kCPU, SliceAssign);
SYMX_REGISTER_KERNEL("_slice_assign_scalar", kCPU, SliceAssignScalar);
SYMX_REGISTER_KERNEL("scatter_nd", kCPU, ScatterNd);
SYMX_REGISTER_KERNEL("_scatter_set_nd", kCPU, ScatterSetNd);
SYMX_REGISTER_KERNEL("_contrib_index_copy", kCPU, IndexCopy);

}  // namespace cpu
}  // namespace symx
