// CPU kernels of the indexing family (graph/ops/indexing.cc): one_hot, pick,
// take, gather_nd and Embedding, with their backward ops.
//
// Indices may have any dtype and are read as doubles; each op turns a value
// into a position as MXNet 1.9.1 does (graph/ops/indexing.cc): clip and wrap
// truncate toward zero then clip or wrap (Python modulo; NaN reads 0), take's
// raise mode and gather_nd reject out-of-range values with an error naming
// the value, the op and the node. The forward kernels move elements of any
// dtype as bytes; the backward kernels (scatter-add into a zeroed gradient)
// handle float32, float64 and float16.
//
// Embedding: indices may have any numeric dtype; each is truncated to an
// integer and clipped to [0, input_dim - 1] as MXNet's Embedding (take with
// clip mode) does, so an out-of-range or negative index reads (and its
// gradient goes to) the first or last row instead of failing; NaN reads row 0.
// The weight gradient is dense (sparse_grad=True gives the same values in a
// dense array); the index gradient is zero.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/cpu/reduce_kernels.h"
#include "devices/geometry/index_position.h"
#include "devices/geometry/ravel_index.h"
#include "devices/geometry/upsampling_geometry.h"
#include "graph/error.h"
#include "graph/infer_util.h"
#include "graph/ops/indexing.h"
#include "graph/ops/ordering.h"

namespace symx {
namespace cpu {
namespace {

absl::Status Problem(const KernelContext& ctx, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", what));
}

// Reads index i of `t` (any dtype) as a double.
class IndexReader {
 public:
  explicit IndexReader(const Tensor& t) : t_(t) {}
  double operator()(int64_t i) const {
    double v = 0;
    SYMX_DTYPE_SWITCH_ALL(t_.dtype(), I, v = ToDouble(t_.data<I>()[i]));
    return v;
  }

 private:
  const Tensor& t_;
};

// The position for index value v along an axis of n (> 0) elements in clip or
// wrap mode (raise reads as clip: pick has no raise).
inline int64_t ClipOrWrap(double v, int64_t n, IndexMode mode) {
  return ClipOrWrapPosition(v, n, mode == IndexMode::kWrap);
}

// Runs fn.template operator()<U>() with U an unsigned type of the element size.
template <typename Fn>
absl::Status WithElementBytes(const KernelContext& ctx, DType dtype, Fn&& fn) {
  switch (DTypeSize(dtype)) {
    case 1:
      fn(uint8_t{});
      break;
    case 2:
      fn(uint16_t{});
      break;
    case 4:
      fn(uint32_t{});
      break;
    case 8:
      fn(uint64_t{});
      break;
    default:
      return UnsupportedDType(ctx, dtype);
  }
  return absl::OkStatus();
}

// outer x n x inner views around an axis: graph/ops/ordering.h's AxisLayout.
using Layout = AxisLayout;

int NormAxis(int64_t axis, int ndim) { return static_cast<int>(axis < 0 ? axis + ndim : axis); }

// ----------------------------------------------------------------------------- one_hot

absl::Status OneHotForward(const KernelContext& ctx) {
  const auto& p = ctx.param<OneHotParam>();
  const Tensor& idx = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const int64_t depth = p.depth;
  if (out.size() != idx.size() * depth) {
    return Problem(ctx, absl::StrCat("output ", out.DebugString(), " does not match ", idx.size(),
                                     " indices of depth ", depth));
  }
  if (idx.dtype() == DType::kUnknown) return UnsupportedDType(ctx, idx.dtype());
  if (out.dtype() == DType::kUnknown) return UnsupportedDType(ctx, out.dtype());
  IndexReader read(idx);
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, {
    T* y = out.data<T>();
    const T on = CastValue<T>(p.on_value), off = CastValue<T>(p.off_value);
    ParallelFor(ctx, idx.size(), static_cast<double>(depth), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        T* row = y + i * depth;
        for (int64_t j = 0; j < depth; ++j) row[j] = off;
        const int64_t col = OneHotColumn(read(i), depth);
        if (col >= 0) row[col] = on;
      }
    });
  });
  return absl::OkStatus();
}

