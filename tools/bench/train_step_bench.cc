// Training step time (Forward(is_train) + Backward) for an MLP 784-1024-1024-10
// at batch 256 and LeNet at batch 64, with the executor's memory figures.
#include <cstdio>
#include <string>

#include "executor/executor.h"
#include "graph/symbol.h"
#include "tools/bench/bench_util.h"
#include "tools/examples/models.h"

namespace {

symx::Symbol BigMlp() {
  using symx::OpCall;
  symx::Symbol x = symx::Symbol::Variable("data");
  int hidden[] = {1024, 1024};
  for (int i = 0; i < 2; ++i) {
    x = OpCall("FullyConnected")
            .Name("fc" + std::to_string(i + 1))
            .Attr("num_hidden", hidden[i])
            .Input("data", x);
    x = OpCall("Activation")
            .Name("relu" + std::to_string(i + 1))
            .Attr("act_type", "relu")
            .Input("data", x);
  }
  x = OpCall("FullyConnected").Name("fc3").Attr("num_hidden", 10).Input("data", x);
  return OpCall("SoftmaxOutput").Name("softmax").Input("data", x);
}

void Run(const char* name, const symx::Symbol& net, const symx::Shape& data) {
  using namespace symx;
  auto exe =
      Executor::SimpleBind(net, {.shapes = {{"data", data}, {"softmax_label", Shape{data[0]}}}});
  for (auto& [n, t] : exe->arg_dict()) {
    if (n != "softmax_label") t.Fill(0.01);
  }
  double s = bench::MedianSeconds(
      [&] {
        exe->Forward(true);
        exe->Backward();
      },
      /*reps=*/15);
  MemoryStats m = exe->memory_stats()[0];
  std::printf("  %-34s %8.2f ms/step   planned %6.1f MB (no reuse %6.1f MB)\n", name, s * 1e3,
              m.planned_bytes / 1e6, m.no_reuse_bytes / 1e6);
}

}  // namespace

int main() {
  std::printf("training step (forward + backward), float32\n");
  Run("MLP 784-1024-1024-10, batch 256", BigMlp(), symx::Shape{256, 784});
  Run("LeNet, batch 64", symx::examples::LeNet(), symx::Shape{64, 1, 28, 28});
  return 0;
}
