// GPU gradients of the GradientReducer summed over NCCL (registered for
// DeviceType::kGPU; linked into --config=cuda builds): one NCCL communicator
// over every replica's GPU on every rank, so a gradient is one allreduce over
// all of them. NCCL's topology-aware rings and trees reduce over the GPUs of
// a host (NVLink, PCIe) before crossing hosts, which is the within-host-first
// order the data-parallel design asks for, in one operation.
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "data_parallel/gradient_reducer.h"
#include "distributed/nccl_communicator.h"
#include "graph/error.h"

namespace symx {
namespace {

class NcclBucketSum : public DeviceBucketSum {
 public:
  explicit NcclBucketSum(std::vector<std::shared_ptr<NcclCommunicator>> members)
      : members_(std::move(members)) {
    for (auto& m : members_) raw_.push_back(m.get());
  }
  ~NcclBucketSum() override { FinalizeTogether(members_); }

  absl::Status Sum(const std::vector<std::vector<Tensor>>& grads, bool average,
                   absl::Time deadline) override {
    if (grads.size() != raw_.size()) {
      return absl::InternalError(absl::StrCat(
          "NCCL bucket sum: ", grads.size(), " replicas' gradients for ", raw_.size(), " members"));
    }
    // Every gradient of the bucket in flight at once (one NCCL group per
    // gradient over this process's GPUs), then one wait for all of them.
    std::vector<std::unique_ptr<Work>> works;
    std::vector<Tensor> one(raw_.size());
    for (size_t i = 0; i < grads[0].size(); ++i) {
      for (size_t k = 0; k < raw_.size(); ++k) one[k] = grads[k][i];
      for (auto& w : GroupAllreduce(raw_, one, average ? ReduceOp::kAverage : ReduceOp::kSum)) {
        works.push_back(std::move(w));
      }
    }
    for (auto& w : works) SYMX_RETURN_IF_ERROR(w->Wait(deadline));
    return absl::OkStatus();
  }

 private:
  std::vector<std::shared_ptr<NcclCommunicator>> members_;
  std::vector<NcclCommunicator*> raw_;
};

[[maybe_unused]] const bool kRegistered = RegisterDeviceBucketSum(
    DeviceType::kGPU,
    [](const std::vector<Context>& devices, std::shared_ptr<Communicator> comm,
       absl::Duration timeout) -> absl::StatusOr<std::unique_ptr<DeviceBucketSum>> {
      NcclOptions o;
      o.timeout = timeout;
      // A collective that stalls asks the ranks over the host communicator
      // which one stopped (only on that failure path, before the job ends).
      o.probe = comm;
      SYMX_ASSIGN_OR_RETURN(auto members, CreateNcclCommunicators(devices, comm, o));
      return std::unique_ptr<DeviceBucketSum>(new NcclBucketSum(std::move(members)));
    });

}  // namespace
}  // namespace symx
