#include "train/mixed_precision.h"

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/error.h"
#include "graph/indexed_graph.h"
#include "graph/infer_graph.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx::train {
namespace {

[[noreturn]] void Fail(const std::string& message) {
  throw Error(absl::InvalidArgumentError(absl::StrCat("mixed precision: ", message)));
}

// Every entry's dtype with the arguments float32 (unless they say otherwise).
absl::StatusOr<TypeTable> Float32Types(const IndexedGraph& g) {
  SYMX_ASSIGN_OR_RETURN(ShapeTable shapes, InitialShapes(g));
  SYMX_ASSIGN_OR_RETURN(TypeTable types, InitialTypes(g));
  SYMX_RETURN_IF_ERROR(SeedInputs(g, {}, std::nullopt, &shapes, &types));
  size_t unknown = 0;
  SYMX_RETURN_IF_ERROR(InferTypes(g, &types, &unknown));
  return types;
}

class Rewriter {
 public:
  Rewriter(const Symbol& net, const MixedPrecisionOptions& o)
      : g_(net.outputs()), o_(o), types_(ValueOrThrow(Float32Types(g_))) {
    fresh_.resize(g_.num_nodes());
    now_.assign(g_.num_entries(), DType::kUnknown);
  }

  Symbol Run() {
    for (uint32_t nid = 0; nid < g_.num_nodes(); ++nid) {
      const IndexedGraph::NodeInfo& info = g_[nid];
      if (info.node->is_variable()) {
        if (info.node->name() == kLossScaleName) {
          Fail(absl::StrCat("the model already has an argument named ", kLossScaleName));
        }
        fresh_[nid] = info.node;
        now_[g_.entry_id(nid, 0)] = types_[g_.entry_id(nid, 0)];
        continue;
      }
      Rewrite(nid);
    }
    std::vector<NodeEntry> outputs;
    for (const IndexedGraph::Entry& e : g_.outputs()) {
      outputs.push_back(As(e, types_[g_.entry_id(e)], *g_[e.node_id].node));
    }
    return Symbol(std::move(outputs));
  }

 private:
  void Rewrite(uint32_t nid) {
    const IndexedGraph::NodeInfo& info = g_[nid];
    const Node& old = *info.node;
    const std::string& op = old.op()->name();
    const std::vector<int> aux = old.op()->AuxInputs(old.attrs);
    auto is_aux = [&](size_t i) {
      for (int a : aux) {
        if (static_cast<size_t>(a) == i) return true;
      }
      return false;
    };
    const PrecisionClass precision = old.op()->precision_class();
    bool wide = precision != PrecisionClass::kFollow;
    for (int a : aux) wide = wide || types_[g_.entry_id(info.inputs[a])] == DType::kFloat32;
    // Cast's output dtype is its attribute: its input is left as it is.
    const bool keep = op == "Cast";

    auto n = std::make_shared<Node>(old);
    n->inputs.clear();
    bool reads_low = false;
    for (size_t i = 0; i < info.inputs.size(); ++i) {
      const IndexedGraph::Entry& e = info.inputs[i];
      const uint32_t id = g_.entry_id(e);
      NodeEntry in;
      if (keep || is_aux(i)) {
        in = Current(e);
      } else if (old.op()->IsIndexInput(static_cast<int>(i))) {
        in = As(e, types_[id], old);
      } else {
        in = As(e, wide ? DType::kFloat32 : o_.dtype, old);
        reads_low = reads_low || (!wide && types_[id] == DType::kFloat32);
      }
      if (o_.loss_scale && i == 0 && precision == PrecisionClass::kFloat32LossHead) {
        in = Scaled(in, old);
      }
      n->inputs.push_back(std::move(in));
    }
    n->control_deps.clear();
    for (uint32_t dep : info.control_deps) n->control_deps.push_back(fresh_[dep]);
    fresh_[nid] = n;
    // A low-precision op's float32 outputs follow its inputs down; others
    // keep the model's dtypes.
    for (int j = 0; j < old.num_outputs(); ++j) {
      const uint32_t id = g_.entry_id(nid, j);
      now_[id] = reads_low && types_[id] == DType::kFloat32 ? o_.dtype : types_[id];
    }
  }

  NodeEntry Current(const IndexedGraph::Entry& e) const {
    return NodeEntry{fresh_[e.node_id], e.index, e.version};
  }

  // Entry e of the model as `want`, through one Cast per (entry, dtype).
  // Only entries that are float32 in the model change dtype.
  NodeEntry As(const IndexedGraph::Entry& e, DType want, const Node& reader) {
    const uint32_t id = g_.entry_id(e);
    if (now_[id] == want || types_[id] != DType::kFloat32) return Current(e);
    auto [it, added] = casts_.try_emplace({id, want});
    if (added) {
      const Node& src = *g_[e.node_id].node;
      std::string name = src.name();
      if (src.num_outputs() > 1) absl::StrAppend(&name, "_output", e.index);
      absl::StrAppend(&name, "_as_", DTypeName(want));
      it->second = MakeInternalEntry("Cast", std::move(name), {Current(e)},
                                     WithCtxGroup(reader, {{"dtype", DTypeName(want)}}));
    }
    return it->second;
  }

  NodeEntry Scaled(const NodeEntry& in, const Node& head) {
    // The scale lives with the (first) loss head, so a model split over
    // devices or ranks keeps its transfers where they were.
    if (scale_ == nullptr) scale_ = MakeVariableNode(kLossScaleName, WithCtxGroup(head, {}));
    return MakeInternalEntry("_symx_loss_scale", head.name() + "_loss_scale",
                             {in, NodeEntry{scale_, 0, 0}}, WithCtxGroup(head, {}));
  }

  static AttrMap WithCtxGroup(const Node& reader, AttrMap attrs) {
    auto it = reader.attrs.dict.find("__ctx_group__");
    if (it != reader.attrs.dict.end()) attrs.emplace(it->first, it->second);
    return attrs;
  }

  IndexedGraph g_;
  MixedPrecisionOptions o_;
  TypeTable types_;             // the model's dtypes, by entry
  std::vector<NodePtr> fresh_;  // the rewritten node of each node
  std::vector<DType> now_;      // the rewritten graph's dtype of each entry
  std::map<std::pair<uint32_t, DType>, NodeEntry> casts_;
  NodePtr scale_;
};

}  // namespace

Symbol ToMixedPrecision(const Symbol& net, const MixedPrecisionOptions& options) {
  if (options.dtype != DType::kFloat16 && options.dtype != DType::kBFloat16) {
    Fail(absl::StrCat("the low-precision dtype must be float16 or bfloat16, not ",
                      DTypeName(options.dtype)));
  }
  Symbol low = Rewriter(net, options).Run();
  // The rewrite must type-check as the model does (float32 arguments); a
  // failure here is a rule this file lacks, named by the node at fault.
  absl::Status s = Float32Types(IndexedGraph(low.outputs())).status();
  if (!s.ok()) Fail(absl::StrCat("the rewritten model does not type-check: ", s.message()));
  return low;
}

}  // namespace symx::train
