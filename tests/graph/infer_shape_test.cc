// Shape inference through Symbol::InferShape: MXNet's documented cases
// (notes/mxnet-semantics.md §7-§8), partial inference, conflicts and arguments.
#include "graph/error.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

Symbol Fc(const std::string& name, const Symbol& in, int hidden) {
  return OpCall("FullyConnected").Name(name).Attr("num_hidden", hidden).Input(in);
}

Symbol Mlp2() {
  Symbol data = Symbol::Variable("data");
  Symbol fc1 = Fc("fc1", data, 1000);
  Symbol act = OpCall("Activation").Name("relu1").Attr("act_type", "relu").Input(fc1);
  return Fc("fc2", act, 10);
}

TEST(InferShapeTest, Mlp2Complete) {
  ShapeInference r = Mlp2().InferShape({{"data", Shape{100, 100}}});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.out_shapes[0], Shape({100, 10}));
  EXPECT_EQ(r.arg_shapes[1], Shape({1000, 100}));  // fc1_weight
  EXPECT_EQ(r.arg_shapes[2], Shape({1000}));
  EXPECT_EQ(r.arg_shapes[3], Shape({10, 1000}));
}

TEST(InferShapeTest, ConflictNamesTheOperatorAndBothShapes) {
  try {
    Mlp2().InferShape({{"data", Shape{100, 100}}, {"fc1_weight", Shape{1, 100}}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("Error in operator fc1 (FullyConnected)"), std::string::npos) << m;
    EXPECT_NE(m.find("[1,100]"), std::string::npos) << m;
    EXPECT_NE(m.find("[1000,100]"), std::string::npos) << m;
  }
}

TEST(InferShapeTest, PositionalFollowsListArguments) {
  ShapeInference r = Mlp2().InferShape(std::vector<Shape>{Shape{5, 7}});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.arg_shapes[1], Shape({1000, 7}));
  EXPECT_THROW(Mlp2().InferShape(std::vector<Shape>(6, Shape{1})), Error);
}

TEST(InferShapeTest, UnknownNameIsAnErrorListingCandidates) {
  try {
    Mlp2().InferShape({{"foo", Shape{1, 2}}});
    FAIL();
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("'foo' is not an input"), std::string::npos) << m;
    EXPECT_NE(m.find("[0]data"), std::string::npos) << m;
  }
}

TEST(InferShapeTest, IncompleteFullModeClearsListsPartialKeepsThem) {
  Symbol data = Symbol::Variable("data");
  Symbol prev = Symbol::Variable("prev");
  Symbol x2h = Fc("x2h", data, 128);
  Symbol h2h = Fc("h2h", prev, 128);
  Symbol out = OpCall("Activation").Attr("act_type", "relu").Input(x2h + h2h);
  ShapeInference full = out.InferShape({{"data", Shape{10, 64}}});
  EXPECT_FALSE(full.complete);
  EXPECT_TRUE(full.arg_shapes.empty());
  EXPECT_NE(full.missing.find("prev"), std::string::npos) << full.missing;
  ShapeInference partial = out.InferShapePartial({{"data", Shape{10, 64}}});
  std::vector<std::string> args = out.ListArguments();
  ASSERT_EQ(args[1], "x2h_weight");
  EXPECT_EQ(partial.arg_shapes[1], Shape({128, 64}));
  ASSERT_EQ(args[4], "h2h_weight");
  // As in MXNet: FullyConnected needs its data to say anything about its weight.
  EXPECT_TRUE(partial.arg_shapes[4].ToLegacy().empty());
  ShapeInference with_prev =
      out.InferShapePartial({{"data", Shape{10, 64}}, {"prev", Shape{10, 128}}});
  EXPECT_TRUE(with_prev.complete);
  EXPECT_EQ(with_prev.arg_shapes[4], Shape({128, 128}));
}

TEST(InferShapeTest, VariableShapeAttributeIsAHintAndCallWins) {
  VariableOptions opts;
  opts.shape = Shape{2, 3};
  Symbol a = Symbol::Variable("a", opts);
  Symbol b = Symbol::Variable("b");
  ShapeInference r = (a + b).InferShape(std::map<std::string, Shape>{});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.arg_shapes[1], Shape({2, 3}));
  ShapeInference r2 = (a + b).InferShape({{"a", Shape{5, 6}}});
  EXPECT_EQ(r2.arg_shapes[1], Shape({5, 6}));
}

TEST(InferShapeTest, ZeroDimsAreUnknownAndFilledFromOtherInputs) {
  Symbol a = Symbol::Variable("a"), b = Symbol::Variable("b");
  ShapeInference r = (a + b).InferShape({{"a", Shape{0, 10}}, {"b", Shape{12, 0}}});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.arg_shapes[0], Shape({12, 10}));
  EXPECT_EQ(r.arg_shapes[1], Shape({12, 10}));
}

TEST(InferShapeTest, FullyConnectedPlusBackwardFill) {
  Symbol a = Symbol::Variable("a"), c = Symbol::Variable("c");
  Symbol y = Fc("fc", a, 21) + c;
  ShapeInference r = y.InferShape({{"a", Shape{0, 10}}, {"c", Shape{5, 0}}});
  ASSERT_TRUE(r.complete) << r.missing;
  EXPECT_EQ(r.arg_shapes[0], Shape({5, 10}));
  EXPECT_EQ(r.arg_shapes[3], Shape({5, 21}));
}

