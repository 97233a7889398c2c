// oneDNN under the CPU kernels: the process's engine, the switch that turns it
// off, the calling thread's OpenMP team, and Operand, which moves a tensor
// between its plain row-major layout and the layout a primitive prefers.
//
// Kernels that use oneDNN build their primitives at Bind (a PrepareFn, see
// devices/kernel.h) and fall back to the Eigen reference kernels where oneDNN
// does not apply (other dtypes, attributes it lacks) or is off. It is off when
// the build says so (`--config=no_onednn`) or in a bind whose EngineOptions
// say onednn = false (devices/engine_options.h), which tests use to compare
// the two paths.
#ifndef SYMX_DEVICES_CPU_ONEDNN_H_
#define SYMX_DEVICES_CPU_ONEDNN_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace symx {
namespace cpu {

// BatchNorm through oneDNN (devices/cpu/onednn_bnorm.h) runs only in binds
// with EngineOptions::onednn_batchnorm: on 2 cores the Eigen kernels
// measured faster (docs/architecture.md, "oneDNN").
//
// bfloat16 convolutions (and fused convolutions) in binds that compute no
// gradient, with EngineOptions::onednn_bf16: data and weights converted to
// bfloat16, products accumulated and outputs written in float32 (about 3
// significant digits per product). It takes effect only where the CPU has
// bfloat16 instructions (CpuHasBf16); when it cannot, the first bind that
// asks says so once on stderr and runs float32.
bool CpuHasBf16();
// Whether this step's convolution runs in bfloat16 (the switch, the CPU and a
// bind with no gradient).
bool UseBf16(const KernelContext& ctx);

// The CPU engine (one per process; oneDNN engines are thread-safe).
const dnnl::engine& OnednnEngine();

// oneDNN's CPU runtime is OpenMP: a primitive runs on the calling thread's
// team. Sizes that team to `n` (a step's share of the cores).
void UseOmpThreads(int n);

// Sizes the calling thread's team for a scope (primitive creation at Bind,
// which must see the team the step will run on), then restores it.
class ScopedOmpThreads {
 public:
  explicit ScopedOmpThreads(int n);
  ~ScopedOmpThreads();
  ScopedOmpThreads(const ScopedOmpThreads&) = delete;
  ScopedOmpThreads& operator=(const ScopedOmpThreads&) = delete;

 private:
  int previous_;
};

// Dims of a shape, and its plain row-major float32 descriptor.
dnnl::memory::dims DnnlDims(const Shape& shape);
dnnl::memory::desc PlainDesc(const Shape& shape);
// An (N, C, spatial...) float32 value stored plain or channels-last
// (devices/kernel.h).
dnnl::memory::desc ActivationDesc(const Shape& shape, bool channels_last);

// Memory of `desc` over `data` (a tensor's or the workspace's bytes; the
// primitive only reads it where it is an input).
dnnl::memory MemoryAt(const dnnl::memory::desc& desc, const void* data);

// A float32 descriptor of `dims` whose layout the primitive picks.
dnnl::memory::desc AnyDesc(const dnnl::memory::dims& dims);
// Primitive attributes with the scratchpad in user memory (the step's
// workspace, ScratchpadAt), as every symx primitive is built.
dnnl::primitive_attr UserScratchpad();

// `desc` (explicit strides or format any) with the element type `type`.
dnnl::memory::desc WithDataType(const dnnl::memory::desc& desc, dnnl::memory::data_type type);

// Whether oneDNN picked one of its reference implementations for `pd` ("ref",
// "ref_*", "*_ref" kernels): orders of magnitude slower than the Eigen
// kernels, so a case it gets is left to them.
bool IsReferenceImpl(const dnnl::primitive_desc_base& pd);

// A oneDNN failure as a status naming what was being done.
absl::Status OnednnError(const dnnl::error& e, absl::string_view what);

// Byte offsets in a kernel's workspace, 64-byte aligned.
class WorkspaceArena {
 public:
  size_t Reserve(size_t bytes);
  size_t bytes() const { return bytes_; }

 private:
  size_t bytes_ = 0;
};

// One operand of a primitive. When the primitive's layout (`want`) differs
// from the tensor's plain one, the operand is converted through a buffer in
// the workspace: inputs before the primitive runs, outputs after.
class Operand {
 public:
  enum Direction { kInput, kOutput };
  Operand() = default;
  Operand(const dnnl::memory::desc& plain, const dnnl::memory::desc& want, Direction dir,
          WorkspaceArena* arena);

  // Points the operand at `tensor` (and the workspace copy) for this run and,
  // for an input, converts it. Returns the memory the primitive reads/writes.
  const dnnl::memory& Enter(const Tensor& tensor, const Tensor& workspace,
                            const dnnl::stream& stream);
  // For an output: converts the primitive's result into the tensor.
  void Leave(const dnnl::stream& stream);
  bool converted() const { return reorder_.has_value(); }

