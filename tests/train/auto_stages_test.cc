// AutoStages: equal layers split evenly, a heavy layer alone, cuts drawn to
// narrow activations when bytes are dear, the groups written into every node
// (weights with their layer, data with the first stage), the staged model
// pipelined on two in-process ranks, and the errors.
#include "train/auto_stages.h"

#include <thread>

#include "distributed/inprocess_communicator.h"
#include "graph/error.h"
#include "graph/indexed_graph.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "tests/expect_contains.h"
#include "train/parallel_model.h"
#include "train/pipeline.h"

namespace symx::train {
namespace {

Symbol Fc(const std::string& name, const Symbol& in, int hidden) {
  return OpCall("FullyConnected").Name(name).Attr("num_hidden", hidden).Input("data", in);
}

// fc1..fcN with the given widths (relu after each), softmax over 10.
Symbol Chain(const std::vector<int>& widths) {
  NameScope names;
  Symbol h = Symbol::Variable("data");
  for (size_t i = 0; i < widths.size(); ++i) {
    const std::string id = std::to_string(i + 1);
    h = OpCall("Activation")
            .Name("relu" + id)
            .Attr("act_type", "relu")
            .Input("data", Fc("fc" + id, h, widths[i]));
  }
  return OpCall("SoftmaxOutput").Name("softmax").Input("data", Fc("out", h, 10));
}

std::map<std::string, std::string> Groups(const Symbol& s) {
  std::map<std::string, std::string> out;
  const IndexedGraph g(s.outputs());
  for (uint32_t id = 0; id < g.num_nodes(); ++id) {
    auto it = g[id].node->attrs.dict.find("__ctx_group__");
    out[g[id].node->name()] = it == g[id].node->attrs.dict.end() ? "" : it->second;
  }
  return out;
}

TEST(AutoStages, EqualLayersSplitEvenly) {
  AutoStagesOptions o;
  o.stages = 4;
  o.shapes = {{"data", Shape{32, 256}}};
  o.flops_per_byte = 0;
  auto plan = AutoStages(Chain(std::vector<int>(8, 256)), o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->first_ops, (std::vector<std::string>{"fc1", "fc3", "fc5", "fc7"}));
  EXPECT_LT(plan->balance(), 1.05);
  EXPECT_FALSE(plan->replaced_groups);
  const auto groups = Groups(plan->symbol);
  EXPECT_EQ(groups.at("data"), "stage1");
  EXPECT_EQ(groups.at("fc2_weight"), "stage1");
  EXPECT_EQ(groups.at("fc3_weight"), "stage2");
  EXPECT_EQ(groups.at("fc8"), "stage4");
  EXPECT_EQ(groups.at("softmax"), "stage4");
  EXPECT_EQ(groups.at("softmax_label"), "stage4");
  for (const auto& [name, group] : groups) EXPECT_FALSE(group.empty()) << name;
  EXPECT_EQ(plan->cut_bytes.size(), 3u);
  EXPECT_EQ(plan->cut_bytes[0], 2 * 4 * 32 * 256);  // relu2's output, forward and back
  EXPECT_CONTAINS(plan->Describe(), "4 stages, balance 1.0");
  EXPECT_CONTAINS(plan->Describe(), "stage2 from fc3");
}

TEST(AutoStages, AHeavyLayerGetsAStageOfItsOwn) {
  AutoStagesOptions o;
  o.stages = 2;
  o.shapes = {{"data", Shape{16, 64}}};
  o.flops_per_byte = 0;
  // fc1 is 4096 wide (most of the work is fc1 and fc2), then small layers.
  auto plan = AutoStages(Chain({4096, 64, 64, 64, 64, 64}), o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->first_ops[1], "fc2");
  EXPECT_GT(plan->balance(), 1.0);
}

TEST(AutoStages, DearBytesMoveTheCutToANarrowActivation) {
  AutoStagesOptions o;
  o.stages = 2;
  o.shapes = {{"data", Shape{64, 512}}};
  // Equal compute would cut after fc2's wide output; a costly link prefers
  // the narrow fc3 (16 wide) even at some imbalance.
  const Symbol net = Chain({512, 512, 16, 512, 512});
  o.flops_per_byte = 0;
  auto cheap = AutoStages(net, o);
  o.flops_per_byte = 100;
  auto dear = AutoStages(net, o);
  ASSERT_TRUE(cheap.ok() && dear.ok());
  EXPECT_EQ(cheap->cut_bytes[0], 2 * 4 * 64 * 512);  // a 512-wide activation
  EXPECT_EQ(dear->cut_bytes[0], 2 * 4 * 64 * 16);    // fc3's or relu3's, 16 wide
}

TEST(AutoStages, ReplacesGroupsAndPipelinesOnTwoRanks) {
  Symbol net = Symbol::Load("tools/examples/legacy_mlp-symbol.json");
  AutoStagesOptions o;
  o.shapes = {{"data", Shape{8, 10}}};
  auto plan = AutoStages(net, o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->replaced_groups);
  Context rank1 = Context::CPU(0);
  rank1.rank = 1;
  const std::map<std::string, Context> g2c = {{"stage1", Context::CPU(0)}, {"stage2", rank1}};
  auto stages = PipelineStages(plan->symbol, Context::CPU(0), g2c, /*require_chain=*/true);
  ASSERT_TRUE(stages.ok()) << stages.status();
  EXPECT_EQ(*stages, (std::vector<int>{0, 1}));
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(2);
  std::vector<int64_t> counts(2, 0);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      ParallelOptions po;
      po.ctx = Context::CPU(0);
      po.group2ctx = g2c;
      po.comm = group[r];
      po.batch_size = 8;
      po.example_shape = Shape{10};
      po.microbatches = 2;
      po.schedule = PipelineSchedule::kOneFOneB;
      ParallelModel model(plan->symbol, po);
      Metrics m;
      model.TrainStep(*Tensor::Zeros(Shape{8, 10}, DType::kFloat32),
                      *Tensor::Zeros(Shape{8}, DType::kFloat32), &m);
      counts[r] = m.count;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(counts[0] + counts[1], 8);  // every row through the loss once
}

TEST(AutoStages, Errors) {
  AutoStagesOptions o;
  o.shapes = {{"data", Shape{4, 8}}};
  o.stages = 9;
  auto too_many = AutoStages(Chain({8, 8}), o);  // 6 ops
  ASSERT_FALSE(too_many.ok());
  EXPECT_CONTAINS(std::string(too_many.status().message()),
                  "the model has 6 ops, fewer than the 9 stages");
  o.stages = 0;
  EXPECT_FALSE(AutoStages(Chain({8}), o).ok());
  o.stages = 2;
  o.shapes.clear();
  auto no_shape = AutoStages(Chain({8}), o);
  ASSERT_FALSE(no_shape.ok());
  EXPECT_CONTAINS(std::string(no_shape.status().message()), "the shapes do not infer");
}

}  // namespace
}  // namespace symx::train
