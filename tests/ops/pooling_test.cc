// Conformance tests for Pooling: max/avg/sum/lp, 1-D/2-D/3-D, padding, the
// valid/full/same conventions, count_include_pad, global pooling; and for the
// legacy Pooling_v1 (2-D, zero padding seen by max, avg over the whole kernel).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

using Tuple = std::vector<int64_t>;

std::string TupleStr(const Tuple& t) { return absl::StrCat("(", absl::StrJoin(t, ","), ")"); }

struct PoolSpec {
  std::string name;
  Shape data;
  std::string type = "max";
  Tuple kernel, stride, pad;
  std::string convention = "valid";
  bool global = false;
  int count_include_pad = -1;  // -1: not given (MXNet's default, true)
  int p_value = 0;             // lp only
};

// Output size along one dim, by MXNet's rules.
int64_t OutSize(int64_t x, int64_t k, int64_t s, int64_t p, const std::string& conv) {
  if (conv == "same") return (x + s - 1) / s;
  const int64_t span = x + 2 * p - k;
  if (conv == "full") return (span + s - 1) / s + 1;
  return span / s + 1;
}

// Plain-loop pooling of one output element: the window over the padded input
// [o*s - p, o*s - p + k), cut at x + p, then at the input.
Values PoolRef(const Values& in, const Shape& ds, const Shape& os, const Tuple& k, const Tuple& s,
               const Tuple& p, const std::string& type, bool include_pad, int pv) {
  const int n = ds.ndim() - 2;
  const int64_t planes = ds[0] * ds[1];
  int64_t in_sz = 1, out_sz = 1;
  for (int i = 0; i < n; ++i) {
    in_sz *= ds[2 + i];
    out_sz *= os[2 + i];
  }
  Values out(planes * out_sz);
  for (int64_t pl = 0; pl < planes; ++pl) {
    for (int64_t oi = 0; oi < out_sz; ++oi) {
      // Decode the output index and build the window per dim.
      std::vector<int64_t> lo(n), hi(n);
      int64_t rem = oi, padded = 1, inside = 1;
      for (int d = n - 1; d >= 0; --d) {
        const int64_t o = rem % os[2 + d];
        rem /= os[2 + d];
        const int64_t start = o * s[d] - p[d];
        const int64_t end = std::min(start + k[d], ds[2 + d] + p[d]);
        padded *= end - start;
        lo[d] = std::max<int64_t>(start, 0);
        hi[d] = std::min(end, ds[2 + d]);
        inside *= std::max<int64_t>(hi[d] - lo[d], 0);
      }
      double acc = type == "max" ? -std::numeric_limits<double>::max() : 0.0;
      // Iterate the window's elements.
      std::vector<int64_t> idx(lo);
      bool empty = inside == 0;
      while (!empty) {
        int64_t flat = 0;
        for (int d = 0; d < n; ++d) flat = flat * ds[2 + d] + idx[d];
        const double v = in[pl * in_sz + flat];
        if (type == "max") {
          acc = std::max(acc, v);
        } else if (type == "lp") {
          acc += std::pow(v, pv);
        } else {
          acc += v;
        }
        int d = n - 1;
        while (d >= 0 && ++idx[d] == hi[d]) {
          idx[d] = lo[d];
          --d;
        }
        if (d < 0) break;
      }
      if (type == "avg") acc /= include_pad ? padded : inside;
      if (type == "lp") acc = pv == 3 ? std::cbrt(acc) : std::pow(acc, 1.0 / pv);
      out[pl * out_sz + oi] = acc;
    }
  }
  return out;
}

