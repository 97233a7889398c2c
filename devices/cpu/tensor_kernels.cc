// CPU kernels for the tensor data-movement ops: slice, slice_like, SwapAxis, tile, repeat,
// reverse, Pad, stack, diag and their backward ops.
//
// Almost all of them are one strided copy: the smaller side is walked in row-major order and
// each element's position on the other side is offset + sum(index[d] * step[d]) (a step may
// be negative, reverse, or zero, tile/repeat). Copies move elements as unsigned integers of the
// dtype's width, so they work for every dtype. The gradients of tile and repeat sum each input
// element's copies (a gather over precomputed offsets, parallel over input elements, so no two
// threads write one element); Pad's edge/reflect gradients add into the input gradient plane
// by plane (N and C are never padded, so planes are independent). Those sums need arithmetic
// and run in float32, float64, float16, int32 and int64. Pad, like MXNet's, takes floating-point
// types only.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/geometry/pad_geometry.h"
#include "devices/geometry/strided_view.h"
#include "graph/error.h"
#include "graph/infer_util.h"
#include "graph/ops/tensor.h"

namespace symx {
namespace cpu {
namespace {

// Copies between a contiguous array and the view's positions in a strided one, a row (the
// innermost dim) at a time, parallel over rows. gather: contiguous[i] = strided[pos(i)];
// otherwise strided[pos(i)] = contiguous[i] (positions must then be distinct).
template <typename E>
void StridedCopy(const KernelContext& ctx, StridedView v, E* strided, E* contiguous, bool gather) {
  const int64_t total = v.size();
  if (total == 0) return;
  v.Simplify();
  const int n = static_cast<int>(v.dims.size());
  const int64_t inner = v.dims[n - 1], inner_step = v.steps[n - 1];
  const int64_t rows = total / inner;
  ParallelFor(ctx, rows, static_cast<double>(inner) + n, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t pos = v.offset, rest = row;
      for (int d = n - 2; d >= 0; --d) {
        pos += (rest % v.dims[d]) * v.steps[d];
        rest /= v.dims[d];
      }
      E* c = contiguous + row * inner;
      E* s = strided + pos;
      if (inner_step == 1) {
        if (gather) {
          std::memcpy(c, s, static_cast<size_t>(inner) * sizeof(E));
        } else {
          std::memcpy(s, c, static_cast<size_t>(inner) * sizeof(E));
        }
      } else if (gather) {
        for (int64_t j = 0; j < inner; ++j) c[j] = s[j * inner_step];
      } else {
        for (int64_t j = 0; j < inner; ++j) s[j * inner_step] = c[j];
      }
    }
  });
}

// Runs fn(E{}) with E the unsigned integer of the dtype's width.
template <typename Fn>
absl::Status ByWidth(const KernelContext& ctx, DType dtype, Fn&& fn) {
  switch (DTypeSize(dtype)) {
    case 1:
      fn(uint8_t{});
      return absl::OkStatus();
    case 2:
      fn(uint16_t{});
      return absl::OkStatus();
    case 4:
      fn(uint32_t{});
      return absl::OkStatus();
    case 8:
      fn(uint64_t{});
      return absl::OkStatus();
    default:
      return UnsupportedDType(ctx, dtype);
  }
}

// gather: `contig` = strided[view]; else strided[view] = `contig` (with `zero_first`, the
// strided side is zeroed before, for scatters into gradients).
absl::Status Copy(const KernelContext& ctx, const StridedView& v, const Tensor& strided,
                  const Tensor& contig, bool gather, bool zero_first = false) {
  if (strided.dtype() != contig.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.Where(), ": dtypes differ: ", strided.DebugString(), " and ", contig.DebugString()));
  }
  if (contig.size() != v.size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", contig.DebugString(),
                                                   " does not have the expected ", v.size(),
                                                   " elements"));
  }
  if (zero_first) std::memset(strided.raw_data(), 0, strided.nbytes());
  return ByWidth(ctx, strided.dtype(), [&](auto tag) {
    using E = decltype(tag);
    StridedCopy<E>(ctx, v, strided.data<E>(), contig.data<E>(), gather);
  });
}

