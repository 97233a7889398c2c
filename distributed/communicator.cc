#include "distributed/communicator.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "devices/dtype_switch.h"

namespace symx {
namespace {

class FinishedWork : public Work {
 public:
  explicit FinishedWork(absl::Status status) : status_(std::move(status)) {}
  using Work::Wait;
  absl::Status Wait(absl::Time, const std::atomic<bool>*) override { return status_; }

 private:
  absl::Status status_;
};

template <typename T>
void ReduceTyped(ReduceOp op, const T* s, T* d, int64_t n) {
  if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>) {
    // Each element in float (exact for two half operands), rounded once.
    for (int64_t i = 0; i < n; ++i) {
      double a = ToDouble(d[i]), b = ToDouble(s[i]);
      double r = op == ReduceOp::kMax   ? std::max(a, b)
                 : op == ReduceOp::kMin ? std::min(a, b)
                                        : a + b;
      d[i] = FromDouble<T>(static_cast<float>(r));
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    for (int64_t i = 0; i < n; ++i) d[i] = op == ReduceOp::kMin ? (d[i] && s[i]) : (d[i] || s[i]);
  } else {
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kAverage:
        for (int64_t i = 0; i < n; ++i) d[i] = static_cast<T>(d[i] + s[i]);
        break;
      case ReduceOp::kMax:
        for (int64_t i = 0; i < n; ++i) d[i] = std::max(d[i], s[i]);
        break;
      case ReduceOp::kMin:
        for (int64_t i = 0; i < n; ++i) d[i] = std::min(d[i], s[i]);
        break;
    }
  }
}

template <typename T>
void DivideTyped(T* d, int64_t n, int64_t divisor) {
  if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>) {
    for (int64_t i = 0; i < n; ++i) {
      d[i] = FromDouble<T>(static_cast<float>(ToDouble(d[i]) / static_cast<double>(divisor)));
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    // Not reached: CheckReducible refuses averaging bools.
  } else if constexpr (std::is_floating_point_v<T>) {
    const T scale = static_cast<T>(1) / static_cast<T>(divisor);
    for (int64_t i = 0; i < n; ++i) d[i] *= scale;
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = static_cast<T>(d[i] / static_cast<T>(divisor));
  }
}

}  // namespace

const char* ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kAverage:
      return "average";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kMin:
      return "min";
  }
  return "?";
}

const char* CollectiveName(Collective c) {
  switch (c) {
    case Collective::kAllreduce:
      return "allreduce";
    case Collective::kBroadcast:
      return "broadcast";
    case Collective::kBarrier:
      return "barrier";
  }
  return "an unknown collective";
}

std::unique_ptr<Work> DoneWork(absl::Status status) {
  return std::make_unique<FinishedWork>(std::move(status));
}

absl::Status WaitFor(std::unique_ptr<Work> work, absl::Duration timeout) {
  return work->Wait(absl::Now() + timeout);
}

absl::Status CheckPeer(const Communicator& comm, const char* op, int peer) {
  if (peer < 0 || peer >= comm.size()) {
    return absl::InvalidArgumentError(absl::StrCat(op, " on rank ", comm.rank(), ": peer rank ",
                                                   peer, " does not exist (the job has ",
                                                   comm.size(), " ranks)"));
  }
  if (peer == comm.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, " on rank ", comm.rank(), ": a rank cannot ", op, " to itself"));
  }
  return absl::OkStatus();
}

absl::Status CheckTag(const char* op, int64_t tag) {
  if (tag < 0 || tag >= (int64_t{1} << 30)) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": tag ", tag, " is outside [0, 2^30)"));
  }
  return absl::OkStatus();
}

absl::Status CheckHostTensor(const Communicator& comm, const char* op, const Tensor& t) {
  if (!t.defined()) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, " on rank ", comm.rank(), ": the tensor is undefined"));
  }
  if (t.ctx().type != DeviceType::kCPU && t.ctx().type != DeviceType::kCPUPinned &&
      t.ctx().type != DeviceType::kCPUShared) {
    return absl::UnimplementedError(
        absl::StrCat(op, " on rank ", comm.rank(), ": the ", comm.backend(),
                     " communicator moves host tensors only, got ", t.DebugString()));
  }
  return absl::OkStatus();
}

absl::Status CheckReducible(const char* op, const Tensor& t, ReduceOp reduce) {
  if (t.dtype() == DType::kBool && reduce == ReduceOp::kAverage) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": bool tensors cannot be averaged (use sum, max or min)"));
  }
  return absl::OkStatus();
}

void ReduceInto(ReduceOp op, DType dtype, const void* src, void* dst, int64_t n) {
  SYMX_DTYPE_SWITCH_ALL(dtype, T,
                        { ReduceTyped(op, static_cast<const T*>(src), static_cast<T*>(dst), n); });
}

void DivideInPlace(DType dtype, void* data, int64_t n, int64_t divisor) {
  SYMX_DTYPE_SWITCH_ALL(dtype, T, { DivideTyped(static_cast<T*>(data), n, divisor); });
}

void PendingSends::Add(std::unique_ptr<Work> work) {
  std::lock_guard<std::mutex> lock(mu_);
  works_.push_back(std::move(work));
}

void PendingSends::Clear() {
  std::vector<std::unique_ptr<Work>> works;
  std::lock_guard<std::mutex> lock(mu_);
  works.swap(works_);
}

absl::Status PendingSends::WaitAll(absl::Duration timeout) {
  std::vector<std::unique_ptr<Work>> works;
  {
    std::lock_guard<std::mutex> lock(mu_);
    works.swap(works_);
  }
  const absl::Time deadline = absl::Now() + timeout;
  for (auto& w : works) {
    absl::Status s = w->Wait(deadline);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

namespace {

std::map<DeviceType, DeviceCommunicatorFactory>& DeviceCommunicators() {
  static auto* factories = new std::map<DeviceType, DeviceCommunicatorFactory>();
  return *factories;
}

}  // namespace

bool RegisterDeviceCommunicator(DeviceType type, DeviceCommunicatorFactory factory) {
  // Two libraries claiming one device type is a build bug.
  if (!DeviceCommunicators().emplace(type, std::move(factory)).second) std::abort();
  return true;
}

const DeviceCommunicatorFactory* FindDeviceCommunicator(DeviceType type) {
  auto it = DeviceCommunicators().find(type);
  return it == DeviceCommunicators().end() ? nullptr : &it->second;
}

}  // namespace symx
