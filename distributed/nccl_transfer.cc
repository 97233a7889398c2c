// Cross-rank transfers of GPU tensors (_send/_recv on gpu(N)) over NCCL, and
// the NCCL device communicator a cross-rank bind makes for them
// (RegisterDeviceCommunicator; the bind pass ConnectDeviceCommunicator,
// executor/passes/device_communicator.cc, decides when).
//
// With the bind's NCCL communicator, nothing touches host memory and nothing
// waits on the host:
//   _send enqueues ncclSend after the tensor's producer (on the member's
//     stream) and hands its Work to the executor, which waits for every send
//     at the end of the phase, as for host sends;
//   _recv enqueues ncclRecv and makes the compute stream wait for it on the
//     GPU, so the steps after it are enqueued at once; its Work joins the
//     same list, so a peer that never sends is a deadline at the phase's end
//     (the NCCL communicator is then aborted, which ends the waiting kernel).
// Without one (transfers on several GPUs of a rank, mixed with CPU ones, two
// ranks on one GPU), these kernels run the CPU kernels on host copies over
// the bind's host communicator, as the host fallback does.
#include <memory>

#include "absl/strings/str_cat.h"
#include "devices/host_fallback.h"
#include "devices/kernel.h"
#include "distributed/communicator.h"
#include "distributed/nccl_communicator.h"
#include "graph/error.h"
#include "graph/op.h"
#include "graph/ops/transfer.h"

namespace symx {
namespace {

// Set by Prepare when the step's transfer goes over NCCL.
struct NcclTransferState : KernelState {
  NcclCommunicator* comm = nullptr;
};

NcclCommunicator* DeviceComm(const KernelContext& ctx) {
  const RankChannel* ch = ctx.rank_channel;
  return ch == nullptr ? nullptr : dynamic_cast<NcclCommunicator*>(ch->device_comm);
}

const KernelInfo& HostPath(const KernelContext& ctx) {
  return *HostFallbackKernel(ctx.attrs->op->name());
}

absl::Status Prepare(KernelContext* ctx, size_t* workspace_bytes) {
  *workspace_bytes = 0;
  if (NcclCommunicator* comm = DeviceComm(*ctx)) {
    auto state = std::make_shared<NcclTransferState>();
    state->comm = comm;
    ctx->state = std::move(state);
    return absl::OkStatus();
  }
  return HostPath(*ctx).prepare(ctx, workspace_bytes);
}

absl::Status Send(const KernelContext& ctx) {
  auto* state = dynamic_cast<NcclTransferState*>(ctx.state.get());
  if (state == nullptr) return HostPath(ctx).fn(ctx);
  const RankChannel* ch = ctx.rank_channel;
  const TransferParam& p = ctx.param<TransferParam>();
  ch->pending->Add(state->comm->Send(ctx.inputs[0], static_cast<int>(p.peer), p.tag));
  return absl::OkStatus();
}

absl::Status Recv(const KernelContext& ctx) {
  auto* state = dynamic_cast<NcclTransferState*>(ctx.state.get());
  if (state == nullptr) return HostPath(ctx).fn(ctx);
  const RankChannel* ch = ctx.rank_channel;
  const TransferParam& p = ctx.param<TransferParam>();
  // Errors travel in the Work: the phase's end reports them (naming this
  // step's peer and tag), as for a send.
  ch->pending->Add(
      state->comm->RecvForCompute(ctx.outputs[0], static_cast<int>(p.peer), p.tag));
  return absl::OkStatus();
}

const KernelInfo kSend{Send, nullptr, /*supports_add=*/false, Prepare};
const KernelInfo kRecv{Recv, nullptr, /*supports_add=*/false, Prepare};
[[maybe_unused]] const bool kKernels = KernelRegistry::Register("_send", DeviceType::kGPU, kSend) &&
                                       KernelRegistry::Register("_recv", DeviceType::kGPU, kRecv);

[[maybe_unused]] const bool kFactory = RegisterDeviceCommunicator(
    DeviceType::kGPU,
    [](const Context& device, std::shared_ptr<Communicator> host,
       absl::Duration timeout) -> absl::StatusOr<std::shared_ptr<Communicator>> {
      NcclOptions o;
      o.timeout = timeout;
      // A collective that stalls asks the ranks over the host communicator
      // which one stopped (only on that failure path, before the job ends).
      o.probe = host;
      SYMX_ASSIGN_OR_RETURN(auto members, CreateNcclCommunicators({device}, host, o));
      return std::shared_ptr<Communicator>(members[0]);
    });

}  // namespace
}  // namespace symx
