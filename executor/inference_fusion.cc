#include "executor/inference_fusion.h"

#include <map>
#include <utility>

#include "graph/indexed_graph.h"
#include "graph/op.h"
#include "graph/ops/activation.h"
#include "graph/ops/convolution.h"
#include "graph/ops/fused_conv.h"
#include "graph/ops/norm.h"

namespace symx {
namespace {

const Op* FindOp(const char* name) { return OpRegistry::Global().Find(name); }

std::string CtxGroup(const Node& node) {
  auto it = node.attrs.dict.find("__ctx_group__");
  return it == node.attrs.dict.end() ? "" : it->second;
}

// One chain: the convolution and what it absorbs (0: none).
struct Chain {
  uint32_t conv = 0, bn = 0, add = 0, act = 0;
  int sum_side = -1;  // the add's input that is not the chain's value
  uint32_t tail() const { return act ? act : add ? add : bn ? bn : conv; }
};

class Fuser {
 public:
  explicit Fuser(const std::vector<NodeEntry>& outputs)
      : g_(outputs),
        users_(g_.num_entries()),
        is_output_(g_.num_entries(), false),
        conv_op_(FindOp("Convolution")),
        bn_op_(FindOp("BatchNorm")),
        add_op_(FindOp("elemwise_add")),
        act_op_(FindOp("Activation")),
        clip_op_(FindOp("clip")) {
    for (uint32_t nid = 0; nid < g_.num_nodes(); ++nid) {
      for (const auto& in : g_[nid].inputs) users_[g_.entry_id(in)].push_back(nid);
    }
    for (const auto& out : g_.outputs()) is_output_[g_.entry_id(out)] = true;
  }

  bool HasControlDeps() const {
    for (uint32_t nid = 0; nid < g_.num_nodes(); ++nid) {
      if (!g_[nid].control_deps.empty() || !g_[nid].node->control_deps.empty()) return true;
    }
    return false;
  }

  std::map<uint32_t, Chain> FindChains() {
    std::map<uint32_t, Chain> by_tail;
    absorbed_.assign(g_.num_nodes(), false);
    for (uint32_t nid = 0; nid < g_.num_nodes(); ++nid) {
      const Node& node = *g_[nid].node;
      if (node.op() != conv_op_ || absorbed_[nid]) continue;
      Chain c;
      c.conv = nid;
      const std::string group = CtxGroup(node);
      uint32_t value = nid;  // the node whose output 0 is the chain's value so far
      int next = SoleUser(value, group);
      if (next >= 0 && IsFoldableBn(next, value)) {
        c.bn = value = next;
        next = SoleUser(value, group);
      }
      if (next >= 0 && g_[next].node->op() == add_op_) {
        const auto& in = g_[next].inputs;
        const bool lhs = in[0].node_id == value && in[0].index == 0;
        const bool rhs = in[1].node_id == value && in[1].index == 0;
        if (lhs != rhs) {
          c.add = value = next;
          c.sum_side = lhs ? 1 : 0;
          next = SoleUser(value, group);
        }
      }
      if (next >= 0 && IsFusableAct(next)) c.act = value = next;
      if (c.tail() == c.conv) continue;
      for (uint32_t n : {c.bn, c.add, c.act}) {
        if (n) absorbed_[n] = true;
      }
      absorbed_[nid] = true;
      by_tail[c.tail()] = c;
    }
    return by_tail;
  }

  // `chains` where the add's first input is the sum operand cut before the
  // add (their add and activation run unfused).
  std::map<uint32_t, Chain> StopBeforeLeadingSums(const std::map<uint32_t, Chain>& chains) {
    std::map<uint32_t, Chain> kept;
    for (auto [tail, c] : chains) {
      if (c.add && c.sum_side == 0) {
        absorbed_[c.add] = false;
        if (c.act) absorbed_[c.act] = false;
        c.add = c.act = 0;
        c.sum_side = -1;
        if (c.tail() == c.conv) {
          absorbed_[c.conv] = false;
          continue;
        }
      }
      kept[c.tail()] = c;
    }
    return kept;
  }

  absl::StatusOr<std::vector<NodeEntry>> Rebuild(const std::map<uint32_t, Chain>& chains) {
    std::vector<NodePtr> mapped(g_.num_nodes());
    auto entry = [&](const IndexedGraph::Entry& e) {
      return NodeEntry{mapped[e.node_id], e.index, e.version};
    };
    for (uint32_t nid = 0; nid < g_.num_nodes(); ++nid) {
      const NodePtr& node = g_[nid].node;
      auto chain = chains.find(nid);
      if (chain != chains.end()) {
        SYMX_ASSIGN_OR_RETURN(mapped[nid], MakeFused(chain->second, entry));
        continue;
      }
      if (absorbed_[nid]) continue;  // inside a chain: nothing outside reads it
      bool changed = false;
      std::vector<NodeEntry> inputs;
      for (const auto& in : g_[nid].inputs) {
        inputs.push_back(entry(in));
        changed |= inputs.back().node != node->inputs[inputs.size() - 1].node;
      }
      if (!changed) {
        mapped[nid] = node;
        continue;
      }
      auto copy = std::make_shared<Node>(*node);
      copy->inputs = std::move(inputs);
      mapped[nid] = std::move(copy);
    }
    std::vector<NodeEntry> outputs;
    for (const auto& out : g_.outputs()) outputs.push_back(entry(out));
    return outputs;
  }

