// Shape, DType, attribute formatting and the parameter reader.
#include "graph/attrs.h"
#include "graph/dtype.h"
#include "graph/param.h"
#include "graph/shape.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

TEST(ShapeTest, LegacyConversionAndText) {
  Shape s = Shape::FromLegacy({0, 3});
  EXPECT_TRUE(s.ndim_known());
  EXPECT_FALSE(s.dim_known(0));
  EXPECT_EQ(s.ToLegacy(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(s.ToString(), "[?,3]");
  EXPECT_EQ(Shape({2, 3}).ToTupleString(), "(2, 3)");
  EXPECT_EQ(Shape({5}).ToTupleString(), "(5,)");
  EXPECT_FALSE(Shape::FromLegacy({}).ndim_known());
  EXPECT_EQ(Shape({2, 3, 4}).Size(), 24);
}

TEST(ShapeTest, Merge) {
  Shape a = Shape::FromLegacy({0, 3});
  EXPECT_TRUE(MergeShape(&a, Shape::FromLegacy({4, 0})));
  EXPECT_EQ(a, Shape({4, 3}));
  EXPECT_FALSE(MergeShape(&a, Shape({4, 2})));
  Shape b = Shape({1, 2});
  EXPECT_FALSE(MergeShape(&b, Shape({1, 2, 3})));
  Shape unknown;
  EXPECT_TRUE(MergeShape(&unknown, Shape({7})));
  EXPECT_EQ(unknown, Shape({7}));
}

TEST(ShapeTest, ParseIntTuple) {
  EXPECT_EQ(*ParseIntTuple("(3, 3)"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(*ParseIntTuple("[1,2,3]"), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(*ParseIntTuple("(2,)"), (std::vector<int64_t>{2}));
  EXPECT_EQ(*ParseIntTuple("7"), (std::vector<int64_t>{7}));
  EXPECT_EQ(*ParseIntTuple("(2L, 3L)"), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(ParseIntTuple("()")->empty());
  EXPECT_FALSE(ParseIntTuple("(3, x)").ok());
  EXPECT_FALSE(ParseIntTuple("(3, 3").ok());
  EXPECT_FALSE(ParseIntTuple("(,)").ok());
}

TEST(DTypeTest, NamesFlagsAndSizes) {
  EXPECT_EQ(*ParseDType("float16"), DType::kFloat16);
  EXPECT_EQ(*ParseDType("0"), DType::kFloat32);
  EXPECT_EQ(*ParseDType("12"), DType::kBFloat16);
  EXPECT_FALSE(ParseDType("13").ok());
  EXPECT_FALSE(ParseDType("float8").ok());
  EXPECT_EQ(DTypeName(DType::kInt64), "int64");
  EXPECT_EQ(DTypeSize(DType::kFloat64), 8u);
  EXPECT_EQ(DTypeSize(DType::kBool), 1u);
  EXPECT_EQ(DTypeSize(DType::kUnknown), 0u);
}

TEST(AttrTest, PythonStyleFormatting) {
  EXPECT_EQ(FormatDouble(2), "2.0");
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(1e-5), "1e-05");
  EXPECT_EQ(FormatDouble(-1), "-1.0");
  EXPECT_EQ(FormatDouble(1e20), "1e+20");
  EXPECT_EQ(AttrValue(true).str(), "True");
  EXPECT_EQ(AttrValue({3, 3}).str(), "(3, 3)");
  EXPECT_EQ(AttrValue(std::vector<int64_t>{4}).str(), "(4,)");
  EXPECT_EQ(NormalizeAttrKey("ctx_group"), "__ctx_group__");
  EXPECT_EQ(NormalizeAttrKey("kernel"), "kernel");
  EXPECT_TRUE(IsDunderKey("__shape__"));
  EXPECT_FALSE(IsDunderKey("____"));
}

struct TestParam : OpParam {
  int64_t n;
  double f;
  bool b;
  std::string e;
  std::vector<int64_t> t;
};

absl::StatusOr<OpParamPtr> ParseTest(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<TestParam>();
  p->n = r.Int("n");
  p->f = r.Float("f", 0.5);
  p->b = r.Bool("b", false);
  p->e = r.Enum("e", {"x", "y"}, "x");
  p->t = r.Tuple("t", {1, 1});
  if (p->n < 0) r.Fail("n", "must be >= 0");
  return r.Finish(std::move(p));
}

TEST(ParamReaderTest, ParsesTypedValuesAndDefaults) {
  auto p = ParseTest({{"n", "3"}, {"b", "True"}, {"t", "(2, 3)"}, {"__ctx_group__", "g"}});
  ASSERT_TRUE(p.ok()) << p.status();
  const auto& tp = static_cast<const TestParam&>(**p);
  EXPECT_EQ(tp.n, 3);
  EXPECT_EQ(tp.f, 0.5);
  EXPECT_TRUE(tp.b);
  EXPECT_EQ(tp.e, "x");
  EXPECT_EQ(tp.t, (std::vector<int64_t>{2, 3}));
}

TEST(ParamReaderTest, ErrorsNameKeyAndValue) {
  auto missing = ParseTest({});
  EXPECT_NE(missing.status().message().find("required attribute 'n' is missing"),
            absl::string_view::npos);
  auto bad = ParseTest({{"n", "three"}});
  EXPECT_NE(bad.status().message().find("'n': \"three\" (expected an integer)"),
            absl::string_view::npos)
      << bad.status();
  auto range = ParseTest({{"n", "-1"}});
  EXPECT_NE(range.status().message().find("must be >= 0"), absl::string_view::npos);
  auto choice = ParseTest({{"n", "1"}, {"e", "z"}});
  EXPECT_NE(choice.status().message().find("one of x, y"), absl::string_view::npos);
  auto unknown = ParseTest({{"n", "1"}, {"zz", "1"}});
  EXPECT_NE(unknown.status().message().find("unknown attribute 'zz'"), absl::string_view::npos);
  auto flag = ParseTest({{"n", "1"}, {"b", "yes"}});
  EXPECT_FALSE(flag.ok());
}

// The accessors with MXNet-style defaults: "None" and absent differ for
// OptionalInt(key, def); BoolOrNone takes "None" as the default.
TEST(ParamReaderTest, DefaultsOfOptionalValues) {
  AttrMap none = {{"axis", "None"}, {"flag", "None"}};
  ParamReader r(none);
  EXPECT_EQ(r.OptionalInt("axis", -1), std::nullopt);
  EXPECT_TRUE(r.BoolOrNone("flag", true));
  EXPECT_EQ(r.Dtype("dtype", DType::kFloat32), DType::kFloat32);
  EXPECT_TRUE(r.Finish(std::make_shared<OpParam>()).ok());
  AttrMap absent;
  ParamReader a(absent);
  EXPECT_EQ(a.OptionalInt("axis", -1), -1);
  EXPECT_FALSE(a.BoolOrNone("flag", false));
  EXPECT_TRUE(a.FloatTuple("lrs").empty());
  EXPECT_NE(a.Finish(std::make_shared<OpParam>())
                .status()
                .message()
                .find("required attribute 'lrs' is missing"),
            absl::string_view::npos);
}

// RecordParams sees every key, default, refusal and unknown key.
TEST(ParamReaderTest, RecordParamsRecordsWhatTheParserAsks) {
  ParamRecord rec = RecordParams(ParseTest, {{"f", "x"}, {"b", "maybe"}, {"zz", "1"}});
  ASSERT_EQ(rec.specs.size(), 5u);
  EXPECT_EQ(rec.specs[0].key, "n");
  EXPECT_TRUE(rec.specs[0].required);
  EXPECT_EQ(rec.specs[1].key, "f");
  EXPECT_EQ(rec.specs[1].default_text, "0.5");
  EXPECT_EQ(rec.specs[2].default_text, "0");
  EXPECT_EQ(rec.specs[3].default_text, "x");
  EXPECT_EQ(rec.specs[4].default_text, "(1, 1)");
  // Both bad values, not only the first; the missing 'n' is no refusal.
  ASSERT_EQ(rec.refused.size(), 2u);
  EXPECT_EQ(rec.refused[0].substr(0, 2), "f:");
  EXPECT_EQ(rec.refused[1].substr(0, 2), "b:");
  EXPECT_EQ(rec.unknown, std::vector<std::string>{"zz"});
  // Outside RecordParams nothing is recorded and parsing is unchanged.
  EXPECT_TRUE(ParseTest({{"n", "1"}}).ok());
}

}  // namespace
}  // namespace symx