// ----------------------------------------------------------------------------- pick

struct PickGeometry {
  Layout l;
  IndexMode mode;
};

absl::StatusOr<PickGeometry> PickSetup(const KernelContext& ctx, const Shape& data,
                                       const Tensor& index, int64_t out_size) {
  const auto& p = ctx.param<PickParam>();
  PickGeometry g;
  g.mode = p.mode;
  if (!p.axis.has_value()) return Problem(ctx, "axis=None is not supported");
  g.l = MakeAxisLayout(data, NormAxis(*p.axis, data.ndim()));
  if (index.size() != g.l.outer * g.l.inner || out_size != index.size()) {
    return Problem(
        ctx, absl::StrCat("index ", index.DebugString(), " does not fit data ", data.ToString()));
  }
  if (g.l.n == 0 && index.size() > 0) {
    return Problem(ctx, absl::StrCat("cannot pick from the empty axis of data ", data.ToString()));
  }
  return g;
}

absl::Status PickForward(const KernelContext& ctx) {
  const Tensor& data = ctx.inputs[0];
  const Tensor& index = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(PickGeometry g, PickSetup(ctx, data.shape(), index, out.size()));
  if (index.dtype() == DType::kUnknown) return UnsupportedDType(ctx, index.dtype());
  IndexReader read(index);
  return WithElementBytes(ctx, data.dtype(), [&](auto tag) {
    using U = decltype(tag);
    const U* x = static_cast<const U*>(data.raw_data());
    U* y = static_cast<U*>(out.raw_data());
    const Layout l = g.l;
    ParallelFor(ctx, index.size(), 2.0, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const int64_t o = i / l.inner, r = i % l.inner;
        const int64_t j = ClipOrWrap(read(i), l.n, g.mode);
        y[i] = x[(o * l.n + j) * l.inner + r];
      }
    });
  });
}

template <typename T>
void PickBackwardT(const KernelContext& ctx, const PickGeometry& g) {
  const Tensor& og = ctx.inputs[0];
  const Tensor& index = ctx.inputs[1];
  const Tensor& grad = ctx.outputs[0];
  T* gx = grad.data<T>();
  const T* gy = og.data<T>();
  std::fill(gx, gx + grad.size(), T(0));
  IndexReader read(index);
  const Layout l = g.l;
  for (int64_t i = 0; i < index.size(); ++i) {
    const int64_t o = i / l.inner, r = i % l.inner;
    const int64_t j = ClipOrWrap(read(i), l.n, g.mode);
    gx[(o * l.n + j) * l.inner + r] += gy[i];
  }
}

absl::Status PickBackward(const KernelContext& ctx) {
  const Tensor& grad = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(PickGeometry g,
                        PickSetup(ctx, grad.shape(), ctx.inputs[1], ctx.inputs[0].size()));
  if (ctx.inputs[1].dtype() == DType::kUnknown) return UnsupportedDType(ctx, DType::kUnknown);
  if (ctx.inputs[0].dtype() != grad.dtype()) return UnsupportedDType(ctx, ctx.inputs[0].dtype());
  SYMX_FLOAT16_SWITCH(ctx, grad.dtype(), T, PickBackwardT<T>(ctx, g));
  return absl::OkStatus();
}

// ----------------------------------------------------------------------------- take

// Positions of every index along an axis of n elements, or an error (raise mode).
absl::Status TakePositions(const KernelContext& ctx, const Tensor& indices, int64_t n,
                           std::vector<int64_t>* pos) {
  const auto& p = ctx.param<TakeParam>();
  if (indices.dtype() == DType::kUnknown) return UnsupportedDType(ctx, indices.dtype());
  IndexReader read(indices);
  pos->resize(indices.size());
  for (int64_t i = 0; i < indices.size(); ++i) {
    const double v = read(i);
    if (p.mode == IndexMode::kRaise) {
      (*pos)[i] = RaisePosition(v, n);
      if ((*pos)[i] < 0) {
        return absl::OutOfRangeError(absl::StrCat(
            ctx.Where(), ": index ", FormatIndexValue(v), " (element ", i,
            " of indices) is out of range for an axis of ", n, " elements (mode='raise')"));
      }
    } else {
      if (n == 0) {
        return Problem(ctx, "cannot take from an empty axis");
      }
      (*pos)[i] = ClipOrWrap(v, n, p.mode);
    }
  }
  return absl::OkStatus();
}

