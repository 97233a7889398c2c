// CPU kernels for Convolution and Deconvolution (1-D, 2-D, 3-D, channel-first)
// and their backward ops, as im2col + GEMM: the reference kernels, and the
// path for every case oneDNN does not take (devices/cpu/onednn_conv.h; its
// primitives are built at Bind and run instead when it does).
//
// Both ops are described by one geometry: the convolution's input side (the
// "image": Convolution's data, Deconvolution's output) and its output side (the
// "columns": Convolution's output, Deconvolution's data), with the weight as a
// (Co, Ci/G * prod(kernel)) matrix in both cases (Convolution's weight is
// (num_filter, C/G, k...), Deconvolution's is (C, num_filter/G, k...)). Then
//   Convolution forward       = columns from image  (im2col, W * col)
//   Convolution data grad     = image from columns  (W^T * dY, col2im)
//   Deconvolution forward     = image from columns  (the convolution's data grad)
//   Deconvolution data grad   = columns from image  (a convolution of dY)
//   weight grad (both)        = sum over samples of columns * im2col(image)^T
// The im2col buffer comes from the workspace. Small per-sample products run
// several samples at once on the pool (one buffer each); large ones run one
// sample at a time with a parallel GEMM.
//
// Layouts: the schema accepts only channel-first layouts (None, NCW, NCHW,
// NCDHW), so every layout reaching these kernels is channel-first.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/dense_kernels.h"
#include "devices/cpu/kernel_util.h"
#ifdef SYMX_WITH_ONEDNN
#include "devices/cpu/onednn.h"
#include "devices/cpu/onednn_conv.h"
#include "devices/cpu/onednn_deconv.h"
#endif
#include "graph/error.h"
#include "graph/ops/convolution.h"

