// PlanMemory at the pass level: reuse, in-place, outputs kept alive, and the
// no-reuse baseline. No kernels are involved.
#include "executor/plan_memory.h"

#include <set>

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
};

Planned Plan(const Symbol& s, const std::map<std::string, Shape>& in, int match_range = 16,
             DType dtype = DType::kFloat32) {
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
  p.plan = PlanMemory(g, p.shapes, p.types, opt);
  return p;
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
  EXPECT_NE(p.plan.storage_id[a_entry], p.plan.storage_id[e_entry]);
  EXPECT_NE(p.plan.storage_id[e_entry], p.plan.storage_id[out_entry]);
  // a's last reader is the multiply, which may write in place over it.
  EXPECT_EQ(p.plan.storage_id[out_entry], p.plan.storage_id[a_entry]);
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
