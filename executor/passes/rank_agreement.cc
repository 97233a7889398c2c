// The bind's collective steps that only compare: AgreeOnRequest,
// AgreeOnPlan, AgreeOnCompletion (no-ops in a single-process bind).
#include "absl/strings/str_cat.h"
#include "executor/cross_rank.h"
#include "executor/passes/passes.h"
#include "executor/place.h"

namespace symx {

absl::Status AgreeOnRequest(BindState* s) {
  const ResolvedBind& bind = s->bind;
  const RankView& ranks = bind.ranks;
  if (!ranks.cross_rank()) return absl::OkStatus();
  std::vector<std::string> request = bind.request;
  request.push_back(absl::StrCat("ctx ", ranks.FromOption(bind.ctx).ToString()));
  for (const auto& [group, c] : bind.group2ctx) {
    request.push_back(absl::StrCat("group2ctx ", group, "=", ranks.FromOption(c).ToString()));
  }
  for (size_t i = 0; i < s->arg_names.size(); ++i) {
    request.push_back(absl::StrCat("grad_req ", s->arg_names[i], "=", GradReqName(bind.reqs[i])));
  }
  SYMX_RETURN_IF_ERROR(bind.rendezvous->Agree(absl::OkStatus(), request));
  // Every rank reaches the same verdict on the same request.
  absl::Status ranks_ok = CheckRankExists(ranks.FromOption(bind.ctx), ranks,
                                          absl::StrCat("the bind context ", bind.ctx.ToString()));
  for (const auto& [group, c] : bind.group2ctx) {
    if (!ranks_ok.ok()) break;
    ranks_ok = CheckRankExists(
        ranks.FromOption(c), ranks,
        absl::StrCat("group2ctx maps ctx_group '", group, "' to ", ranks.FromOption(c).ToString()));
  }
  if (!ranks_ok.ok()) bind.rendezvous->MarkSettled();
  return ranks_ok;
}

// Ranks compare what they are about to run before anything is allocated.
absl::Status AgreeOnPlan(BindState* s) {
  if (!s->ranks().cross_rank()) return absl::OkStatus();
  const ExecPlan& plan = s->plan;
  return s->bind.rendezvous->Agree(absl::OkStatus(),
                                   DescribePlan(*plan.graph, plan.node_ctx, plan.shapes, plan.types,
                                                s->arg_names, s->bind.reqs));
}

// The last collective step: every rank has what it needs, or all fail.
absl::Status AgreeOnCompletion(BindState* s) {
  if (!s->ranks().cross_rank()) return absl::OkStatus();
  return s->bind.rendezvous->Exchange(absl::OkStatus(), "").status();
}

}  // namespace symx