namespace symx {
namespace cpu {
namespace {

// At or above this many flops per sample, samples run one at a time with a
// parallel GEMM; below it, several samples run at once (one buffer each).
constexpr double kLargeSampleFlops = 1 << 23;
// At most this many im2col buffers, and at most this many bytes for them.
constexpr int64_t kMaxSlots = 8;
constexpr int64_t kMaxSlotBytes = int64_t{64} << 20;

struct ConvGeom {
  int64_t batch = 0;
  int64_t groups = 1;
  int64_t img_ch = 0;  // Ci: channels on the convolution's input side
  int64_t col_ch = 0;  // Co: channels on its output side (weight rows)
  // Spatial dims padded to 3 with leading 1s.
  int64_t img_sp[3] = {1, 1, 1};
  int64_t col_sp[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
  int64_t dilate[3] = {1, 1, 1};

  int64_t img_size = 1;  // prod(img_sp)
  int64_t col_size = 1;  // prod(col_sp)
  int64_t ksize = 1;     // prod(kernel)
  int64_t ci_g = 0;      // Ci / G
  int64_t co_g = 0;      // Co / G
  int64_t rows_g = 0;    // im2col rows per group: ci_g * ksize
  int64_t slots = 1;

  int64_t ColElems() const { return img_ch * ksize * col_size; }
  int64_t WeightElems() const { return col_ch * rows_g; }
  double SampleFlops() const {
    return 2.0 * static_cast<double>(col_ch) * static_cast<double>(rows_g) *
           static_cast<double>(col_size);
  }
};

// The geometry for data of shape `data` and output of shape `out` (Deconvolution:
// with the padding implied by target_shape). Errors name the op.
absl::Status MakeGeom(const ConvParam& p, const Shape& data, const Shape& out, ConvGeom* g) {
  const int n = static_cast<int>(p.kernel.size());
  if (data.ndim() != n + 2 || out.ndim() != n + 2) {
    return absl::InvalidArgumentError(absl::StrCat(p.op_name(), ": data ", data.ToString(),
                                                   " and output ", out.ToString(), " must have ",
                                                   n + 2, " dims for a ", n, "-D kernel"));
  }
  g->batch = data[0];
  g->groups = p.num_group;
  const Shape& img = p.deconv ? out : data;
  const Shape& col = p.deconv ? data : out;
  g->img_ch = img[1];
  g->col_ch = col[1];
  const int off = 3 - n;
  for (int i = 0; i < n; ++i) {
    g->img_sp[off + i] = img[2 + i];
    g->col_sp[off + i] = col[2 + i];
    g->kernel[off + i] = p.kernel[i];
    g->stride[off + i] = p.stride[i];
    g->dilate[off + i] = p.dilate[i];
    int64_t pad = p.pad[i];
    if (p.deconv && !p.target_shape.empty()) {
      // Padding chosen so that the output is exactly the target (MXNet's rule: the
      // excess over the target, split with the odd element on the far side).
      const int64_t total = p.stride[i] * (data[2 + i] - 1) + p.DilatedKernel(i) - out[2 + i];
      pad = (total + 1) / 2;
    }
    g->pad[off + i] = pad;
  }
  g->img_size = g->img_sp[0] * g->img_sp[1] * g->img_sp[2];
  g->col_size = g->col_sp[0] * g->col_sp[1] * g->col_sp[2];
  g->ksize = g->kernel[0] * g->kernel[1] * g->kernel[2];
  if (g->img_ch % g->groups != 0 || g->col_ch % g->groups != 0) {
    return absl::InvalidArgumentError(absl::StrCat(p.op_name(), ": channels of data ",
                                                   data.ToString(), " and output ", out.ToString(),
                                                   " are not divisible by num_group ", g->groups));
  }
  g->ci_g = g->img_ch / g->groups;
  g->co_g = g->col_ch / g->groups;
  g->rows_g = g->ci_g * g->ksize;
  // The output side must be exactly the sliding-window positions over the input side
  // (Deconvolution data with an empty spatial dim has no positions: bias only).
  for (int d = 0; d < 3; ++d) {
    if (p.deconv && g->col_sp[d] == 0) continue;
    const int64_t dk = g->dilate[d] * (g->kernel[d] - 1) + 1;
    const int64_t span = g->img_sp[d] + 2 * g->pad[d] - dk;
    if (span < 0 || span / g->stride[d] + 1 != g->col_sp[d]) {
      return absl::InvalidArgumentError(absl::StrCat(
          p.op_name(), ": data ", data.ToString(), " and output ", out.ToString(),
          " do not match the kernel, stride, dilate and pad in spatial dim ", d - off));
    }
  }
  // Sample parallelism (see kLargeSampleFlops).
  g->slots = 1;
  if (g->batch > 1 && g->SampleFlops() < kLargeSampleFlops) {
    g->slots = std::min(g->batch, kMaxSlots);
    const int64_t bytes = std::max<int64_t>(g->ColElems() * 8, 1);
    g->slots = std::max<int64_t>(1, std::min(g->slots, kMaxSlotBytes / bytes));
  }
  return absl::OkStatus();
}

absl::Status CheckWeight(const ConvParam& p, const ConvGeom& g, const Shape& weight) {
  bool ok = weight.ndim() == static_cast<int>(p.kernel.size()) + 2 && weight[0] == g.col_ch &&
            weight[1] == g.ci_g;
  for (size_t i = 0; ok && i < p.kernel.size(); ++i) ok = weight[2 + i] == p.kernel[i];
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(p.op_name(), ": weight ", weight.ToString(),
                                                 " does not match the data and output"));
}

// Workspace elements: one im2col buffer per slot, plus (backward with several
// slots) one weight-gradient accumulator per slot.
int64_t WorkspaceElems(const ConvGeom& g, bool backward) {
  int64_t elems = g.slots * g.ColElems();
  if (backward && g.slots > 1) elems += g.slots * g.WeightElems();
  return elems;
}

size_t ConvWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                     const std::vector<Shape>& out, DType dtype) {
  ConvGeom g;
  if (in.empty() || out.empty() || !MakeGeom(Param<ConvParam>(attrs), in[0], out[0], &g).ok()) {
    return 0;
  }
  return static_cast<size_t>(WorkspaceElems(g, false)) * DTypeSize(dtype);
}

// Backward inputs: ograd (the output's shape), data, weight.
size_t ConvBackwardWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                             const std::vector<Shape>& out, DType dtype) {
  ConvGeom g;
  if (in.size() < 2 || !MakeGeom(Param<ConvParam>(attrs), in[1], in[0], &g).ok()) return 0;
  return static_cast<size_t>(WorkspaceElems(g, true)) * DTypeSize(dtype);
}

// ---------------------------------------------------------------- im2col / col2im

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Output positions o in [lo, hi) read input o * stride + offset inside [0, size).
inline void ValidRange(int64_t offset, int64_t stride, int64_t size, int64_t count, int64_t* lo,
                       int64_t* hi) {
  *lo = offset >= 0 ? 0 : CeilDiv(-offset, stride);
  *hi = size - offset <= 0 ? 0 : CeilDiv(size - offset, stride);
  *hi = std::min(*hi, count);
  *lo = std::min(*lo, *hi);
}

// Calls visit(row_of_col, image_row_pointer_or_null, x_offset, lo, hi) for every
// (kernel offset, output z, output y) line of im2col row `r`, where the image
// line is the input row read by that line (null: entirely in the padding).
template <typename T, typename Visit>
void ForEachLine(const ConvGeom& g, T* img_channel, int64_t r, Visit&& visit) {
  const int64_t kk = r % g.ksize;
  const int64_t kz = kk / (g.kernel[1] * g.kernel[2]);
  const int64_t ky = (kk / g.kernel[2]) % g.kernel[1];
  const int64_t kx = kk % g.kernel[2];
  const int64_t offz = kz * g.dilate[0] - g.pad[0];
  const int64_t offy = ky * g.dilate[1] - g.pad[1];
  const int64_t offx = kx * g.dilate[2] - g.pad[2];
  int64_t lo, hi;
  ValidRange(offx, g.stride[2], g.img_sp[2], g.col_sp[2], &lo, &hi);
  int64_t line = 0;
  for (int64_t oz = 0; oz < g.col_sp[0]; ++oz) {
    const int64_t iz = oz * g.stride[0] + offz;
    const bool z_ok = iz >= 0 && iz < g.img_sp[0];
    for (int64_t oy = 0; oy < g.col_sp[1]; ++oy, ++line) {
      const int64_t iy = oy * g.stride[1] + offy;
      T* src = nullptr;
      if (z_ok && iy >= 0 && iy < g.img_sp[1]) {
        src = img_channel + (iz * g.img_sp[1] + iy) * g.img_sp[2];
      }
      visit(line, src, offx, lo, hi);
    }
  }
}

// col rows [r0, r1) from one sample's image (img_ch x img_size).
template <typename T>
void Im2Col(const ConvGeom& g, const T* img, T* col, int64_t r0, int64_t r1) {
  const int64_t ow = g.col_sp[2], sx = g.stride[2];
  for (int64_t r = r0; r < r1; ++r) {
    const T* channel = img + (r / g.ksize) * g.img_size;
    T* dst_row = col + r * g.col_size;
    ForEachLine(g, channel, r,
                [&](int64_t line, const T* src, int64_t offx, int64_t lo, int64_t hi) {
                  T* dst = dst_row + line * ow;
                  if (src == nullptr) {
                    std::fill(dst, dst + ow, T(0));
                    return;
                  }
                  std::fill(dst, dst + lo, T(0));
                  if (sx == 1) {
                    std::memcpy(dst + lo, src + lo + offx, (hi - lo) * sizeof(T));
                  } else {
                    for (int64_t ox = lo; ox < hi; ++ox) dst[ox] = src[ox * sx + offx];
                  }
                  std::fill(dst + hi, dst + ow, T(0));
                });
  }
}

// Adds col rows of image channels [c0, c1) into one sample's image.
template <typename T>
void Col2Im(const ConvGeom& g, const T* col, T* img, int64_t c0, int64_t c1) {
  const int64_t ow = g.col_sp[2], sx = g.stride[2];
  for (int64_t r = c0 * g.ksize; r < c1 * g.ksize; ++r) {
    T* channel = img + (r / g.ksize) * g.img_size;
    const T* src_row = col + r * g.col_size;
    ForEachLine(g, channel, r, [&](int64_t line, T* dst, int64_t offx, int64_t lo, int64_t hi) {
      if (dst == nullptr) return;
      const T* src = src_row + line * ow;
      for (int64_t ox = lo; ox < hi; ++ox) dst[ox * sx + offx] += src[ox];
    });
  }
}

// ---------------------------------------------------------------- per-sample steps

// One sample's columns-side tensor (Co x col_size) = W * im2col(image).
// `parallel`: spread the im2col and the GEMM over the pool.
template <typename T>
void ColumnsFromImage(const KernelContext& ctx, const ConvGeom& g, bool parallel, const T* img,
                      const T* w, const T* bias, T* col, T* out) {
  const int64_t rows = g.img_ch * g.ksize;
  if (parallel) {
    ParallelFor(ctx, rows, static_cast<double>(g.col_size),
                [&](int64_t r0, int64_t r1) { Im2Col(g, img, col, r0, r1); });
  } else {
    Im2Col(g, img, col, 0, rows);
  }
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    Gemm<T>(ctx, parallel, false, false, g.co_g, g.col_size, g.rows_g, w + grp * g.co_g * g.rows_g,
            g.rows_g, col + grp * g.rows_g * g.col_size, g.col_size,
            out + grp * g.co_g * g.col_size, g.col_size, false);
  }
  if (bias != nullptr) {
    MatMap<T>(out, g.col_ch, g.col_size).colwise() +=
        Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>(bias, g.col_ch);
  }
}

