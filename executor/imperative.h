// Imperative calls: one op on arrays, outside any graph, as MXNet's
// mx.nd.<op>(...) runs it.
//
// The first call of an op with given attributes, input names, shapes, dtypes,
// context and output aliasing builds a one-op plan: the parsed attributes, the
// inferred output shapes and dtypes, the kernel (chosen as a bind chooses it:
// devices/kernel_choice.h, so the host fallback and half widening apply), its
// prepared state and its workspace. Later calls with the same key look the
// plan up and only allocate their outputs and run the kernel; a kernel's
// prepared state reads its tensors afresh on every call (devices/kernel.h),
// which is what lets a plan serve new arrays. An op marked attrs_per_call
// (the optimizer family: its rate and step count change every call) keys on
// its attribute names only and parses the values on each call, so a schedule
// does not build a plan per step. An op whose output shapes depend on input
// values (Op::value_shape: _contrib_boolean_mask) reads those inputs to the
// host and plans each call alone, uncached.
//
//   Tensor c = Invoke({.op = "dot", .positional = {a, b}})[0];
//   Invoke({.op = "_plus_scalar", .attrs = {{"scalar", "1"}}, .positional = {x}, .out = {x}});
//
// Calls are synchronous on hosts; on a GPU the kernel is enqueued on the
// device's stream, which every read of the result waits for.
#ifndef SYMX_EXECUTOR_IMPERATIVE_H_
#define SYMX_EXECUTOR_IMPERATIVE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "devices/context.h"
#include "devices/engine_options.h"
#include "devices/tensor.h"
#include "graph/attrs.h"

namespace symx {

struct InvokeArgs {
  std::string op;  // a registered op or alias; not a backward or engine-only op
  AttrMap attrs;   // MXNet's attribute strings
  // The inputs, aux states included: first positionally in the op's input
  // order, then by input name. Every input must be given.
  std::vector<Tensor> positional;
  std::vector<std::pair<std::string, Tensor>> named;
  // Where the visible outputs go (MXNet's out=): empty for new arrays, else
  // one defined tensor per visible output, of the output's shape and dtype.
  // An output may be one of the inputs (x += 1 is _plus_scalar(x, out=x)).
  std::vector<Tensor> out;
  // The context of an op without inputs (zeros, random ops); ops with inputs
  // run on their inputs' context, which must be one. Default: the "ctx"
  // attribute when the op has one, else cpu(0).
  std::optional<Context> ctx;
  // MXNet's autograd training mode: Dropout drops, BatchNorm uses and updates
  // the batch statistics (its aux inputs are written).
  bool is_train = false;
  EngineOptions options;
};

// Runs the op and returns its visible outputs (the `out` tensors when given).
// Throws symx::Error naming the op for an unknown op or attribute, a missing
// or extra input, inputs on different contexts, shapes the op refuses, an
// `out` of the wrong shape or dtype, or a kernel failure.
std::vector<Tensor> Invoke(const InvokeArgs& args);

struct ImperativeCacheStats {
  size_t plans = 0;     // held now
  size_t bytes = 0;     // device memory they hold (workspaces, hidden outputs)
  uint64_t hits = 0;    // calls that found their plan
  uint64_t misses = 0;  // calls that built one
};
ImperativeCacheStats GetImperativeCacheStats();

// Drops every plan (their workspaces and prepared states) and zeroes the
// counts. The cache also keeps itself to kImperativeCachePlans plans and
// kImperativeCacheBytes of workspaces and hidden outputs, dropping the least
// recently used plans (never the one just made).
void ClearImperativeCache();
inline constexpr size_t kImperativeCachePlans = 4096;
inline constexpr size_t kImperativeCacheBytes = size_t{256} << 20;

}  // namespace symx

#endif  // SYMX_EXECUTOR_IMPERATIVE_H_
