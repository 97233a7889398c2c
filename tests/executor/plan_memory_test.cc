// PlanMemory at the pass level: reuse, in-place, outputs kept alive, the
// no-reuse baseline, packing by lifetime (no two live values ever overlap),
// and the choice of plan beside a shared pool. No kernels are involved.
#include "executor/plan_memory.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "graph/error.h"
#include "graph/indexed_graph.h"
#include "graph/infer_graph.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

struct Planned {
  std::unique_ptr<IndexedGraph> graph;
  ShapeTable shapes;
  TypeTable types;
  MemoryPlan plan;
  std::vector<uint32_t> order;
  std::vector<bool> keep;
};

Planned Plan(const Symbol& s, const std::map<std::string, Shape>& in, int match_range = 16,
             DType dtype = DType::kFloat32, std::vector<size_t> pool_blocks = {}) {
  Planned p;
  p.graph = std::make_unique<IndexedGraph>(s.outputs());
  const IndexedGraph& g = *p.graph;
  p.shapes.assign(g.num_entries(), Shape());
  p.types.assign(g.num_entries(), DType::kUnknown);
  MemoryPlanOptions opt;
  opt.external.assign(g.num_entries(), false);
  opt.keep.assign(g.num_entries(), false);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = *g[nid].node;
    if (n.is_variable()) {
      uint32_t e = g.entry_id(nid, 0);
      opt.external[e] = true;
      p.types[e] = dtype;
      auto it = in.find(n.name());
      if (it != in.end()) p.shapes[e] = it->second;
    } else {
      opt.order.push_back(nid);
    }
  }
  for (const auto& out : g.outputs()) opt.keep[g.entry_id(out)] = true;
  size_t unknown = 0;
  ThrowIfError(InferShapes(g, &p.shapes, &unknown));
  ThrowIfError(InferTypes(g, &p.types, &unknown));
  opt.match_range = match_range;
  opt.pool_blocks = std::move(pool_blocks);
  p.plan = PlanMemory(g, p.shapes, p.types, opt);
  p.order = opt.order;
  p.keep = opt.keep;
  return p;
}

size_t Bytes(const Planned& p, uint32_t e) { return p.shapes[e].Size() * DTypeSize(p.types[e]); }

bool SameMemory(const Planned& p, uint32_t a, uint32_t b) {
  return p.plan.storage_id[a] == p.plan.storage_id[b] &&
         p.plan.storage_offset[a] == p.plan.storage_offset[b];
}

bool Disjoint(const Planned& p, uint32_t a, uint32_t b) {
  if (p.plan.storage_id[a] != p.plan.storage_id[b]) return true;
  const size_t a0 = p.plan.storage_offset[a], b0 = p.plan.storage_offset[b];
  return a0 + Bytes(p, a) <= b0 || b0 + Bytes(p, b) <= a0;
}

// Every planned value lies inside its block, and two values live at once
// never share a byte unless one was written in place over the other.
void ExpectValid(const Planned& p) {
  const IndexedGraph& g = *p.graph;
  const size_t n = g.num_entries(), end = p.order.size();
  std::vector<size_t> first(n, 0), last(n, 0);
  std::vector<bool> planned(n, false);
  for (size_t i = 0; i < p.order.size(); ++i) {
    const uint32_t nid = p.order[i];
    for (int j = 0; j < g[nid].node->num_outputs(); ++j) {
      const uint32_t e = g.entry_id(nid, j);
      if (p.plan.storage_id[e] == MemoryPlan::kExternal) continue;
      planned[e] = true;
      first[e] = last[e] = i;
      if (p.keep[e]) last[e] = end;
      ASSERT_LE(p.plan.storage_offset[e] + Bytes(p, e),
                p.plan.storage_bytes[p.plan.storage_id[e]])
          << "entry " << e << " runs past its block";
    }
    for (const auto& in : g[nid].inputs) {
      const uint32_t e = g.entry_id(in);
      if (planned[e]) last[e] = std::max(last[e], i);
    }
  }
  // The root of each in-place chain.
  auto root = [&](uint32_t e) {
    while (p.plan.inplace_from[e] >= 0) e = static_cast<uint32_t>(p.plan.inplace_from[e]);
    return e;
  };
  for (uint32_t a = 0; a < n; ++a) {
    for (uint32_t b = a + 1; b < n; ++b) {
      if (!planned[a] || !planned[b] || root(a) == root(b)) continue;
      if (first[a] > last[b] || first[b] > last[a]) continue;
      EXPECT_TRUE(Disjoint(p, a, b)) << "entries " << a << " and " << b << " are live at once";
    }
  }
}