// One sample's image-side tensor (Ci x img_size) = col2im(W^T * columns) (+ bias
// per image channel).
template <typename T>
void ImageFromColumns(const KernelContext& ctx, const ConvGeom& g, bool parallel, const T* cols,
                      const T* w, const T* bias, T* col, T* img) {
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    Gemm<T>(ctx, parallel, true, false, g.rows_g, g.col_size, g.co_g, w + grp * g.co_g * g.rows_g,
            g.rows_g, cols + grp * g.co_g * g.col_size, g.col_size,
            col + grp * g.rows_g * g.col_size, g.col_size, false);
  }
  auto fill_and_scatter = [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      std::fill(img + c * g.img_size, img + (c + 1) * g.img_size, bias ? bias[c] : T(0));
    }
    Col2Im(g, col, img, c0, c1);
  };
  if (parallel) {
    ParallelFor(ctx, g.img_ch, static_cast<double>(g.ksize * g.col_size), fill_and_scatter);
  } else {
    fill_and_scatter(0, g.img_ch);
  }
}

// dW (+)= columns * im2col(image)^T for one sample.
template <typename T>
void WeightGradSample(const KernelContext& ctx, const ConvGeom& g, bool parallel, const T* img,
                      const T* cols, T* col, T* dw, bool accumulate) {
  const int64_t rows = g.img_ch * g.ksize;
  if (parallel) {
    ParallelFor(ctx, rows, static_cast<double>(g.col_size),
                [&](int64_t r0, int64_t r1) { Im2Col(g, img, col, r0, r1); });
  } else {
    Im2Col(g, img, col, 0, rows);
  }
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    Gemm<T>(ctx, parallel, false, true, g.co_g, g.rows_g, g.col_size,
            cols + grp * g.co_g * g.col_size, g.col_size, col + grp * g.rows_g * g.col_size,
            g.col_size, dw + grp * g.co_g * g.rows_g, g.rows_g, accumulate);
  }
}

