// A symbol file bound to arrays for `symx run` and `symx bench`: the symbol,
// its parameters from a .params file, inputs from .npy files, shapes from
// --shape, and everything not given filled from a seed.
//
// Parameters: a dict .params file. Keys "arg:NAME" and "aux:NAME" (a
// checkpoint) must name an argument or an auxiliary state respectively; plain
// keys may name either. Unknown names, duplicates, undefined (none) arrays and
// list files (no names) are errors naming the file and key. Values are
// converted to the bound dtype.
//
// Shapes come from --shape, from each .npy input and from each parameter. A
// parameter whose shape differs from what the input shapes imply is an error
// naming the file, the parameter and both shapes.
//
// Filling (deterministic: each array's values depend on the seed and its name
// only, so giving one input does not change the others):
//   - arguments: uniform in [-1, 1), except integer-valued inputs: the label
//     of SoftmaxOutput gets class ids in [0, classes) and Embedding's data ids
//     in [0, input_dim);
//   - auxiliary states: uniform in [0, 1) (a positive variance for BatchNorm).
// Every array is bound as float32 unless its variable has __dtype__.
//
// Under mpirun (a communicator of several ranks), the bind is cross-rank
// (executor.h): every rank reads the same files and flags, binds, and fills
// and copies only the arrays that live on it, so the ranks together hold
// what one process would.
#ifndef SYMX_TOOLS_SYMX_BOUND_MODEL_H_
#define SYMX_TOOLS_SYMX_BOUND_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "devices/context.h"
#include "devices/engine_options.h"
#include "distributed/communicator.h"
#include "executor/executor.h"
#include "graph/symbol.h"
#include "tools/symx/flags.h"

namespace symx::cli {

struct ModelSpec {
  std::string symbol_path;
  std::string params_path;                                  // optional
  std::map<std::string, Shape> shapes;                      // --shape
  // --dtype: the dtype of the --shape inputs (not labels), from which the
  // bind infers every other (float16 data makes a float16 network, with
  // BatchNorm's statistics in float32 as MXNet keeps them).
  std::optional<DType> dtype;
  // bench --mixed-precision: the model rewritten to compute in float16 or
  // bfloat16 with float32 parameters (train/mixed_precision.h; float16 with
  // its loss-scale input, filled like a parameter).
  std::optional<DType> mixed_precision;
  std::vector<std::pair<std::string, std::string>> inputs;  // --input NAME=FILE.npy
  Context ctx;
  std::map<std::string, Context> group2ctx;
  uint64_t seed = 0;
  bool train = false;                  // gradients for every argument (grad_req write)
  // With train: also the gradients of the inputs (--input, --shape, *label).
  // `bench --train` times a training step, which needs none (MXNet's Module
  // asks for none either); `run --train` writes them all.
  bool input_grads = true;
  // --allow-missing: parameters and aux states absent from --params are
  // filled from the seed instead of being an error.
  bool allow_missing = false;
  std::shared_ptr<Communicator> comm;  // the ranks of an mpirun job, else nullptr
  absl::Duration comm_timeout = absl::Seconds(300);  // --comm-timeout
  EngineOptions engine;                              // from the SYMX_* switches (Job::engine)
};

struct BoundModel {
  Symbol symbol;
  std::unique_ptr<Executor> exe;
  std::vector<std::string> from_params;  // names set from the .params file
  std::vector<std::string> from_inputs;  // names set from .npy files
  std::vector<std::string> filled;       // names filled from the seed (arrays of this rank)
  // Parameters and aux states --params lacks (filled: --allow-missing).
  std::vector<std::string> missing_params;
  // Every output's shape and dtype (also those another rank computes).
  std::vector<Shape> output_shapes;
  std::vector<DType> output_types;
};

// Reads the model flags present in `parsed` into `spec`: the positional
// MODEL-symbol.json, --shape, --ctx, --group2ctx, --params, --input, --seed,
// --train, --comm-timeout. Throws UsageError (with `usage`) for malformed
// values.
void ApplyModelFlags(const ParsedArgs& parsed, const std::string& usage, ModelSpec* spec);

// Throws symx::Error (bad input).
BoundModel BindModel(const ModelSpec& spec);

// One host array of ones per output, for Backward (loss heads ignore theirs;
// outputs of other ranks too, unless their head gradient is consumed here).
std::vector<Tensor> OnesHeadGrads(const BoundModel& model);

}  // namespace symx::cli

#endif  // SYMX_TOOLS_SYMX_BOUND_MODEL_H_
