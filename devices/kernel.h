// Kernels: the code that runs an op on one device type, registered per
// (op name, device type) apart from the op's schema (graph/ops).
//
// The executor resolves every node's kernel at Bind, builds its KernelContext
// once (tensors point into planned memory), and Forward/Backward only call
// `fn(ctx)`. So a kernel must not allocate device memory: scratch space comes
// from `workspace`, sized at Bind by the kernel's WorkspaceFn.
//
// Contract for a kernel:
// - `inputs` holds every input in the schema's order, aux states included;
//   aux tensors may be updated: BatchNorm's moving statistics only when
//   is_train, per MXNet; the optimizer family's states (momentum, ...) on
//   every call, as MXNet's update operators write them.
// - `outputs` holds every output, hidden ones included (BatchNorm's mean/var,
//   Dropout's mask); all are allocated and must be written.
// - For each in-place pair the schema declares, output j may alias input i
//   (req[j] == kInplace); the kernel must then still be correct.
// - req[j] == kAdd is passed only to kernels registered with supports_add;
//   other kernels write and the executor accumulates.
// - Unsupported dtypes or attribute combinations return an error naming the
//   op, the node and the dtype; never abort.
// - A kernel with a PrepareFn gets it called once at Bind, with the context
//   filled in; what it builds there (oneDNN primitives, reordered layouts) it
//   keeps in `state`, which Forward/Backward then only execute. A prepared
//   kernel must still read every input afresh on each call: bound arrays may
//   be written between calls. The run's context is not the one Prepare saw
//   (the executor runs copies, executor/run_state.h): a state holding a
//   nested context takes is_train and rank_channel from each call's.
// - Channels-last: the plan may store a value (forward or gradient) between
//   two kernels that both declare it (ChannelsLastFn) with the
//   channel axis last (NCHW data as NHWC, same bytes); `in_channels_last` /
//   `out_channels_last` then say which, and the kernel must honour them.
#ifndef SYMX_DEVICES_KERNEL_H_
#define SYMX_DEVICES_KERNEL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "devices/context.h"
#include "devices/device.h"
#include "devices/engine_options.h"
#include "devices/tensor.h"
#include "graph/error.h"
#include "graph/node.h"

namespace symx {

enum class OpReq : uint8_t { kNull, kWrite, kInplace, kAdd };

// The communicator, deadline and pending-send list of a cross-rank bind
// (distributed/communicator.h); only the _send/_recv kernels use it.
struct RankChannel;

// The replicas of a data-parallel job, for kernels whose statistics span the
// whole batch (_contrib_SyncBatchNorm). The gradient reducer
// (data_parallel/) sets one on every replica's executor; other binds have
// none.
class ReplicaSync {
 public:
  virtual ~ReplicaSync() = default;
  // Replicas over every rank of the job.
  virtual int total_replicas() const = 0;
  // Replaces `values` by their sum over every replica of every rank, added
  // in one fixed order (this process's replicas by index, then the ranks by
  // rank), so every replica gets the same bits. Every replica of the job
  // calls it with the same `key` and count, in the same order of keys; it
  // returns once all have. Errors name the key and the replica or rank that
  // did not come within the job's timeout, or the counts that differ.
  virtual absl::Status Sum(const std::string& key, int replica,
                           std::vector<double>* values) const = 0;
};

// What a kernel built at Bind for one node (see PrepareFn); owned by the plan.
class KernelState {
 public:
  virtual ~KernelState() = default;
};

struct KernelContext {
  const NodeAttrs* attrs = nullptr;
  Device* device = nullptr;
  bool is_train = false;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  std::vector<OpReq> req;
  Tensor workspace;                           // uint8, at least the bytes the WorkspaceFn asked for
  const RankChannel* rank_channel = nullptr;  // cross-rank binds only
  // Data-parallel replicas only: the job's replicas and this one's index
  // among this process's.
  const ReplicaSync* replica_sync = nullptr;
  int replica = 0;
  // Threads this step may use: the device's, divided among the CPU devices
  // of a plan that run at once, so that together they never oversubscribe.
  int num_threads = 1;
  std::shared_ptr<KernelState> state;  // from the kernel's PrepareFn, or null
  // The bind computes no gradient: a kernel may keep what it derives from an
  // input between calls (oneDNN's converted weights), checking the input's
  // Storage::writes to know when to derive it again.
  bool inference = false;
  // The bind's switches (oneDNN or not, ...): a kernel with two paths reads
  // them here, never from globals.
  EngineOptions options;
  // Per input / output: stored channels-last (empty: none is).
  std::vector<bool> in_channels_last, out_channels_last;

  bool InputChannelsLast(size_t i) const {
    return i < in_channels_last.size() && in_channels_last[i];
  }
  bool OutputChannelsLast(size_t j) const {
    return j < out_channels_last.size() && out_channels_last[j];
  }

