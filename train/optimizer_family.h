// Inside the optimizer library: the optimizers' makers, which optimizer.cc's
// CreateOptimizer looks names up in, one list per file that defines them.
#ifndef SYMX_TRAIN_OPTIMIZER_FAMILY_H_
#define SYMX_TRAIN_OPTIMIZER_FAMILY_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "train/optimizer.h"
#include "train/spec.h"

namespace symx::train::internal {

// Reads the optimizer's own settings from `r` (the common ones are in
// `options` already) and makes it.
using OptimizerMaker = std::unique_ptr<Optimizer> (*)(SpecReader& r,
                                                      const OptimizerOptions& options);
struct OptimizerEntry {
  const char* name;
  OptimizerMaker make;
};

// How many weights one multi_ update takes: options.aggregate_num, or
// `fallback` when unset, clamped to [1, most] when most > 0 (LAMB's operator
// takes 45).
size_t AggregationSize(const OptimizerOptions& options, size_t fallback, size_t most);

// sgd, ccsgd, nag, signum, lars, dcasgd (optimizers_sgd.cc).
std::vector<OptimizerEntry> SgdFamily();
// adam, adamw, rmsprop, adagrad, adadelta, adamax, nadam, ftrl, ftml, lamb,
// sgld, groupadagrad (optimizers_adaptive.cc).
std::vector<OptimizerEntry> AdaptiveFamily();

}  // namespace symx::train::internal

#endif  // SYMX_TRAIN_OPTIMIZER_FAMILY_H_
