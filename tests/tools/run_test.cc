// `symx run` and `symx bench` through their library entry points: values from
// .params (plain and arg:/aux: keys) and .npy inputs, outputs and gradients
// written as .npy, seeded filling, and the errors a user can cause.
#include "tools/symx/run.h"

#include <cmath>
#include <filesystem>
#include <cstdlib>
#include <sstream>

#include "devices/npy.h"
#include "devices/params_io.h"
#include "graph/error.h"
#include "graph/scope.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tools/symx/bench.h"

namespace symx::cli {
namespace {

std::string TempDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

Tensor T(const Shape& s, const std::vector<double>& v) { return Tensor::FromVector(s, v); }

// fc (num_hidden 2) on data [3, 2]: y = x W^T + b; with `group`, fc and its
// parameters are in that ctx_group.
std::string WriteFcModel(const std::string& name, const std::string& group = "") {
  Symbol data = Symbol::Variable("data");
  AttrScope scope(group.empty() ? AttrMap{} : AttrMap{{"ctx_group", group}});
  Symbol fc = OpCall("FullyConnected").Name("fc").Attr("num_hidden", 2).Input("data", data);
  std::string path = TempDir() + "/" + name + "-symbol.json";
  fc.Save(path);
  return path;
}

const std::vector<double> kX = {1, 2, 3, 4, 5, 6};  // [3, 2]
const std::vector<double> kW = {1, 0, 1, -1};       // [2, 2]
const std::vector<double> kB = {0.5, -0.5};

std::vector<double> Load(const std::string& path) {
  return ValueOrThrow(LoadNpy(path)).ToDoubles();
}

TEST(Run, PlainParamsAndNpyInputGiveTheExactOutput) {
  RunOptions o;
  o.model.symbol_path = WriteFcModel("fc_plain");
  o.model.params_path = TempDir() + "/fc_plain.params";
  ThrowIfError(SaveParams(o.model.params_path,
                          NamedTensors{{"fc_weight", "fc_bias"}, {T({2, 2}, kW), T({2}, kB)}}));
  std::string x = TempDir() + "/fc_plain_x.npy";
  ThrowIfError(SaveNpy(x, T({3, 2}, kX)));
  o.model.inputs = {{"data", x}};
  o.out_dir = TempDir() + "/fc_plain_out";
  std::ostringstream out;
  RunRun(o, out);
  // Row r: (x0 + 0.5, x0 - x1 - 0.5).
  EXPECT_EQ(Load(o.out_dir + "/fc_output.npy"),
            (std::vector<double>{1.5, -1.5, 3.5, -1.5, 5.5, -1.5}));
  EXPECT_EQ(out.str().find("filled"), std::string::npos) << out.str();
}

TEST(Run, TrainWritesGradientsOfOnesHeads) {
  RunOptions o;
  o.model.symbol_path = WriteFcModel("fc_train");
  o.model.params_path = TempDir() + "/fc_train.params";
  ThrowIfError(SaveParams(o.model.params_path, NamedTensors{{"arg:fc_weight", "arg:fc_bias"},
                                                            {T({2, 2}, kW), T({2}, kB)}}));
  std::string x = TempDir() + "/fc_train_x.npy";
  ThrowIfError(SaveNpy(x, T({3, 2}, kX)));
  o.model.inputs = {{"data", x}};
  o.model.train = true;
  o.out_dir = TempDir() + "/fc_train_out";
  std::ostringstream out;
  RunRun(o, out);
  // dW[j] = sum over rows of x (head grads are ones); db = 3; dx[r] = column sums of W.
  EXPECT_EQ(Load(o.out_dir + "/fc_weight_grad.npy"), (std::vector<double>{9, 12, 9, 12}));
  EXPECT_EQ(Load(o.out_dir + "/fc_bias_grad.npy"), (std::vector<double>{3, 3}));
  EXPECT_EQ(Load(o.out_dir + "/data_grad.npy"), (std::vector<double>{2, -1, 2, -1, 2, -1}));
}

TEST(Run, FillsWhatIsNotGivenFromTheSeedDeterministically) {
  RunOptions o;
  o.model.symbol_path = WriteFcModel("fc_seed");
  o.model.shapes = {{"data", Shape{3, 2}}};
  o.model.seed = 7;
  std::ostringstream out;
  o.out_dir = TempDir() + "/fc_seed_a";
  RunRun(o, out);
  EXPECT_NE(out.str().find("filled from seed 7: data, fc_weight, fc_bias"), std::string::npos)
      << out.str();
  o.out_dir = TempDir() + "/fc_seed_b";
  RunRun(o, out);
  o.model.seed = 8;
  o.out_dir = TempDir() + "/fc_seed_c";
  RunRun(o, out);
  std::vector<double> a = Load(TempDir() + "/fc_seed_a/fc_output.npy");
  EXPECT_EQ(a, Load(TempDir() + "/fc_seed_b/fc_output.npy"));
  EXPECT_NE(a, Load(TempDir() + "/fc_seed_c/fc_output.npy"));
}

TEST(Run, SoftmaxLabelsAreClassIds) {
  Symbol data = Symbol::Variable("data");
  Symbol fc = OpCall("FullyConnected").Name("fc").Attr("num_hidden", 4).Input("data", data);
  Symbol net = OpCall("SoftmaxOutput").Name("softmax").Input("data", fc);
  RunOptions o;
  o.model.symbol_path = TempDir() + "/sm-symbol.json";
  net.Save(o.model.symbol_path);
  o.model.shapes = {{"data", Shape{50, 3}}};
  o.model.train = true;
  o.out_dir = TempDir() + "/sm_out";
  std::ostringstream out;
  RunRun(o, out);
  // The loss head needs no head gradient; its output rows are distributions.
  std::vector<double> p = Load(o.out_dir + "/softmax_output.npy");
  ASSERT_EQ(p.size(), 200u);
  EXPECT_NEAR(p[0] + p[1] + p[2] + p[3], 1.0, 1e-5);
  // d(fc_bias) = sum over rows of (p - onehot(label)): sums to zero only if
  // every label is a valid class id.
  std::vector<double> db = Load(o.out_dir + "/fc_bias_grad.npy");
  EXPECT_NEAR(db[0] + db[1] + db[2] + db[3], 0.0, 1e-4);
}

TEST(Run, AuxStatesFromACheckpoint) {
  Symbol data = Symbol::Variable("data");
  Symbol bn = OpCall("BatchNorm").Name("bn").Attr("fix_gamma", false).Input("data", data);
  RunOptions o;
  o.model.symbol_path = TempDir() + "/bn-symbol.json";
  bn.Save(o.model.symbol_path);
  o.model.params_path = TempDir() + "/bn.params";
  ThrowIfError(SaveParams(
      o.model.params_path,
      NamedTensors{{"arg:bn_gamma", "arg:bn_beta", "aux:bn_moving_mean", "aux:bn_moving_var"},
                   {T({2}, {2, 1}), T({2}, {0, 1}), T({2}, {1, 2}), T({2}, {4, 0.25})}}));
  o.model.shapes = {{"data", Shape{1, 2}}};
  std::string x = TempDir() + "/bn_x.npy";
  ThrowIfError(SaveNpy(x, T({1, 2}, {3, 3})));
  o.model.inputs = {{"data", x}};
  o.model.shapes.clear();
  o.out_dir = TempDir() + "/bn_out";
  std::ostringstream out;
  RunRun(o, out);
  std::vector<double> y = Load(o.out_dir + "/bn_output.npy");
  // (x - mean) / sqrt(var + eps) * gamma + beta, eps = 1e-3 (MXNet's default).
  EXPECT_NEAR(y[0], (3 - 1) / std::sqrt(4 + 1e-3) * 2 + 0, 1e-4);
  EXPECT_NEAR(y[1], (3 - 2) / std::sqrt(0.25 + 1e-3) * 1 + 1, 1e-4);
}

std::string RunError(const RunOptions& o) {
  std::ostringstream out;
  try {
    RunRun(o, out);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Run, BadParamsAreErrorsNamingFileAndKey) {
  RunOptions o;
  o.model.symbol_path = WriteFcModel("fc_bad");
  o.model.shapes = {{"data", Shape{3, 2}}};
  o.out_dir = TempDir() + "/fc_bad_out";
  o.model.params_path = TempDir() + "/fc_bad.params";

  ThrowIfError(SaveParams(o.model.params_path, NamedTensors{{"fc_weight"}, {T({2, 3}, kX)}}));
  std::string e = RunError(o);
  EXPECT_NE(e.find("fc_bad.params: 'fc_weight' has shape [2,3]"), std::string::npos) << e;
  EXPECT_NE(e.find("[2,2]"), std::string::npos) << e;

  ThrowIfError(SaveParams(o.model.params_path, NamedTensors{{"arg:nope"}, {T({2}, kB)}}));
  e = RunError(o);
  EXPECT_NE(e.find("key 'arg:nope' names no argument"), std::string::npos) << e;

  ThrowIfError(SaveParams(o.model.params_path, NamedTensors{{"aux:fc_bias"}, {T({2}, kB)}}));
  e = RunError(o);
  EXPECT_NE(e.find("names no auxiliary state"), std::string::npos) << e;

  ThrowIfError(SaveParams(o.model.params_path, NamedTensors{{}, {T({2}, kB)}}));
  e = RunError(o);
  EXPECT_NE(e.find("unnamed"), std::string::npos) << e;

  ThrowIfError(SaveParams(o.model.params_path,
                          NamedTensors{{"fc_bias", "arg:fc_bias"}, {T({2}, kB), T({2}, kB)}}));
  e = RunError(o);
  EXPECT_NE(e.find("given twice"), std::string::npos) << e;

  o.model.params_path = TempDir() + "/does-not-exist.params";
  e = RunError(o);
  EXPECT_NE(e.find("does-not-exist.params"), std::string::npos) << e;
}

TEST(Run, ParametersMissingFromTheFileAreErrorsUnlessAllowed) {
  Symbol data = Symbol::Variable("data");
  Symbol fc = OpCall("FullyConnected").Name("fc").Attr("num_hidden", 2).Input("data", data);
  Symbol net = OpCall("BatchNorm").Name("bn").Input("data", fc);
  RunOptions o;
  o.model.symbol_path = TempDir() + "/fc_bn_missing-symbol.json";
  net.Save(o.model.symbol_path);
  o.model.shapes = {{"data", Shape{3, 2}}};
  o.out_dir = TempDir() + "/fc_bn_missing_out";
  o.model.params_path = TempDir() + "/fc_bn_missing.params";
  ThrowIfError(SaveParams(o.model.params_path, NamedTensors{{"arg:fc_weight", "arg:bn_gamma"},
                                                            {T({2, 2}, kW), T({2}, {1, 1})}}));
  // Everything the file lacks is named at once; data is an input (--shape).
  std::string e = RunError(o);
  EXPECT_NE(e.find("fc_bn_missing.params lacks 4 parameters the model needs: fc_bias, bn_beta, "
                   "bn_moving_mean (aux), bn_moving_var (aux)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("--allow-missing"), std::string::npos) << e;

  // --allow-missing fills them from the seed and says so.
  o.model.allow_missing = true;
  std::ostringstream out;
  RunRun(o, out);
  EXPECT_NE(out.str().find("--allow-missing: " + o.model.params_path +
                           " lacks fc_bias, bn_beta, bn_moving_mean (aux), bn_moving_var (aux); "
                           "filled from the seed"),
            std::string::npos)
      << out.str();
}

TEST(Run, AnEmptyParamsFileIsNoParametersAndADirectoryIsNamed) {
  RunOptions o;
  o.model.symbol_path = WriteFcModel("fc_empty");
  o.model.shapes = {{"data", Shape{3, 2}}};
  o.out_dir = TempDir() + "/fc_empty_out";
  // mx.nd.save(f, {}): the header and a zero count, no names.
  o.model.params_path = TempDir() + "/fc_empty.params";
  ThrowIfError(SaveParams(o.model.params_path, NamedTensors{}));
  std::string e = RunError(o);
  EXPECT_NE(e.find("fc_empty.params lacks 2 parameters the model needs: fc_weight, fc_bias"),
            std::string::npos)
      << e;
  o.model.allow_missing = true;
  EXPECT_EQ(RunError(o), "no error");

  o.model.params_path = TempDir() + "/a-directory.params";
  std::filesystem::create_directories(o.model.params_path);
  e = RunError(o);
  EXPECT_NE(e.find("a-directory.params: it is a directory, not a file"), std::string::npos) << e;
}

TEST(Run, InputShapeConflictsAreErrors) {
  RunOptions o;
  o.model.symbol_path = WriteFcModel("fc_conflict");
  std::string x = TempDir() + "/fc_conflict_x.npy";
  ThrowIfError(SaveNpy(x, T({3, 2}, kX)));
  o.model.inputs = {{"data", x}};
  o.model.shapes = {{"data", Shape{4, 2}}};
  EXPECT_NE(RunError(o).find("[3,2]"), std::string::npos);
  o.model.shapes = {{"data", Shape{0, 2}}};  // 0 = unknown: agrees
  o.out_dir = TempDir() + "/fc_conflict_out";
  EXPECT_EQ(RunError(o), "no error");
  o.model.inputs = {{"weight", x}};
  EXPECT_NE(RunError(o).find("'weight' is not an argument"), std::string::npos);
}

TEST(RunMain, ExitCodes) {
  std::ostringstream out, err;
  EXPECT_EQ(RunMain({}, out, err), 2);
  EXPECT_EQ(RunMain({"m.json", "--bogus"}, out, err), 2);
  EXPECT_EQ(RunMain({"m.json", "--shape", "data=x"}, out, err), 2);
  EXPECT_EQ(RunMain({"/nonexistent-symbol.json"}, out, err), 1);
  const std::string grouped = WriteFcModel("fc_main", "g");
  auto run_with = [&](const std::string& group2ctx) {
    return RunMain({grouped, "--shape", "data=3,2", "--group2ctx", group2ctx, "--out-dir",
                    TempDir() + "/fc_main_out"},
                   out, err);
  };
  EXPECT_EQ(run_with("g=cpu(1)"), 0) << err.str();
  EXPECT_EQ(run_with("g=bogus"), 2);
  err.str("");
  EXPECT_EQ(run_with("other=cpu(1)"), 1);  // the model's group g has no device
  EXPECT_NE(err.str().find("not found for group g"), std::string::npos) << err.str();
  EXPECT_EQ(RunMain({"--help"}, out, err), 0);
}

TEST(Bench, ReportsTimesAndMemoryAsJson) {
  BenchOptions o;
  o.model.symbol_path = WriteFcModel("fc_bench");
  o.model.shapes = {{"data", Shape{8, 2}}};
  o.model.train = true;
  o.iters = 5;
  o.json = true;
  BenchResult r = RunBench(o);
  ASSERT_EQ(r.ms.size(), 5u);
  EXPECT_LE(r.min, r.median);
  EXPECT_LE(r.median, r.max);
  std::ostringstream out;
  PrintBench(o, r, out);
  nlohmann::json doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["iters"], 5);
  EXPECT_TRUE(doc["ms_per_iter"].contains("median"));
  EXPECT_TRUE(doc["ms_per_iter"].contains("min"));
  EXPECT_TRUE(doc["ms_per_iter"].contains("max"));
  EXPECT_TRUE(doc["bytes_planned"].is_number());
  EXPECT_TRUE(doc["bytes_allocated"].is_number());
  EXPECT_FALSE(doc.contains("devices"));  // one device
}

// --dtype sets the inputs' dtype and the network follows: float64 plans twice
// float32's bytes; a bad name is a usage error naming it.
TEST(Bench, DTypeFlagSetsTheNetworksDType) {
  BenchOptions o;
  o.model.symbol_path = WriteFcModel("fc_bench_dtype");
  o.model.shapes = {{"data", Shape{8, 2}}};
  o.model.train = true;
  o.iters = 1;
  const size_t f32 = RunBench(o).memory.at(0).planned_bytes;
  o.model.dtype = DType::kFloat64;
  const size_t f64 = RunBench(o).memory.at(0).planned_bytes;
  EXPECT_GT(f32, 0u);
  EXPECT_EQ(f64, 2 * f32);
  std::ostringstream out, err;
  const std::string model = WriteFcModel("fc_bench_dtype_main");
  EXPECT_EQ(BenchMain({model, "--shape", "data=4,2", "--iters", "1", "--dtype", "float64"}, out,
                      err),
            0)
      << err.str();
  EXPECT_EQ(BenchMain({model, "--shape", "data=4,2", "--dtype", "float99"}, out, err), 2);
  EXPECT_NE(err.str().find("float99"), std::string::npos) << err.str();
  err.str("");
  EXPECT_EQ(BenchMain({model, "--dtype", "float16"}, out, err), 2);
  EXPECT_NE(err.str().find("--dtype applies to the --shape inputs"), std::string::npos)
      << err.str();
}

TEST(BenchMain, ExitCodes) {
  std::ostringstream out, err;
  EXPECT_EQ(BenchMain({"m.json", "--iters", "0"}, out, err), 2);
  EXPECT_EQ(BenchMain({"m.json", "--out-dir", "x"}, out, err), 2);
  EXPECT_EQ(BenchMain({"/nonexistent-symbol.json", "--shape", "data=1,2"}, out, err), 1);
  out.str("");
  EXPECT_EQ(
      BenchMain({WriteFcModel("fc_bench_main"), "--shape", "data=4,2", "--iters", "2"}, out, err),
      0);
  EXPECT_NE(out.str().find("ms per iter: median"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace symx::cli
