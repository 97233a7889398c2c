// BuildPlan: the forward+backward graph, inference, kernels, memory plan and
// steps for one bound executor.
#include <algorithm>
#include <map>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "devices/device.h"
#include "devices/dtype_switch.h"
#include "executor/exec_plan.h"
#include "graph/gradient.h"
#include "graph/op.h"

namespace symx {
namespace {

std::string NodeLabel(const Node& node) {
  if (node.is_variable()) return absl::StrCat("variable ", node.name());
  return absl::StrCat("operator ", node.name(), " (", node.op()->name(), ")");
}

// Entries whose shape or dtype stayed unknown after inference, for the error.
absl::Status UnknownEntriesError(const IndexedGraph& g, const ShapeTable& shapes,
                                 const TypeTable& types) {
  std::vector<std::string> names;
  for (uint32_t nid = 0; nid < g.num_nodes() && names.size() < 10; ++nid) {
    const Node& node = *g[nid].node;
    for (int j = 0; j < node.num_outputs(); ++j) {
      uint32_t e = g.entry_id(nid, j);
      if (!shapes[e].fully_known() || types[e] == DType::kUnknown) {
        names.push_back(absl::StrCat(NodeLabel(node), " output ", j, ": shape ",
                                     shapes[e].ToString(), ", dtype ", DTypeName(types[e])));
      }
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("cannot bind: shapes or dtypes stay unknown after inference for:\n",
                   absl::StrJoin(names, "\n")));
}

}  // namespace

namespace {

template <typename T>
void AddTyped(const T* s, T* d, int64_t n) {
  if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>) {
    for (int64_t i = 0; i < n; ++i) d[i] = FromDouble<T>(ToDouble(d[i]) + ToDouble(s[i]));
  } else if constexpr (std::is_same_v<T, bool>) {
    for (int64_t i = 0; i < n; ++i) d[i] = d[i] || s[i];
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] += s[i];
  }
}

}  // namespace

absl::Status AccumulateInto(const Tensor& src, const Tensor& dst) {
  if (src.size() != dst.size() || src.dtype() != dst.dtype()) {
    return absl::InternalError(
        absl::StrCat("accumulate ", src.DebugString(), " into ", dst.DebugString()));
  }
  SYMX_DTYPE_SWITCH_ALL(dst.dtype(), T, { AddTyped(src.data<T>(), dst.data<T>(), src.size()); });
  return absl::OkStatus();
}