// Inception-like: branches of different widths joined by Concat, three
// times over, so values of many sizes are live at once.
Symbol Branchy(int stages) {
  Symbol x = Symbol::Variable("data");
  for (int s = 0; s < stages; ++s) {
    const std::string p = "s" + std::to_string(s) + "_";
    std::vector<Symbol> branches;
    for (int b = 0; b < 3; ++b) {
      Symbol y = x;
      for (int d = 0; d <= b; ++d) {
        y = OpCall("FullyConnected")
                .Name(p + "fc" + std::to_string(b) + std::to_string(d))
                .Attr("num_hidden", 16 * (b + 1) * (d + 1))
                .Input(y);
        y = OpCall("Activation")
                .Name(p + "act" + std::to_string(b) + std::to_string(d))
                .Attr("act_type", "tanh")
                .Input(y);
      }
      branches.push_back(y);
    }
    OpCall concat = OpCall("Concat").Name(p + "cat").Attr("num_args", 3).Attr("dim", 1);
    for (const Symbol& b : branches) concat.Input(b);
    x = concat.Build();
  }
  return x;
}

Symbol DeepMlp(int layers, int hidden) {
  Symbol x = Symbol::Variable("data");
  for (int i = 0; i < layers; ++i) {
    x = OpCall("FullyConnected").Name("fc" + std::to_string(i)).Attr("num_hidden", hidden).Input(x);
    x = OpCall("Activation").Name("relu" + std::to_string(i)).Attr("act_type", "relu").Input(x);
  }
  return x;
}

TEST(PlanMemoryTest, InferenceChainReusesTwoBlocks) {
  // 20 layers of (FC, relu): relu runs in place, FC outputs alternate blocks.
  Planned p = Plan(DeepMlp(20, 256), {{"data", Shape{64, 256}}});
  const size_t activation = 64 * 256 * 4;
  EXPECT_EQ(p.plan.no_reuse_bytes, 40 * activation);
  EXPECT_LE(p.plan.total_bytes, 2 * activation);
  // Every relu took its FC's block.
  int inplace = 0;
  for (int64_t from : p.plan.inplace_from) inplace += from >= 0;
  EXPECT_EQ(inplace, 20);
}

TEST(PlanMemoryTest, NoReuseBaselineGivesEveryEntryItsBlock) {
  Planned p = Plan(DeepMlp(5, 32), {{"data", Shape{8, 16}}}, /*match_range=*/0);
  // Five FC outputs, each its own block; the relus run in place on them.
  EXPECT_EQ(p.plan.storage_bytes.size(), 5u);
  EXPECT_EQ(p.plan.total_bytes, 5 * 8 * 32 * 4u);
  std::set<int> ids;
  for (size_t e = 0; e < p.plan.storage_id.size(); ++e) {
    if (p.plan.storage_id[e] >= 0 && p.plan.inplace_from[e] < 0) {
      EXPECT_TRUE(ids.insert(p.plan.storage_id[e]).second) << "entry " << e << " shares a block";
    }
  }
}

TEST(PlanMemoryTest, OutputsAndMultiplyReadEntriesAreNotOverwritten) {
  // a = relu(x); out = a * exp(a): a is read twice, so exp may not run in place
  // on it, and both outputs must stay distinct.
  Symbol x = Symbol::Variable("x");
  Symbol a = OpCall("relu").Name("a").Input(x);
  Symbol e = OpCall("exp").Name("e").Input(a);
  Symbol out = a * e;
  Planned p = Plan(Symbol::Group({out, e}), {{"x", Shape{4, 4}}});
  const IndexedGraph& g = *p.graph;
  uint32_t a_entry = g.entry_id(a.outputs()[0]);
  uint32_t e_entry = g.entry_id(e.outputs()[0]);
  uint32_t out_entry = g.entry_id(out.outputs()[0]);
  EXPECT_TRUE(Disjoint(p, a_entry, e_entry));
  EXPECT_TRUE(Disjoint(p, e_entry, out_entry));
  // a's last reader is the multiply, which may write in place over it.
  EXPECT_TRUE(SameMemory(p, out_entry, a_entry));
  ExpectValid(p);
}

TEST(PlanMemoryTest, NoLiveValuesOverlap) {
  for (int range : {0, 1, 4, 16}) {
    SCOPED_TRACE("match range " + std::to_string(range));
    ExpectValid(Plan(DeepMlp(6, 48), {{"data", Shape{8, 16}}}, range));
    ExpectValid(Plan(Branchy(3), {{"data", Shape{8, 24}}}, range));
  }
}