  template <typename P>
  const P& param() const {
    return Param<P>(*attrs);
  }
  // "op FullyConnected (node fc1)" for messages.
  std::string Where() const;
};

using KernelFn = absl::Status (*)(const KernelContext& ctx);
// Scratch bytes a kernel needs for these shapes and dtype (input 0's).
using WorkspaceFn = size_t (*)(const NodeAttrs& attrs, const std::vector<Shape>& in_shapes,
                               const std::vector<Shape>& out_shapes, DType dtype);

// Called once at Bind with the step's context (tensors, threads; not yet the
// workspace, which is sized from what the steps report): may set ctx->state,
// and then sets *workspace_bytes to the scratch that state needs (the
// WorkspaceFn is not asked for such a step). An error fails the bind.
using PrepareFn = absl::Status (*)(KernelContext* ctx, size_t* workspace_bytes);

// Which inputs and outputs (sized to their counts) the kernel can take
// channels-last for these shapes and dtype (input 0's), in the bind being
// made with `options`: it must then run them that way whatever else happens
// at Bind.
using ChannelsLastFn = void (*)(const NodeAttrs& attrs, const std::vector<Shape>& in_shapes,
                                const std::vector<Shape>& out_shapes, DType dtype,
                                const EngineOptions& options, std::vector<bool>* in,
                                std::vector<bool>* out);

// Which half-precision nodes run a CPU kernel on float32 copies of their
// operands (devices/half_widening.h). Few CPU kernels take bfloat16, whose
// conversions are exact, so widening it costs only time.
enum class HalfWidening : uint8_t {
  kBFloat16,  // bfloat16 only: the kernel has float16 paths of its own
  // float16 too: the kernel dispatches on float32/float64 only
  // (SYMX_FLOAT_SWITCH) and models run it in half precision.
  kFloat16AndBFloat16,
  // Neither: the op converts dtypes on purpose (Cast) or moves bytes (_send's
  // output aliases its input, _recv's byte count is the sender's, a
  // cross-device copy reads a device the host cannot address).
  kNever,
};

// Registered with named fields, in this order:
//   SYMX_REGISTER_KERNEL("Convolution", kCPU, .fn = ConvForward,
//                        .workspace = ConvWorkspace, .prepare = PrepareForward);
// (a kernel with nothing but `fn` may pass it alone).
struct KernelInfo {
  KernelFn fn = nullptr;
  WorkspaceFn workspace = nullptr;
  bool supports_add = false;
  PrepareFn prepare = nullptr;
  ChannelsLastFn channels_last = nullptr;
  // The values channels_last declares are all channels-last or all plain
  // (the kernel has no path that converts between them).
  bool channels_last_tied = false;
  HalfWidening widening = HalfWidening::kBFloat16;  // CPU kernels only
};

class KernelRegistry {
 public:
  // Registers at static init; a second kernel for the same key is a bug.
  // `file` defaults to the file of the call.
  static bool Register(const std::string& op_name, DeviceType type, KernelInfo info,
                       const char* file = __builtin_FILE());
  // nullptr when the op has no kernel for `type`.
  static const KernelInfo* Find(absl::string_view op_name, DeviceType type);
  // The source file that registered the kernel (devices/cpu/F_kernels.cc for
  // family F); nullptr when there is none.
  static const char* SourceFile(absl::string_view op_name, DeviceType type);
  // Names of ops with a kernel for `type`, sorted.
  static std::vector<std::string> List(DeviceType type);
};

// Whether output `i` is wanted: req has no entry for it (a direct kernel
// call) or it is not kNull.
inline bool OutputWanted(const std::vector<OpReq>& req, size_t i) {
  return i >= req.size() || req[i] != OpReq::kNull;
}

// For kernels that run another kernel inside them (the host fallback, half
// widening): prepares `kernel` on `ctx` as a bind would (its PrepareFn, else
// its WorkspaceFn for ctx's shapes and input 0's dtype) and gives
// ctx->workspace the bytes it asks for, on ctx->device.
absl::Status PrepareNested(const KernelInfo& kernel, KernelContext* ctx);

// An invalid-argument error naming the op and node: "operator x (Op): what".
absl::Status Fail(const KernelContext& ctx, const std::string& what);

// The standard "unsupported dtype" error.
absl::Status UnsupportedDType(const KernelContext& ctx, DType dtype);

// An internal error when input 0 or output 0 is channels-last: for the plain
// paths of kernels whose ChannelsLastFn counts on a prepared step.
absl::Status RequirePlainLayouts(const KernelContext& ctx);

}  // namespace symx

#define SYMX_REGISTER_KERNEL(op_name, device_type, ...)                          \
  static const bool SYMX_CONCAT_(symx_kernel_registration_, __COUNTER__) =       \
      ::symx::KernelRegistry::Register(op_name, ::symx::DeviceType::device_type, \
                                       ::symx::KernelInfo{__VA_ARGS__})

#endif  // SYMX_DEVICES_KERNEL_H_
