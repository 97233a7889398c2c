// CPU kernels of the cross-rank transfer ops (graph/ops/transfer.cc).
//
// _send hands its input to the communicator and returns at once: the send
// completes in the background and the executor waits for every pending send
// before the phase ends (the planner keeps the input unchanged until then).
// A blocking send could deadlock two ranks that each send before they
// receive; with sends that never block, every receive's matching send is
// posted by a step that comes earlier in the one global order all ranks
// follow, so the job always makes progress.
//
// _recv waits for its message (the deadline is the bind's comm_timeout) on
// the device's worker, so the steps after it on that device run once the
// value is there.
#include "devices/kernel.h"
#include "distributed/communicator.h"
#include "graph/ops/transfer.h"

namespace symx {
namespace {

absl::Status NoChannel(const KernelContext& ctx) {
  return absl::FailedPreconditionError(
      absl::StrCat(ctx.Where(),
                   " has no communicator: cross-rank graphs must be bound with a communicator "
                   "(BindOptions::comm)"));
}

absl::Status SendKernel(const KernelContext& ctx) {
  const RankChannel* ch = ctx.rank_channel;
  if (ch == nullptr || ch->comm == nullptr || ch->pending == nullptr) return NoChannel(ctx);
  const TransferParam& p = ctx.param<TransferParam>();
  ch->pending->Add(ch->comm->Send(ctx.inputs[0], static_cast<int>(p.peer), p.tag));
  return absl::OkStatus();
}

absl::Status RecvKernel(const KernelContext& ctx) {
  const RankChannel* ch = ctx.rank_channel;
  if (ch == nullptr || ch->comm == nullptr) return NoChannel(ctx);
  const TransferParam& p = ctx.param<TransferParam>();
  absl::Status s = ch->comm->Recv(ctx.outputs[0], static_cast<int>(p.peer), p.tag)
                       ->Wait(absl::Now() + ch->timeout, ch->cancel);
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(ctx.Where(), ": ", s.message()));
}

SYMX_REGISTER_KERNEL("_send", kCPU, .fn = SendKernel, .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_recv", kCPU, .fn = RecvKernel, .widening = HalfWidening::kNever);

}  // namespace
}  // namespace symx
