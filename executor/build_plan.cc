// BuildPlan: the forward+backward graph, inference, kernels, memory plan and
// steps for one bound executor.
#include <algorithm>
#include <map>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "devices/cpu/fused_conv_kernels.h"
#include "devices/device.h"
#include "devices/half_widening.h"
#include "devices/host_fallback.h"
#include "executor/cross_rank.h"
#include "executor/exec_plan.h"
#include "executor/inference_fusion.h"
#include "executor/layout_plan.h"
#include "executor/place.h"
#include "graph/gradient.h"
#include "graph/op.h"

namespace symx {
namespace {

std::string NodeLabel(const Node& node) {
  if (node.is_variable()) return absl::StrCat("variable ", node.name());
  return absl::StrCat("operator ", node.name(), " (", node.op()->name(), ")");
}

// Says once per process and (op, device type) that an op runs through the
// host fallback: a model that is slow on a GPU for this reason should say so.
void NoteHostFallback(const Node& node, const Context& c) {
  static std::mutex mu;
  static std::set<std::pair<std::string, DeviceType>>* noted =
      new std::set<std::pair<std::string, DeviceType>>();
  std::lock_guard<std::mutex> lock(mu);
  if (!noted->emplace(node.op()->name(), c.type).second) return;
  std::cerr << "symx: no " << node.op()->name() << " kernel for " << c.ToString() << ": "
            << NodeLabel(node) << " (and every " << node.op()->name()
            << " node on such a device) runs its CPU kernel on host copies of its inputs "
               "and outputs, each call; SYMX_HOST_FALLBACK=0 makes this a Bind error\n";
}

// The device communicator for a cross-rank bind's transfers (NCCL between
// GPUs), or null for transfers through host copies over the bind's
// communicator. Every rank decides alike from the whole graph: a device
// communicator when every _send/_recv of the job runs on a device of one
// kind that has a registered factory, one device per rank, on every rank.
// Collective when it says yes. A device shared by two ranks (both on one
// GPU) falls back to host copies, saying so once.
absl::StatusOr<std::shared_ptr<Communicator>> MakeDeviceCommunicator(
    const IndexedGraph& g, const std::vector<Context>& node_ctx, const RankView& ranks,
    const ResolvedBind& bind) {
  std::map<int, std::set<Context>> per_rank;
  std::optional<DeviceType> type;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = *g[nid].node;
    if (node.is_variable() || (node.op()->name() != "_send" && node.op()->name() != "_recv")) {
      continue;
    }
    const Context& c = node_ctx[nid];
    if (c.type == DeviceType::kCPU || (type && *type != c.type)) return nullptr;
    type = c.type;
    per_rank[c.rank].insert(RankView::Local(c));
  }
  if (!type || static_cast<int>(per_rank.size()) != ranks.size) return nullptr;
  for (const auto& [rank, devices] : per_rank) {
    if (devices.size() != 1) return nullptr;
  }
  const DeviceCommunicatorFactory* factory = FindDeviceCommunicator(*type);
  if (factory == nullptr) return nullptr;
  // The factory's collective steps run on the bind's communicator: first
  // every rank must have got this far (a rank that failed since the last
  // step is heard of here, not inside the factory's own steps), and after
  // it every rank learns whether every other one has a communicator.
  SYMX_RETURN_IF_ERROR(bind.rendezvous->Exchange(absl::OkStatus(), "").status());
  absl::StatusOr<std::shared_ptr<Communicator>> made =
      (*factory)(*per_rank.at(ranks.self).begin(), bind.comm, bind.comm_timeout);
  // FailedPrecondition: a reason every rank found alike to use host copies.
  const bool fall_back = made.status().code() == absl::StatusCode::kFailedPrecondition;
  SYMX_RETURN_IF_ERROR(
      bind.rendezvous->Exchange(fall_back ? absl::OkStatus() : made.status(), "").status());
  if (fall_back) {
    static std::once_flag said;
    std::call_once(said, [&] {
      std::cerr << "symx: cross-rank transfers go through host copies: "
                << made.status().message() << "\n";
    });
    return nullptr;
  }
  return made;
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

// The fused ops have CPU kernels only, and pay only with oneDNN.
bool FusionApplies(const Context& bind_ctx, const ResolvedBind& bind) {
  if (!bind.engine.fusion || !cpu::CpuFusionPays(bind.engine)) return false;
  if (bind_ctx.type != DeviceType::kCPU) return false;
  for (const auto& [group, c] : bind.group2ctx) {
    if (c.type != DeviceType::kCPU) return false;
  }
  return true;
}

}  // namespace

absl::Status AccumulateInto(const Tensor& src, const Tensor& dst) {
  if (src.size() != dst.size() || src.dtype() != dst.dtype()) {
    return absl::InternalError(
        absl::StrCat("accumulate ", src.DebugString(), " into ", dst.DebugString()));
  }
  SYMX_ASSIGN_OR_RETURN(Device * device, GetDevice(dst.ctx()));
  if (device->host_memory()) {
    ReduceInto(ReduceOp::kSum, dst.dtype(), src.raw_data(), dst.raw_data(), src.size());
    return absl::OkStatus();
  }
  // Device memory: the device's own elemwise_add, in place into dst.
  const KernelInfo* add = KernelRegistry::Find("elemwise_add", dst.ctx().type);
  if (add == nullptr) {
    return absl::InternalError(absl::StrCat("no elemwise_add kernel on ", dst.ctx().ToString(),
                                            " to accumulate a gradient with"));
  }
  static const NodeAttrs* attrs = new NodeAttrs{};
  KernelContext ctx;
  ctx.attrs = attrs;
  ctx.device = device;
  ctx.inputs = {dst, src};
  ctx.outputs = {dst};
  ctx.req = {OpReq::kInplace};
  return add->fn(ctx);
}

namespace {

// Which device slot runs node `nid` (-1 for variables).
struct DeviceSlots {
  std::vector<Context> devices;
  std::vector<int> slot;  // per node id
};

// Only this process's op nodes get a slot; `devices` are local contexts.
DeviceSlots AssignSlots(const IndexedGraph& g, const std::vector<Context>& node_ctx,
                        const Context& bind_ctx, const RankView& ranks) {
  std::set<Context> used;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    if (!g[nid].node->is_variable() && ranks.IsLocal(node_ctx[nid])) {
      used.insert(RankView::Local(node_ctx[nid]));
    }
  }
  const Context local_bind = RankView::Local(bind_ctx);
  DeviceSlots out;
  if (used.empty() || used.count(local_bind)) out.devices.push_back(local_bind);
  for (const Context& c : used) {
    if (c != local_bind) out.devices.push_back(c);
  }
  out.slot.assign(g.num_nodes(), -1);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    if (g[nid].node->is_variable() || !ranks.IsLocal(node_ctx[nid])) continue;
    out.slot[nid] = static_cast<int>(
        std::find(out.devices.begin(), out.devices.end(), RankView::Local(node_ctx[nid])) -
        out.devices.begin());
  }
  return out;
}

