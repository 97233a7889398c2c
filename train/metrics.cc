#include "train/metrics.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "graph/error.h"

namespace symx::train {

void Metrics::Add(const Tensor& probabilities, const Tensor& labels, int64_t rows) {
  const Shape& s = probabilities.shape();
  if (s.ndim() != 2 || labels.shape().ndim() != 1 || labels.shape()[0] != s[0] || rows > s[0]) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("metrics: expected probabilities [B, C] and labels [B], got ", s.ToString(),
                     " and ", labels.shape().ToString())));
  }
  const int64_t classes = s[1];
  std::vector<double> p = probabilities.ToDoubles();
  std::vector<double> l = labels.ToDoubles();
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = p.data() + r * classes;
    const int64_t label = static_cast<int64_t>(l[r]);
    const int64_t best = std::max_element(row, row + classes) - row;
    correct += (best == label);
    const double pl = (label >= 0 && label < classes) ? row[label] : 0.0;
    if (label >= 0 && label < classes) {
      correct_top5 += std::count_if(row, row + classes, [&](double v) { return v > pl; }) < 5;
    }
    loss_sum += -std::log(std::max(pl, 1e-12));
    ++count;
  }
}

}  // namespace symx::train
