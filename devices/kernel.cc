#include "devices/kernel.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/op.h"

namespace symx {
namespace {

struct Registered {
  KernelInfo info;
  const char* file;
};

std::map<std::pair<std::string, DeviceType>, Registered, std::less<>>& Table() {
  static auto* table = new std::map<std::pair<std::string, DeviceType>, Registered, std::less<>>();
  return *table;
}

}  // namespace

std::string KernelContext::Where() const {
  if (attrs == nullptr || attrs->op == nullptr) return "a kernel";
  return absl::StrCat("operator ", attrs->name, " (", attrs->op->name(), ")");
}

bool KernelRegistry::Register(const std::string& op_name, DeviceType type, KernelInfo info,
                              const char* file) {
  auto [it, inserted] = Table().emplace(std::make_pair(op_name, type), Registered{info, file});
  if (!inserted) {
    std::fprintf(stderr, "symx: two kernels registered for op %s\n", op_name.c_str());
    std::abort();
  }
  return true;
}

const KernelInfo* KernelRegistry::Find(absl::string_view op_name, DeviceType type) {
  auto it = Table().find(std::make_pair(std::string(op_name), type));
  return it == Table().end() ? nullptr : &it->second.info;
}

const char* KernelRegistry::SourceFile(absl::string_view op_name, DeviceType type) {
  auto it = Table().find(std::make_pair(std::string(op_name), type));
  return it == Table().end() ? nullptr : it->second.file;
}

std::vector<std::string> KernelRegistry::List(DeviceType type) {
  std::vector<std::string> out;
  for (const auto& entry : Table()) {
    if (entry.first.second == type) out.push_back(entry.first.first);
  }
  return out;
}

absl::Status PrepareNested(const KernelInfo& kernel, KernelContext* ctx) {
  size_t bytes = 0;
  if (kernel.prepare != nullptr) SYMX_RETURN_IF_ERROR(kernel.prepare(ctx, &bytes));
  if (ctx->state == nullptr && kernel.workspace != nullptr) {
    std::vector<Shape> in, out;
    for (const Tensor& t : ctx->inputs) in.push_back(t.shape());
    for (const Tensor& t : ctx->outputs) out.push_back(t.shape());
    const DType dt = !ctx->inputs.empty() ? ctx->inputs[0].dtype() : ctx->outputs[0].dtype();
    bytes = kernel.workspace(*ctx->attrs, in, out, dt);
  }
  if (bytes > 0) {
    SYMX_ASSIGN_OR_RETURN(ctx->workspace, Tensor::Empty(Shape{static_cast<int64_t>(bytes)},
                                                        DType::kUint8, ctx->device->ctx()));
  }
  return absl::OkStatus();
}

absl::Status Fail(const KernelContext& ctx, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", what));
}

absl::Status UnsupportedDType(const KernelContext& ctx, DType dtype) {
  std::string device = ctx.device != nullptr ? ctx.device->ctx().ToString() : "this device";
  return absl::UnimplementedError(
      absl::StrCat(ctx.Where(), " has no kernel for dtype ", DTypeName(dtype), " on ", device));
}

absl::Status RequirePlainLayouts(const KernelContext& ctx) {
  if (!ctx.InputChannelsLast(0) && !ctx.OutputChannelsLast(0)) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(ctx.Where(), ": channels-last values without a prepared oneDNN step"));
}

}  // namespace symx
