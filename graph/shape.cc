#include "graph/shape.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace symx {

Shape Shape::FromLegacy(const std::vector<int64_t>& dims) {
  if (dims.empty()) return Shape();
  std::vector<int64_t> out(dims);
  for (int64_t& d : out) {
    if (d == 0) d = kUnknownDim;
  }
  return Shape(std::move(out));
}

bool Shape::fully_known() const {
  if (!known_) return false;
  for (int64_t d : dims_) {
    if (d < 0) return false;
  }
  return true;
}

int64_t Shape::Size() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::vector<int64_t> Shape::ToLegacy() const {
  std::vector<int64_t> out(dims_);
  for (int64_t& d : out) {
    if (d < 0) d = 0;
  }
  return out;
}

std::string Shape::ToString() const {
  if (!known_) return "[?]";
  std::vector<std::string> parts;
  for (int64_t d : dims_) parts.push_back(d < 0 ? "?" : absl::StrCat(d));
  return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
}

std::string Shape::ToTupleString() const {
  std::vector<int64_t> legacy = ToLegacy();
  if (legacy.size() == 1) return absl::StrCat("(", legacy[0], ",)");
  return absl::StrCat("(", absl::StrJoin(legacy, ", "), ")");
}

namespace {

// "(a, b)", "[a,b]", "a", "()", "(a,)": the elements parsed by `parse`
// (false = not a `what`).
template <typename V, typename Parse>
absl::StatusOr<std::vector<V>> ParseTuple(absl::string_view text, const char* what, Parse parse) {
  absl::string_view body = absl::StripAsciiWhitespace(text);
  if (!body.empty() && (body.front() == '(' || body.front() == '[')) {
    char close = body.front() == '(' ? ')' : ']';
    if (body.size() < 2 || body.back() != close) {
      return absl::InvalidArgumentError(
          absl::StrCat("malformed tuple \"", text, "\": unbalanced brackets"));
    }
    body = body.substr(1, body.size() - 2);
  }
  std::vector<V> out;
  body = absl::StripAsciiWhitespace(body);
  if (body.empty()) return out;
  std::vector<absl::string_view> parts = absl::StrSplit(body, ',');
  for (size_t i = 0; i < parts.size(); ++i) {
    absl::string_view p = absl::StripAsciiWhitespace(parts[i]);
    // A trailing comma ("(2,)") is Python's one-element tuple.
    if (p.empty() && i + 1 == parts.size() && i > 0) break;
    V v{};
    if (!parse(p, &v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("malformed tuple \"", text, "\": \"", p, "\" is not ", what));
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> ParseIntTuple(absl::string_view text) {
  return ParseTuple<int64_t>(text, "an integer", [](absl::string_view p, int64_t* v) {
    // Python 2 wrote 64-bit ints with an "L" suffix ("(2L, 3L)").
    if (!p.empty() && (p.back() == 'L' || p.back() == 'l')) p.remove_suffix(1);
    return absl::SimpleAtoi(p, v);
  });
}

absl::StatusOr<std::vector<double>> ParseFloatTuple(absl::string_view text) {
  return ParseTuple<double>(text, "a number",
                            [](absl::string_view p, double* v) { return absl::SimpleAtod(p, v); });
}

bool MergeShape(Shape* dst, const Shape& src) {
  if (!src.ndim_known()) return true;
  if (!dst->ndim_known()) {
    *dst = src;
    return true;
  }
  if (dst->ndim() != src.ndim()) return false;
  for (int i = 0; i < src.ndim(); ++i) {
    if (!src.dim_known(i)) continue;
    if (!dst->dim_known(i)) {
      (*dst)[i] = src[i];
    } else if ((*dst)[i] != src[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace symx
