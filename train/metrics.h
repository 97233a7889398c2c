// Running classification metrics of a softmax output: mean cross entropy,
// accuracy and top-5 accuracy over the rows added so far.
#ifndef SYMX_TRAIN_METRICS_H_
#define SYMX_TRAIN_METRICS_H_

#include <cstdint>

#include "devices/tensor.h"

namespace symx::train {

struct Metrics {
  double loss_sum = 0;  // sum of -log p[label]
  int64_t correct = 0;
  int64_t correct_top5 = 0;  // the label among the 5 highest (fewer than 5 above it)
  int64_t count = 0;
  // Adds the first `rows` rows of `probabilities` [B, C] against `labels` [B].
  // Throws symx::Error for other shapes.
  void Add(const Tensor& probabilities, const Tensor& labels, int64_t rows);
  void Add(const Metrics& other) {
    loss_sum += other.loss_sum;
    correct += other.correct;
    correct_top5 += other.correct_top5;
    count += other.count;
  }
  double loss() const { return count ? loss_sum / count : 0.0; }
  double accuracy() const { return count ? static_cast<double>(correct) / count : 0.0; }
  double top5_accuracy() const { return count ? static_cast<double>(correct_top5) / count : 0.0; }
};

}  // namespace symx::train

#endif  // SYMX_TRAIN_METRICS_H_