TEST(InferShapeTest, ConvolutionBackwardFill) {
  Symbol a = Symbol::Variable("a"), c = Symbol::Variable("c");
  Symbol conv = OpCall("Convolution")
                    .Name("conv")
                    .Attr("num_filter", 21)
                    .Attr("kernel", {3, 3})
                    .Attr("pad", {1, 1})
                    .Input(a);
  ShapeInference r =
      (conv + c).InferShape({{"a", Shape{0, 10, 0, 0}}, {"c", Shape{5, 21, 32, 32}}});
  ASSERT_TRUE(r.complete) << r.missing;
  EXPECT_EQ(r.arg_shapes[0], Shape({5, 10, 32, 32}));
}

TEST(InferShapeTest, ConcatBackwardFill) {
  Symbol a = Symbol::Variable("a"), b = Symbol::Variable("b"), d = Symbol::Variable("d");
  Symbol cat = OpCall("Concat").Name("cat").Attr("dim", 1).Input(a).Input(b);
  ShapeInference r =
      (d + cat).InferShape({{"a", Shape{0, 10}}, {"b", Shape{0, 5}}, {"d", Shape{2, 0}}});
  ASSERT_TRUE(r.complete) << r.missing;
  EXPECT_EQ(r.arg_shapes[0], Shape({2, 15}));
  EXPECT_EQ(r.arg_shapes[1], Shape({2, 10}));
  EXPECT_EQ(r.arg_shapes[2], Shape({2, 5}));
}

TEST(InferShapeTest, PartialConvolutionWeight) {
  VariableOptions opts;
  opts.shape = Shape::FromLegacy({1, 0, 0, 0});
  Symbol data = Symbol::Variable("data", opts);
  Symbol conv = OpCall("Convolution")
                    .Name("conv")
                    .Attr("num_filter", 64)
                    .Attr("kernel", {7, 7})
                    .Attr("pad", {3, 3})
                    .Attr("stride", {2, 2})
                    .Input(data);
  ShapeInference r = conv.InferShapePartial(std::map<std::string, Shape>{});
  EXPECT_EQ(r.arg_shapes[1].ToLegacy(), (std::vector<int64_t>{64, 0, 7, 7}));
}

TEST(InferShapeTest, PartialDotAndTranspose) {
  Symbol a = Symbol::Variable("a"), b = Symbol::Variable("b");
  Symbol d = OpCall("dot").Input(a).Input(b);
  ShapeInference r = d.InferShapePartial({{"a", Shape{0, 3, 4}}, {"b", Shape{4, 5}}});
  EXPECT_EQ(r.out_shapes[0].ToLegacy(), (std::vector<int64_t>{0, 3, 5}));
  Symbol t = OpCall("transpose").Attr("axes", {0, 3, 2, 1}).Input(a);
  ShapeInference rt = t.InferShapePartial({{"a", Shape{0, 3, 224, 224}}});
  EXPECT_EQ(rt.out_shapes[0].ToLegacy(), (std::vector<int64_t>{0, 224, 224, 3}));
}

TEST(InferShapeTest, NothingKnownGivesUnknownOutput) {
  Symbol s = OpCall("sigmoid").Input(Symbol::Variable("x"));
  ShapeInference r = s.InferShapePartial(std::map<std::string, Shape>{});
  EXPECT_FALSE(r.complete);
  EXPECT_FALSE(r.out_shapes[0].ndim_known());
  EXPECT_TRUE(r.out_shapes[0].ToLegacy().empty());
}

TEST(InferShapeTest, TransposeOfSharedVariableConflicts) {
  Symbol v = Symbol::Variable("V"), x = Symbol::Variable("x");
  Symbol y = OpCall("transpose").Input(v) + (x + v);
  EXPECT_THROW(y.InferShape({{"x", Shape{2, 3}}}), Error);
}

TEST(InferShapeTest, WeightHintWithUnknownDim) {
  VariableOptions opts;
  opts.shape = Shape::FromLegacy({128, 0});
  Symbol w = Symbol::Variable("weight", opts);
  Symbol data = Symbol::Variable("data");
  Symbol fc = OpCall("FullyConnected").Name("fc").Attr("num_hidden", 128).Input(data).Input(w);
  ShapeInference r = fc.InferShape({{"data", Shape{10, 784}}});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.arg_shapes[1], Shape({128, 784}));
  EXPECT_EQ(r.out_shapes[0], Shape({10, 128}));
}

TEST(InferTypeTest, CastThenFullyConnected) {
  Symbol data = Symbol::Variable("data");
  Symbol cast = OpCall("Cast").Attr("dtype", "float32").Input(data);
  Symbol fc = OpCall("FullyConnected").Name("fc").Attr("num_hidden", 128).Input(cast);
  Symbol net = OpCall("SoftmaxOutput").Name("sm").Input(fc);
  TypeInference r = net.InferType({{"data", DType::kFloat16}});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.arg_types, (std::vector<DType>{DType::kFloat16, DType::kFloat32, DType::kFloat32,
                                             DType::kFloat32}));
  EXPECT_EQ(r.out_types, std::vector<DType>{DType::kFloat32});
  TypeInference p = net.InferTypePartial(std::map<std::string, DType>{});
  EXPECT_FALSE(p.complete);
  EXPECT_EQ(p.arg_types[0], DType::kUnknown);
  EXPECT_TRUE(net.InferType(std::map<std::string, DType>{}).arg_types.empty());
}

TEST(InferTypeTest, DtypeAttributeIsAHintAndConflictsAreErrors) {
  VariableOptions opts;
  opts.dtype = DType::kFloat64;
  Symbol a = Symbol::Variable("a", opts), b = Symbol::Variable("b");
  TypeInference r = (a + b).InferType(std::map<std::string, DType>{});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.arg_types[1], DType::kFloat64);
  try {
    (a + b).InferType({{"b", DType::kFloat16}});
    FAIL();
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("float16"), std::string::npos) << m;
    EXPECT_NE(m.find("float64"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace symx