// Runs fn(sample, slot, parallel) for every sample: one at a time with
// parallel steps (one slot), or contiguous sample chunks per slot on the pool.
template <typename Fn>
void ForEachSample(const KernelContext& ctx, const ConvGeom& g, Fn&& fn) {
  if (g.slots <= 1) {
    for (int64_t n = 0; n < g.batch; ++n) fn(n, int64_t{0}, true);
    return;
  }
  const double cost = g.SampleFlops() * static_cast<double>(g.batch) / g.slots;
  ParallelFor(ctx, g.slots, cost, [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) {
      for (int64_t n = g.batch * s / g.slots; n < g.batch * (s + 1) / g.slots; ++n) {
        fn(n, s, false);
      }
    }
  });
}

absl::Status WorkspaceCheck(const KernelContext& ctx, const ConvGeom& g, bool backward,
                            size_t elem_size) {
  const size_t need = static_cast<size_t>(WorkspaceElems(g, backward)) * elem_size;
  const size_t have = ctx.workspace.defined() ? ctx.workspace.nbytes() : 0;
  if (have >= need) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(ctx.Where(), ": workspace of ", have,
                                          " bytes is smaller than the ", need, " it needs"));
}

// ---------------------------------------------------------------- kernels

// The geometry for (data, output) shapes with the weight checked against it;
// errors name the node.
absl::Status KernelGeom(const KernelContext& ctx, const ConvParam& p, const Shape& data,
                        const Shape& out, const Shape& weight, ConvGeom* g) {
  absl::Status s = MakeGeom(p, data, out, g);
  if (s.ok()) s = CheckWeight(p, *g, weight);
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", s.message()));
  return absl::OkStatus();
}

