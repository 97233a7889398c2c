// Symbol composition, naming, list orders, attributes and AttrScope.
#include "graph/symbol.h"

#include "graph/error.h"
#include "graph/op.h"
#include "graph/scope.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

using Names = std::vector<std::string>;

Symbol Mlp() {
  Symbol data = Symbol::Variable("data");
  Symbol fc1 = OpCall("FullyConnected").Name("fc1").Attr("num_hidden", 128).Input("data", data);
  Symbol act = OpCall("Activation").Name("relu1").Attr("act_type", "relu").Input(fc1);
  Symbol fc2 = OpCall("FullyConnected").Name("fc2").Attr("num_hidden", 10).Input(act);
  return OpCall("SoftmaxOutput").Name("softmax").Input(fc2);
}

TEST(SymbolTest, MissingInputsBecomeVariablesInMxnetOrder) {
  Symbol net = Mlp();
  EXPECT_EQ(net.ListArguments(),
            (Names{"data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias", "softmax_label"}));
  EXPECT_EQ(net.ListOutputs(), Names{"softmax_output"});
  EXPECT_TRUE(net.ListAuxiliaryStates().empty());
}

TEST(SymbolTest, AutoCreatedVariablesCopyTheOpAttributes) {
  Symbol net = Mlp();
  Symbol w = net.GetInternals()["fc1_weight"];
  EXPECT_EQ(w.ListAttr(), (AttrMap{{"num_hidden", "128"}}));
}

TEST(SymbolTest, ChildrenAndInternals) {
  Symbol data = Symbol::Variable("data");
  Symbol fc1 = OpCall("FullyConnected").Name("fc1").Attr("num_hidden", 8).Input(data);
  Symbol fc2 = OpCall("FullyConnected").Name("fc2").Attr("num_hidden", 4).Input(fc1);
  EXPECT_EQ(fc2.GetChildren().ListOutputs(), (Names{"fc1_output", "fc2_weight", "fc2_bias"}));
  EXPECT_EQ(fc2.GetInternals().ListOutputs(), (Names{"data", "fc1_weight", "fc1_bias", "fc1_output",
                                                     "fc2_weight", "fc2_bias", "fc2_output"}));
  EXPECT_EQ(data.GetChildren().num_outputs(), 0u);
  // Per node: the two outputs of one SliceChannel list its input once; two
  // uses of one value by one node list it twice (MXNet's behaviour).
  Symbol parts = OpCall("SliceChannel").Attr("num_outputs", 2).Input(data);
  EXPECT_EQ(parts.GetChildren().ListOutputs(), (Names{"data"}));
  EXPECT_EQ((data * data).GetChildren().ListOutputs(), (Names{"data", "data"}));
}

TEST(SymbolTest, InternalsListVisibleOutputsUnlessAskedForHiddenOnes) {
  // MXNet's get_internals ends at bn_output; BatchNorm's saved mean and var
  // are hidden outputs.
  Symbol bn = OpCall("BatchNorm").Name("bn").Input(Symbol::Variable("data"));
  EXPECT_EQ(bn.GetInternals().ListOutputs(),
            (Names{"data", "bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_var", "bn_output"}));
  EXPECT_EQ(bn.GetInternals(/*hidden_outputs=*/true).num_outputs(), 8u);
}

TEST(SymbolTest, ScalarArithmeticKeepsTheScalarsText) {
  Symbol a = Symbol::Variable("a");
  EXPECT_EQ(ScalarArithmetic('*', a, "2").Attr("scalar"), "2");  // Python's str(2)
  EXPECT_EQ((a * 2.0).Attr("scalar"), "2.0");
  Symbol r = ScalarArithmetic('-', a, "1", /*reverse=*/true);
  EXPECT_EQ(r.outputs()[0].node->op()->name(), "_rminus_scalar");
  EXPECT_THROW(ScalarArithmetic('%', a, "1"), Error);
}

TEST(SymbolTest, AutomaticNamesCountPerOp) {
  NameScope scope;
  Symbol x = Symbol::Variable("x");
  Symbol a = OpCall("FullyConnected").Attr("num_hidden", 2).Input(x);
  Symbol b = OpCall("FullyConnected").Attr("num_hidden", 2).Input(a);
  Symbol c = OpCall("Activation").Attr("act_type", "tanh").Input(b);
  EXPECT_EQ(a.name(), "fullyconnected0");
  EXPECT_EQ(b.name(), "fullyconnected1");
  EXPECT_EQ(c.name(), "activation0");
  EXPECT_EQ(b.ListArguments()[1], "fullyconnected0_weight");
}

TEST(SymbolTest, NameScopePrefix) {
  NameScope scope("stage1_");
  Symbol x = Symbol::Variable("x");
  Symbol fc = OpCall("FullyConnected").Attr("num_hidden", 2).Input(x);
  EXPECT_EQ(fc.name(), "stage1_fullyconnected0");
}