std::vector<size_t> PoolBlockBytes(const MemoryPool& pool) {
  std::vector<size_t> bytes;
  for (const auto& b : pool.blocks) bytes.push_back(b->bytes());
  return bytes;
}

// Blocks for one device's plan, largest first, each taking the smallest free
// pool block that fits (MatchPoolBlocks). Newly allocated blocks go to
// `new_blocks`; they join the pool only once the whole bind has succeeded.

absl::Status AssignBlocks(const MemoryPlan& plan, MemoryPool* pool, Device* device,
                          std::vector<std::shared_ptr<Storage>>* blocks,
                          std::vector<std::shared_ptr<Storage>>* new_blocks, size_t* allocated) {
  const std::vector<size_t>& sizes = plan.storage_bytes;
  const std::vector<int> match = MatchPoolBlocks(sizes, PoolBlockBytes(*pool));
  blocks->assign(sizes.size(), nullptr);
  for (size_t id = 0; id < sizes.size(); ++id) {
    if (match[id] >= 0) {
      (*blocks)[id] = pool->blocks[match[id]];
      continue;
    }
    SYMX_ASSIGN_OR_RETURN((*blocks)[id], device->allocator().Allocate(sizes[id]));
    *allocated += sizes[id];
    new_blocks->push_back((*blocks)[id]);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status BuildPlan(const Symbol& symbol, ResolvedBind* bind_io, ExecPlan* plan,
                       std::vector<Tensor>* outputs, PoolMap* pools_out) {
  ResolvedBind& bind = *bind_io;
  const RankView& ranks = bind.ranks;
  const std::vector<NodeEntry>& fwd_outputs = symbol.outputs();
  IndexedGraph fwd(fwd_outputs);
  std::vector<const Node*> arg_vars, aux_vars;
  std::vector<std::string> arg_names, aux_names;
  for (uint32_t nid : fwd.arg_nodes()) {
    arg_vars.push_back(fwd[nid].node.get());
    arg_names.push_back(fwd[nid].node->name());
  }
  for (uint32_t nid : fwd.aux_nodes()) {
    aux_vars.push_back(fwd[nid].node.get());
    aux_names.push_back(fwd[nid].node->name());
  }
  if (arg_vars.size() != bind.args.size() || aux_vars.size() != bind.aux.size()) {
    return absl::InternalError("argument/aux counts differ from the symbol's");
  }
  // Transfers exist only inside a plan: an OptimizedSymbol of a cross-rank
  // executor cannot be bound again (its placement is lost).
  for (uint32_t nid = 0; nid < fwd.num_nodes(); ++nid) {
    const Node& node = *fwd[nid].node;
    if (!node.is_variable() && (node.op()->name() == "_send" || node.op()->name() == "_recv")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot bind a symbol with ", node.op()->name(), " node '", node.name(),
          "': it is the optimized symbol of a cross-rank executor; bind the original symbol"));
    }
  }
  bind.allocate_grad.resize(arg_vars.size(), false);
  if (ranks.cross_rank()) {
    std::vector<std::string> request = bind.request;
    request.push_back(absl::StrCat("ctx ", ranks.FromOption(bind.ctx).ToString()));
    for (const auto& [group, c] : bind.group2ctx) {
      request.push_back(absl::StrCat("group2ctx ", group, "=", ranks.FromOption(c).ToString()));
    }
    for (size_t i = 0; i < arg_names.size(); ++i) {
      request.push_back(absl::StrCat("grad_req ", arg_names[i], "=", GradReqName(bind.reqs[i])));
    }
    SYMX_RETURN_IF_ERROR(bind.rendezvous->Agree(absl::OkStatus(), request));
    // Every rank reaches the same verdict on the same request.
    absl::Status ranks_ok = CheckRankExists(ranks.FromOption(bind.ctx), ranks,
                                            absl::StrCat("the bind context ", bind.ctx.ToString()));
    for (const auto& [group, c] : bind.group2ctx) {
      if (!ranks_ok.ok()) break;
      ranks_ok = CheckRankExists(ranks.FromOption(c), ranks,
                                 absl::StrCat("group2ctx maps ctx_group '", group, "' to ",
                                              ranks.FromOption(c).ToString()));
    }
    if (!ranks_ok.ok()) {
      bind.rendezvous->MarkSettled();
      return ranks_ok;
    }
  }

  // Where every array lives (every rank's, in a cross-rank bind). A gradient
  // no rank holds an array for (and none is to be allocated) is not computed.
  SYMX_ASSIGN_OR_RETURN(ArrayHomes homes, LocateArrays(bind, arg_names, aux_names));
  for (size_t i = 0; i < arg_vars.size(); ++i) {
    if (!homes.grads[i].found && !bind.allocate_grad[i]) bind.reqs[i] = GradReq::kNull;
    plan->arg_dtypes.push_back(homes.args[i].dtype);
  }
  for (const ArrayHome& h : homes.aux) plan->aux_dtypes.push_back(h.dtype);

  // The gradient graph for arguments whose req is not null.
  std::vector<NodeEntry> xs;
  std::vector<size_t> x_arg;  // argument index of each x
  for (size_t i = 0; i < arg_vars.size(); ++i) {
    if (bind.reqs[i] != GradReq::kNull) {
      xs.push_back(NodeEntry{fwd[fwd.node_id(arg_vars[i])].node, 0, 0});
      x_arg.push_back(i);
    }
  }
  std::vector<NodeEntry> full_outputs = fwd_outputs;
  std::vector<NodePtr> head_vars(fwd_outputs.size());
  plan->head_is_loss.assign(fwd_outputs.size(), false);
  GradientOrigins origins;
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
    SYMX_ASSIGN_OR_RETURN(std::vector<NodeEntry> grads, Gradient(fwd_outputs, heads, xs, &origins));
    full_outputs.insert(full_outputs.end(), grads.begin(), grads.end());
  }

  // Placement on the full graph (global contexts), then copies and transfers
  // where edges cross devices and ranks.
  const Context bind_ctx = ranks.FromOption(bind.ctx);
  if (xs.empty() && FusionApplies(bind_ctx, bind)) {
    int fused = 0;
    SYMX_ASSIGN_OR_RETURN(full_outputs, FuseConvChains(full_outputs, &fused));
  }
  {
    IndexedGraph g0(full_outputs);
    PlaceOptions popt;
    popt.default_ctx = bind_ctx;
    for (const auto& [group, c] : bind.group2ctx) popt.group2ctx[group] = ranks.FromOption(c);
    popt.origins = &origins;
    popt.ranks = ranks;
    popt.var_ctx.resize(g0.num_nodes());
    for (size_t i = 0; i < arg_vars.size(); ++i)
      popt.var_ctx[g0.node_id(arg_vars[i])] = homes.args[i].ctx;
    for (size_t i = 0; i < aux_vars.size(); ++i)
      popt.var_ctx[g0.node_id(aux_vars[i])] = homes.aux[i].ctx;
    SYMX_ASSIGN_OR_RETURN(std::vector<Context> where, Place(g0, popt));
    for (size_t k = 0; k < xs.size(); ++k) {
      size_t arg = x_arg[k];
      if (bind.allocate_grad[arg] || !homes.grads[arg].found) continue;
      const NodeEntry& ge = full_outputs[fwd_outputs.size() + k];
      const Context& computed = where[g0.node_id(ge.node.get())];
      if (homes.grads[arg].ctx != computed) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Trying to save gradient to ", homes.grads[arg].ctx.ToString(),
            " while its source node \"", ge.node->name(), "\" computes it on ", computed.ToString(),
            ". Check your ctx in NDArray allocation: the gradient array of argument ",
            arg_vars[arg]->name(), " must be on ", computed.ToString()));
      }
    }
    SYMX_ASSIGN_OR_RETURN(Partitioned parts, Partition(g0, full_outputs, where));
    full_outputs = std::move(parts.outputs);
    plan->num_copies = parts.num_copies;
    plan->graph = std::make_unique<IndexedGraph>(full_outputs);
    plan->node_ctx.resize(plan->graph->num_nodes());
    for (uint32_t nid = 0; nid < plan->graph->num_nodes(); ++nid) {
      plan->node_ctx[nid] = parts.node_ctx.at((*plan->graph)[nid].node.get());
    }
  }
  const IndexedGraph& g = *plan->graph;
  std::vector<NodeEntry> placed_fwd(full_outputs.begin(),
                                    full_outputs.begin() + fwd_outputs.size());
  plan->optimized = Symbol(placed_fwd);
  {
    IndexedGraph placed(placed_fwd);
    plan->num_forward_nodes = static_cast<uint32_t>(placed.num_nodes());
    for (uint32_t nid = 0; nid < placed.num_nodes(); ++nid) {
      if (g[nid].node != placed[nid].node) {
        return absl::InternalError("forward nodes are not a prefix of the full graph");
      }
    }
  }
  std::vector<uint32_t> arg_nodes, aux_nodes;
  for (const Node* v : arg_vars) arg_nodes.push_back(g.node_id(v));
  for (const Node* v : aux_vars) aux_nodes.push_back(g.node_id(v));
  auto local = [&](uint32_t nid) { return ranks.IsLocal(plan->node_ctx[nid]); };

  // Shapes and dtypes: seeded from the bound arrays (every rank's); head
  // gradients take their output's shape once the forward part is inferred.
  plan->shapes.assign(g.num_entries(), Shape());
  plan->types.assign(g.num_entries(), DType::kUnknown);
  for (size_t i = 0; i < arg_nodes.size(); ++i) {
    plan->shapes[g.entry_id(arg_nodes[i], 0)] = homes.args[i].shape;
    plan->types[g.entry_id(arg_nodes[i], 0)] = homes.args[i].dtype;
  }
  for (size_t i = 0; i < aux_nodes.size(); ++i) {
    plan->shapes[g.entry_id(aux_nodes[i], 0)] = homes.aux[i].shape;
    plan->types[g.entry_id(aux_nodes[i], 0)] = homes.aux[i].dtype;
  }
  size_t unknown = 0;
  SYMX_RETURN_IF_ERROR(InferShapes(g, &plan->shapes, &unknown));
  SYMX_RETURN_IF_ERROR(InferTypes(g, &plan->types, &unknown));
  bool any_head = false;
  for (size_t i = 0; i < fwd_outputs.size(); ++i) {
    if (!head_vars[i] || !g.contains(head_vars[i].get())) continue;
    uint32_t he = g.entry_id(NodeEntry{head_vars[i], 0, 0});
    uint32_t oe = g.entry_id(full_outputs[i]);
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

  const DeviceSlots slots = AssignSlots(g, plan->node_ctx, bind_ctx, ranks);
  plan->devices = slots.devices;
  const size_t num_slots = slots.devices.size();

  // Kernels of this process's nodes.
  std::vector<const KernelInfo*> kernels(g.num_nodes(), nullptr);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = *g[nid].node;
    if (node.is_variable() || slots.slot[nid] < 0) continue;
    const Context& c = plan->node_ctx[nid];
    const KernelInfo* k = KernelRegistry::Find(node.op()->name(), c.type);
    if (k != nullptr && c.type == DeviceType::kCPU) {
      std::vector<DType> dtypes;
      for (const IndexedGraph::Entry& in : g[nid].inputs)
        dtypes.push_back(plan->types[g.entry_id(in)]);
      for (int j = 0; j < node.num_outputs(); ++j)
        dtypes.push_back(plan->types[g.entry_id(nid, j)]);
      if (const KernelInfo* wide = HalfWideningKernel(node.op()->name(), dtypes)) k = wide;
    }
    if (k == nullptr) {
      SYMX_ASSIGN_OR_RETURN(Device * device, GetDevice(c));
      if (!device->host_memory() && bind.engine.host_fallback) {
        k = HostFallbackKernel(node.op()->name());
        if (k != nullptr) NoteHostFallback(node, c);
      }
    }
    if (k == nullptr) {
      return absl::UnimplementedError(
          absl::StrCat(NodeLabel(node), " has no kernel for ", c.ToString()));
    }
    kernels[nid] = k;
  }
  // Ranks compare what they are about to run before anything is allocated.
  if (ranks.cross_rank()) {
    SYMX_RETURN_IF_ERROR(bind.rendezvous->Agree(
        absl::OkStatus(),
        DescribePlan(g, plan->node_ctx, plan->shapes, plan->types, arg_names, bind.reqs)));
  }

  // Bytes per context (arrays may live on devices that run no step).
  std::map<Context, MemoryStats> stats;
  for (const Context& c : plan->devices) stats[c].ctx = c;
  auto count_allocated = [&](const Context& c, size_t bytes) {
    stats[c].ctx = c;
    stats[c].allocated_bytes += bytes;
  };
  auto count_array = [&](const Context& c, size_t bytes) {
    stats[c].ctx = c;
    stats[c].array_bytes += bytes;
  };

  // Gradient arrays BuildPlan allocates, where their gradient is computed
  // (when that is here).
  std::vector<Tensor> new_grads(arg_vars.size());
  for (size_t k = 0; k < xs.size(); ++k) {
    size_t arg = x_arg[k];
    if (!bind.allocate_grad[arg]) continue;
    const NodeEntry& ge = full_outputs[fwd_outputs.size() + k];
    const uint32_t producer = g.node_id(ge.node.get());
    if (!local(producer)) continue;
    uint32_t e = g.entry_id(ge);
    const Context c = RankView::Local(plan->node_ctx[producer]);
    SYMX_ASSIGN_OR_RETURN(new_grads[arg], Tensor::Zeros(plan->shapes[e], plan->types[e], c));
    count_allocated(c, new_grads[arg].nbytes());
  }
  std::vector<Tensor> grads = bind.grads;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (new_grads[i].defined()) grads[i] = new_grads[i];
  }

  // Which entries live outside the plan, and where.
  std::vector<Tensor> entry(g.num_entries());
  for (size_t i = 0; i < arg_nodes.size(); ++i) entry[g.entry_id(arg_nodes[i], 0)] = bind.args[i];
  for (size_t i = 0; i < aux_nodes.size(); ++i) entry[g.entry_id(aux_nodes[i], 0)] = bind.aux[i];
  plan->head_grads.assign(fwd_outputs.size(), Tensor());
  for (size_t i = 0; i < fwd_outputs.size(); ++i) {
    if (!head_vars[i] || !g.contains(head_vars[i].get())) continue;
    uint32_t hn = g.node_id(head_vars[i].get());
    if (!local(hn)) continue;
    uint32_t he = g.entry_id(hn, 0);
    const Context c = RankView::Local(plan->node_ctx[hn]);
    SYMX_ASSIGN_OR_RETURN(plan->head_grads[i], Tensor::Zeros(plan->shapes[he], plan->types[he], c));
    entry[he] = plan->head_grads[i];
    count_allocated(c, plan->head_grads[i].nbytes());
    count_array(c, plan->head_grads[i].nbytes());
  }
  std::vector<bool> external(g.num_entries(), false), keep(g.num_entries(), false);
  std::vector<int> producer_slot(g.num_entries(), -1);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    for (int j = 0; j < g[nid].node->num_outputs(); ++j) {
      producer_slot[g.entry_id(nid, j)] = slots.slot[nid];
    }
    if (g[nid].node->is_variable()) external[g.entry_id(nid, 0)] = true;
  }
  for (const NodeEntry& out : placed_fwd) keep[g.entry_id(out)] = true;
  // Gradients: `write` goes straight into the gradient array; `add` is
  // computed into planned memory, then accumulated.
  std::map<uint32_t, size_t> add_grads;  // entry -> argument
  for (size_t k = 0; k < xs.size(); ++k) {
    const NodeEntry& ge = full_outputs[fwd_outputs.size() + k];
    uint32_t e = g.entry_id(ge);
    size_t arg = x_arg[k];
    if (!local(g.node_id(ge.node.get()))) continue;  // another rank's gradient
    const Tensor& garr = grads[arg];
    if (!garr.defined()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the gradient of argument ", arg_vars[arg]->name(), " is computed on ",
                       plan->node_ctx[g.node_id(ge.node.get())].ToString(),
                       ", where no gradient array was bound for it"));
    }
    if (garr.shape() != plan->shapes[e] || garr.dtype() != plan->types[e]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the gradient array for argument ", arg_vars[arg]->name(), " is ",
          DTypeName(garr.dtype()), " ", garr.shape().ToString(), " but its gradient is ",
          DTypeName(plan->types[e]), " ", plan->shapes[e].ToString()));
    }
    if (bind.reqs[arg] == GradReq::kWrite) {
      external[e] = true;
      entry[e] = garr;
    } else {
      add_grads[e] = arg;
      keep[e] = false;
    }
  }
  // An entry another device reads (through its copy node) stays allocated
  // for the whole run: the copy may run at any time after its producer. So
  // does what a _send sends: the send completes in the background, until the
  // end of the phase. A _send's output is its input itself (no memory).
  std::vector<bool> read_elsewhere(g.num_entries(), false);
  std::vector<int64_t> alias_of(g.num_entries(), -1);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = *g[nid].node;
    const bool is_send = !node.is_variable() && node.op()->name() == "_send";
    for (const auto& in : g[nid].inputs) {
      uint32_t e = g.entry_id(in);
      if (slots.slot[nid] >= 0 && producer_slot[e] >= 0 &&
          (producer_slot[e] != slots.slot[nid] || is_send)) {
        read_elsewhere[e] = true;
      }
    }
    if (is_send) {
      const uint32_t out = g.entry_id(nid, 0);
      external[out] = true;
      alias_of[out] = g.entry_id(g[nid].inputs[0]);
    }
  }

  // One memory plan and pool per device.
  plan->memory.resize(num_slots);
  plan->workspaces.resize(num_slots);
  PoolMap pools;
  std::vector<std::vector<std::shared_ptr<Storage>>> new_blocks(num_slots);
  std::vector<Device*> devices(num_slots);
  for (size_t s = 0; s < num_slots; ++s) {
    const Context& c = plan->devices[s];
    SYMX_ASSIGN_OR_RETURN(devices[s], GetDevice(c));
    MemoryPlanOptions mopt;
    mopt.external.assign(g.num_entries(), false);
    mopt.keep.assign(g.num_entries(), false);
    for (size_t e = 0; e < g.num_entries(); ++e) {
      bool mine = producer_slot[e] == static_cast<int>(s);
      mopt.external[e] = external[e] || !mine;
      mopt.keep[e] = keep[e] || (mine && read_elsewhere[e]);
    }
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
      if (slots.slot[nid] == static_cast<int>(s)) mopt.order.push_back(nid);
    }
    auto it = bind.pools.find(c);
    std::shared_ptr<MemoryPool> pool;
    if (it != bind.pools.end() && it->second) {
      pool = it->second;
    } else {
      pool = std::make_shared<MemoryPool>();
      pool->ctx = c;
    }
    mopt.pool_blocks = PoolBlockBytes(*pool);
    plan->memory[s] = PlanMemory(g, plan->shapes, plan->types, mopt);
    std::vector<std::shared_ptr<Storage>> blocks;
    SYMX_RETURN_IF_ERROR(AssignBlocks(plan->memory[s], pool.get(), devices[s], &blocks,
                                      &new_blocks[s], &stats[c].allocated_bytes));
    for (size_t e = 0; e < g.num_entries(); ++e) {
      int id = plan->memory[s].storage_id[e];
      if (id != MemoryPlan::kExternal) {
        entry[e] = Tensor(blocks[id], plan->memory[s].storage_offset[e], plan->shapes[e],
                          plan->types[e]);
      }
    }
    pools[c] = pool;
  }
  for (size_t e = 0; e < g.num_entries(); ++e) {
    if (alias_of[e] >= 0) entry[e] = entry[alias_of[e]];
  }

  // Channels-last values (forward values and gradients alike).
  std::vector<bool> channels_last;
  {
    LayoutPlanInput lin;
    lin.graph = &g;
    lin.kernels = &kernels;
    lin.shapes = &plan->shapes;
    lin.types = &plan->types;
    lin.options = bind.engine;
    lin.pinned.assign(g.num_entries(), false);
    lin.inplace_from.assign(g.num_entries(), -1);
    for (size_t e = 0; e < g.num_entries(); ++e) {
      // A gradient accumulated into its array (grad_req add) is read plain.
      lin.pinned[e] = external[e] || keep[e] || read_elsewhere[e] || alias_of[e] >= 0 ||
                      producer_slot[e] < 0 || add_grads.count(static_cast<uint32_t>(e)) != 0;
      if (producer_slot[e] >= 0) lin.inplace_from[e] = plan->memory[producer_slot[e]].inplace_from[e];
    }
    channels_last = PlanChannelsLast(lin);
  }

  plan->comm = bind.comm;
  plan->comm_timeout = bind.comm_timeout;
  if (ranks.cross_rank()) {
    SYMX_ASSIGN_OR_RETURN(plan->device_comm,
                          MakeDeviceCommunicator(g, plan->node_ctx, ranks, bind));
  }
  plan->channel = RankChannel{bind.comm.get(), plan->device_comm.get(), bind.comm_timeout,
                              &plan->pending, &plan->cancel};

  // Steps, per phase in graph order; a copy waits for its producer on another
  // device when both run in the same phase.
  std::vector<int64_t> step_of(g.num_nodes(), -1);  // index within its phase
  // Backward outputs nothing reads (the data gradient of a convolution whose
  // input needs none) get req null: kernels skip computing them.
  std::vector<bool> read(g.num_entries(), false);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    for (const auto& i : g[nid].inputs) read[g.entry_id(i)] = true;
  }
  for (const NodeEntry& out : full_outputs) read[g.entry_id(out)] = true;
  // Workspace bytes of the steps whose PrepareFn built a state.
  std::vector<size_t> prepared_bytes(g.num_nodes(), 0);
  // CPU devices of one plan run at once and share the machine's cores.
  const int cpu_devices =
      static_cast<int>(std::count_if(plan->devices.begin(), plan->devices.end(),
                                     [](const Context& c) { return c.type == DeviceType::kCPU; }));
  plan->forward.per_device.assign(num_slots, {});
  plan->backward.per_device.assign(num_slots, {});
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = *g[nid].node;
    if (node.is_variable() || slots.slot[nid] < 0) continue;
    const size_t s = static_cast<size_t>(slots.slot[nid]);
    const bool forward = nid < plan->num_forward_nodes;
    Phase& phase = forward ? plan->forward : plan->backward;
    Step step;
    step.node_id = nid;
    step.kernel = kernels[nid];
    step.ctx.attrs = &node.attrs;
    step.ctx.device = devices[s];
    step.ctx.num_threads = devices[s]->num_threads();
    step.ctx.inference = xs.empty();
    step.ctx.options = bind.engine;
    if (plan->devices[s].type == DeviceType::kCPU && cpu_devices > 1) {
      step.ctx.num_threads = std::max(1, step.ctx.num_threads / cpu_devices);
    }
    if (node.op()->name() == "_send" || node.op()->name() == "_recv") {
      step.ctx.rank_channel = &plan->channel;
    }
    for (const auto& i : g[nid].inputs) {
      step.ctx.inputs.push_back(entry[g.entry_id(i)]);
      const int ps = producer_slot[g.entry_id(i)];
      if (ps >= 0 && ps != static_cast<int>(s) &&
          (i.node_id < plan->num_forward_nodes) == forward) {
        uint32_t producer = static_cast<uint32_t>(step_of[i.node_id]);
        step.waits.push_back(producer);
        phase.steps[producer].signals = true;
      }
    }
    for (int j = 0; j < node.num_outputs(); ++j) {
      uint32_t e = g.entry_id(nid, j);
      step.ctx.outputs.push_back(entry[e]);
      const bool unread = !forward && !read[e] && !external[e] && !keep[e] &&
                          !read_elsewhere[e] && add_grads.count(e) == 0;
      step.ctx.req.push_back(unread                                     ? OpReq::kNull
                             : plan->memory[s].inplace_from[e] >= 0 ? OpReq::kInplace
                                                                     : OpReq::kWrite);
      auto add = add_grads.find(e);
      if (add != add_grads.end()) step.accumulate.emplace_back(grads[add->second], entry[e]);
    }
    if (!channels_last.empty()) {
      bool any = false;
      for (const auto& i : g[nid].inputs) {
        step.ctx.in_channels_last.push_back(channels_last[g.entry_id(i)]);
        any |= step.ctx.in_channels_last.back();
      }
      for (int j = 0; j < node.num_outputs(); ++j) {
        step.ctx.out_channels_last.push_back(channels_last[g.entry_id(nid, j)]);
        any |= step.ctx.out_channels_last.back();
      }
      if (!any) step.ctx.in_channels_last.clear(), step.ctx.out_channels_last.clear();
    }
    if (step.kernel->prepare != nullptr) {
      absl::Status prepared = step.kernel->prepare(&step.ctx, &prepared_bytes[nid]);
      if (!prepared.ok()) return Annotate(prepared, NodeLabel(node));
    }
    step_of[nid] = static_cast<int64_t>(phase.steps.size());
    phase.per_device[s].push_back(static_cast<uint32_t>(phase.steps.size()));
    phase.steps.push_back(std::move(step));
  }

  // One workspace per device, as large as its largest step needs: what a
  // prepared step reported, else the kernel's WorkspaceFn. Steps are built
  // first because preparing decides the size.
  std::vector<size_t> workspace_bytes(num_slots, 0);
  for (Phase* phase : {&plan->forward, &plan->backward}) {
    for (const Step& step : phase->steps) {
      const uint32_t nid = step.node_id;
      const KernelInfo* k = kernels[nid];
      size_t bytes = prepared_bytes[nid];
      if (step.ctx.state == nullptr && k->workspace != nullptr) {
        const Node& node = *g[nid].node;
        std::vector<Shape> in, out;
        for (const auto& i : g[nid].inputs) in.push_back(plan->shapes[g.entry_id(i)]);
        for (int j = 0; j < node.num_outputs(); ++j) {
          out.push_back(plan->shapes[g.entry_id(nid, j)]);
        }
        DType dt = in.empty() ? plan->types[g.entry_id(nid, 0)]
                              : plan->types[g.entry_id(g[nid].inputs[0])];
        bytes = k->workspace(node.attrs, in, out, dt);
      }
      size_t& ws = workspace_bytes[slots.slot[nid]];
      ws = std::max(ws, bytes);
    }
  }
  for (size_t s = 0; s < num_slots; ++s) {
    if (workspace_bytes[s] == 0) continue;
    SYMX_ASSIGN_OR_RETURN(plan->workspaces[s],
                          Tensor::Empty(Shape{static_cast<int64_t>(workspace_bytes[s])},
                                        DType::kUint8, plan->devices[s]));
    stats[plan->devices[s]].allocated_bytes += workspace_bytes[s];
  }
  for (Phase* phase : {&plan->forward, &plan->backward}) {
    for (Step& step : phase->steps) {
      step.ctx.workspace = plan->workspaces[slots.slot[step.node_id]];
    }
  }

  // Which backward step finishes each gradient computed here.
  std::vector<std::pair<int64_t, size_t>> finished;  // (step, argument)
  for (size_t k = 0; k < xs.size(); ++k) {
    const uint32_t producer = g.node_id(full_outputs[fwd_outputs.size() + k].node.get());
    if (step_of[producer] < 0 || producer < plan->num_forward_nodes) continue;
    plan->backward.steps[step_of[producer]].finishes_gradients.push_back(x_arg[k]);
    finished.emplace_back(step_of[producer], x_arg[k]);
  }
  std::stable_sort(finished.begin(), finished.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [step, arg] : finished) plan->gradient_order.push_back(arg);

  outputs->clear();
  for (const NodeEntry& out : placed_fwd) outputs->push_back(entry[g.entry_id(out)]);

  for (const std::vector<Tensor>* arrays : {&bind.args, &grads, &bind.aux}) {
    for (const Tensor& t : *arrays) {
      if (t.defined()) count_array(t.ctx(), t.nbytes());
    }
  }
  for (const auto& [c, bytes] : bind.allocated_array_bytes) count_allocated(c, bytes);
  for (size_t s = 0; s < num_slots; ++s) {
    MemoryStats& m = stats[plan->devices[s]];
    m.planned_bytes = plan->memory[s].total_bytes + workspace_bytes[s];
    m.no_reuse_bytes = plan->memory[s].no_reuse_bytes;
  }
  // The devices that run steps (bind context first), then those that only hold arrays.
  for (const Context& c : plan->devices) plan->stats.push_back(stats[c]);
  for (const auto& [c, m] : stats) {
    if (std::find(plan->devices.begin(), plan->devices.end(), c) == plan->devices.end()) {
      plan->stats.push_back(m);
    }
  }
  // The last collective step: every rank has what it needs, or all fail.
  if (ranks.cross_rank()) {
    SYMX_RETURN_IF_ERROR(bind.rendezvous->Exchange(absl::OkStatus(), "").status());
  }
  for (size_t s = 0; s < num_slots; ++s) {
    MemoryPool& pool = *pools[plan->devices[s]];
    pool.blocks.insert(pool.blocks.end(), new_blocks[s].begin(), new_blocks[s].end());
  }
  // Pools of devices this plan does not use are passed on unchanged.
  for (const auto& [c, pool] : bind.pools) pools.emplace(c, pool);
  bind.grads = std::move(grads);
  *pools_out = std::move(pools);
  return absl::OkStatus();
}

}  // namespace symx
