#include "executor/cross_rank.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "graph/op.h"

namespace symx {
namespace {

// "a 3 cpu(1)@rank0 0 2,5": kind (a/g/x), index, global context, dtype flag, dims.
std::string HomeLine(char kind, size_t index, const ArrayHome& h) {
  std::vector<std::string> dims;
  for (int64_t d : h.shape.dims()) dims.push_back(absl::StrCat(d));
  return absl::StrCat(std::string(1, kind), " ", index, " ", h.ctx.ToString(), " ",
                      static_cast<int>(h.dtype), " ", absl::StrJoin(dims, ","));
}

absl::Status Malformed(const std::string& line) {
  return absl::InternalError(absl::StrCat("cross-rank bind: malformed array record '", line, "'"));
}

}  // namespace

absl::StatusOr<ArrayHomes> LocateArrays(const ResolvedBind& bind,
                                        const std::vector<std::string>& arg_names,
                                        const std::vector<std::string>& aux_names) {
  ArrayHomes homes;
  auto local = [&](const std::vector<Tensor>& arrays, std::vector<ArrayHome>* out) {
    out->assign(arrays.size(), ArrayHome());
    for (size_t i = 0; i < arrays.size(); ++i) {
      if (!arrays[i].defined()) continue;
      (*out)[i] = ArrayHome{true, bind.ranks.FromArray(arrays[i].ctx()), arrays[i].shape(),
                            arrays[i].dtype()};
    }
  };
  local(bind.args, &homes.args);
  local(bind.grads, &homes.grads);
  local(bind.aux, &homes.aux);
  if (!bind.ranks.cross_rank()) return homes;

  std::vector<std::string> lines;
  for (size_t i = 0; i < homes.args.size(); ++i) {
    if (homes.args[i].found) lines.push_back(HomeLine('a', i, homes.args[i]));
  }
  for (size_t i = 0; i < homes.grads.size(); ++i) {
    if (homes.grads[i].found) lines.push_back(HomeLine('g', i, homes.grads[i]));
  }
  for (size_t i = 0; i < homes.aux.size(); ++i) {
    if (homes.aux[i].found) lines.push_back(HomeLine('x', i, homes.aux[i]));
  }
  SYMX_ASSIGN_OR_RETURN(std::vector<std::string> all,
                        bind.rendezvous->Exchange(absl::OkStatus(), absl::StrJoin(lines, "\n")));
  // Rebuilt from every rank's records alike, so every rank reaches the same
  // verdict.
  ArrayHomes merged;
  merged.args.assign(arg_names.size(), ArrayHome());
  merged.grads.assign(arg_names.size(), ArrayHome());
  merged.aux.assign(aux_names.size(), ArrayHome());
  for (size_t q = 0; q < all.size(); ++q) {
    if (all[q].empty()) continue;
    for (absl::string_view line : absl::StrSplit(all[q], '\n')) {
      std::vector<std::string> f = absl::StrSplit(line, ' ');
      size_t index;
      int flag;
      if (f.size() != 5 || f[0].size() != 1 || !absl::SimpleAtoi(f[1], &index) ||
          !absl::SimpleAtoi(f[3], &flag)) {
        return Malformed(std::string(line));
      }
      std::vector<ArrayHome>* table = f[0] == "a"   ? &merged.args
                                      : f[0] == "g" ? &merged.grads
                                                    : &merged.aux;
      const std::vector<std::string>& names = f[0] == "x" ? aux_names : arg_names;
      if (index >= table->size()) return Malformed(std::string(line));
      absl::StatusOr<Context> ctx = ParseContext(f[2]);
      if (!ctx.ok()) return Malformed(std::string(line));
      std::vector<int64_t> dims;
      for (absl::string_view d : absl::StrSplit(f[4], ',', absl::SkipEmpty())) {
        int64_t v;
        if (!absl::SimpleAtoi(d, &v)) return Malformed(std::string(line));
        dims.push_back(v);
      }
      ArrayHome& home = (*table)[index];
      const char* what = f[0] == "a"   ? "argument"
                         : f[0] == "g" ? "the gradient of argument"
                                       : "auxiliary state";
      if (home.found) {
        bind.rendezvous->MarkSettled();
        return absl::InvalidArgumentError(absl::StrCat(
            "cross-rank bind: ", what, " ", names[index], " is bound on rank ", home.ctx.rank, " (",
            home.ctx.ToString(), ") and on rank ", ctx->rank, " (", ctx->ToString(),
            "); bind each array on the one rank whose device holds it"));
      }
      home = ArrayHome{true, *ctx, Shape(dims), static_cast<DType>(flag)};
    }
  }
  auto require = [&](const std::vector<ArrayHome>& table, const std::vector<std::string>& names,
                     const char* what) -> absl::Status {
    for (size_t i = 0; i < table.size(); ++i) {
      if (table[i].found) continue;
      bind.rendezvous->MarkSettled();
      return absl::InvalidArgumentError(
          absl::StrCat("cross-rank bind: ", what, " ", names[i],
                       " has no array on any rank; bind it on the rank whose device holds it"));
    }
    return absl::OkStatus();
  };
  SYMX_RETURN_IF_ERROR(require(merged.args, arg_names, "argument"));
  SYMX_RETURN_IF_ERROR(require(merged.aux, aux_names, "auxiliary state"));
  return merged;
}

std::vector<std::string> DescribePlan(const IndexedGraph& g, const std::vector<Context>& node_ctx,
                                      const ShapeTable& shapes, const TypeTable& types,
                                      const std::vector<std::string>& arg_names,
                                      const std::vector<GradReq>& reqs) {
  std::vector<std::string> lines;
  lines.reserve(g.num_nodes() + arg_names.size());
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = *g[nid].node;
    std::string line =
        absl::StrCat("node ", nid, " ", node.is_variable() ? "variable" : node.op()->name(), " '",
                     node.name(), "' on ", node_ctx[nid].ToString());
    for (const auto& [key, value] : node.attrs.dict) absl::StrAppend(&line, " ", key, "=", value);
    if (!g[nid].inputs.empty()) {
      absl::StrAppend(&line, " <-");
      for (const auto& in : g[nid].inputs) absl::StrAppend(&line, " ", in.node_id, ":", in.index);
    }
    absl::StrAppend(&line, " ->");
    for (int j = 0; j < node.num_outputs(); ++j) {
      uint32_t e = g.entry_id(nid, j);
      absl::StrAppend(&line, " ", DTypeName(types[e]), " ", shapes[e].ToString());
    }
    lines.push_back(std::move(line));
  }
  for (size_t i = 0; i < arg_names.size(); ++i) {
    lines.push_back(absl::StrCat("grad_req ", arg_names[i], " ", GradReqName(reqs[i])));
  }
  return lines;
}

}  // namespace symx