absl::Status TakeLayout(const KernelContext& ctx, const Shape& a, const Tensor& indices,
                        int64_t out_size, Layout* l) {
  const auto& p = ctx.param<TakeParam>();
  *l = MakeAxisLayout(a, NormAxis(p.axis, a.ndim()));
  if (out_size != l->outer * indices.size() * l->inner) {
    return Problem(ctx, absl::StrCat("indices ", indices.DebugString(), " and a ", a.ToString(),
                                     " do not give ", out_size, " elements"));
  }
  return absl::OkStatus();
}

absl::Status TakeForward(const KernelContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  const Tensor& indices = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  Layout l;
  SYMX_RETURN_IF_ERROR(TakeLayout(ctx, a.shape(), indices, out.size(), &l));
  std::vector<int64_t> pos;
  SYMX_RETURN_IF_ERROR(TakePositions(ctx, indices, l.n, &pos));
  const int64_t m = indices.size();
  const size_t row = static_cast<size_t>(l.inner) * DTypeSize(a.dtype());
  const char* x = static_cast<const char*>(a.raw_data());
  char* y = static_cast<char*>(out.raw_data());
  ParallelFor(ctx, l.outer * m, static_cast<double>(l.inner), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / m, i = t % m;
      std::memcpy(y + t * row, x + (o * l.n + pos[i]) * row, row);
    }
  });
  return absl::OkStatus();
}

template <typename T>
void TakeBackwardT(const KernelContext& ctx, const Layout& l, const std::vector<int64_t>& pos) {
  const Tensor& og = ctx.inputs[0];
  const Tensor& grad = ctx.outputs[0];
  T* gx = grad.data<T>();
  const T* gy = og.data<T>();
  std::fill(gx, gx + grad.size(), T(0));
  const int64_t m = static_cast<int64_t>(pos.size());
  // Each outer block owns its slice of the gradient, so blocks run in parallel.
  ParallelFor(ctx, l.outer, static_cast<double>(m * l.inner), [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      for (int64_t i = 0; i < m; ++i) {
        T* dst = gx + (o * l.n + pos[i]) * l.inner;
        const T* src = gy + (o * m + i) * l.inner;
        for (int64_t r = 0; r < l.inner; ++r) dst[r] += src[r];
      }
    }
  });
}

absl::Status TakeBackward(const KernelContext& ctx) {
  const Tensor& og = ctx.inputs[0];
  const Tensor& indices = ctx.inputs[1];
  const Tensor& grad = ctx.outputs[0];
  Layout l;
  SYMX_RETURN_IF_ERROR(TakeLayout(ctx, grad.shape(), indices, og.size(), &l));
  std::vector<int64_t> pos;
  SYMX_RETURN_IF_ERROR(TakePositions(ctx, indices, l.n, &pos));
  if (og.dtype() != grad.dtype()) return UnsupportedDType(ctx, og.dtype());
  SYMX_FLOAT16_SWITCH(ctx, grad.dtype(), T, TakeBackwardT<T>(ctx, l, pos));
  return absl::OkStatus();
}

// ----------------------------------------------------------------------------- gather_nd