// Runs fn(T{}) for the dtypes the summing backward kernels support.
template <typename Fn>
absl::Status BySumType(const KernelContext& ctx, DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kFloat32:
      fn(float{});
      return absl::OkStatus();
    case DType::kFloat64:
      fn(double{});
      return absl::OkStatus();
    case DType::kFloat16:
      fn(float16_t{});
      return absl::OkStatus();
    case DType::kInt32:
      fn(int32_t{});
      return absl::OkStatus();
    case DType::kInt64:
      fn(int64_t{});
      return absl::OkStatus();
    default:
      return UnsupportedDType(ctx, dtype);
  }
}

template <typename T>
struct Acc {
  using type = double;
};
template <>
struct Acc<int32_t> {
  using type = int64_t;
};
template <>
struct Acc<int64_t> {
  using type = int64_t;
};

template <typename T>
typename Acc<T>::type Load(T v) {
  return static_cast<typename Acc<T>::type>(v);
}
template <>
double Load<float16_t>(float16_t v) {
  return ToDouble(v);
}
template <typename T, typename A>
T Store(A v) {
  return static_cast<T>(v);
}
template <>
float16_t Store<float16_t, double>(double v) {
  return FromDouble<float16_t>(v);
}

// dst[i] = sum over j of src[outer_pos(i) + reduce_offsets[j]], dst contiguous over
// outer.dims. Parallel over dst elements.
absl::Status ReduceCopies(const KernelContext& ctx, const StridedView& outer,
                          const std::vector<int64_t>& reduce_offsets, const Tensor& src,
                          const Tensor& dst) {
  if (dst.size() != outer.size() || src.dtype() != dst.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": gradient ", dst.DebugString(),
                                                   " does not match ", src.DebugString()));
  }
  const int64_t total = dst.size();
  if (total == 0) return absl::OkStatus();
  const int n = static_cast<int>(outer.dims.size());
  return BySumType(ctx, dst.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* s = src.data<T>();
    T* d = dst.data<T>();
    const double cost = static_cast<double>(reduce_offsets.size()) + n;
    ParallelFor(ctx, total, cost, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        int64_t pos = outer.offset, rest = i;
        for (int k = n - 1; k >= 0; --k) {
          pos += (rest % outer.dims[k]) * outer.steps[k];
          rest /= outer.dims[k];
        }
        typename Acc<T>::type sum = 0;
        for (int64_t off : reduce_offsets) sum += Load(s[pos + off]);
        d[i] = Store<T>(sum);
      }
    });
  });
}

// Every offset sum(index[d] * steps[d]) over `dims`, row-major.
std::vector<int64_t> AllOffsets(const std::vector<int64_t>& dims,
                                const std::vector<int64_t>& steps) {
  std::vector<int64_t> offs = {0};
  for (size_t d = 0; d < dims.size(); ++d) {
    std::vector<int64_t> next;
    next.reserve(offs.size() * dims[d]);
    for (int64_t o : offs) {
      for (int64_t k = 0; k < dims[d]; ++k) next.push_back(o + k * steps[d]);
    }
    offs = std::move(next);
  }
  return offs;
}

absl::Status WithWhere(const KernelContext& ctx, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat(ctx.Where(), ": ", s.message()));
}

// ----------------------------------------------------------------------------- slice

StridedView SliceView(const SliceParam& p, const Shape& whole) {
  const std::vector<SliceRange> ranges = ResolveSliceAll(p, whole);
  const std::vector<int64_t> st = StridesOf(whole);
  StridedView v;
  for (int d = 0; d < whole.ndim(); ++d) {
    v.dims.push_back(ranges[d].count);
    v.steps.push_back(ranges[d].step * st[d]);
    v.offset += ranges[d].begin * st[d];
  }
  return v;
}

absl::Status CheckRank(const KernelContext& ctx, const SliceParam& p, const Shape& whole) {
  if (static_cast<int>(p.begin.size()) > whole.ndim()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": begin has ", p.begin.size(),
                                                   " entries for a ", whole.ndim(), "-dim input"));
  }
  return absl::OkStatus();
}

absl::Status Slice(const KernelContext& ctx) {
  const auto& p = ctx.param<SliceParam>();
  const Tensor& in = ctx.inputs[0];
  SYMX_RETURN_IF_ERROR(CheckRank(ctx, p, in.shape()));
  return Copy(ctx, SliceView(p, in.shape()), in, ctx.outputs[0], /*gather=*/true);
}