OpCase PoolCase(const PoolSpec& sp) {
  OpCase c;
  c.name = sp.name;
  c.op = "Pooling";
  c.attrs = {{"pool_type", sp.type}, {"pooling_convention", sp.convention}};
  if (!sp.kernel.empty()) c.attrs["kernel"] = TupleStr(sp.kernel);
  if (!sp.stride.empty()) c.attrs["stride"] = TupleStr(sp.stride);
  if (!sp.pad.empty()) c.attrs["pad"] = TupleStr(sp.pad);
  if (sp.global) c.attrs["global_pool"] = "True";
  if (sp.count_include_pad >= 0) {
    c.attrs["count_include_pad"] = sp.count_include_pad ? "True" : "False";
  }
  if (sp.p_value > 0) c.attrs["p_value"] = std::to_string(sp.p_value);
  c.shapes = {sp.data};
  const int n = sp.data.ndim() - 2;
  Tuple k(n), s(n, 1), p(n, 0);
  Shape out = sp.data;
  for (int i = 0; i < n; ++i) {
    if (sp.global) {
      k[i] = sp.data[2 + i];
      out[2 + i] = 1;
      continue;
    }
    k[i] = sp.kernel[i];
    if (!sp.stride.empty()) s[i] = sp.stride[i];
    if (!sp.pad.empty()) p[i] = sp.pad[i];
    out[2 + i] = OutSize(sp.data[2 + i], k[i], s[i], p[i], sp.convention);
  }
  const std::string type = sp.type;
  const bool include_pad = sp.count_include_pad != 0;
  const int pv = sp.p_value;
  // oneDNN takes max and avg pooling when its windows are MXNet's: every
  // window starts inside and ends within the padding (the right padding that
  // makes the output size exact is in [0, kernel)), and for avg counting the
  // padding, no window runs past the given padding. (Empty tensors stay on
  // the reference kernel.)
  c.onednn = (type == "max" || type == "avg") && NumElements(sp.data) > 0;
  for (int i = 0; i < n; ++i) {
    const int64_t pad_r = (out[2 + i] - 1) * s[i] + k[i] - sp.data[2 + i] - p[i];
    if (p[i] >= k[i] || pad_r < 0 || pad_r >= k[i]) c.onednn = false;
    if (type == "avg" && include_pad && pad_r > p[i]) c.onednn = false;
  }
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    return std::vector<Values>{PoolRef(in[0], shapes[0], out, k, s, p, type, include_pad, pv)};
  };
  if (type == "lp") {
    // Positive inputs keep the root's derivative finite.
    c.init = [](int, const Shape& shape) {
      std::mt19937_64 rng(99);
      std::uniform_real_distribution<double> u(0.5, 1.5);
      Values v(NumElements(shape));
      for (double& x : v) x = u(rng);
      return v;
    };
  }
  return c;
}

TEST(PoolingConformance, Max) {
  std::vector<PoolSpec> specs = {
      {"max 2x2 stride 2", Shape{2, 3, 4, 4}, "max", {2, 2}, {2, 2}},
      {"max 3x3 pad 1", Shape{1, 2, 5, 5}, "max", {3, 3}, {}, {1, 1}},
      {"max 3x3 stride 2 pad 1", Shape{2, 2, 6, 5}, "max", {3, 3}, {2, 2}, {1, 1}},
      {"max full convention", Shape{1, 2, 5, 5}, "max", {2, 2}, {2, 2}, {}, "full"},
      {"max full convention pad 1", Shape{1, 1, 6, 6}, "max", {3, 3}, {2, 2}, {1, 1}, "full"},
      {"max rect", Shape{2, 1, 4, 6}, "max", {2, 3}, {1, 2}},
      {"max 1-D", Shape{2, 3, 7}, "max", {3}, {2}},
      {"max 1-D same", Shape{2, 3, 7}, "max", {3}, {2}, {}, "same"},
      {"max 1-D same stride 1", Shape{1, 2, 5}, "max", {2}, {1}, {}, "same"},
      {"max 3-D", Shape{1, 2, 4, 4, 4}, "max", {2, 2, 2}, {2, 2, 2}},
      {"max 3-D pad", Shape{1, 1, 3, 4, 3}, "max", {2, 3, 2}, {1, 2, 1}, {1, 1, 0}},
      {"max global", Shape{2, 3, 3, 4}, "max", {}, {}, {}, "valid", true},
      {"max size-1 dims", Shape{1, 1, 1, 4}, "max", {1, 2}, {1, 2}},
      {"max empty batch", Shape{0, 2, 4, 4}, "max", {2, 2}, {2, 2}},
  };
  for (const PoolSpec& s : specs) CheckOp(PoolCase(s));
}

