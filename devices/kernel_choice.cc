#include "devices/kernel_choice.h"

#include <iostream>
#include <mutex>
#include <set>
#include <utility>

#include "devices/half_widening.h"
#include "devices/host_fallback.h"

namespace symx {
namespace {

// A model that is slow on a GPU because an op runs on the host should say so,
// but once, not per node or per call.
void NoteHostFallback(const std::string& op, const Context& c, const std::string& label) {
  static std::mutex mu;
  static std::set<std::pair<std::string, DeviceType>>* noted =
      new std::set<std::pair<std::string, DeviceType>>();
  std::lock_guard<std::mutex> lock(mu);
  if (!noted->emplace(op, c.type).second) return;
  std::cerr << "symx: no " << op << " kernel for " << c.ToString() << ": " << label
            << " (and every " << op
            << " node on such a device) runs its CPU kernel on host copies of its inputs "
               "and outputs, each call; SYMX_HOST_FALLBACK=0 makes this a Bind error\n";
}

}  // namespace

const KernelInfo* ChooseKernel(const std::string& op, const Device& device,
                               const std::vector<DType>& dtypes, const EngineOptions& options,
                               const std::string& label) {
  const Context& c = device.ctx();
  const KernelInfo* k = KernelRegistry::Find(op, c.type);
  if (k != nullptr && c.type == DeviceType::kCPU) {
    if (const KernelInfo* wide = HalfWideningKernel(op, dtypes)) k = wide;
  }
  if (k == nullptr && !device.host_memory() && options.host_fallback) {
    k = HostFallbackKernel(op);
    if (k != nullptr) NoteHostFallback(op, c, label);
  }
  return k;
}

}  // namespace symx