absl::Status SliceBackward(const KernelContext& ctx) {
  const auto& p = ctx.param<SliceParam>();
  const Tensor& gin = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckRank(ctx, p, gin.shape()));
  return Copy(ctx, SliceView(p, gin.shape()), gin, ctx.inputs[0], /*gather=*/false,
              /*zero_first=*/true);
}

// ----------------------------------------------------------------------------- slice_like

absl::Status SliceLike(const KernelContext& ctx) {
  StridedView v;
  SYMX_RETURN_IF_ERROR(FrontView(ctx, ctx.inputs[0].shape(), ctx.outputs[0].shape(), &v));
  return Copy(ctx, v, ctx.inputs[0], ctx.outputs[0], /*gather=*/true);
}

absl::Status SliceLikeBackward(const KernelContext& ctx) {
  StridedView v;
  SYMX_RETURN_IF_ERROR(FrontView(ctx, ctx.outputs[0].shape(), ctx.inputs[0].shape(), &v));
  SYMX_RETURN_IF_ERROR(Copy(ctx, v, ctx.outputs[0], ctx.inputs[0], /*gather=*/false, true));
  // A second output, if any, is shape_like's gradient: zero.
  for (size_t i = 1; i < ctx.outputs.size(); ++i) {
    std::memset(ctx.outputs[i].raw_data(), 0, ctx.outputs[i].nbytes());
  }
  return absl::OkStatus();
}

// ----------------------------------------------------------------------------- SwapAxis

absl::Status SwapAxis(const KernelContext& ctx) {
  const auto& p = ctx.param<SwapAxisParam>();
  const Tensor& in = ctx.inputs[0];
  const int n = in.shape().ndim();
  int a = 0, b = 0;
  absl::Status s = NormalizeAxis(p.dim1, n, "dim1", &a);
  if (s.ok()) s = NormalizeAxis(p.dim2, n, "dim2", &b);
  if (!s.ok()) return WithWhere(ctx, s);
  StridedView v;
  v.steps = StridesOf(in.shape());
  v.dims = in.shape().dims();
  std::swap(v.dims[a], v.dims[b]);
  std::swap(v.steps[a], v.steps[b]);
  return Copy(ctx, v, in, ctx.outputs[0], /*gather=*/true);
}

// ----------------------------------------------------------------------------- reverse

absl::Status Reverse(const KernelContext& ctx) {
  const auto& p = ctx.param<ReverseParam>();
  const Tensor& in = ctx.inputs[0];
  const int n = in.shape().ndim();
  std::vector<bool> flip(n, false);
  for (int64_t a : p.axis) {
    if (a < 0 || a >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.Where(), ": axis ", a, " is out of range for ", in.DebugString()));
    }
    flip[a] = !flip[a];
  }
  StridedView v;
  v.dims = in.shape().dims();
  v.steps = StridesOf(in.shape());
  for (int d = 0; d < n; ++d) {
    if (!flip[d] || v.dims[d] == 0) continue;
    v.offset += (v.dims[d] - 1) * v.steps[d];
    v.steps[d] = -v.steps[d];
  }
  return Copy(ctx, v, in, ctx.outputs[0], /*gather=*/true);
}

// ----------------------------------------------------------------------------- tile

absl::Status Tile(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  std::vector<int64_t> dims, reps;
  AlignTile(ctx.param<TileParam>(), in.shape(), &dims, &reps);
  const std::vector<int64_t> st = StridesOf(Shape(dims));
  StridedView v;
  for (size_t d = 0; d < dims.size(); ++d) {
    v.dims.push_back(reps[d]);
    v.steps.push_back(0);
    v.dims.push_back(dims[d]);
    v.steps.push_back(st[d]);
  }
  return Copy(ctx, v, in, ctx.outputs[0], /*gather=*/true);
}