// The most bytes live at once (in-place chains counted once, sizes rounded
// to 64 as the packing does): no plan can need less.
size_t PeakLiveBytes(const Planned& p) {
  const IndexedGraph& g = *p.graph;
  std::vector<int64_t> last(g.num_entries(), -1);
  for (size_t i = 0; i < p.order.size(); ++i) {
    for (const auto& in : g[p.order[i]].inputs) last[g.entry_id(in)] = i;
  }
  size_t peak = 0;
  for (size_t i = 0; i < p.order.size(); ++i) {
    size_t live = 0;
    for (size_t k = 0; k <= i; ++k) {
      const uint32_t nid = p.order[k];
      for (int j = 0; j < g[nid].node->num_outputs(); ++j) {
        const uint32_t e = g.entry_id(nid, j);
        if (p.plan.storage_id[e] == MemoryPlan::kExternal || p.plan.inplace_from[e] >= 0) continue;
        // Live at step i: written at or before it, read at or after it (or kept).
        int64_t end = last[e];
        for (uint32_t x = e; x < g.num_entries(); ++x) {
          if (p.plan.inplace_from[x] == static_cast<int64_t>(e)) end = std::max(end, last[x]);
        }
        if (p.keep[e] || end >= static_cast<int64_t>(i) || k == i) live += (Bytes(p, e) + 63) / 64 * 64;
      }
    }
    peak = std::max(peak, live);
  }
  return peak;
}

// Values of many sizes live at once: blocks reused by size waste the gaps
// (a freed block grown to fit a larger value), one block packed by lifetime
// does not.
TEST(PlanMemoryTest, PackingByLifetimeReachesThePeak) {
  Planned best = Plan(Branchy(3), {{"data", Shape{8, 24}}});
  const size_t peak = PeakLiveBytes(best);
  EXPECT_EQ(best.plan.storage_bytes.size(), 1u) << "not one packed block";
  EXPECT_EQ(best.plan.total_bytes, peak);
  ExpectValid(best);
}

// Beside a shared pool (shared_exec, Reshape) the plan that fits the pool's
// blocks wins over a smaller one that would allocate.
TEST(PlanMemoryTest, PrefersPlansThatFitASharedPool) {
  Planned alone = Plan(Branchy(2), {{"data", Shape{8, 24}}});
  ASSERT_EQ(alone.plan.storage_bytes.size(), 1u);
  // Many blocks as large as the largest value: every block plan fits them,
  // the packed block (larger) does not.
  size_t largest = 0;
  for (uint32_t e = 0; e < alone.graph->num_entries(); ++e) {
    if (alone.plan.storage_id[e] != MemoryPlan::kExternal) largest = std::max(largest, Bytes(alone, e));
  }
  ASSERT_GT(alone.plan.total_bytes, largest);
  std::vector<size_t> pool(64, largest);
  Planned shared = Plan(Branchy(2), {{"data", Shape{8, 24}}}, 16, DType::kFloat32, pool);
  size_t fresh = 0;
  for (int m : MatchPoolBlocks(shared.plan.storage_bytes, pool)) {
    if (m < 0) fresh += 1;
  }
  EXPECT_EQ(fresh, 0u) << "the plan allocates beside the pool";
  ExpectValid(shared);
}

TEST(PlanMemoryTest, MatchPoolBlocksTakesTheSmallestFit) {
  EXPECT_EQ(MatchPoolBlocks({100, 10, 50}, {60, 200, 12, 8}), (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(MatchPoolBlocks({100}, {99}), (std::vector<int>{-1}));
}

TEST(PlanMemoryTest, SizesAreRealBytesPerDType) {
  Planned p32 = Plan(DeepMlp(1, 10), {{"data", Shape{3, 5}}}, 16, DType::kFloat32);
  Planned p64 = Plan(DeepMlp(1, 10), {{"data", Shape{3, 5}}}, 16, DType::kFloat64);
  EXPECT_EQ(p32.plan.total_bytes, 3 * 10 * 4u);
  EXPECT_EQ(p64.plan.total_bytes, 3 * 10 * 8u);
}

TEST(PlanMemoryTest, SmallerBlockGrowsWithinMatchRange) {
  // x -> FC(64) -> relu -> FC(100): the second FC can't run in place (sizes
  // differ) but takes the first block once it is free, grown to fit.
  Symbol x = Symbol::Variable("data");
  Symbol h = OpCall("FullyConnected").Name("f1").Attr("num_hidden", 64).Input(x);
  Symbol r = OpCall("sigmoid").Name("s").Input(h);
  Symbol y = OpCall("FullyConnected").Name("f2").Attr("num_hidden", 100).Input(r);
  Symbol z = OpCall("tanh").Name("t").Input(y);
  Planned p = Plan(z, {{"data", Shape{2, 8}}});
  // f1/s share one block, f2 can't reuse it (s is f2's input), t runs in place.
  EXPECT_EQ(p.plan.storage_bytes.size(), 2u);
  EXPECT_EQ(p.plan.total_bytes, (2 * 64 + 2 * 100) * 4u);
}

}  // namespace
}  // namespace symx