TEST(PoolingConformance, AvgSum) {
  std::vector<PoolSpec> specs = {
      {"avg 2x2", Shape{2, 2, 4, 4}, "avg", {2, 2}, {2, 2}},
      {"avg 3x3 stride 2 pad 1", Shape{2, 2, 5, 5}, "avg", {3, 3}, {2, 2}, {1, 1}},
      {"avg exclude pad", Shape{2, 2, 5, 5}, "avg", {3, 3}, {2, 2}, {1, 1}, "valid", false, 0},
      {"avg include pad explicit",
       Shape{1, 2, 5, 5},
       "avg",
       {3, 3},
       {1, 1},
       {1, 1},
       "valid",
       false,
       1},
      {"avg full convention", Shape{1, 2, 5, 5}, "avg", {2, 2}, {2, 2}, {}, "full"},
      {"avg full pad 1 exclude pad",
       Shape{1, 1, 6, 6},
       "avg",
       {3, 3},
       {2, 2},
       {1, 1},
       "full",
       false,
       0},
      {"avg 1-D same", Shape{2, 2, 7}, "avg", {3}, {2}, {}, "same"},
      {"avg 1-D pad", Shape{2, 2, 6}, "avg", {3}, {1}, {1}},
      {"avg 3-D", Shape{1, 2, 4, 4, 4}, "avg", {2, 2, 2}, {1, 2, 2}, {1, 0, 0}},
      {"avg global 2-D", Shape{2, 3, 3, 4}, "avg", {}, {}, {}, "valid", true},
      {"avg global 1-D", Shape{2, 3, 5}, "avg", {}, {}, {}, "valid", true},
      {"avg global 3-D", Shape{1, 2, 2, 3, 2}, "avg", {}, {}, {}, "valid", true},
      {"sum 2x2 stride 1", Shape{2, 2, 4, 4}, "sum", {2, 2}},
      {"sum 3x3 pad 1", Shape{1, 2, 4, 5}, "sum", {3, 3}, {2, 2}, {1, 1}},
      {"sum global", Shape{2, 2, 3, 3}, "sum", {}, {}, {}, "valid", true},
      {"sum 1-D", Shape{2, 2, 6}, "sum", {2}, {2}},
  };
  for (const PoolSpec& s : specs) CheckOp(PoolCase(s));
}

TEST(PoolingConformance, Lp) {
  std::vector<PoolSpec> specs = {
      {"lp p=1", Shape{2, 2, 4, 4}, "lp", {2, 2}, {2, 2}, {}, "valid", false, -1, 1},
      {"lp p=2", Shape{2, 2, 4, 4}, "lp", {2, 2}, {1, 1}, {}, "valid", false, -1, 2},
      {"lp p=2 pad", Shape{1, 2, 5, 5}, "lp", {3, 3}, {2, 2}, {1, 1}, "valid", false, -1, 2},
      {"lp p=3", Shape{2, 2, 4, 4}, "lp", {2, 2}, {2, 2}, {}, "valid", false, -1, 3},
      {"lp p=4 1-D", Shape{2, 2, 6}, "lp", {3}, {1}, {}, "valid", false, -1, 4},
      {"lp p=2 global", Shape{1, 3, 3, 3}, "lp", {}, {}, {}, "valid", true, -1, 2},
  };
  for (const PoolSpec& s : specs) CheckOp(PoolCase(s));
}

TEST(PoolingConformance, LargeParallel) {
  // Enough planes for the pool to split them.
  OpCase c = PoolCase({"max many planes", Shape{4, 32, 16, 16}, "max", {3, 3}, {2, 2}, {1, 1}});
  c.check_backward = false;
  CheckOp(c);
  OpCase d = PoolCase({"avg many planes", Shape{4, 32, 16, 16}, "avg", {2, 2}, {2, 2}});
  d.check_backward = false;
  CheckOp(d);
}

