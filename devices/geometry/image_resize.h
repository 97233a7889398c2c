// The per-pixel math of _image_resize (mx.nd.image.resize), for host and
// device code: the CPU and GPU kernels both call ResizePixel, so they cannot
// drift apart.
//
// MXNet 1.9.1 runs cv::resize (the OpenCV 3.4.2 its wheels link) on each
// (H, W, C) image; this header computes what that call computes, value for
// value: written here from OpenCV's documented rules and fitted to MXNet's
// outputs (thousands of random sizes, every interp and dtype: no difference),
// not copied from OpenCV:
// - an output of the input's size is a copy, for every interp;
// - nearest reads row min(floor(y * in / out), in - 1) (the ratio in double);
// - linear, cubic and lanczos4 map output pixel centres back,
//   (d + 0.5) * in / out - 0.5 (float), weight 2, 4 or 8 taps, and replicate
//   the border; linear clamps the horizontal position into the image, cubic
//   and lanczos clamp the taps only; rows are always clamped taps;
// - area averages the covered pixels with fractional edge weights when both
//   axes shrink (an integer factor takes a plain block mean); when an axis
//   grows it is linear with area's weights;
// - linear on an exact 2x shrink is area's block mean;
// - uint8 is fixed point: horizontal weights round(w * 2048) summed in int,
//   then vertical ones, scaled back by 2^22 with the rounding of OpenCV's
//   SIMD or scalar code, whichever runs there (VerticalU8, AreaBlockPixel).
//   Area's float sums round to even.
// Sums run in float (double for float64 data) in OpenCV's order; on the
// device every product and sum is rounded separately (no fused multiply-add),
// as the host computes.
#ifndef SYMX_DEVICES_GEOMETRY_IMAGE_RESIZE_H_
#define SYMX_DEVICES_GEOMETRY_IMAGE_RESIZE_H_

#include <math.h>

#include <cstdint>
#include <type_traits>

#include "devices/host_device.h"

