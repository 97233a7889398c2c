// Peak device memory of a training bind and step, against the no-reuse sum
// (every argument, gradient and intermediate in its own buffer).
#include <cstdio>

#include "devices/device.h"
#include "executor/executor.h"
#include "graph/symbol.h"
#include "tools/examples/models.h"

int main() {
  using namespace symx;
  struct Case {
    const char* name;
    Symbol net;
    Shape data;
  } cases[] = {{"MLP 784-128-64-10, batch 256", examples::Mlp(), Shape{256, 784}},
               {"LeNet, batch 64", examples::LeNet(), Shape{64, 1, 28, 28}},
               {"ResNet block, batch 8", examples::ResNetBlock(), Shape{8, 3, 224, 224}}};
  std::printf("training bind: peak device memory vs no-reuse sum\n");
  for (const Case& c : cases) {
    Allocator& alloc = GetDevice(Context::CPU(0)).value()->allocator();
    size_t base = alloc.bytes_in_use();
    alloc.ResetPeak();
    std::map<std::string, Shape> shapes = {{"data", c.data}};
    for (const std::string& a : c.net.ListArguments()) {
      if (a.size() > 6 && a.compare(a.size() - 6, 6, "_label") == 0) shapes[a] = Shape{c.data[0]};
    }
    auto exe = Executor::SimpleBind(c.net, {.shapes = shapes});
    exe->Forward(true);
    exe->Backward();
    MemoryStats m = exe->memory_stats()[0];
    size_t peak = alloc.peak_bytes() - base;
    size_t no_reuse = m.no_reuse_bytes + m.array_bytes;
    size_t args = 0;
    for (const Tensor& t : exe->arg_arrays()) args += t.nbytes();
    for (const Tensor& t : exe->grad_arrays()) args += t.defined() ? t.nbytes() : 0;
    for (const Tensor& t : exe->aux_arrays()) args += t.nbytes();
    no_reuse += args;
    std::printf("  %-30s peak %7.1f MB   no-reuse sum %7.1f MB   ratio %.3f\n", c.name, peak / 1e6,
                no_reuse / 1e6, static_cast<double>(peak) / no_reuse);
  }
  return 0;
}