 private:
  Direction dir_ = kInput;
  dnnl::memory user_, prim_;
  std::optional<dnnl::reorder> reorder_;
  size_t offset_ = 0;
};

// A weight operand of a bind that computes no gradient: its converted copy is
// kept (in memory of its own, allocated here on `device`) and converted again
// only when the weight's storage was written since (Storage::writes counts
// every writable pointer handed out) or another array is bound.
class CachedOperand {
 public:
  CachedOperand() = default;
  // Throws dnnl::error (out of memory) when the copy cannot be allocated.
  CachedOperand(const dnnl::memory::desc& plain, const dnnl::memory::desc& want, Device* device);

  const dnnl::memory& Enter(const Tensor& tensor, const dnnl::stream& stream);
  // Conversions made by every CachedOperand of the process (tests).
  static int64_t Conversions();

 private:
  dnnl::memory user_, prim_;
  std::optional<dnnl::reorder> reorder_;
  std::shared_ptr<Storage> kept_;
  std::weak_ptr<const Storage> source_;
  size_t source_offset_ = 0;
  uint64_t source_writes_ = 0;
};

// A weight: a CachedOperand when `keep_on` is set (binds that compute no
// gradient), else an Operand converted on every call.
class WeightOperand {
 public:
  WeightOperand() = default;
  WeightOperand(const dnnl::memory::desc& plain, const dnnl::memory::desc& want, Device* keep_on,
                WorkspaceArena* arena) {
    if (keep_on != nullptr) {
      cached_.emplace(plain, want, keep_on);
    } else {
      operand_ = Operand(plain, want, Operand::kInput, arena);
    }
  }
  const dnnl::memory& Enter(const Tensor& tensor, const Tensor& workspace,
                            const dnnl::stream& stream) {
    return cached_ ? cached_->Enter(tensor, stream) : operand_.Enter(tensor, workspace, stream);
  }

 private:
  Operand operand_;
  std::optional<CachedOperand> cached_;
};

// A step's oneDNN state: built at Bind, run by the kernel when present.
class OnednnStep : public KernelState {
 public:
  virtual void Run(const KernelContext& ctx) = 0;  // throws dnnl::error

 protected:
  dnnl::stream stream_{OnednnEngine()};
};

// Installs `step` as ctx->state and counts it (OnednnStepsPrepared).
void AdoptOnednnStep(KernelContext* ctx, std::unique_ptr<OnednnStep> step);
// The same for a state that is not a step (kernels that call oneDNN's
// functions directly, such as the dense kernels' sgemm).
void AdoptOnednnState(KernelContext* ctx, std::shared_ptr<KernelState> state);
// How many steps this process has prepared with oneDNN: tests use it to know
// that the oneDNN path, not the reference one, ran.
int64_t OnednnStepsPrepared();

// The common end of a PrepareFn: builds a step with make(&arena) on the
// step's team (oneDNN fits its work split to the team at creation) and
// installs it with its workspace size. A null step, or dnnl_unimplemented
// thrown (no real oneDNN kernel for the case), leaves the step to the Eigen
// kernel, unless `required` (channels-last values, which the Eigen kernel
// cannot take, promised to oneDNN by the kernel's ChannelsLastFn): then, as
// for any other oneDNN error, the bind fails naming `what`.
template <typename Make>
absl::Status PrepareOnednnStep(KernelContext* ctx, const char* what, size_t* workspace_bytes,
                               Make&& make, bool required = false) {
  ScopedOmpThreads threads(ctx->num_threads);
  WorkspaceArena arena;
  std::unique_ptr<OnednnStep> step;
  try {
    step = make(&arena);
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_unimplemented && !required) return absl::OkStatus();
    return OnednnError(e, what);
  }
  if (step == nullptr) {
    if (!required) return absl::OkStatus();
    return absl::InternalError(
        absl::StrCat("oneDNN has only its reference kernel (or none) when ", what,
                     ", and the values are channels-last, which only oneDNN takes"));
  }
  *workspace_bytes = arena.bytes();
  AdoptOnednnStep(ctx, std::move(step));
  return absl::OkStatus();
}

// Runs ctx.state (an OnednnStep), or `step`, on the step's share of the threads.
absl::Status RunOnednnStep(const KernelContext& ctx);
absl::Status RunOnednnStep(const KernelContext& ctx, OnednnStep& step);

// The scratch memory of a primitive built with scratchpad_mode::user, in
// the workspace at `offset`.
dnnl::memory ScratchpadAt(const dnnl::memory::desc& desc, const Tensor& workspace, size_t offset);

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_ONEDNN_H_
