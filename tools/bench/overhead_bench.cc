// Executor overhead: a chain of 1,000 one-element elementwise ops. Reports
// microseconds per op through Executor::Forward, next to the same kernels
// called directly in a loop (the floor), measured alternately in one run.
// Target: at most 1 us per op (MXNet's graph executor: 10-25 us).
// Then one direct kernel call on one element for four op families, which
// must stay well under 0.5 us (was a timed unit test; timings belong here).
#include <cstdio>

#include "devices/kernel.h"
#include "executor/executor.h"
#include "graph/op.h"
#include "graph/symbol.h"
#include "tools/bench/bench_util.h"

int main() {
  using namespace symx;
  constexpr int kOps = 1000;
  Symbol x = Symbol::Variable("x");
  Symbol y = x;
  for (int i = 0; i < kOps; ++i) {
    // Alternate two cheap ops so no pass could fold the chain.
    y = (i % 2 == 0) ? OpCall("_plus_scalar").Attr("scalar", 1.0).Input(y).Build()
                     : OpCall("_mul_scalar").Attr("scalar", 0.5).Input(y).Build();
  }
  auto exe = Executor::SimpleBind(y, {.shapes = {{"x", Shape{1}}}, .grad_req = GradReq::kNull});

  // The floor: the same kernels on the same tensors, called directly.
  const KernelInfo* plus = KernelRegistry::Find("_plus_scalar", DeviceType::kCPU);
  const KernelInfo* mul = KernelRegistry::Find("_mul_scalar", DeviceType::kCPU);
  Symbol p = OpCall("_plus_scalar").Attr("scalar", 1.0).Input(x);
  Symbol m = OpCall("_mul_scalar").Attr("scalar", 0.5).Input(x);
  Tensor a = Tensor::FromVector(Shape{1}, {1.0}), b = Tensor::FromVector(Shape{1}, {0.0});
  KernelContext pc, mc;
  pc.attrs = &p.outputs()[0].node->attrs;
  mc.attrs = &m.outputs()[0].node->attrs;
  pc.device = mc.device = GetDevice(Context::CPU(0)).value();
  pc.inputs = {a};
  pc.outputs = {b};
  mc.inputs = {b};
  mc.outputs = {a};
  pc.req = mc.req = {OpReq::kWrite};
  auto direct = [&] {
    for (int i = 0; i < kOps / 2; ++i) {
      (void)plus->fn(pc);
      (void)mul->fn(mc);
    }
  };
  auto [exec_s, direct_s] =
      bench::MedianSecondsPaired([&] { exe->Forward(false); }, direct, /*reps=*/51, /*inner=*/20);
  double exec_us = exec_s / kOps * 1e6, direct_us = direct_s / kOps * 1e6;
  std::printf("executor overhead: chain of %d one-element ops\n", kOps);
  std::printf("  Executor::Forward   %.3f us/op\n", exec_us);
  std::printf("  direct kernel calls %.3f us/op\n", direct_us);
  std::printf("  executor cost above the kernels: %.3f us/op (target <= 1 us/op total: %s)\n",
              exec_us - direct_us, exec_us <= 1.0 ? "met" : "NOT met");

  // One kernel call on one element, per op family: no pool dispatch and no
  // allocation may hide in a small call (target: well under 0.5 us each).
  Tensor one = Tensor::FromVector(Shape{1}, {0.5}), two = Tensor::FromVector(Shape{1}, {0.25});
  Tensor out = Tensor::FromVector(Shape{1}, {0.0});
  std::printf("one kernel call on one element:\n");
  struct Case {
    Symbol sym;
    std::vector<Tensor> inputs;
  };
  const Case cases[] = {
      {OpCall("relu").Input(x), {one}},
      {OpCall("broadcast_add").Input(x).Input(x), {one, two}},
      {OpCall("_plus_scalar").Attr("scalar", 1.0).Input(x), {one}},
      {OpCall("Activation").Attr("act_type", "tanh").Input(x), {one}},
  };
  for (const Case& c : cases) {
    const Node& node = *c.sym.outputs()[0].node;
    const KernelInfo* k = KernelRegistry::Find(node.op()->name(), DeviceType::kCPU);
    KernelContext ctx;
    ctx.attrs = &node.attrs;
    ctx.device = pc.device;
    ctx.inputs = c.inputs;
    ctx.outputs = {out};
    ctx.req = {OpReq::kWrite};
    double s = bench::MedianSeconds([&] { (void)k->fn(ctx); }, /*reps=*/51, /*inner=*/2000);
    std::printf("  %-14s %.3f us (%s)\n", node.op()->name().c_str(), s * 1e6,
                s <= 0.5e-6 ? "met" : "NOT met");
  }
  return 0;
}