absl::Status TileBackward(const KernelContext& ctx) {
  const Tensor& ograd = ctx.inputs[0];
  const Tensor& gin = ctx.outputs[0];
  std::vector<int64_t> dims, reps;
  AlignTile(ctx.param<TileParam>(), gin.shape(), &dims, &reps);
  std::vector<int64_t> odims(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) odims[d] = dims[d] * reps[d];
  const std::vector<int64_t> ost = StridesOf(Shape(odims));
  StridedView outer;
  std::vector<int64_t> rsteps(dims.size());
  outer.dims = dims;
  for (size_t d = 0; d < dims.size(); ++d) {
    outer.steps.push_back(ost[d]);
    rsteps[d] = dims[d] * ost[d];
  }
  if (ograd.size() != Shape(odims).Size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ograd ", ograd.DebugString(),
                                                   " does not match the tiled input"));
  }
  return ReduceCopies(ctx, outer, AllOffsets(reps, rsteps), ograd, gin);
}

// ----------------------------------------------------------------------------- repeat

// The input as dims with the repeated axis at `ax` (the flattened input for axis=None).
absl::Status RepeatAxis(const KernelContext& ctx, const Shape& in, std::vector<int64_t>* dims,
                        int* ax) {
  absl::Status s = RepeatDims(ctx.param<RepeatParam>(), in, dims, ax);
  return s.ok() ? s : WithWhere(ctx, s);
}

absl::Status Repeat(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const int64_t r = ctx.param<RepeatParam>().repeats;
  std::vector<int64_t> dims;
  int ax = 0;
  SYMX_RETURN_IF_ERROR(RepeatAxis(ctx, in.shape(), &dims, &ax));
  const std::vector<int64_t> st = StridesOf(Shape(dims));
  StridedView v;
  for (size_t d = 0; d < dims.size(); ++d) {
    v.dims.push_back(dims[d]);
    v.steps.push_back(st[d]);
    if (static_cast<int>(d) == ax) {
      v.dims.push_back(r);
      v.steps.push_back(0);
    }
  }
  return Copy(ctx, v, in, ctx.outputs[0], /*gather=*/true);
}

absl::Status RepeatBackward(const KernelContext& ctx) {
  const Tensor& ograd = ctx.inputs[0];
  const Tensor& gin = ctx.outputs[0];
  const int64_t r = ctx.param<RepeatParam>().repeats;
  std::vector<int64_t> dims;
  int ax = 0;
  SYMX_RETURN_IF_ERROR(RepeatAxis(ctx, gin.shape(), &dims, &ax));
  std::vector<int64_t> odims = dims;
  odims[ax] *= r;
  if (ograd.size() != Shape(odims).Size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ograd ", ograd.DebugString(),
                                                   " does not match the repeated input"));
  }
  const std::vector<int64_t> ost = StridesOf(Shape(odims));
  StridedView outer;
  outer.dims = dims;
  outer.steps = ost;
  outer.steps[ax] = ost[ax] * r;
  return ReduceCopies(ctx, outer, AllOffsets({r}, {ost[ax]}), ograd, gin);
}

// ----------------------------------------------------------------------------- stack

// Where input `k` sits in the stacked output.
absl::Status StackView(const KernelContext& ctx, const Shape& part, const Shape& whole, int64_t k,
                       StridedView* v) {
  int ax = 0;
  absl::Status s = NormalizeAxis(ctx.param<StackParam>().axis, whole.ndim(), "axis", &ax);
  if (!s.ok()) return WithWhere(ctx, s);
  const std::vector<int64_t> st = StridesOf(whole);
  for (int d = 0; d < whole.ndim(); ++d) {
    if (d == ax) continue;
    v->dims.push_back(whole[d]);
    v->steps.push_back(st[d]);
  }
  v->offset = k * st[ax];
  if (v->size() != part.Size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": part ", part.ToString(), " does not fit ", whole.ToString()));
  }
  return absl::OkStatus();
}

absl::Status Stack(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  for (size_t k = 0; k < ctx.inputs.size(); ++k) {
    StridedView v;
    SYMX_RETURN_IF_ERROR(StackView(ctx, ctx.inputs[k].shape(), out.shape(), k, &v));
    SYMX_RETURN_IF_ERROR(Copy(ctx, v, out, ctx.inputs[k], /*gather=*/false));
  }
  return absl::OkStatus();
}