// The flat offset (in slices) of each of the Y coordinates, or an error.
absl::Status GatherOffsets(const KernelContext& ctx, const Shape& data, const Tensor& indices,
                           int64_t out_size, std::vector<int64_t>* offsets, int64_t* slice) {
  const Shape& is = indices.shape();
  if (is.ndim() < 2 || is[0] < 1 || is[0] > data.ndim()) {
    return Problem(
        ctx, absl::StrCat("indices ", indices.DebugString(), " do not fit data ", data.ToString()));
  }
  const int m = static_cast<int>(is[0]);
  const int64_t count = indices.size() / m;
  *slice = 1;
  for (int d = m; d < data.ndim(); ++d) *slice *= data[d];
  if (out_size != count * *slice) {
    return Problem(ctx, absl::StrCat("output of ", out_size, " elements does not fit indices ",
                                     indices.DebugString(), " and data ", data.ToString()));
  }
  if (indices.dtype() == DType::kUnknown) return UnsupportedDType(ctx, indices.dtype());
  IndexReader read(indices);
  offsets->assign(count, 0);
  for (int64_t y = 0; y < count; ++y) {
    int64_t off = 0;
    for (int d = 0; d < m; ++d) {
      const int64_t n = data[d];
      const double v = read(d * count + y);
      const int64_t at = GatherNdPosition(v, n);
      if (at < 0) {
        return absl::OutOfRangeError(absl::StrCat(ctx.Where(), ": index ", FormatIndexValue(v),
                                                  " is out of bounds for axis ", d, " with size ",
                                                  n, " (indices column ", y, ")"));
      }
      off = off * n + at;
    }
    (*offsets)[y] = off;
  }
  return absl::OkStatus();
}

absl::Status GatherNdForward(const KernelContext& ctx) {
  const Tensor& data = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  std::vector<int64_t> offsets;
  int64_t slice = 0;
  SYMX_RETURN_IF_ERROR(
      GatherOffsets(ctx, data.shape(), ctx.inputs[1], out.size(), &offsets, &slice));
  const size_t bytes = static_cast<size_t>(slice) * DTypeSize(data.dtype());
  const char* x = static_cast<const char*>(data.raw_data());
  char* y = static_cast<char*>(out.raw_data());
  ParallelFor(ctx, static_cast<int64_t>(offsets.size()), static_cast<double>(slice),
              [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i) {
                  std::memcpy(y + i * bytes, x + offsets[i] * bytes, bytes);
                }
              });
  return absl::OkStatus();
}

template <typename T>
void GatherNdBackwardT(const KernelContext& ctx, const std::vector<int64_t>& offsets,
                       int64_t slice) {
  const Tensor& grad = ctx.outputs[0];
  T* gx = grad.data<T>();
  const T* gy = ctx.inputs[0].data<T>();
  std::fill(gx, gx + grad.size(), T(0));
  for (size_t i = 0; i < offsets.size(); ++i) {
    T* dst = gx + offsets[i] * slice;
    const T* src = gy + static_cast<int64_t>(i) * slice;
    for (int64_t r = 0; r < slice; ++r) dst[r] += src[r];
  }
}

