// LocateArrayHomes: where every argument, gradient and aux array lives.
#include "executor/cross_rank.h"
#include "executor/passes/passes.h"

namespace symx {

// A gradient no rank holds an array for (and none is to be allocated) is not
// computed.
absl::Status LocateArrayHomes(BindState* s) {
  SYMX_ASSIGN_OR_RETURN(s->homes, LocateArrays(s->bind, s->arg_names, s->aux_names));
  for (size_t i = 0; i < s->arg_vars.size(); ++i) {
    if (!s->homes.grads[i].found && !s->bind.allocate_grad[i]) s->bind.reqs[i] = GradReq::kNull;
    s->plan.arg_dtypes.push_back(s->homes.args[i].dtype);
  }
  for (const ArrayHome& h : s->homes.aux) s->plan.aux_dtypes.push_back(h.dtype);
  return absl::OkStatus();
}

}  // namespace symx
