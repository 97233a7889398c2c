#include "executor/layout_plan.h"

#include <numeric>
#include <string>

#include "graph/op.h"

namespace symx {
namespace {

class UnionFind {
 public:
  explicit UnionFind(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  size_t Find(size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void Join(size_t a, size_t b) { parent_[Find(a)] = Find(b); }

 private:
  std::vector<size_t> parent_;
};

}  // namespace

std::vector<bool> PlanChannelsLast(const LayoutPlanInput& in) {
  const IndexedGraph& g = *in.graph;
  const size_t num_entries = g.num_entries();
  std::vector<bool> plain = in.pinned;  // per entry: some reader or writer needs it plain
  std::vector<bool> result(num_entries, false);
  if (!in.options.channels_last) return result;
  plain.resize(num_entries, true);
  UnionFind groups(num_entries);
  bool any_capable = false;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = *g[nid].node;
    std::vector<uint32_t> ins, outs;
    for (const auto& i : g[nid].inputs) ins.push_back(g.entry_id(i));
    for (int j = 0; j < node.num_outputs(); ++j) outs.push_back(g.entry_id(nid, j));
    const KernelInfo* k = (*in.kernels)[nid];
    if (node.is_variable() || k == nullptr) {
      for (uint32_t e : outs) plain[e] = true;
      continue;
    }
    std::vector<bool> in_cl(ins.size(), false), out_cl(outs.size(), false);
    bool same_shapes = true;
    for (uint32_t e : ins) same_shapes &= (*in.shapes)[e] == (*in.shapes)[outs[0]];
    for (uint32_t e : outs) same_shapes &= (*in.shapes)[e] == (*in.shapes)[outs[0]];
    if (node.op()->layout_agnostic() && same_shapes && (*in.shapes)[outs[0]].ndim() >= 3) {
      for (uint32_t e : ins) groups.Join(e, outs[0]);
      for (uint32_t e : outs) groups.Join(e, outs[0]);
      continue;
    }
    if (k->channels_last != nullptr) {
      std::vector<Shape> in_shapes, out_shapes;
      for (uint32_t e : ins) in_shapes.push_back((*in.shapes)[e]);
      for (uint32_t e : outs) out_shapes.push_back((*in.shapes)[e]);
      const DType dtype = ins.empty() ? (*in.types)[outs[0]] : (*in.types)[ins[0]];
      k->channels_last(node.attrs, in_shapes, out_shapes, dtype, in.options, &in_cl, &out_cl);
    }
    if (k->channels_last_tied) {
      int64_t first = -1;
      auto tie = [&](uint32_t e) {
        if (first < 0) first = e;
        groups.Join(e, static_cast<size_t>(first));
      };
      for (size_t i = 0; i < ins.size(); ++i) {
        if (in_cl[i]) tie(ins[i]);
      }
      for (size_t j = 0; j < outs.size(); ++j) {
        if (out_cl[j]) tie(outs[j]);
      }
    }
    for (size_t i = 0; i < ins.size(); ++i) {
      if (!in_cl[i]) plain[ins[i]] = true;
      any_capable |= in_cl[i];
    }
    for (size_t j = 0; j < outs.size(); ++j) {
      if (!out_cl[j]) plain[outs[j]] = true;
      any_capable |= out_cl[j];
    }
  }
  if (!any_capable) return result;
  for (size_t e = 0; e < in.inplace_from.size(); ++e) {
    if (in.inplace_from[e] >= 0) groups.Join(e, static_cast<size_t>(in.inplace_from[e]));
  }
  std::vector<bool> group_plain(num_entries, false);
  for (size_t e = 0; e < num_entries; ++e) {
    if (plain[e]) group_plain[groups.Find(e)] = true;
  }
  for (size_t e = 0; e < num_entries; ++e) result[e] = !group_plain[groups.Find(e)];
  return result;
}

}  // namespace symx
