// The (outer, n, inner) views and axis normalization of the indexing and
// ordering conformance tests.
#ifndef SYMX_TESTS_OPS_INDEX_LAYOUTS_H_
#define SYMX_TESTS_OPS_INDEX_LAYOUTS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/tensor.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace index_layouts {

using testing::CheckOp;
using testing::ErrorOf;
using testing::MakeTensor;
using testing::NumElements;
using testing::OpCase;
using testing::RunOp;
using testing::Strides;
using testing::Values;

inline int Norm(int64_t axis, int ndim) { return static_cast<int>(axis < 0 ? axis + ndim : axis); }

struct Lay {
  int64_t outer = 1, n = 1, inner = 1;
};

inline Lay LayoutOf(const Shape& s, std::optional<int> axis) {
  Lay l;
  if (!axis) {
    l.n = NumElements(s);
    return l;
  }
  for (int d = 0; d < s.ndim(); ++d) {
    if (d < *axis) l.outer *= s[d];
    if (d == *axis) l.n = s[d];
    if (d > *axis) l.inner *= s[d];
  }
  return l;
}

// Fixed values for input `input` (others random).
inline std::function<Values(int, const Shape&)> Given(
    int input, Values v, std::function<Values(int, const Shape&)> other = {}) {
  return [input, v, other](int i, const Shape& s) {
    if (i == input) return v;
    if (other) return other(i, s);
    // Distinct values without ties, away from each other (safe for differences).
    Values r(NumElements(s));
    for (size_t k = 0; k < r.size(); ++k) {
      r[k] = std::sin(1.0 + 3.7 * static_cast<double>(k) + 0.3 * i) * 2.0;
    }
    return r;
  };
}

}  // namespace index_layouts
}  // namespace symx

#endif  // SYMX_TESTS_OPS_INDEX_LAYOUTS_H_