absl::Status BuildPlan(const Symbol& symbol, const ResolvedBind& bind, ExecPlan* plan,
                       std::vector<Tensor>* outputs, std::shared_ptr<MemoryPool>* pool_out) {
  const std::vector<NodeEntry>& fwd_outputs = symbol.outputs();
  IndexedGraph fwd(fwd_outputs);
  const std::vector<uint32_t> arg_nodes = fwd.arg_nodes();
  const std::vector<uint32_t> aux_nodes = fwd.aux_nodes();
  if (arg_nodes.size() != bind.args.size() || aux_nodes.size() != bind.aux.size()) {
    return absl::InternalError("argument/aux counts differ from the symbol's");
  }

  // The gradient graph for arguments whose req is not null.
  std::vector<NodeEntry> xs;
  std::vector<size_t> x_arg;  // argument index of each x
  for (size_t i = 0; i < arg_nodes.size(); ++i) {
    if (bind.reqs[i] != GradReq::kNull) {
      xs.push_back(NodeEntry{fwd[arg_nodes[i]].node, 0, 0});
      x_arg.push_back(i);
    }
  }
  std::vector<NodeEntry> full_outputs = fwd_outputs;
  std::vector<NodePtr> head_vars(fwd_outputs.size());
  plan->head_is_loss.assign(fwd_outputs.size(), false);
  if (!xs.empty()) {
    std::vector<NodeEntry> heads(fwd_outputs.size());
    for (size_t i = 0; i < fwd_outputs.size(); ++i) {
      const Node& out = *fwd_outputs[i].node;
      if (!out.is_variable() && out.op()->is_loss()) {
        plan->head_is_loss[i] = true;
        continue;
      }
      head_vars[i] = MakeVariableNode(absl::StrCat("_head_grad_", i));
      heads[i] = NodeEntry{head_vars[i], 0, 0};
    }
    SYMX_ASSIGN_OR_RETURN(std::vector<NodeEntry> grads, Gradient(fwd_outputs, heads, xs));
    full_outputs.insert(full_outputs.end(), grads.begin(), grads.end());
  }
  plan->graph = std::make_unique<IndexedGraph>(full_outputs);
  const IndexedGraph& g = *plan->graph;
  plan->num_forward_nodes = static_cast<uint32_t>(fwd.num_nodes());
  for (uint32_t nid = 0; nid < fwd.num_nodes(); ++nid) {
    if (g[nid].node != fwd[nid].node) {
      return absl::InternalError("forward nodes are not a prefix of the full graph");
    }
  }

  // Shapes and dtypes: seeded from the bound arrays; head gradients take their
  // output's shape once the forward part is inferred.
  plan->shapes.assign(g.num_entries(), Shape());
  plan->types.assign(g.num_entries(), DType::kUnknown);
  for (size_t i = 0; i < arg_nodes.size(); ++i) {
    plan->shapes[g.entry_id(arg_nodes[i], 0)] = bind.args[i].shape();
    plan->types[g.entry_id(arg_nodes[i], 0)] = bind.args[i].dtype();
  }
  for (size_t i = 0; i < aux_nodes.size(); ++i) {
    plan->shapes[g.entry_id(aux_nodes[i], 0)] = bind.aux[i].shape();
    plan->types[g.entry_id(aux_nodes[i], 0)] = bind.aux[i].dtype();
  }
  size_t unknown = 0;
  SYMX_RETURN_IF_ERROR(InferShapes(g, &plan->shapes, &unknown));
  SYMX_RETURN_IF_ERROR(InferTypes(g, &plan->types, &unknown));
  bool any_head = false;
  for (size_t i = 0; i < fwd_outputs.size(); ++i) {
    if (!head_vars[i] || !g.contains(head_vars[i].get())) continue;
    uint32_t he = g.entry_id(NodeEntry{head_vars[i], 0, 0});
    uint32_t oe = g.entry_id(fwd_outputs[i]);
    plan->shapes[he] = plan->shapes[oe];
    plan->types[he] = plan->types[oe];
    any_head = true;
  }
  if (any_head) {
    SYMX_RETURN_IF_ERROR(InferShapes(g, &plan->shapes, &unknown));
    SYMX_RETURN_IF_ERROR(InferTypes(g, &plan->types, &unknown));
  }
  for (size_t e = 0; e < g.num_entries(); ++e) {
    if (!plan->shapes[e].fully_known() || plan->types[e] == DType::kUnknown) {
      return UnknownEntriesError(g, plan->shapes, plan->types);
    }
  }
  // Every size must be representable before the planner adds them up.
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    for (int j = 0; j < g[nid].node->num_outputs(); ++j) {
      uint32_t e = g.entry_id(nid, j);
      auto bytes = CheckedBytes(plan->shapes[e], plan->types[e]);
      if (!bytes.ok()) return Annotate(bytes.status(), NodeLabel(*g[nid].node));
    }
  }

  // Which entries live outside the plan, and where.
  std::vector<Tensor> entry(g.num_entries());
  for (size_t i = 0; i < arg_nodes.size(); ++i) entry[g.entry_id(arg_nodes[i], 0)] = bind.args[i];
  for (size_t i = 0; i < aux_nodes.size(); ++i) entry[g.entry_id(aux_nodes[i], 0)] = bind.aux[i];
  plan->head_grads.assign(fwd_outputs.size(), Tensor());
  size_t head_grad_bytes = 0;
  for (size_t i = 0; i < fwd_outputs.size(); ++i) {
    if (!head_vars[i] || !g.contains(head_vars[i].get())) continue;
    uint32_t he = g.entry_id(NodeEntry{head_vars[i], 0, 0});
    SYMX_ASSIGN_OR_RETURN(plan->head_grads[i],
                          Tensor::Zeros(plan->shapes[he], plan->types[he], bind.ctx));
    entry[he] = plan->head_grads[i];
    head_grad_bytes += plan->head_grads[i].nbytes();
  }
  MemoryPlanOptions mopt;
  mopt.external.assign(g.num_entries(), false);
  mopt.keep.assign(g.num_entries(), false);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    if (g[nid].node->is_variable()) {
      mopt.external[g.entry_id(nid, 0)] = true;
    } else {
      mopt.order.push_back(nid);
    }
  }
  for (const NodeEntry& out : fwd_outputs) mopt.keep[g.entry_id(out)] = true;
  // Gradients: `write` goes straight into the gradient array; `add` is
  // computed into planned memory, then accumulated.
  std::map<uint32_t, size_t> add_grads;  // entry -> argument
  for (size_t k = 0; k < xs.size(); ++k) {
    const NodeEntry& ge = full_outputs[fwd_outputs.size() + k];
    uint32_t e = g.entry_id(ge);
    size_t arg = x_arg[k];
    const Tensor& garr = bind.grads[arg];
    if (garr.shape() != plan->shapes[e] || garr.dtype() != plan->types[e]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the gradient array for argument ", fwd[arg_nodes[arg]].node->name(), " is ",
          DTypeName(garr.dtype()), " ", garr.shape().ToString(), " but its gradient is ",
          DTypeName(plan->types[e]), " ", plan->shapes[e].ToString()));
    }
    if (bind.reqs[arg] == GradReq::kWrite) {
      mopt.external[e] = true;
      entry[e] = garr;
    } else {
      add_grads[e] = arg;
      mopt.keep[e] = false;
    }
  }
  plan->memory = PlanMemory(g, plan->shapes, plan->types, mopt);

  // Blocks, largest first, each taking the smallest free pool block that fits.
  // A pool is shared only on its own device (MXNet matches blocks by context).
  std::shared_ptr<MemoryPool> pool = bind.pool;
  if (!pool || pool->ctx != bind.ctx) {
    pool = std::make_shared<MemoryPool>();
    pool->ctx = bind.ctx;
  }
  SYMX_ASSIGN_OR_RETURN(Device * device, GetDevice(bind.ctx));
  const std::vector<size_t>& sizes = plan->memory.storage_bytes;
  std::vector<int> by_size(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) by_size[i] = static_cast<int>(i);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](int a, int b) { return sizes[a] > sizes[b]; });
  std::vector<std::shared_ptr<Storage>> blocks(sizes.size());
  std::vector<bool> pool_used(pool->blocks.size(), false);
  // New blocks join the pool only once the whole bind has succeeded.
  std::vector<std::shared_ptr<Storage>> new_blocks;
  size_t allocated = 0;
  for (int id : by_size) {
    int best = -1;
    for (size_t p = 0; p < pool->blocks.size(); ++p) {
      if (pool_used[p] || pool->blocks[p]->bytes() < sizes[id]) continue;
      if (best < 0 || pool->blocks[p]->bytes() < pool->blocks[best]->bytes())
        best = static_cast<int>(p);
    }
    if (best >= 0) {
      pool_used[best] = true;
      blocks[id] = pool->blocks[best];
      continue;
    }
    SYMX_ASSIGN_OR_RETURN(blocks[id], device->allocator().Allocate(sizes[id]));
    allocated += sizes[id];
    new_blocks.push_back(blocks[id]);
  }
  for (size_t e = 0; e < g.num_entries(); ++e) {
    int id = plan->memory.storage_id[e];
    if (id != MemoryPlan::kExternal) {
      entry[e] = Tensor(blocks[id], 0, plan->shapes[e], plan->types[e]);
    }
  }

  // Kernels and workspace.
  size_t workspace_bytes = 0;
  std::vector<const KernelInfo*> kernels(g.num_nodes(), nullptr);
  for (uint32_t nid : mopt.order) {
    const Node& node = *g[nid].node;
    const KernelInfo* k = KernelRegistry::Find(node.op()->name(), bind.ctx.type);
    if (k == nullptr) {
      return absl::UnimplementedError(
          absl::StrCat(NodeLabel(node), " has no kernel for ", bind.ctx.ToString()));
    }
    kernels[nid] = k;
    if (k->workspace != nullptr) {
      std::vector<Shape> in, out;
      for (const auto& i : g[nid].inputs) in.push_back(plan->shapes[g.entry_id(i)]);
      for (int j = 0; j < node.num_outputs(); ++j) out.push_back(plan->shapes[g.entry_id(nid, j)]);
      DType dt =
          in.empty() ? plan->types[g.entry_id(nid, 0)] : plan->types[g.entry_id(g[nid].inputs[0])];
      workspace_bytes = std::max(workspace_bytes, k->workspace(node.attrs, in, out, dt));
    }
  }
  if (workspace_bytes > 0) {
    SYMX_ASSIGN_OR_RETURN(
        plan->workspace,
        Tensor::Empty(Shape{static_cast<int64_t>(workspace_bytes)}, DType::kUint8, bind.ctx));
    allocated += workspace_bytes;
  }

  for (uint32_t nid : mopt.order) {
    const Node& node = *g[nid].node;
    Step step;
    step.node_id = nid;
    step.kernel = kernels[nid];
    step.ctx.attrs = &node.attrs;
    step.ctx.device = device;
    step.ctx.workspace = plan->workspace;
    for (const auto& i : g[nid].inputs) step.ctx.inputs.push_back(entry[g.entry_id(i)]);
    for (int j = 0; j < node.num_outputs(); ++j) {
      uint32_t e = g.entry_id(nid, j);
      step.ctx.outputs.push_back(entry[e]);
      step.ctx.req.push_back(plan->memory.inplace_from[e] >= 0 ? OpReq::kInplace : OpReq::kWrite);
      auto add = add_grads.find(e);
      if (add != add_grads.end()) step.accumulate.emplace_back(bind.grads[add->second], entry[e]);
    }
    (nid < plan->num_forward_nodes ? plan->forward_steps : plan->backward_steps)
        .push_back(std::move(step));
  }

  outputs->clear();
  for (const NodeEntry& out : fwd_outputs) outputs->push_back(entry[g.entry_id(out)]);

  size_t array_bytes = head_grad_bytes;
  plan->stats.ctx = bind.ctx;
  plan->stats.planned_bytes = plan->memory.total_bytes + workspace_bytes;
  plan->stats.no_reuse_bytes = plan->memory.no_reuse_bytes;
  for (const std::vector<Tensor>* arrays : {&bind.args, &bind.grads, &bind.aux}) {
    for (const Tensor& t : *arrays) array_bytes += t.defined() ? t.nbytes() : 0;
  }
  plan->stats.allocated_bytes = allocated + head_grad_bytes + bind.allocated_array_bytes;
  plan->stats.array_bytes = array_bytes;
  pool->blocks.insert(pool->blocks.end(), new_blocks.begin(), new_blocks.end());
  *pool_out = pool;
  return absl::OkStatus();
}

}  // namespace symx