TEST(SymbolTest, ArithmeticUsesMxnetOps) {
  NameScope scope;
  Symbol a = Symbol::Variable("a");
  Symbol b = Symbol::Variable("b");
  Symbol y = 2 * a + b;
  EXPECT_EQ(y.ListArguments(), (Names{"a", "b"}));
  EXPECT_EQ(y.name(), "_plus0");
  EXPECT_EQ(y.outputs()[0].node->op()->name(), "elemwise_add");
  const NodeEntry& lhs = y.outputs()[0].node->inputs[0];
  EXPECT_EQ(lhs.node->op()->name(), "_mul_scalar");
  EXPECT_EQ(lhs.node->attrs.dict.at("scalar"), "2.0");
  EXPECT_EQ((1.0 - a).outputs()[0].node->op()->name(), "_rminus_scalar");
  EXPECT_EQ((1.0 / a).outputs()[0].node->op()->name(), "_rdiv_scalar");
  EXPECT_EQ((a / b).outputs()[0].node->op()->name(), "elemwise_div");
  EXPECT_EQ((-a).outputs()[0].node->attrs.dict.at("scalar"), "-1.0");
}

TEST(SymbolTest, GroupAndIndexing) {
  Symbol a = Symbol::Variable("a");
  Symbol b = Symbol::Variable("b");
  Symbol g = Symbol::Group({a, b, a + b});
  EXPECT_EQ(g.num_outputs(), 3u);
  EXPECT_EQ(g[1].name(), "b");
  EXPECT_EQ(g["b"].name(), "b");
  EXPECT_THROW(g[3], Error);
  try {
    g["nope"];
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no output named 'nope'"), std::string::npos);
  }
  EXPECT_THROW(g.name(), Error);
}

TEST(SymbolTest, AttrScopeAppliesHiddenKeysToOpsAndCreatedVariables) {
  Symbol data = Symbol::Variable("data");
  Symbol fc;
  {
    AttrScope scope(AttrMap{{"ctx_group", "stage1"}, {"lr_mult", "0.5"}});
    fc = OpCall("FullyConnected").Name("fc").Attr("num_hidden", 4).Input(data);
  }
  EXPECT_EQ(fc.Attr("ctx_group"), "stage1");
  EXPECT_EQ(fc.Attr("__ctx_group__"), "stage1");
  EXPECT_EQ(fc.Attr("lr_mult"), "0.5");
  std::map<std::string, AttrMap> dict = fc.AttrDict();
  EXPECT_EQ(dict.at("fc_weight").at("__ctx_group__"), "stage1");
  EXPECT_EQ(dict.count("data"), 0u);  // created outside the scope
  Symbol after = OpCall("FullyConnected").Name("fc_after").Attr("num_hidden", 4).Input(data);
  EXPECT_FALSE(after.Attr("ctx_group").has_value());
}

TEST(SymbolTest, NestedAttrScopesInnerWins) {
  AttrScope outer(AttrMap{{"ctx_group", "a"}, {"wd_mult", "0.1"}});
  AttrScope inner(AttrMap{{"ctx_group", "b"}});
  Symbol v = Symbol::Variable("v");
  EXPECT_EQ(v.Attr("ctx_group"), "b");
  EXPECT_EQ(v.Attr("wd_mult"), "0.1");
}

TEST(SymbolTest, VariableOptionsAreHiddenAttributes) {
  VariableOptions opts;
  opts.shape = Shape{2, 3};
  opts.dtype = DType::kFloat16;
  opts.lr_mult = 2.0;
  opts.wd_mult = 0.0;
  opts.init = "[\"zero\", {}]";
  opts.attrs = {{"ctx_group", "dev1"}, {"__mine__", "x"}};
  Symbol v = Symbol::Variable("w", opts);
  EXPECT_EQ(v.ListAttr(), (AttrMap{{"__ctx_group__", "dev1"},
                                   {"__dtype__", "2"},
                                   {"__init__", "[\"zero\", {}]"},
                                   {"__lr_mult__", "2.0"},
                                   {"__mine__", "x"},
                                   {"__shape__", "(2, 3)"},
                                   {"__wd_mult__", "0.0"}}));
}

TEST(SymbolTest, BatchNormAuxStatesAndInitAttributes) {
  Symbol data = Symbol::Variable("data");
  Symbol bn = OpCall("BatchNorm").Name("bn").Input(data);
  EXPECT_EQ(bn.ListArguments(), (Names{"data", "bn_gamma", "bn_beta"}));
  EXPECT_EQ(bn.ListAuxiliaryStates(), (Names{"bn_moving_mean", "bn_moving_var"}));
  EXPECT_EQ(bn.ListOutputs(), Names{"bn_output"});
  EXPECT_EQ(bn.GetInternals()["bn_moving_var"].Attr("__init__"), "[\"one\", {}]");
  EXPECT_EQ(bn.GetInternals()["bn_moving_mean"].Attr("__init__"), "[\"zero\", {}]");
  EXPECT_EQ(bn.outputs()[0].node->inputs[3].version, 1u);
}