absl::Status GatherNdBackward(const KernelContext& ctx) {
  const Tensor& og = ctx.inputs[0];
  const Tensor& grad = ctx.outputs[0];
  std::vector<int64_t> offsets;
  int64_t slice = 0;
  SYMX_RETURN_IF_ERROR(
      GatherOffsets(ctx, grad.shape(), ctx.inputs[1], og.size(), &offsets, &slice));
  if (og.dtype() != grad.dtype()) return UnsupportedDType(ctx, og.dtype());
  SYMX_FLOAT16_SWITCH(ctx, grad.dtype(), T, GatherNdBackwardT<T>(ctx, offsets, slice));
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("one_hot", kCPU, OneHotForward);
SYMX_REGISTER_KERNEL("pick", kCPU, PickForward);
SYMX_REGISTER_KERNEL("_backward_pick", kCPU, PickBackward);
SYMX_REGISTER_KERNEL("take", kCPU, TakeForward);
SYMX_REGISTER_KERNEL("_backward_take", kCPU, TakeBackward);
SYMX_REGISTER_KERNEL("gather_nd", kCPU, GatherNdForward);
SYMX_REGISTER_KERNEL("_backward_gather_nd", kCPU, GatherNdBackward);

}  // namespace
}  // namespace cpu
namespace cpu {
namespace {

// ----------------------------------------------------------------------------- Embedding

// The table row for an index value: truncated, then clipped to [0, rows - 1].
inline int64_t EmbeddingRow(double v, int64_t rows) {
  if (!(v > 0)) return 0;  // negative, zero or NaN
  if (v >= static_cast<double>(rows - 1)) return rows - 1;
  return static_cast<int64_t>(v);
}

// Runs fn(index_ptr) with the indices' storage type as I.
template <typename Fn>
absl::Status WithIndexType(const KernelContext& ctx, const Tensor& idx, Fn&& fn) {
  if (idx.dtype() == DType::kUnknown) return UnsupportedDType(ctx, idx.dtype());
  SYMX_DTYPE_SWITCH_ALL(idx.dtype(), I, fn(idx.data<I>()));
  return absl::OkStatus();
}

absl::Status CheckEmbeddingTable(const KernelContext& ctx, const Tensor& table, int64_t rows,
                                 int64_t cols) {
  if (table.shape().ndim() != 2 || table.shape()[0] != rows || table.shape()[1] != cols) {
    return Fail(
        ctx, absl::StrCat("weight ", table.DebugString(), " should be (", rows, ", ", cols, ")"));
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status EmbeddingForwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<EmbeddingParam>();
  const Tensor& idx = ctx.inputs[0];
  const Tensor& weight = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  const int64_t rows = p.input_dim, dim = p.output_dim;
  SYMX_RETURN_IF_ERROR(CheckEmbeddingTable(ctx, weight, rows, dim));
  if (out.size() != idx.size() * dim || out.dtype() != weight.dtype()) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " does not match ", idx.size(),
                                  " indices of ", dim, " values"));
  }
  const T* w = weight.data<T>();
  T* y = out.data<T>();
  return WithIndexType(ctx, idx, [&](const auto* ix) {
    ParallelFor(ctx, idx.size(), static_cast<double>(dim), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const int64_t r = EmbeddingRow(ToDouble(ix[i]), rows);
        std::memcpy(y + i * dim, w + r * dim, static_cast<size_t>(dim) * sizeof(T));
      }
    });
  });
}

template <typename T>
absl::Status EmbeddingBackwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<EmbeddingParam>();
  const Tensor& ograd = ctx.inputs[0];
  const Tensor& idx = ctx.inputs[1];
  const Tensor& gidx = ctx.outputs[0];
  const Tensor& gw = ctx.outputs[1];
  const int64_t rows = p.input_dim, dim = p.output_dim;
  SYMX_RETURN_IF_ERROR(CheckEmbeddingTable(ctx, gw, rows, dim));
  if (ograd.size() != idx.size() * dim || ograd.dtype() != gw.dtype()) {
    return Fail(ctx, absl::StrCat("output gradient ", ograd.DebugString(), " does not match ",
                                  idx.size(), " indices of ", dim, " values"));
  }
  std::memset(gidx.raw_data(), 0, gidx.nbytes());
  T* g = gw.data<T>();
  const T* og = ograd.data<T>();
  std::fill(g, g + gw.size(), T(0));
  const int64_t n = idx.size();
  // Scatter-add without races: each task owns a range of table rows and scans
  // every index for rows in its range.
  const int64_t tasks =
      std::max<int64_t>(1, std::min<int64_t>(rows, 2 * static_cast<int64_t>(StepThreads(ctx))));
  return WithIndexType(ctx, idx, [&](const auto* ix) {
    const double cost = static_cast<double>(n) * (1.0 + static_cast<double>(dim) / tasks);
    ParallelFor(ctx, tasks, cost, [&](int64_t b, int64_t e) {
      const int64_t lo = rows * b / tasks, hi = rows * e / tasks;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = EmbeddingRow(ToDouble(ix[i]), rows);
        if (r < lo || r >= hi) continue;
        T* dst = g + r * dim;
        const T* src = og + i * dim;
        for (int64_t c = 0; c < dim; ++c) dst[c] += src[c];
      }
    });
  });
}

absl::Status EmbeddingForward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return EmbeddingForwardT<T>(ctx));
  return absl::OkStatus();
}