// Inputs: data, weight, [bias]. Output: out.
template <typename T>
absl::Status ConvForwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<ConvParam>();
  ConvGeom g;
  SYMX_RETURN_IF_ERROR(
      KernelGeom(ctx, p, ctx.inputs[0].shape(), ctx.outputs[0].shape(), ctx.inputs[1].shape(), &g));
  SYMX_RETURN_IF_ERROR(WorkspaceCheck(ctx, g, false, sizeof(T)));
  T* ws = ctx.workspace.defined() ? ctx.workspace.data<T>() : nullptr;
  const T* data = ctx.inputs[0].data<T>();
  const T* w = ctx.inputs[1].data<T>();
  const T* bias = p.no_bias ? nullptr : ctx.inputs[2].data<T>();
  T* out = ctx.outputs[0].data<T>();
  const int64_t data_per = p.deconv ? g.col_ch * g.col_size : g.img_ch * g.img_size;
  const int64_t out_per = p.deconv ? g.img_ch * g.img_size : g.col_ch * g.col_size;
  ForEachSample(ctx, g, [&](int64_t n, int64_t slot, bool parallel) {
    T* col = ws + slot * g.ColElems();
    if (!p.deconv) {
      ColumnsFromImage(ctx, g, parallel, data + n * data_per, w, bias, col, out + n * out_per);
    } else {
      ImageFromColumns(ctx, g, parallel, data + n * data_per, w, bias, col, out + n * out_per);
    }
  });
  return absl::OkStatus();
}

absl::Status ConvForward(const KernelContext& ctx) {
#ifdef SYMX_WITH_ONEDNN
  if (ctx.state != nullptr) return RunOnednnStep(ctx);
#endif
  SYMX_RETURN_IF_ERROR(RequirePlainLayouts(ctx));
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return ConvForwardT<T>(ctx));
}

// Inputs: ograd, data, weight. Outputs: grad data, grad weight, [grad bias].
template <typename T>
absl::Status ConvBackwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<ConvParam>();
  ConvGeom g;
  SYMX_RETURN_IF_ERROR(
      KernelGeom(ctx, p, ctx.inputs[1].shape(), ctx.inputs[0].shape(), ctx.inputs[2].shape(), &g));
  SYMX_RETURN_IF_ERROR(WorkspaceCheck(ctx, g, true, sizeof(T)));
  T* ws = ctx.workspace.defined() ? ctx.workspace.data<T>() : nullptr;
  T* partial_dw = ws + g.slots * g.ColElems();  // used only with several slots
  const T* dy = ctx.inputs[0].data<T>();
  const T* data = ctx.inputs[1].data<T>();
  const T* w = ctx.inputs[2].data<T>();
  const bool want_dx = OutputWanted(ctx.req, 0), want_dw = OutputWanted(ctx.req, 1);
  T* dx = ctx.outputs[0].data<T>();
  T* dw = ctx.outputs[1].data<T>();
  const int64_t img_per = g.img_ch * g.img_size, col_per = g.col_ch * g.col_size;
  // Convolution: image = data, columns = ograd. Deconvolution: the reverse.
  const T* img_src = p.deconv ? dy : data;
  const T* col_src = p.deconv ? data : dy;

  if (want_dw || want_dx) {
    ForEachSample(ctx, g, [&](int64_t n, int64_t slot, bool parallel) {
      T* col = ws + slot * g.ColElems();
      if (want_dw) {
        const bool first_in_slot = g.slots <= 1 ? n == 0 : n == g.batch * slot / g.slots;
        T* target = g.slots <= 1 ? dw : partial_dw + slot * g.WeightElems();
        WeightGradSample(ctx, g, parallel, img_src + n * img_per, col_src + n * col_per, col,
                         target, !first_in_slot);
      }
      if (want_dx) {
        if (!p.deconv) {
          ImageFromColumns<T>(ctx, g, parallel, dy + n * col_per, w, nullptr, col,
                              dx + n * img_per);
        } else {
          ColumnsFromImage<T>(ctx, g, parallel, dy + n * img_per, w, nullptr, col,
                              dx + n * col_per);
        }
      }
    });
  }
  if (want_dw) {
    Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, int64_t>> dw_vec(dw, g.WeightElems());
    if (g.batch == 0) {
      std::fill(dw, dw + g.WeightElems(), T(0));
    } else if (g.slots > 1) {
      // Sum the per-slot accumulators: a (slots, weight) matrix reduced over slots.
      Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor, int64_t>> parts(
          partial_dw, g.slots, g.WeightElems());
      Assign(ctx, dw_vec, parts.sum(Eigen::array<int64_t, 1>{0}), g.slots * g.WeightElems());
    }
  }
  if (!p.no_bias && ctx.outputs.size() > 2 && OutputWanted(ctx.req, 2)) {
    // Sum of ograd over batch and space, per output channel.
    const int64_t channels = p.deconv ? g.img_ch : g.col_ch;
    const int64_t space = p.deconv ? g.img_size : g.col_size;
    Eigen::TensorMap<Eigen::Tensor<const T, 3, Eigen::RowMajor, int64_t>> grad(dy, g.batch,
                                                                               channels, space);
    Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, int64_t>> db(ctx.outputs[2].data<T>(),
                                                                       channels);
    Assign(ctx, db, grad.sum(Eigen::array<int64_t, 2>{0, 2}), g.batch * channels * space);
  }
  return absl::OkStatus();
}