TEST(SymbolTest, ComposeReplacesArgumentsWithoutMutating) {
  Symbol x = Symbol::Variable("x");
  Symbol net = OpCall("FullyConnected").Name("fc").Attr("num_hidden", 3).Input(x);
  Symbol data = Symbol::Variable("data");
  Symbol pre = OpCall("Activation").Name("pre").Attr("act_type", "relu").Input(data);
  Symbol composed = net.Compose({{"x", pre}});
  EXPECT_EQ(composed.ListArguments(), (Names{"data", "fc_weight", "fc_bias"}));
  EXPECT_EQ(net.ListArguments(), (Names{"x", "fc_weight", "fc_bias"}));  // unchanged
  EXPECT_THROW(net.Compose({{"nope", pre}}), Error);
}

TEST(SymbolTest, OpCallErrorsNameTheNodeAndInput) {
  Symbol x = Symbol::Variable("x");
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] {
              OpCall("FullyConected").Input(x).Build();
            }).find("unknown op 'FullyConected' (did you mean 'FullyConnected'?)"),
            std::string::npos);
  std::string m = message(
      [&] { OpCall("FullyConnected").Name("fc").Attr("num_hidden", 3).Input("dat", x).Build(); });
  EXPECT_NE(m.find("operator 'fc' (FullyConnected): has no input named 'dat'"), std::string::npos)
      << m;
  m = message(
      [&] { OpCall("FullyConnected").Name("fc").Attr("num_hidden", "x").Input(x).Build(); });
  EXPECT_NE(m.find("num_hidden"), std::string::npos) << m;
  m = message([&] {
    OpCall("FullyConnected").Name("fc").Attr("num_hidden", 3).Attr("bogus", 1).Input(x).Build();
  });
  EXPECT_NE(m.find("unknown attribute 'bogus'"), std::string::npos) << m;
  m = message([&] {
    OpCall("FullyConnected").Name("fc").Attr("num_hidden", 3).Input(x).Input("data", x).Build();
  });
  EXPECT_NE(m.find("input 'data' is given twice"), std::string::npos) << m;
  m = message([&] { OpCall("elemwise_add").Name("add").Input(x).Input(x).Input(x).Build(); });
  EXPECT_NE(m.find("got 3 positional inputs"), std::string::npos) << m;
  m = message([&] {
    OpCall("Activation").Attr("act_type", "relu").Input(Symbol::Group({x, x})).Build();
  });
  EXPECT_NE(m.find("has 2 outputs"), std::string::npos) << m;
  m = message([&] { OpCall("Concat").Attr("num_args", 3).Input(x).Input(x).Build(); });
  EXPECT_NE(m.find("num_args = 3 but 2 inputs are given"), std::string::npos) << m;
}

TEST(SymbolTest, VariadicOpsCountTheirInputs) {
  Symbol a = Symbol::Variable("a"), b = Symbol::Variable("b"), c = Symbol::Variable("c");
  Symbol cat = OpCall("Concat").Name("cat").Input(a).Input(b).Input(c);
  EXPECT_EQ(cat.ListAttr().at("num_args"), "3");
  EXPECT_EQ(cat.ListArguments(), (Names{"a", "b", "c"}));
}

TEST(SymbolTest, DebugStrListsOpsAndInputs) {
  std::string s = Mlp().DebugStr();
  EXPECT_NE(s.find("Symbol Outputs:\n\toutput[0]=softmax(0)"), std::string::npos) << s;
  EXPECT_NE(s.find("Op:FullyConnected, Name=fc1"), std::string::npos);
  EXPECT_NE(s.find("Variable:fc1_weight"), std::string::npos);
  EXPECT_NE(s.find("num_hidden=128"), std::string::npos);
}

TEST(SymbolTest, SharedSubgraphsAreVisitedOnce) {
  Symbol a = Symbol::Variable("a");
  Symbol s = OpCall("Activation").Name("s").Attr("act_type", "relu").Input(a);
  Symbol y = s + s;
  EXPECT_EQ(y.ListArguments(), Names{"a"});
  EXPECT_EQ(y.GetInternals().num_outputs(), 3u);
}

TEST(SymbolTest, LongChainsDoNotOverflowTheStack) {
  Symbol x = Symbol::Variable("x");
  for (int i = 0; i < 100000; ++i) x = x + 1.0;
  EXPECT_EQ(x.ListArguments(), Names{"x"});
  EXPECT_EQ(x.InferShape({{"x", Shape{2}}}).out_shapes[0], Shape({2}));
}

}  // namespace
}  // namespace symx