absl::Status EmbeddingBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.outputs[1].dtype(), T, return EmbeddingBackwardT<T>(ctx));
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("Embedding", kCPU, .fn = EmbeddingForward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_Embedding", kCPU, .fn = EmbeddingBackward,
                     .widening = HalfWidening::kFloat16AndBFloat16);

}  // namespace
}  // namespace cpu

}  // namespace symx

namespace symx {
namespace cpu {
namespace {

// batch_take: a as (rows, m); out[i] = a[i, clip(indices[i])].
absl::Status BatchTake(const KernelContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  const Tensor& index = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  const Shape& s = a.shape();
  const int64_t m = s.ndim() >= 2 ? s[s.ndim() - 1] : 0;
  if (m == 0 || a.size() / m != index.size() || out.size() != index.size()) {
    return Problem(
        ctx, absl::StrCat("indices ", index.DebugString(), " do not fit a ", a.DebugString()));
  }
  if (index.dtype() == DType::kUnknown) return UnsupportedDType(ctx, index.dtype());
  IndexReader read(index);
  return WithElementBytes(ctx, a.dtype(), [&](auto tag) {
    using U = decltype(tag);
    const U* x = static_cast<const U*>(a.raw_data());
    U* y = static_cast<U*>(out.raw_data());
    ParallelFor(ctx, index.size(), 2.0, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) y[i] = x[i * m + ClipOrWrapPosition(read(i), m, false)];
    });
  });
}

// out = v, converted to out's dtype (integral values: exact where they fit).
absl::Status StoreValues(const KernelContext& ctx, const std::vector<double>& v,
                         const Tensor& out) {
  if (out.dtype() == DType::kUnknown || out.dtype() == DType::kBool) {
    return UnsupportedDType(ctx, out.dtype());
  }
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, {
    T* y = out.data<T>();
    for (size_t i = 0; i < v.size(); ++i) y[i] = CastValue<T>(v[i]);
  });
  return absl::OkStatus();
}

// Flat index of each (ndim, N) column, truncated at each step as MXNet's
// integer accumulator does.
absl::Status RavelMultiIndex(const KernelContext& ctx) {
  const std::vector<int64_t>& shape = ctx.param<RavelParam>().shape;
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const int64_t k = static_cast<int64_t>(shape.size()), n = out.size();
  if (in.size() != k * n) {
    return Problem(ctx, absl::StrCat("input ", in.DebugString(), " does not hold ", k, " x ", n,
                                     " coordinates"));
  }
  SYMX_ASSIGN_OR_RETURN(std::vector<double> v, HostDoubles(in));
  return StoreValues(ctx, RavelColumns(shape, v, n), out);
}

// Coordinates (ndim, N) of each flat index: remainders from the last dim,
// the first coordinate the quotient left (unwrapped), as MXNet's kernel.
absl::Status UnravelIndex(const KernelContext& ctx) {
  const std::vector<int64_t>& shape = ctx.param<RavelParam>().shape;
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const int64_t k = static_cast<int64_t>(shape.size()), n = in.size();
  if (out.size() != k * n) {
    return Problem(ctx, absl::StrCat("output ", out.DebugString(), " does not hold ", k, " x ", n,
                                     " coordinates"));
  }
  SYMX_ASSIGN_OR_RETURN(std::vector<double> v, HostDoubles(in));
  return StoreValues(ctx, UnravelColumns(shape, v), out);
}

absl::Status IndexArray(const KernelContext& ctx) {
  const Shape& s = ctx.inputs[0].shape();
  const Tensor& out = ctx.outputs[0];
  std::vector<int> axes;
  absl::Status st = IndexArrayAxes(ctx.param<IndexArrayParam>(), s.ndim(), &axes);
  if (!st.ok()) return Problem(ctx, std::string(st.message()));
  if (out.dtype() != DType::kInt64) return UnsupportedDType(ctx, out.dtype());
  const int64_t m = static_cast<int64_t>(axes.size()), n = ctx.inputs[0].size();
  if (out.size() != n * m) {
    return Problem(ctx, absl::StrCat("output ", out.DebugString(), " does not fit ", s.ToString()));
  }
  std::vector<int64_t> stride(s.ndim(), 1);
  for (int d = s.ndim() - 2; d >= 0; --d) stride[d] = stride[d + 1] * s[d + 1];
  int64_t* y = out.data<int64_t>();
  ParallelFor(ctx, n, static_cast<double>(m), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      for (int64_t j = 0; j < m; ++j) y[i * m + j] = (i / stride[axes[j]]) % s[axes[j]];
    }
  });
  return absl::OkStatus();
}

