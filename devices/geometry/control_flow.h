// The control-flow family's kernels, shared by every device: a _foreach node
// runs its body graph, bound once at the outer bind as an inner executor on
// the node's device, once per step. The body's ops run their own kernels on
// that device, so the loop needs no device code of its own; the CPU and GPU
// kernel files (devices/*/control_flow_kernels.cc) only register these.
//
// The executor (executor/subgraph_binder.cc) provides the binding through
// RegisterBodyBinder: devices/ sits below executor/ and cannot call it
// directly. A body bound here owns its memory from bind to the outer plan's
// end; a step only copies values in and out of it.
#ifndef SYMX_DEVICES_GEOMETRY_CONTROL_FLOW_H_
#define SYMX_DEVICES_GEOMETRY_CONTROL_FLOW_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "devices/context.h"
#include "devices/engine_options.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "graph/node.h"

namespace symx {

// How a body input's gradient is wanted.
enum class BodyGrad : uint8_t { kNone, kWrite, kAdd };

struct BodyBindSpec {
  SubgraphPtr body;
  Context ctx;
  // By body input (its variables in DFS order).
  std::vector<Shape> in_shapes;
  std::vector<DType> in_types;
  // Empty: a forward-only bind.
  std::vector<BodyGrad> grads;
  EngineOptions options;
};

// A body bound for fixed shapes. Not thread-safe: its owner serializes calls.
class BoundBody {
 public:
  virtual ~BoundBody() = default;
  // The bound input arrays, by body input: write a step's values here.
  virtual const std::vector<Tensor>& inputs() const = 0;
  virtual const std::vector<Tensor>& outputs() const = 0;
  // Gradients by body input (undefined where kNone): written by Backward
  // (kWrite) or added to (kAdd; the owner zeroes them when it starts).
  virtual const std::vector<Tensor>& input_grads() const = 0;
  virtual absl::Status Forward(bool is_train) = 0;
  // After Forward(true): one head gradient per output.
  virtual absl::Status Backward(const std::vector<Tensor>& head_grads) = 0;
};

using BodyBinder = absl::StatusOr<std::unique_ptr<BoundBody>> (*)(const BodyBindSpec& spec);
// Called once, at static init, by the executor.
bool RegisterBodyBinder(BodyBinder binder);
absl::StatusOr<std::unique_ptr<BoundBody>> BindBody(const BodyBindSpec& spec);

// _foreach and _backward_foreach, for any device.
absl::Status PrepareForeach(KernelContext* ctx, size_t* workspace_bytes);
absl::Status ForeachForward(const KernelContext& ctx);
absl::Status PrepareForeachBackward(KernelContext* ctx, size_t* workspace_bytes);
absl::Status ForeachBackward(const KernelContext& ctx);

// _cond and _backward_cond, for any device.
absl::Status PrepareCond(KernelContext* ctx, size_t* workspace_bytes);
absl::Status CondForward(const KernelContext& ctx);
absl::Status PrepareCondBackward(KernelContext* ctx, size_t* workspace_bytes);
absl::Status CondBackward(const KernelContext& ctx);

// _while_loop and _backward_while_loop, for any device.
absl::Status PrepareWhileLoop(KernelContext* ctx, size_t* workspace_bytes);
absl::Status WhileLoopForward(const KernelContext& ctx);
absl::Status PrepareWhileLoopBackward(KernelContext* ctx, size_t* workspace_bytes);
absl::Status WhileLoopBackward(const KernelContext& ctx);

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_CONTROL_FLOW_H_