absl::Status ConvBackward(const KernelContext& ctx) {
#ifdef SYMX_WITH_ONEDNN
  if (ctx.state != nullptr) return RunOnednnStep(ctx);
#endif
  SYMX_RETURN_IF_ERROR(RequirePlainLayouts(ctx));
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return ConvBackwardT<T>(ctx));
}

#ifdef SYMX_WITH_ONEDNN
absl::Status PrepareForward(KernelContext* ctx, size_t* bytes) {
  return PrepareOnednnConv(ctx, false, bytes);
}
absl::Status PrepareBackward(KernelContext* ctx, size_t* bytes) {
  return PrepareOnednnConv(ctx, true, bytes);
}
absl::Status PrepareDeconvForward(KernelContext* ctx, size_t* bytes) {
  return PrepareOnednnDeconv(ctx, false, bytes);
}
absl::Status PrepareDeconvBackward(KernelContext* ctx, size_t* bytes) {
  return PrepareOnednnDeconv(ctx, true, bytes);
}
constexpr ChannelsLastFn kConvChannelsLast = ConvChannelsLast;
constexpr ChannelsLastFn kConvBackwardChannelsLast = ConvBackwardChannelsLast;
#else
constexpr PrepareFn PrepareForward = nullptr;
constexpr PrepareFn PrepareBackward = nullptr;
constexpr PrepareFn PrepareDeconvForward = nullptr;
constexpr PrepareFn PrepareDeconvBackward = nullptr;
constexpr ChannelsLastFn kConvChannelsLast = nullptr;
constexpr ChannelsLastFn kConvBackwardChannelsLast = nullptr;
#endif

}  // namespace

SYMX_REGISTER_KERNEL("Convolution", kCPU, .fn = ConvForward, .workspace = ConvWorkspace,
                     .prepare = PrepareForward, .channels_last = kConvChannelsLast,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_Convolution", kCPU, .fn = ConvBackward,
                     .workspace = ConvBackwardWorkspace, .prepare = PrepareBackward,
                     .channels_last = kConvBackwardChannelsLast,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("Convolution_v1", kCPU, .fn = ConvForward, .workspace = ConvWorkspace,
                     .prepare = PrepareForward, .channels_last = kConvChannelsLast,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("Deconvolution", kCPU, .fn = ConvForward, .workspace = ConvWorkspace,
                     .prepare = PrepareDeconvForward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_Deconvolution", kCPU, .fn = ConvBackward,
                     .workspace = ConvBackwardWorkspace, .prepare = PrepareDeconvBackward,
                     .widening = HalfWidening::kFloat16AndBFloat16);

}  // namespace cpu
}  // namespace symx
