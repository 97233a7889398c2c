#include "devices/cpu/onednn.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

// libgomp's entry points (the OpenMP ABI); declared here rather than through
// <omp.h>, which clang builds of the fuzzers do not ship.
extern "C" {
void omp_set_num_threads(int n);
int omp_get_max_threads(void);
}

namespace symx {
namespace cpu {
bool CpuHasBf16() {
  // ISA values are bit sets: a later ISA holds every bit of the ones it extends.
  const unsigned isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
  const unsigned bf16 = static_cast<unsigned>(dnnl_cpu_isa_avx512_core_bf16);
  return (isa & bf16) == bf16;
}

bool UseBf16(const KernelContext& ctx) {
  if (!ctx.inference || !ctx.options.onednn_bf16) return false;
  if (CpuHasBf16()) return true;
  static std::once_flag said;
  std::call_once(said, [] {
    std::fprintf(stderr,
                 "symx: bfloat16 convolutions were asked for (onednn_bf16, SYMX_ONEDNN_BF16), "
                 "but this CPU "
                 "has no bfloat16 instructions (AVX512_BF16 or AMX): they run in float32\n");
  });
  return false;
}

const dnnl::engine& OnednnEngine() {
  static const dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

void UseOmpThreads(int n) {
  if (n < 1) n = 1;
  if (omp_get_max_threads() != n) omp_set_num_threads(n);
}

ScopedOmpThreads::ScopedOmpThreads(int n) : previous_(omp_get_max_threads()) { UseOmpThreads(n); }

ScopedOmpThreads::~ScopedOmpThreads() { UseOmpThreads(previous_); }

dnnl::memory::dims DnnlDims(const Shape& shape) {
  dnnl::memory::dims dims(shape.ndim());
  for (int i = 0; i < shape.ndim(); ++i) dims[i] = shape[i];
  return dims;
}

dnnl::memory::desc PlainDesc(const Shape& shape) {
  dnnl::memory::dims dims = DnnlDims(shape);
  dnnl::memory::dims strides(dims.size());
  dnnl::memory::dim stride = 1;
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= dims[i];
  }
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

dnnl::memory::desc ActivationDesc(const Shape& shape, bool channels_last) {
  if (!channels_last || shape.ndim() < 3) return PlainDesc(shape);
  dnnl::memory::dims dims = DnnlDims(shape);
  dnnl::memory::dims strides(dims.size());
  // Memory order N, spatial..., C.
  strides[1] = 1;
  dnnl::memory::dim stride = dims[1];
  for (int i = static_cast<int>(dims.size()) - 1; i >= 2; --i) {
    strides[i] = stride;
    stride *= dims[i];
  }
  strides[0] = stride;
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

dnnl::memory MemoryAt(const dnnl::memory::desc& desc, const void* data) {
  return dnnl::memory(desc, OnednnEngine(), const_cast<void*>(data));
}

dnnl::memory::desc AnyDesc(const dnnl::memory::dims& dims) {
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, dnnl::memory::format_tag::any);
}

dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

dnnl::memory::desc WithDataType(const dnnl::memory::desc& desc, dnnl::memory::data_type type) {
  if (desc.data.format_kind == dnnl_format_kind_any) {
    return dnnl::memory::desc(desc.dims(), type, dnnl::memory::format_tag::any);
  }
  const dnnl::memory::dims dims = desc.dims();
  const auto& strides = desc.data.format_desc.blocking.strides;
  return dnnl::memory::desc(dims, type, dnnl::memory::dims(strides, strides + dims.size()));
}

bool IsReferenceImpl(const dnnl::primitive_desc_base& pd) {
  // Names are "<kernel>:<isa>": "ref:any", "ref_fused_convolution:any",
  // "bnorm_ref:any", "lrn_ref:any" are the reference kernels.
  const absl::string_view info = pd.impl_info_str();
  const absl::string_view kernel = info.substr(0, info.find(':'));
  return kernel == "ref" || absl::StartsWith(kernel, "ref_") || absl::EndsWith(kernel, "_ref");
}

absl::Status OnednnError(const dnnl::error& e, absl::string_view what) {
  return absl::InternalError(
      absl::StrCat("oneDNN failed ", what, ": ", e.what(), " (status ", e.status, ")"));
}

size_t WorkspaceArena::Reserve(size_t bytes) {
  const size_t offset = (bytes_ + 63) / 64 * 64;
  bytes_ = offset + bytes;
  return offset;
}

Operand::Operand(const dnnl::memory::desc& plain, const dnnl::memory::desc& want, Direction dir,
                 WorkspaceArena* arena)
    : dir_(dir) {
  if (want != plain) offset_ = arena->Reserve(want.get_size());
  const dnnl::engine& engine = OnednnEngine();
  user_ = dnnl::memory(plain, engine, DNNL_MEMORY_NONE);
  if (want == plain) {
    prim_ = user_;
    return;
  }
  prim_ = dnnl::memory(want, engine, DNNL_MEMORY_NONE);
  reorder_ = dir == kInput ? dnnl::reorder(user_, prim_) : dnnl::reorder(prim_, user_);
}

const dnnl::memory& Operand::Enter(const Tensor& tensor, const Tensor& workspace,
                                   const dnnl::stream& stream) {
  // Inputs are only read: no write is counted on their storage.
  user_.set_data_handle(dir_ == kInput ? const_cast<void*>(tensor.read_raw_data())
                                       : tensor.raw_data());
  if (!reorder_) return user_;
  prim_.set_data_handle(static_cast<char*>(workspace.raw_data()) + offset_);
  if (dir_ == kInput) reorder_->execute(stream, user_, prim_);
  return prim_;
}

void Operand::Leave(const dnnl::stream& stream) {
  if (reorder_ && dir_ == kOutput) reorder_->execute(stream, prim_, user_);
}

namespace {
std::atomic<int64_t> steps_prepared{0};
std::atomic<int64_t> cached_conversions{0};
}  // namespace

CachedOperand::CachedOperand(const dnnl::memory::desc& plain, const dnnl::memory::desc& want,
                             Device* device) {
  const dnnl::engine& engine = OnednnEngine();
  user_ = dnnl::memory(plain, engine, DNNL_MEMORY_NONE);
  if (want == plain) {
    prim_ = user_;
    return;
  }
  absl::StatusOr<std::shared_ptr<Storage>> kept = device->allocator().Allocate(want.get_size());
  if (!kept.ok()) throw dnnl::error(dnnl_out_of_memory, "the converted weight copy");
  kept_ = *std::move(kept);
  prim_ = dnnl::memory(want, engine, kept_->data());
  reorder_ = dnnl::reorder(user_, prim_);
}

const dnnl::memory& CachedOperand::Enter(const Tensor& tensor, const dnnl::stream& stream) {
  user_.set_data_handle(const_cast<void*>(tensor.read_raw_data()));
  if (!reorder_) return user_;
  const uint64_t writes = tensor.storage()->writes();
  if (source_.lock() == tensor.storage() && source_offset_ == tensor.offset() &&
      source_writes_ == writes) {
    return prim_;
  }
  reorder_->execute(stream, user_, prim_);
  cached_conversions.fetch_add(1, std::memory_order_relaxed);
  source_ = tensor.storage();
  source_offset_ = tensor.offset();
  source_writes_ = writes;
  return prim_;
}

int64_t CachedOperand::Conversions() {
  return cached_conversions.load(std::memory_order_relaxed);
}

void AdoptOnednnStep(KernelContext* ctx, std::unique_ptr<OnednnStep> step) {
  AdoptOnednnState(ctx, std::move(step));
}

void AdoptOnednnState(KernelContext* ctx, std::shared_ptr<KernelState> state) {
  ctx->state = std::move(state);
  steps_prepared.fetch_add(1, std::memory_order_relaxed);
}

int64_t OnednnStepsPrepared() { return steps_prepared.load(std::memory_order_relaxed); }

absl::Status RunOnednnStep(const KernelContext& ctx) {
  return RunOnednnStep(ctx, static_cast<OnednnStep&>(*ctx.state));
}

absl::Status RunOnednnStep(const KernelContext& ctx, OnednnStep& step) {
  UseOmpThreads(ctx.num_threads);
  try {
    step.Run(ctx);
  } catch (const dnnl::error& e) {
    return OnednnError(e, absl::StrCat("running ", ctx.Where()));
  }
  return absl::OkStatus();
}

dnnl::memory ScratchpadAt(const dnnl::memory::desc& desc, const Tensor& workspace, size_t offset) {
  if (desc.get_size() == 0) return dnnl::memory(desc, OnednnEngine(), DNNL_MEMORY_NONE);
  return dnnl::memory(desc, OnednnEngine(), static_cast<char*>(workspace.raw_data()) + offset);
}

}  // namespace cpu
}  // namespace symx