// Pooling_v1's rules, written out plainly: windows over the zero-padded input
// [o*s, o*s + k), cut at size + 2 * pad; max and sum see the padding's zeros,
// avg scales by the whole kernel.
OpCase PoolV1Case(const std::string& name, const Shape& data, const std::string& type, Tuple k,
                  Tuple s, Tuple p, bool full, bool global) {
  OpCase c;
  c.name = name;
  c.op = "Pooling_v1";
  c.attrs = {{"pool_type", type}, {"pooling_convention", full ? "full" : "valid"}};
  if (!k.empty()) c.attrs["kernel"] = TupleStr(k);
  if (!s.empty()) c.attrs["stride"] = TupleStr(s);
  if (!p.empty()) c.attrs["pad"] = TupleStr(p);
  if (global) {
    c.attrs["global_pool"] = "True";
    k = {data[2], data[3]};
    s = {1, 1};
    p = {0, 0};
  }
  if (s.empty()) s = {1, 1};
  if (p.empty()) p = {0, 0};
  Shape out = data;
  for (int d = 0; d < 2; ++d) {
    out[2 + d] = global ? 1 : OutSize(data[2 + d], k[d], s[d], p[d], full ? "full" : "valid");
  }
  c.shapes = {data};
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    const int64_t h = data[2], w = data[3], oh = out[2], ow = out[3];
    Values res(NumElements(out));
    for (int64_t pl = 0; pl < data[0] * data[1]; ++pl) {
      for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
          double acc = type == "max" ? -1e300 : 0.0;
          for (int64_t py = oy * s[0]; py < std::min(oy * s[0] + k[0], h + 2 * p[0]); ++py) {
            for (int64_t px = ox * s[1]; px < std::min(ox * s[1] + k[1], w + 2 * p[1]); ++px) {
              const int64_t iy = py - p[0], ix = px - p[1];
              const double v =
                  iy >= 0 && iy < h && ix >= 0 && ix < w ? in[0][(pl * h + iy) * w + ix] : 0.0;
              acc = type == "max" ? std::max(acc, v) : acc + v;
            }
          }
          // MXNet multiplies by the kernel size's reciprocal rounded to float, in
          // float64 too (the float64 golden case pins it).
          if (type == "avg") acc *= static_cast<double>(1.0f / static_cast<float>(k[0] * k[1]));
          res[(pl * oh + oy) * ow + ox] = acc;
        }
      }
    }
    return std::vector<Values>{res};
  };
  return c;
}

TEST(PoolingV1Conformance, MaxAvgSum) {
  for (const std::string type : {"max", "avg", "sum"}) {
    CheckOp(PoolV1Case(type + " 3x3 stride 2 pad 1", Shape{2, 2, 5, 6}, type, {3, 3}, {2, 2},
                       {1, 1}, false, false));
    CheckOp(PoolV1Case(type + " full pad 1", Shape{1, 2, 6, 6}, type, {3, 3}, {2, 2}, {1, 1}, true,
                       false));
    CheckOp(PoolV1Case(type + " rect no pad", Shape{2, 1, 4, 7}, type, {2, 3}, {1, 2}, {}, false,
                       false));
    CheckOp(PoolV1Case(type + " global", Shape{2, 3, 3, 4}, type, {}, {}, {}, false, true));
  }
  CheckOp(
      PoolV1Case("max empty batch", Shape{0, 2, 4, 4}, "max", {2, 2}, {2, 2}, {}, false, false));
}

TEST(PoolingV1Conformance, Errors) {
  Tensor x = MakeTensor(Shape{1, 1, 4, 4}, Values(16, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("Pooling_v1", {{"kernel", "(2,)"}}, {x}, "p"); });
  EXPECT_CONTAINS(msg, "kernel");
  EXPECT_CONTAINS(msg, "2-D");
  msg = ErrorOf([&] { RunOp("Pooling_v1", {{"kernel", "(2,2,2)"}}, {x}, "p"); });
  EXPECT_CONTAINS(msg, "2-D");
  msg = ErrorOf([&] { RunOp("Pooling_v1", {}, {x}, "p"); });
  EXPECT_CONTAINS(msg, "kernel");
  msg = ErrorOf([&] { RunOp("Pooling_v1", {{"kernel", "(2,2)"}, {"pool_type", "lp"}}, {x}, "p"); });
  EXPECT_CONTAINS(msg, "pool_type");
  EXPECT_CONTAINS(msg, "lp");
  msg = ErrorOf([&] { RunOp("Pooling_v1", {{"kernel", "(2,2)"}, {"stride", "(0,1)"}}, {x}, "p"); });
  EXPECT_CONTAINS(msg, "stride");
  msg = ErrorOf([&] { RunOp("Pooling_v1", {{"kernel", "(5,2)"}}, {x}, "p"); });
  EXPECT_CONTAINS(msg, "kernel size 5");
  EXPECT_CONTAINS(msg, "[1,1,4,4]");
  Tensor x3 = MakeTensor(Shape{1, 1, 4}, Values(4, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("Pooling_v1", {{"kernel", "(2,2)"}}, {x3}, "p"); });
  EXPECT_CONTAINS(msg, "[1,1,4]");
  Tensor xi = MakeTensor(Shape{1, 1, 4, 4}, Values(16, 1.0), DType::kInt32);
  msg = ErrorOf([&] { RunOp("Pooling_v1", {{"kernel", "(2,2)"}}, {xi}, "p"); });
  EXPECT_CONTAINS(msg, "int32");
}

}  // namespace
}  // namespace testing

}  // namespace symx
