// Executors on GPUs: an MLP trained on gpu(0) matches cpu(0); the same graph
// split across CPU and GPU, and across two GPUs (SYMX_LOGICAL_GPUS=2 maps two
// onto one physical device), matches the single-device run.
#include <map>
#include <string>
#include <vector>

#include "devices/tensor.h"
#include "executor/executor.h"
#include "gmock/gmock.h"
#include "graph/error.h"
#include "graph/scope.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/cuda/gpu_test_util.h"

namespace symx {
namespace {

// data -> [group "a"] fc1 -> relu -> [group "b"] fc2 -> log_softmax, plus
// 2 * (a scalar op) so elementwise kernels run too.
Symbol Mlp() {
  Symbol data = Symbol::Variable("data");
  Symbol h;
  {
    AttrScope scope(AttrMap{{"ctx_group", "a"}});
    h = OpCall("FullyConnected").Name("fc1").Attr("num_hidden", 32).Input(data).Build();
    h = OpCall("Activation").Name("relu1").Attr("act_type", "relu").Input(h).Build();
  }
  AttrScope scope(AttrMap{{"ctx_group", "b"}});
  h = OpCall("FullyConnected").Name("fc2").Attr("num_hidden", 10).Input(h).Build();
  h = h * 2.0 + 1.0;
  return OpCall("log_softmax").Name("out").Input(h).Build();
}

struct Result {
  std::vector<double> out;
  std::map<std::string, std::vector<double>> grads;
};

Result Train(const SimpleBindOptions& base, DType dtype, GradReq req) {
  SimpleBindOptions o = base;
  o.shapes = {{"data", Shape{8, 20}}};
  o.grad_req = req;
  o.type_dict = std::map<std::string, DType>{{"data", dtype}};
  auto exe = Executor::SimpleBind(Mlp(), o);
  int seed = 1;
  for (auto& [name, arr] : exe->arg_dict()) {
    std::vector<double> v(arr.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = ((i * 37 + seed * 11) % 19) / 19.0 - 0.5;
    ++seed;
    ThrowIfError(CopyTensor(Tensor::FromVector(arr.shape(), v, DType::kFloat64), arr));
  }
  Tensor head = Tensor::FromVector(Shape{8, 10}, std::vector<double>(80, 0.25), dtype,
                                   exe->outputs()[0].ctx());
  Result r;
  // Two steps, so grad_req add accumulates.
  for (int step = 0; step < 2; ++step) {
    exe->Forward(true);
    exe->Backward({head});
  }
  r.out = exe->outputs()[0].ToDoubles();
  for (auto& [name, g] : exe->grad_dict()) r.grads[name] = g.ToDoubles();
  return r;
}

void ExpectClose(const Result& got, const Result& want, double tol, const std::string& what) {
  ASSERT_EQ(got.out.size(), want.out.size());
  for (size_t i = 0; i < got.out.size(); ++i) {
    ASSERT_NEAR(got.out[i], want.out[i], tol * (1 + std::abs(want.out[i])))
        << what << ": output element " << i;
  }
  ASSERT_EQ(got.grads.size(), want.grads.size()) << what;
  for (const auto& [name, w] : want.grads) {
    const std::vector<double>& g = got.grads.at(name);
    ASSERT_EQ(g.size(), w.size());
    for (size_t i = 0; i < g.size(); ++i) {
      ASSERT_NEAR(g[i], w[i], tol * (1 + std::abs(w[i]))) << what << ": " << name << " " << i;
    }
  }
}

TEST(GpuExecutorTest, MlpOnGpuMatchesCpu) {
  SYMX_REQUIRE_GPUS(1);
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    for (GradReq req : {GradReq::kWrite, GradReq::kAdd}) {
      Result cpu = Train({.ctx = Context::CPU(0)}, dt, req);
      Result gpu = Train({.ctx = Context::GPU(0)}, dt, req);
      // Different GEMM blocking: float32 rounding differs, float64 hardly.
      ExpectClose(gpu, cpu, dt == DType::kFloat32 ? 1e-5 : 1e-12, DTypeName(dt));
    }
  }
}

TEST(GpuExecutorTest, CpuAndGpuInOneGraphMatchOneDevice) {
  SYMX_REQUIRE_GPUS(1);
  Result single = Train({.ctx = Context::CPU(0)}, DType::kFloat64, GradReq::kWrite);
  Result split = Train({.ctx = Context::CPU(0),
                     .group2ctx = {{"a", Context::CPU(0)}, {"b", Context::GPU(0)}}},
                    DType::kFloat64, GradReq::kWrite);
  ExpectClose(split, single, 1e-12, "cpu(0) + gpu(0)");
  Result reverse = Train({.ctx = Context::GPU(0),
                       .group2ctx = {{"a", Context::GPU(0)}, {"b", Context::CPU(0)}}},
                      DType::kFloat64, GradReq::kWrite);
  ExpectClose(reverse, single, 1e-12, "gpu(0) + cpu(0)");
}

TEST(GpuExecutorTest, TwoGpusMatchOne) {
  SYMX_REQUIRE_GPUS(2);
  for (GradReq req : {GradReq::kWrite, GradReq::kAdd}) {
    Result one = Train({.ctx = Context::GPU(0)}, DType::kFloat32, req);
    Result two = Train({.ctx = Context::GPU(0),
                     .group2ctx = {{"a", Context::GPU(0)}, {"b", Context::GPU(1)}}},
                    DType::kFloat32, req);
    // The same kernels on the same shapes: bitwise.
    ExpectClose(two, one, 0, "gpu(0) + gpu(1)");
  }
}

}  // namespace
}  // namespace symx
