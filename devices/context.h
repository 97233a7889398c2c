// Context: where a tensor lives and an op runs. `cpu(0)`, `cpu(1)`, `gpu(0)`,
// and for another MPI process `gpu(0)@rank1`. cpu(1), cpu(2), ... are distinct
// devices with their own worker and memory accounting, which is how placement
// across devices is exercised without a GPU.
#ifndef SYMX_DEVICES_CONTEXT_H_
#define SYMX_DEVICES_CONTEXT_H_

#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace symx {

// Values are MXNet's dev_type codes (they appear in .params records).
enum class DeviceType : int { kCPU = 1, kGPU = 2, kCPUPinned = 3, kCPUShared = 5 };

struct Context {
  DeviceType type = DeviceType::kCPU;
  int id = 0;
  int rank = -1;  // -1: this process

  static Context CPU(int id = 0) { return Context{DeviceType::kCPU, id, -1}; }
  static Context GPU(int id = 0) { return Context{DeviceType::kGPU, id, -1}; }

  bool operator==(const Context& o) const { return type == o.type && id == o.id && rank == o.rank; }
  bool operator!=(const Context& o) const { return !(*this == o); }
  bool operator<(const Context& o) const {
    if (rank != o.rank) return rank < o.rank;
    if (type != o.type) return type < o.type;
    return id < o.id;
  }
  // "cpu(0)", "gpu(1)", "gpu(0)@rank1".
  std::string ToString() const;
};

inline std::ostream& operator<<(std::ostream& os, const Context& c) { return os << c.ToString(); }

// Parses "cpu", "cpu(1)", "gpu(0)", "gpu(0)@rank2"; errors name the text.
absl::StatusOr<Context> ParseContext(absl::string_view text);

// "cpu", "gpu", "cpu_pinned", "cpu_shared": a context's text without its id.
const char* DeviceTypeName(DeviceType type);

}  // namespace symx

#endif  // SYMX_DEVICES_CONTEXT_H_