absl::Status StackBackward(const KernelContext& ctx) {
  const Tensor& ograd = ctx.inputs[0];
  for (size_t k = 0; k < ctx.outputs.size(); ++k) {
    if (!OutputWanted(ctx.req, k)) continue;
    StridedView v;
    SYMX_RETURN_IF_ERROR(StackView(ctx, ctx.outputs[k].shape(), ograd.shape(), k, &v));
    SYMX_RETURN_IF_ERROR(Copy(ctx, v, ograd, ctx.outputs[k], /*gather=*/true));
  }
  return absl::OkStatus();
}

// ----------------------------------------------------------------------------- diag

absl::Status Diag(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  StridedView v;
  if (in.shape().ndim() == 1) {
    SYMX_RETURN_IF_ERROR(DiagView(ctx, out.shape(), in.shape(), &v));
    return Copy(ctx, v, out, in, /*gather=*/false, /*zero_first=*/true);
  }
  SYMX_RETURN_IF_ERROR(DiagView(ctx, in.shape(), out.shape(), &v));
  return Copy(ctx, v, in, out, /*gather=*/true);
}

absl::Status DiagBackward(const KernelContext& ctx) {
  const Tensor& ograd = ctx.inputs[0];
  const Tensor& gin = ctx.outputs[0];
  StridedView v;
  if (gin.shape().ndim() == 1) {
    SYMX_RETURN_IF_ERROR(DiagView(ctx, ograd.shape(), gin.shape(), &v));
    return Copy(ctx, v, ograd, gin, /*gather=*/true);
  }
  SYMX_RETURN_IF_ERROR(DiagView(ctx, gin.shape(), ograd.shape(), &v));
  return Copy(ctx, v, gin, ograd, /*gather=*/false, /*zero_first=*/true);
}

// ----------------------------------------------------------------------------- Pad

// For each padded axis, the input index every output index copies (-1: the constant).
struct PadMaps {
  std::vector<std::vector<int64_t>> map;  // per axis (identity for N and C)
};

absl::Status MakePadMaps(const KernelContext& ctx, const Shape& in, const Shape& out, PadMaps* m) {
  SYMX_RETURN_IF_ERROR(CheckPadShapes(ctx, in, out));
  const auto& p = ctx.param<PadParam>();
  m->map.resize(in.ndim());
  for (int d = 0; d < in.ndim(); ++d) {
    std::vector<int64_t>& mp = m->map[d];
    mp.resize(out[d]);
    for (int64_t o = 0; o < out[d]; ++o) {
      mp[o] = PadSource(o, p.pad_width[2 * d], in[d], PadKindOf(p.mode));
    }
  }
  return absl::OkStatus();
}

// Calls fn(out_row, out_row_start, in_row_start_or_-1, last-axis map) for each output row.
template <typename Fn>
void ForEachPadRow(const KernelContext& ctx, const Shape& in, const Shape& out, const PadMaps& m,
                   bool parallel_by_plane, Fn&& fn) {
  const int n = out.ndim();
  const std::vector<int64_t> ist = StridesOf(in);
  const int64_t inner = out[n - 1];
  int64_t rows = 1;
  for (int d = 0; d < n - 1; ++d) rows *= out[d];
  if (rows == 0 || inner == 0) return;
  int64_t rows_per_plane = 1;
  for (int d = 2; d < n - 1; ++d) rows_per_plane *= out[d];
  auto run_rows = [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t rest = row, pos = 0;
      bool constant = false;
      for (int d = n - 2; d >= 0; --d) {
        const int64_t o = rest % out[d];
        rest /= out[d];
        const int64_t i = m.map[d][o];
        if (i < 0) constant = true;
        pos += i * ist[d];
      }
      fn(row * inner, constant ? -1 : pos);
    }
  };
  if (!parallel_by_plane) {
    ParallelFor(ctx, rows, static_cast<double>(inner) + n, run_rows);
    return;
  }
  // Rows of one (n, c) plane write one input plane; planes go to different threads.
  const int64_t planes = rows / rows_per_plane;
  ParallelFor(ctx, planes, static_cast<double>(rows_per_plane * inner),
              [&](int64_t b, int64_t e) { run_rows(b * rows_per_plane, e * rows_per_plane); });
}