namespace symx {

// MXNet's `interp` (OpenCV's codes).
enum ImageResizeInterp : int {
  kResizeNearest = 0,
  kResizeLinear = 1,
  kResizeCubic = 2,
  kResizeArea = 3,
  kResizeLanczos4 = 4,
};

// How one (in_h, in_w) -> (out_h, out_w) resize computes its pixels.
enum class ResizeMethod : int {
  kCopy,       // same size
  kNearest,    // one source pixel
  kSeparable,  // taps along x, then along y (linear, cubic, lanczos4, area growing)
  kAreaBlock,  // integer shrink factors: the block's mean
  kArea,       // fractional shrink: the covered pixels' weighted mean
};

// The geometry of resizing one image; made on the host by MakeResizeGeom and
// passed by value to the device.
struct ResizeGeom {
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0, c = 0;
  ResizeMethod method = ResizeMethod::kCopy;
  int interp = kResizeLinear;       // kSeparable's kernel: linear, cubic, lanczos4 or area
  double scale_x = 1, scale_y = 1;  // in / out, as 1 / (out / in)
  double inv_x = 1, inv_y = 1;      // out / in
  int block_x = 1, block_y = 1;     // kAreaBlock's factors
};

inline ResizeGeom MakeResizeGeom(int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                                 int64_t c, int interp) {
  ResizeGeom g;
  g.in_h = in_h;
  g.in_w = in_w;
  g.out_h = out_h;
  g.out_w = out_w;
  g.c = c;
  g.interp = interp;
  g.inv_x = static_cast<double>(out_w) / static_cast<double>(in_w);
  g.inv_y = static_cast<double>(out_h) / static_cast<double>(in_h);
  g.scale_x = 1.0 / g.inv_x;
  g.scale_y = 1.0 / g.inv_y;
  if (in_h == out_h && in_w == out_w) {
    g.method = ResizeMethod::kCopy;
    return g;
  }
  if (interp == kResizeNearest) {
    g.method = ResizeMethod::kNearest;
    return g;
  }
  // OpenCV's test for integer factors: within DBL_EPSILON of the rounded value.
  const double rx = nearbyint(g.scale_x), ry = nearbyint(g.scale_y);
  const bool integer_factors =
      fabs(g.scale_x - rx) < 2.220446049250313e-16 && fabs(g.scale_y - ry) < 2.220446049250313e-16;
  g.block_x = static_cast<int>(rx);
  g.block_y = static_cast<int>(ry);
  if (interp == kResizeLinear && integer_factors && g.block_x == 2 && g.block_y == 2) {
    interp = kResizeArea;
  }
  if (interp == kResizeArea && g.scale_x >= 1 && g.scale_y >= 1) {
    g.method = integer_factors ? ResizeMethod::kAreaBlock : ResizeMethod::kArea;
    return g;
  }
  g.interp = interp;
  g.method = ResizeMethod::kSeparable;
  return g;
}

namespace resize_detail {

// Products and sums rounded one at a time on both devices (nvcc would fuse
// a * b + c into one rounding).
SYMX_HOST_DEVICE inline float Mul(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
SYMX_HOST_DEVICE inline float Add(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
SYMX_HOST_DEVICE inline double Mul(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
SYMX_HOST_DEVICE inline double Add(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
SYMX_HOST_DEVICE inline int32_t Mul(int32_t a, int32_t b) { return a * b; }
SYMX_HOST_DEVICE inline int32_t Add(int32_t a, int32_t b) { return a + b; }

// The sum type: int (fixed point) for uint8 taps, double for float64, else
// float. Area's sums: float for uint8.
template <typename T>
using TapSum = std::conditional_t<std::is_same_v<T, uint8_t>, int32_t,
                                  std::conditional_t<std::is_same_v<T, double>, double, float>>;
template <typename T>
using AreaSum = std::conditional_t<std::is_same_v<T, double>, double, float>;

// float -> uint8 as OpenCV's saturate_cast: round half to even, then clamp.
SYMX_HOST_DEVICE inline uint8_t RoundToU8(float v) {
  const float r = rintf(v);
  return static_cast<uint8_t>(r < 0.f ? 0.f : (r > 255.f ? 255.f : r));
}

template <typename T, typename S>
SYMX_HOST_DEVICE inline T Store(S v) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return RoundToU8(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

SYMX_HOST_DEVICE inline int64_t FloorF(float v) { return static_cast<int64_t>(floorf(v)); }
SYMX_HOST_DEVICE inline int64_t FloorD(double v) { return static_cast<int64_t>(floor(v)); }
SYMX_HOST_DEVICE inline int64_t Clamp(int64_t i, int64_t n) {
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

SYMX_HOST_DEVICE inline int TapCount(int interp) {
  return interp == kResizeCubic ? 4 : (interp == kResizeLanczos4 ? 8 : 2);
}

// The kernel weights at fraction f: linear and area (1 - f, f), cubic with
// A = -0.75, lanczos4 normalized to sum 1.
SYMX_HOST_DEVICE inline void TapWeights(int interp, float f, float* w) {
  if (interp == kResizeCubic) {
    const float a = -0.75f, f1 = Add(f, 1.f), g = Add(1.f, -f);
    w[0] = Add(Mul(Add(Mul(Add(Mul(a, f1), -5 * a), f1), 8 * a), f1), -4 * a);
    w[1] = Add(Mul(Mul(Add(Mul(a + 2, f), -(a + 3)), f), f), 1.f);
    w[2] = Add(Mul(Mul(Add(Mul(a + 2, g), -(a + 3)), g), g), 1.f);
    w[3] = 1.f - w[0] - w[1] - w[2];
  } else if (interp == kResizeLanczos4) {
    if (f < 1.1920928955078125e-07f) {
      for (int i = 0; i < 8; ++i) w[i] = 0;
      w[3] = 1;
      return;
    }
    const double pi = 3.1415926535897932384626433832795, s45 = 0.70710678118654752440084436210485;
    const double cs[8][2] = {{1, 0},  {-s45, -s45}, {0, 1},  {s45, -s45},
                             {-1, 0}, {s45, s45},   {0, -1}, {-s45, s45}};
    const double y0 = -static_cast<double>(f + 3) * pi * 0.25;
    const double s0 = sin(y0), c0 = cos(y0);
    float sum = 0;
    for (int i = 0; i < 8; ++i) {
      const double y = -static_cast<double>(f + 3 - i) * pi * 0.25;
      w[i] = static_cast<float>(Add(Mul(cs[i][0], s0), Mul(cs[i][1], c0)) / Mul(y, y));
      sum += w[i];
    }
    sum = 1.f / sum;
    for (int i = 0; i < 8; ++i) w[i] *= sum;
  } else {
    w[0] = 1.f - f;
    w[1] = f;
  }
}

// A weight as uint8's fixed point: round(w * 2048) saturated to int16.
SYMX_HOST_DEVICE inline int32_t FixedWeight(float w) {
  const float r = rintf(w * 2048.f);
  return static_cast<int32_t>(r < -32768.f ? -32768.f : (r > 32767.f ? 32767.f : r));
}

// Along x OpenCV has rules of its own (TapsAt).
enum class ResizeAxis { kX, kY };

// The taps of output index d along one axis: source indices (clamped) and
// weights. Along x, linear-like kernels clamp the position into the image,
// and past the last full tap the value is the edge pixel unweighted (`edge`).
struct AxisTaps {
  int n = 0;
  bool edge = false;
  int64_t src[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  float w[8] = {0, 0, 0, 0, 0, 0, 0, 0};
};

SYMX_HOST_DEVICE inline AxisTaps TapsAt(int interp, int64_t d, int64_t in, double scale, double inv,
                                        ResizeAxis axis) {
  AxisTaps t;
  t.n = TapCount(interp);
  const int half = t.n / 2;
  int64_t s;
  float f;
  if (interp != kResizeArea) {
    f = static_cast<float>(Add(Mul(static_cast<double>(d) + 0.5, scale), -0.5));
    s = FloorF(f);
    f -= static_cast<float>(s);
  } else {
    s = FloorD(static_cast<double>(d) * scale);
    f = static_cast<float>(Add(static_cast<double>(d + 1), -Mul(static_cast<double>(s + 1), inv)));
    f = f <= 0 ? 0.f : f - static_cast<float>(FloorF(f));
  }
  const bool linear_like = interp == kResizeLinear || interp == kResizeArea;
  if (axis == ResizeAxis::kX && linear_like) {
    if (s < 0) f = 0, s = 0;
    if (s + half >= in) {
      t.edge = true;
      if (s >= in - 1) f = 0, s = in - 1;
    }
  }
  TapWeights(interp, f, t.w);
  for (int k = 0; k < t.n; ++k) t.src[k] = Clamp(s - half + 1 + k, in);
  return t;
}

// One row's horizontal sum at channel ch: Σ row[x_k] * w_k in TapSum<T>.
template <typename T>
SYMX_HOST_DEVICE inline TapSum<T> RowSum(const T* row, int64_t c, int64_t ch, const AxisTaps& tx) {
  using S = TapSum<T>;
  constexpr bool kFixed = std::is_same_v<T, uint8_t>;
  if (tx.edge) {
    const S v = static_cast<S>(row[tx.src[0] * c + ch]);
    return kFixed ? Mul(v, static_cast<S>(2048)) : v;
  }
  S sum = 0;
  for (int k = 0; k < tx.n; ++k) {
    const S w = kFixed ? static_cast<S>(FixedWeight(tx.w[k])) : static_cast<S>(tx.w[k]);
    const S p = Mul(static_cast<S>(row[tx.src[k] * c + ch]), w);
    sum = k == 0 ? p : Add(sum, p);
  }
  return sum;
}

// uint8's vertical step over the rows' fixed-point sums. OpenCV 3.4.2 runs
// it in SIMD where it has a SIMD version, and that rounds differently from
// its scalar code, so both are reproduced: two-tap kernels (linear, area)
// always take the SIMD form, each sum >> 4 times its weight >> 16, then
// (v + 2) >> 2; cubic takes a float form, Σ float(row) * (w / 2^22) rounded
// to even, on the row's first floor(width / 8) * 8 values (`at` counts
// values along the output row) and the exact (Σ row * w + 2^21) >> 22 on the
// rest, as lanczos4 does everywhere.
SYMX_HOST_DEVICE inline uint8_t VerticalU8(const ResizeGeom& g, const AxisTaps& ty,
                                           const int32_t* rows, int64_t at) {
  int64_t v = 0;
  if (ty.n == 2) {
    for (int k = 0; k < 2; ++k)
      v += (static_cast<int64_t>(rows[k] >> 4) * FixedWeight(ty.w[k])) >> 16;
    v = (v + 2) >> 2;
  } else if (ty.n == 4 && at < (g.out_w * g.c) / 8 * 8) {
    float sum = 0;
    for (int k = 0; k < 4; ++k) {
      const float p = Mul(static_cast<float>(rows[k]),
                          static_cast<float>(FixedWeight(ty.w[k])) * (1.f / 4194304.f));
      sum = k == 0 ? p : Add(sum, p);
    }
    return RoundToU8(sum);
  } else {
    for (int k = 0; k < ty.n; ++k) v += static_cast<int64_t>(rows[k]) * FixedWeight(ty.w[k]);
    v = (v + (int64_t{1} << 21)) >> 22;
  }
  return static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

template <typename T>
SYMX_HOST_DEVICE inline T SeparablePixel(const ResizeGeom& g, const T* img, int64_t y, int64_t x,
                                         int64_t ch) {
  using S = TapSum<T>;
  const AxisTaps tx = TapsAt(g.interp, x, g.in_w, g.scale_x, g.inv_x, ResizeAxis::kX);
  const AxisTaps ty = TapsAt(g.interp, y, g.in_h, g.scale_y, g.inv_y, ResizeAxis::kY);
  if constexpr (std::is_same_v<T, uint8_t>) {
    int32_t rows[8];
    for (int k = 0; k < ty.n; ++k) rows[k] = RowSum(img + ty.src[k] * g.in_w * g.c, g.c, ch, tx);
    return VerticalU8(g, ty, rows, x * g.c + ch);
  } else {
    S v = 0;
    for (int k = 0; k < ty.n; ++k) {
      const S p = Mul(RowSum(img + ty.src[k] * g.in_w * g.c, g.c, ch, tx), static_cast<S>(ty.w[k]));
      v = k == 0 ? p : Add(v, p);
    }
    return static_cast<T>(v);
  }
}

// Integer factors: the block's sum (int for uint8), summed four at a time in
// row-major order as OpenCV unrolls it, times float(1 / area).
template <typename T>
SYMX_HOST_DEVICE inline T AreaBlockPixel(const ResizeGeom& g, const T* img, int64_t y, int64_t x,
                                         int64_t ch) {
  using S = TapSum<T>;
  const int area = g.block_x * g.block_y;
  const float scale = 1.f / static_cast<float>(area);
  const T* base = img + ((y * g.block_y) * g.in_w + x * g.block_x) * g.c + ch;
  auto at = [&](int k) {
    return static_cast<S>(base[((k / g.block_x) * g.in_w + (k % g.block_x)) * g.c]);
  };
  if (g.block_x == 2 && g.block_y == 2) {
    // OpenCV's SIMD 2x2 means: uint8 (sum + 2) >> 2 unless 2 channels;
    // float32 ((a + b) + (c + d)) / 4 for 4 channels, and for 1 channel on
    // the first floor(out_w / 4) * 4 pixels.
    if constexpr (std::is_same_v<T, uint8_t>) {
      if (g.c != 2) return static_cast<uint8_t>((at(0) + at(1) + at(2) + at(3) + 2) >> 2);
    } else if constexpr (std::is_same_v<T, float>) {
      if (g.c == 4 || (g.c == 1 && x < g.out_w / 4 * 4)) {
        return Mul(Add(Add(at(0), at(1)), Add(at(2), at(3))), 0.25f);
      }
    }
  }
  S sum = 0;
  int k = 0;
  for (; k <= area - 4; k += 4)
    sum = Add(sum, Add(Add(Add(at(k), at(k + 1)), at(k + 2)), at(k + 3)));
  for (; k < area; ++k) sum = Add(sum, at(k));
  if constexpr (std::is_same_v<T, uint8_t>) {
    return RoundToU8(Mul(static_cast<float>(sum), scale));
  } else {
    return static_cast<T>(Mul(sum, static_cast<S>(scale)));
  }
}

// Fractional shrink: the source cells output index d covers along an axis,
// in order, with weights (OpenCV's area table).
struct AreaCells {
  int64_t first = 0, last = 0;  // whole cells [first, last)
  bool head = false, tail = false;
  float head_w = 0, whole_w = 0, tail_w = 0;
};

SYMX_HOST_DEVICE inline AreaCells AreaCellsAt(int64_t d, int64_t in, double scale) {
  AreaCells a;
  const double f1 = Mul(static_cast<double>(d), scale), f2 = Add(f1, scale);
  const double cell = scale < static_cast<double>(in) - f1 ? scale : static_cast<double>(in) - f1;
  int64_t s1 = static_cast<int64_t>(ceil(f1)), s2 = FloorD(f2);
  s2 = s2 < in - 1 ? s2 : in - 1;
  s1 = s1 < s2 ? s1 : s2;
  a.first = s1;
  a.last = s2;
  a.head = static_cast<double>(s1) - f1 > 1e-3;
  a.head_w = static_cast<float>((static_cast<double>(s1) - f1) / cell);
  a.whole_w = static_cast<float>(1.0 / cell);
  a.tail = f2 - static_cast<double>(s2) > 1e-3;
  double t = f2 - static_cast<double>(s2);
  t = t < 1.0 ? t : 1.0;
  t = t < cell ? t : cell;
  a.tail_w = static_cast<float>(t / cell);
  return a;
}

// Visits the cells of `a` in order: fn(index, weight).
template <typename Fn>
SYMX_HOST_DEVICE inline void ForAreaCells(const AreaCells& a, Fn&& fn) {
  if (a.head) fn(a.first - 1, a.head_w);
  for (int64_t s = a.first; s < a.last; ++s) fn(s, a.whole_w);
  if (a.tail) fn(a.last, a.tail_w);
}

template <typename T>
SYMX_HOST_DEVICE inline T AreaPixel(const ResizeGeom& g, const T* img, int64_t y, int64_t x,
                                    int64_t ch) {
  using S = AreaSum<T>;
  const AreaCells ax = AreaCellsAt(x, g.in_w, g.scale_x);
  const AreaCells ay = AreaCellsAt(y, g.in_h, g.scale_y);
  S sum = 0;
  ForAreaCells(ay, [&](int64_t sy, float wy) {
    const T* row = img + sy * g.in_w * g.c + ch;
    S line = 0;
    ForAreaCells(ax, [&](int64_t sx, float wx) {
      line = Add(line, Mul(static_cast<S>(row[sx * g.c]), static_cast<S>(wx)));
    });
    sum = Add(sum, Mul(static_cast<S>(wy), line));
  });
  return Store<T>(sum);
}

}  // namespace resize_detail

// Output pixel (y, x), channel ch, of one (in_h, in_w, c) image.
template <typename T>
SYMX_HOST_DEVICE inline T ResizePixel(const ResizeGeom& g, const T* img, int64_t y, int64_t x,
                                      int64_t ch) {
  using namespace resize_detail;
  switch (g.method) {
    case ResizeMethod::kCopy:
      return img[(y * g.in_w + x) * g.c + ch];
    case ResizeMethod::kNearest: {
      const int64_t sy = FloorD(static_cast<double>(y) * (1.0 / g.inv_y));
      const int64_t sx = FloorD(static_cast<double>(x) * (1.0 / g.inv_x));
      return img[((sy < g.in_h ? sy : g.in_h - 1) * g.in_w + (sx < g.in_w ? sx : g.in_w - 1)) *
                     g.c +
                 ch];
    }
    case ResizeMethod::kAreaBlock:
      return AreaBlockPixel(g, img, y, x, ch);
    case ResizeMethod::kArea:
      return AreaPixel(g, img, y, x, ch);
    default:
      return SeparablePixel(g, img, y, x, ch);
  }
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_IMAGE_RESIZE_H_
