// Tests of the lrn family (graph/ops/lrn.cc): LRN and its backward, against a
// plain loop of MXNet 1.9.1's formula (checked against a live MXNet);
// gradients by finite differences.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "graph/node.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

const std::vector<DType> kWithHalf = {DType::kFloat32, DType::kFloat64, DType::kFloat16};

// ------------------------------------------------------------------ LRN

OpCase LrnCase(const Shape& shape, double alpha, double beta, double knorm, int nsize) {
  OpCase c;
  c.name = "LRN nsize " + std::to_string(nsize) + " " + shape.ToString();
  c.op = "LRN";
  // oneDNN 2.6 has a real LRN kernel only for 16+ channels in multiples of
  // 8, nsize 5 and beta 0.75; its reference kernel is left to Eigen.
  c.onednn = shape[1] % 8 == 0 && shape[1] >= 16 && nsize == 5 && beta == 0.75;
  c.attrs = {{"alpha", std::to_string(alpha)},
             {"beta", std::to_string(beta)},
             {"knorm", std::to_string(knorm)},
             {"nsize", std::to_string(nsize)}};
  c.shapes = {shape};
  c.dtypes = kWithHalf;
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& s) {
    const Shape& d = s[0];
    const int64_t N = d[0], C = d[1], S = d[2] * d[3];
    Values y(in[0].size());
    for (int64_t b = 0; b < N; ++b) {
      for (int64_t c = 0; c < C; ++c) {
        for (int64_t p = 0; p < S; ++p) {
          double sum = 0;
          for (int64_t k = c - nsize / 2; k <= c + nsize / 2; ++k) {
            if (k < 0 || k >= C) continue;
            const double v = in[0][(b * C + k) * S + p];
            sum += v * v;
          }
          // alpha is divided by nsize (MXNet).
          y[(b * C + c) * S + p] =
              in[0][(b * C + c) * S + p] * std::pow(knorm + alpha / nsize * sum, -beta);
        }
      }
    }
    return std::vector<Values>{y};
  };
  return c;
}

TEST(LrnConformance, LRN) {
  CheckOp(LrnCase(Shape{2, 5, 2, 3}, 1e-4, 0.75, 2, 3));
  CheckOp(LrnCase(Shape{2, 5, 2, 3}, 0.5, 0.75, 1, 3));
  CheckOp(LrnCase(Shape{1, 6, 2, 2}, 0.5, 0.6, 2, 5));
  CheckOp(LrnCase(Shape{2, 3, 1, 2}, 0.7, 0.5, 1.5, 1));
  CheckOp(LrnCase(Shape{1, 4, 2, 2}, 0.9, 1.25, 1, 9));   // window wider than the channels
  CheckOp(LrnCase(Shape{2, 16, 3, 2}, 0.5, 0.75, 2, 5));  // AlexNet's: oneDNN takes it
  CheckOp(LrnCase(Shape{1, 24, 2, 3}, 1e-4, 0.75, 1, 5));
}

}  // namespace
}  // namespace testing

}  // namespace symx
