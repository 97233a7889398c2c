// The attention family's interleaved products (BERT-base shapes: 12 heads of
// width 64, 128 tokens, batch 8; 96 key/value tokens for the encoder-decoder
// ops) through the executor, each against batch_dot through the executor on
// contiguous operands of the same sizes (the same number of products of the
// same m, n, k), measured alternately in one run: forward, and forward plus
// backward. The interleaved ops read their operands in place with strides,
// where batch_dot's are packed. Target: within 1.2x of batch_dot.
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "executor/executor.h"
#include "graph/symbol.h"
#include "tools/bench/bench_util.h"

namespace {

using namespace symx;

constexpr int64_t kLen = 128, kKvLen = 96, kBatch = 8, kHeads = 12, kWidth = 64;
constexpr int64_t kMaps = kBatch * kHeads, kUnits = kHeads * kWidth;

std::unique_ptr<Executor> Bind(const Symbol& s, std::map<std::string, Shape> shapes) {
  auto exe = Executor::SimpleBind(s, {.shapes = std::move(shapes), .grad_req = GradReq::kWrite});
  int k = 0;
  for (auto& [name, t] : exe->arg_dict()) t.Fill(0.01 * (++k));
  return exe;
}

Symbol Interleaved(const std::string& kind, const std::vector<std::string>& inputs) {
  OpCall call("_contrib_interleaved_matmul_" + kind);
  call.Name("att").Attr("heads", static_cast<int>(kHeads));
  for (const std::string& in : inputs) call.Input(in, Symbol::Variable(in));
  return call;
}

Symbol BatchDot(bool transpose_b) {
  return OpCall("batch_dot")
      .Name("bd")
      .Attr("transpose_b", transpose_b)
      .Input("lhs", Symbol::Variable("lhs"))
      .Input("rhs", Symbol::Variable("rhs"));
}

// The interleaved op and the batch_dot of its size: m x k times k x n (or
// n x k transposed), kMaps products.
// A head gradient for `exe`'s output.
Tensor HeadOf(Executor& exe) {
  exe.Forward(false);
  Tensor h = Tensor::Empty(exe.outputs()[0].shape(), DType::kFloat32).value();
  h.Fill(0.5);
  return h;
}

void Compare(const char* label, std::unique_ptr<Executor> op, std::unique_ptr<Executor> dot,
             double flops) {
  const Tensor op_head = HeadOf(*op), dot_head = HeadOf(*dot);
  auto [op_s, dot_s] = bench::MedianSecondsPaired([&] { op->Forward(false); },
                                                  [&] { dot->Forward(false); }, /*reps=*/15);
  auto [op_t, dot_t] = bench::MedianSecondsPaired(
      [&] {
        op->Forward(true);
        op->Backward({op_head});
      },
      [&] {
        dot->Forward(true);
        dot->Backward({dot_head});
      },
      /*reps=*/9);
  std::printf("%-16s forward  %7.3f ms vs batch_dot %7.3f ms: %.2fx  (%.1f GFLOP/s)\n", label,
              op_s * 1e3, dot_s * 1e3, op_s / dot_s, flops / op_s * 1e-9);
  std::printf("%-16s fwd+bwd  %7.3f ms vs batch_dot %7.3f ms: %.2fx  %s\n", label, op_t * 1e3,
              dot_t * 1e3, op_t / dot_t,
              op_s / dot_s <= 1.2 && op_t / dot_t <= 1.2 ? "(within 1.2x)" : "(NOT within 1.2x)");
}

}  // namespace

int main() {
  std::printf(
      "interleaved attention products, %lld heads of %lld, batch %lld, length %lld, "
      "float32, %u hardware threads\n",
      static_cast<long long>(kHeads), static_cast<long long>(kWidth),
      static_cast<long long>(kBatch), static_cast<long long>(kLen),
      std::thread::hardware_concurrency());
  const Shape qkv{kLen, kBatch, 3 * kUnits}, kv{kKvLen, kBatch, 2 * kUnits};
  Compare("selfatt_qk",
          Bind(Interleaved("selfatt_qk", {"queries_keys_values"}), {{"queries_keys_values", qkv}}),
          Bind(BatchDot(true),
               {{"lhs", Shape{kMaps, kLen, kWidth}}, {"rhs", Shape{kMaps, kLen, kWidth}}}),
          2.0 * kMaps * kLen * kLen * kWidth);
  Compare("selfatt_valatt",
          Bind(Interleaved("selfatt_valatt", {"queries_keys_values", "attention"}),
               {{"queries_keys_values", qkv}, {"attention", Shape{kMaps, kLen, kLen}}}),
          Bind(BatchDot(false),
               {{"lhs", Shape{kMaps, kLen, kLen}}, {"rhs", Shape{kMaps, kLen, kWidth}}}),
          2.0 * kMaps * kLen * kLen * kWidth);
  Compare("encdec_qk",
          Bind(Interleaved("encdec_qk", {"queries", "keys_values"}),
               {{"queries", Shape{kLen, kBatch, kUnits}}, {"keys_values", kv}}),
          Bind(BatchDot(true),
               {{"lhs", Shape{kMaps, kLen, kWidth}}, {"rhs", Shape{kMaps, kKvLen, kWidth}}}),
          2.0 * kMaps * kLen * kKvLen * kWidth);
  Compare("encdec_valatt",
          Bind(Interleaved("encdec_valatt", {"keys_values", "attention"}),
               {{"keys_values", kv}, {"attention", Shape{kMaps, kLen, kKvLen}}}),
          Bind(BatchDot(false),
               {{"lhs", Shape{kMaps, kLen, kKvLen}}, {"rhs", Shape{kMaps, kKvLen, kWidth}}}),
          2.0 * kMaps * kLen * kKvLen * kWidth);
  return 0;
}