absl::Status Pad(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  PadMaps m;
  SYMX_RETURN_IF_ERROR(MakePadMaps(ctx, in.shape(), out.shape(), &m));
  if (in.dtype() != out.dtype()) return UnsupportedDType(ctx, out.dtype());
  const double value = ctx.param<PadParam>().constant_value;
  // Floating-point types only, as MXNet ("only support floating point types").
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T c = FromDouble<T>(value);
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    const std::vector<int64_t>& last = m.map.back();
    const int64_t inner = static_cast<int64_t>(last.size());
    ForEachPadRow(ctx, in.shape(), out.shape(), m, false, [&](int64_t o, int64_t pos) {
      T* d = dst + o;
      if (pos < 0) {
        for (int64_t j = 0; j < inner; ++j) d[j] = c;
        return;
      }
      const T* s = src + pos;
      for (int64_t j = 0; j < inner; ++j) d[j] = last[j] < 0 ? c : s[last[j]];
    });
  };
  switch (in.dtype()) {
    case DType::kFloat32:
      run(float{});
      return absl::OkStatus();
    case DType::kFloat64:
      run(double{});
      return absl::OkStatus();
    case DType::kFloat16:
      run(float16_t{});
      return absl::OkStatus();
    default:
      return UnsupportedDType(ctx, in.dtype());
  }
}

absl::Status PadBackward(const KernelContext& ctx) {
  const Tensor& ograd = ctx.inputs[0];
  const Tensor& gin = ctx.outputs[0];
  PadMaps m;
  SYMX_RETURN_IF_ERROR(MakePadMaps(ctx, gin.shape(), ograd.shape(), &m));
  if (ograd.dtype() != gin.dtype()) return UnsupportedDType(ctx, gin.dtype());
  const bool sums = ctx.param<PadParam>().mode != PadMode::kConstant;
  if (gin.dtype() != DType::kFloat32 && gin.dtype() != DType::kFloat64 &&
      gin.dtype() != DType::kFloat16) {
    return UnsupportedDType(ctx, gin.dtype());
  }
  return BySumType(ctx, gin.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::memset(gin.raw_data(), 0, gin.nbytes());
    const T* src = ograd.data<T>();
    T* dst = gin.data<T>();
    const std::vector<int64_t>& last = m.map.back();
    const int64_t inner = static_cast<int64_t>(last.size());
    ForEachPadRow(ctx, gin.shape(), ograd.shape(), m, /*parallel_by_plane=*/sums,
                  [&](int64_t o, int64_t pos) {
                    if (pos < 0) return;
                    const T* s = src + o;
                    T* d = dst + pos;
                    for (int64_t j = 0; j < inner; ++j) {
                      if (last[j] < 0) continue;
                      if (sums) {
                        d[last[j]] = Store<T>(Load(d[last[j]]) + Load(s[j]));
                      } else {
                        d[last[j]] = s[j];
                      }
                    }
                  });
  });
}

SYMX_REGISTER_KERNEL("slice", kCPU, Slice);
SYMX_REGISTER_KERNEL("_backward_slice", kCPU, SliceBackward);
SYMX_REGISTER_KERNEL("slice_like", kCPU, SliceLike);
SYMX_REGISTER_KERNEL("_backward_slice_like", kCPU, SliceLikeBackward);
SYMX_REGISTER_KERNEL("SwapAxis", kCPU, SwapAxis);
SYMX_REGISTER_KERNEL("reverse", kCPU, Reverse);
SYMX_REGISTER_KERNEL("tile", kCPU, Tile);
SYMX_REGISTER_KERNEL("_backward_tile", kCPU, TileBackward);
SYMX_REGISTER_KERNEL("repeat", kCPU, Repeat);
SYMX_REGISTER_KERNEL("_backward_repeat", kCPU, RepeatBackward);
SYMX_REGISTER_KERNEL("stack", kCPU, Stack);
SYMX_REGISTER_KERNEL("_backward_stack", kCPU, StackBackward);
SYMX_REGISTER_KERNEL("diag", kCPU, Diag);
SYMX_REGISTER_KERNEL("_backward_diag", kCPU, DiagBackward);
SYMX_REGISTER_KERNEL("Pad", kCPU, Pad);
SYMX_REGISTER_KERNEL("_backward_Pad", kCPU, PadBackward);

}  // namespace
}  // namespace cpu
}  // namespace symx