// _contrib_boolean_mask: the (outer, kept entry) blocks of `inner` elements
// copied in order; the output's length along the axis was set from index's
// values when the call was planned.
absl::Status BooleanMask(const KernelContext& ctx) {
  const Tensor& data = ctx.inputs[0];
  const Shape& s = data.shape();
  int axis = 0;
  SYMX_RETURN_IF_ERROR(Annotate(
      NormalizeAxis(ctx.param<BooleanMaskParam>().axis, s.ndim(), "axis", &axis), ctx.Where()));
  const std::vector<double> index = ctx.inputs[1].ToDoubles();
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
  const auto* src = static_cast<const uint8_t*>(data.read_raw_data());
  auto* dst = static_cast<uint8_t*>(ctx.outputs[0].raw_data());
  const int64_t n = s[axis], m = static_cast<int64_t>(kept.size());
  for (int64_t a = 0; a < outer; ++a) {
    for (int64_t k = 0; k < m; ++k) {
      std::memcpy(dst + (a * m + k) * block, src + (a * n + kept[k]) * block, block);
    }
  }
  return absl::OkStatus();
}

// Its backward (inputs ograd, data, index): the head gradient's entries back
// at the kept positions, zeros elsewhere.
absl::Status BooleanMaskBackward(const KernelContext& ctx) {
  const Tensor& g = ctx.inputs[0];
  const Shape& s = ctx.outputs[0].shape();
  int axis = 0;
  SYMX_RETURN_IF_ERROR(Annotate(
      NormalizeAxis(ctx.param<BooleanMaskParam>().axis, s.ndim(), "axis", &axis), ctx.Where()));
  const std::vector<double> index = ctx.inputs[2].ToDoubles();
  std::vector<int64_t> kept;
  for (size_t i = 0; i < index.size(); ++i) {
    if (index[i] != 0.0) kept.push_back(static_cast<int64_t>(i));
  }
  if (g.shape().ndim() != s.ndim() || g.shape()[axis] != static_cast<int64_t>(kept.size())) {
    return Fail(ctx, absl::StrCat("head gradient ", g.shape().ToString(), " does not hold the ",
                                  kept.size(), " entries index selects from ", s.ToString()));
  }
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= s[d];
  for (int d = axis + 1; d < s.ndim(); ++d) inner *= s[d];
  const size_t block = static_cast<size_t>(inner) * DTypeSize(g.dtype());
  const auto* src = static_cast<const uint8_t*>(g.read_raw_data());
  auto* dst = static_cast<uint8_t*>(ctx.outputs[0].raw_data());
  std::memset(dst, 0, ctx.outputs[0].nbytes());
  const int64_t n = s[axis], m = static_cast<int64_t>(kept.size());
  for (int64_t a = 0; a < outer; ++a) {
    for (int64_t k = 0; k < m; ++k) {
      std::memcpy(dst + (a * n + kept[k]) * block, src + (a * m + k) * block, block);
    }
  }
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("batch_take", kCPU, BatchTake);
SYMX_REGISTER_KERNEL("_contrib_boolean_mask", kCPU, BooleanMask);
SYMX_REGISTER_KERNEL("_backward_contrib_boolean_mask", kCPU, BooleanMaskBackward);
SYMX_REGISTER_KERNEL("_ravel_multi_index", kCPU, RavelMultiIndex);
SYMX_REGISTER_KERNEL("_unravel_index", kCPU, UnravelIndex);
SYMX_REGISTER_KERNEL("_contrib_index_array", kCPU, IndexArray);

}  // namespace cpu
}  // namespace symx