 private:
  // The one node reading output 0 of `nid` (and no other output of it being
  // read), when that value is not a graph output and the reader is in `group`.
  int SoleUser(uint32_t nid, const std::string& group) const {
    const Node& node = *g_[nid].node;
    for (int j = 0; j < node.num_outputs(); ++j) {
      const uint32_t e = g_.entry_id(nid, j);
      if (is_output_[e]) return -1;
      if (j > 0 && !users_[e].empty()) return -1;
    }
    const auto& users = users_[g_.entry_id(nid, 0)];
    if (users.size() != 1) return -1;
    const uint32_t user = users[0];
    if (absorbed_[user] || CtxGroup(*g_[user].node) != group) return -1;
    // Read once: a node taking the value as two of its inputs is not fused.
    int reads = 0;
    for (const auto& in : g_[user].inputs) reads += in.node_id == nid;
    return reads == 1 ? static_cast<int>(user) : -1;
  }

  bool IsFoldableBn(uint32_t nid, uint32_t value) const {
    const Node& node = *g_[nid].node;
    if (node.op() != bn_op_) return false;
    const BatchNormParam& p = Param<BatchNormParam>(node.attrs);
    const auto& in = g_[nid].inputs;
    if (p.axis != 1 || p.output_mean_var || in[0].node_id != value || in[0].index != 0) {
      return false;
    }
    // The fused node has one output: nothing may read the mean and var.
    for (uint32_t j = 1; j < 3; ++j) {
      const uint32_t e = g_.entry_id(nid, j);
      if (is_output_[e] || !users_[e].empty()) return false;
    }
    return true;
  }

  bool IsFusableAct(uint32_t nid) const {
    const Node& node = *g_[nid].node;
    if (node.op() == clip_op_) return true;
    if (node.op() != act_op_) return false;
    const ActivationType t = Param<ActivationParam>(node.attrs).type;
    return t == ActivationType::kRelu || t == ActivationType::kSigmoid ||
           t == ActivationType::kTanh || t == ActivationType::kSoftRelu;
  }

  template <typename EntryFn>
  absl::StatusOr<NodePtr> MakeFused(const Chain& c, const EntryFn& entry) const {
    const Node& conv = *g_[c.conv].node;
    std::vector<NodeEntry> inputs;
    for (const auto& in : g_[c.conv].inputs) inputs.push_back(entry(in));
    const AttrMap* bn_dict = nullptr;
    if (c.bn) {
      bn_dict = &g_[c.bn].node->attrs.dict;
      for (int i = 1; i < 5; ++i) inputs.push_back(entry(g_[c.bn].inputs[i]));
    }
    if (c.add) inputs.push_back(entry(g_[c.add].inputs[c.sum_side]));
    const Node* act = c.act ? g_[c.act].node.get() : nullptr;
    // The fused node takes the tail's name: outputs and monitors keep theirs.
    return MakeOpNode(kFusedConvOp, g_[c.tail()].node->name(),
                      FusedConvAttrs(conv.attrs.dict, bn_dict, c.add != 0, act),
                      std::move(inputs));
  }

  IndexedGraph g_;
  std::vector<std::vector<uint32_t>> users_;  // per entry
  std::vector<bool> is_output_;               // per entry
  std::vector<bool> absorbed_;                // per node
  const Op *conv_op_, *bn_op_, *add_op_, *act_op_, *clip_op_;
};

// Variables in DFS order.
std::vector<const Node*> VariableOrder(const std::vector<NodeEntry>& outputs) {
  IndexedGraph g(outputs);
  std::vector<const Node*> order;
  for (uint32_t nid : g.input_nodes()) order.push_back(g[nid].node.get());
  return order;
}

}  // namespace

absl::StatusOr<std::vector<NodeEntry>> FuseConvChains(const std::vector<NodeEntry>& outputs,
                                                      int* num_fused) {
  *num_fused = 0;
  Fuser fuser(outputs);
  if (fuser.HasControlDeps()) return outputs;
  std::map<uint32_t, Chain> chains = fuser.FindChains();
  if (chains.empty()) return outputs;
  SYMX_ASSIGN_OR_RETURN(std::vector<NodeEntry> fused, fuser.Rebuild(chains));
  // The sum operand becomes the fused node's last input: when the add read it
  // first and it brings variables of its own, the arguments' order (what a
  // positional bind of the saved optimized symbol follows) would change. Then
  // those chains stop before their add, and if the order still differs the
  // graph is left unfused.
  const std::vector<const Node*> order = VariableOrder(outputs);
  if (VariableOrder(fused) != order) {
    chains = fuser.StopBeforeLeadingSums(chains);
    SYMX_ASSIGN_OR_RETURN(fused, fuser.Rebuild(chains));
    if (VariableOrder(fused) != order) return outputs;
  }
  *num_fused = static_cast<int>(chains.size());
  return fused;
}

}  // namespace symx
