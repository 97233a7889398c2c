// Shape: an array's dimensions, possibly partly unknown during inference.
//
// Internally an unknown dimension is -1 and an unknown shape has ndim -1 (numpy
// semantics), so a real zero-sized dimension stays expressible. MXNet's legacy
// convention (0 = unknown dim, () = unknown shape) is what users write and read;
// it is converted only at the API edge with FromLegacy/ToLegacy.
#ifndef SYMX_GRAPH_SHAPE_H_
#define SYMX_GRAPH_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace symx {

inline constexpr int64_t kUnknownDim = -1;

class Shape {
 public:
  // An unknown shape (ndim unknown).
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : known_(true), dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : known_(true), dims_(std::move(dims)) {}

  // `ndim` dims, each unknown.
  static Shape UnknownDims(int ndim) { return Shape(std::vector<int64_t>(ndim, kUnknownDim)); }
  // MXNet's legacy form: 0 = unknown dim, an empty list = unknown shape.
  static Shape FromLegacy(const std::vector<int64_t>& dims);

  bool ndim_known() const { return known_; }
  int ndim() const { return known_ ? static_cast<int>(dims_.size()) : -1; }
  bool dim_known(int i) const { return dims_[i] != kUnknownDim; }
  bool fully_known() const;
  // Product of dims; only meaningful when fully_known().
  int64_t Size() const;

  int64_t operator[](int i) const { return dims_[i]; }
  int64_t& operator[](int i) { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }

  // Legacy form (unknown dims 0; unknown shape = empty list).
  std::vector<int64_t> ToLegacy() const;
  // "[2,3]"; unknown dims print as "?", an unknown shape as "[?]". For messages.
  std::string ToString() const;
  // "(2, 3)" / "(2,)" as MXNet writes a tuple attribute (`__shape__`); legacy zeros.
  std::string ToTupleString() const;

  bool operator==(const Shape& o) const { return known_ == o.known_ && dims_ == o.dims_; }
  bool operator!=(const Shape& o) const { return !(*this == o); }

 private:
  bool known_ = false;
  std::vector<int64_t> dims_;
};

// Prints ToString() (also what gtest shows for a Shape).
inline std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << s.ToString(); }

// Parses "(2, 3)", "(2,)", "[2,3]", "2,3", "2", "()" into integers (no unknown
// handling; callers decide what 0 or -1 mean). Errors name the text.
absl::StatusOr<std::vector<int64_t>> ParseIntTuple(absl::string_view text);
// The same for a tuple of floats ("(0.5, 1)", "[2]", "0.5", "()"), as MXNet's
// tuple-of-float attributes (anchor sizes, ratios, variances).
absl::StatusOr<std::vector<double>> ParseFloatTuple(absl::string_view text);

// Merges `src` into `*dst`: what is unknown in dst is taken from src; what both
// know must agree. Returns false on a conflict (dst is then unspecified).
bool MergeShape(Shape* dst, const Shape& src);

}  // namespace symx

#endif  // SYMX_GRAPH_SHAPE_H_
