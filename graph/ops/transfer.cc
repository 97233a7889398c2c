// Ops that move values between devices and ranks. The executor's partition
// pass inserts them where an edge of a placed graph crosses devices; they are
// never written by users (Bind refuses _send/_recv in a symbol).
//
// _CrossDeviceCopy: a copy onto the device the node runs on (same process).
// _send / _recv: an edge between ranks. _send runs on the producer's rank and
// sends its input to rank `peer`; its output is the input itself (the
// executor aliases it, no memory), which _recv takes as its input so the two
// stay one connected graph that every rank builds identically. _recv runs on
// the consumer's rank and receives into its output. `tag` identifies the edge.
#include "graph/ops/transfer.h"

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

absl::StatusOr<OpParamPtr> ParseTransfer(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<TransferParam>();
  p->peer = r.Int("peer");
  p->tag = r.Int("tag");
  if (p->peer < 0) r.Fail("peer", "must be a rank (>= 0)");
  if (p->tag < 0 || p->tag >= (int64_t{1} << 30)) r.Fail("tag", "must be in [0, 2^30)");
  return r.Finish(std::move(p));
}

absl::Status SameShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  return InferSameShape(in, out);
}

}  // namespace

// Never in place: input and output live on different devices.
SYMX_REGISTER_OP("_CrossDeviceCopy")
    .Describe("Copies the input to the device this node is placed on.")
    .SetInputNames({"data"})
    .SetInferShape(SameShape)
    .SetGradient(PassThroughGradient);

// Partition runs after the gradient graph is built, so these are never
// differentiated.
SYMX_REGISTER_OP("_send")
    .Describe("Sends the input to rank `peer` under `tag` (a cross-rank edge, producer side).")
    .SetParse(ParseTransfer)
    .SetInputNames({"data"})
    .SetInferShape(SameShape)
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_recv")
    .Describe("Receives from rank `peer` under `tag` the value its _send input stands for.")
    .SetParse(ParseTransfer)
    .SetInputNames({"data"})
    .SetInferShape(SameShape)
    .SetNonDifferentiable();

}  // namespace symx
