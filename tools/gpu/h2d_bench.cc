// Host <-> gpu(0) bandwidth through the CUDA device's byte movers, from
// pageable host memory (what bound arrays and numpy buffers are): one JSON
// line per direction. tools/gpu/bench.py runs it with SYMX_PINNED_STAGING=1
// and =0 beside PyTorch's pageable and pinned copies.
//   h2d_bench [MiB] [reps]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "devices/device.h"
#include "devices/engine_options.h"
#include "devices/tensor.h"
#include "graph/error.h"
#include "tools/env/engine_env.h"

int main(int argc, char** argv) {
  using symx::Context;
  const size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 512;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 10;
  const size_t bytes = mib << 20;
  absl::Status options = symx::SetDeviceOptionsFromEnvironment();
  if (!options.ok()) {
    std::fprintf(stderr, "h2d_bench: %s\n", std::string(options.message()).c_str());
    return 2;
  }
  auto device = symx::GetDevice(Context::GPU(0));
  if (!device.ok()) {
    std::fprintf(stderr, "h2d_bench: %s\n", std::string(device.status().message()).c_str());
    return 1;
  }
  symx::Device& gpu = **device;
  auto dev = symx::Tensor::Empty(symx::Shape{static_cast<int64_t>(bytes)}, symx::DType::kUint8,
                                 Context::GPU(0));
  if (!dev.ok()) {
    std::fprintf(stderr, "h2d_bench: %s\n", std::string(dev.status().message()).c_str());
    return 1;
  }
  void* dst = dev->raw_data();
  std::vector<char> host(bytes, 1);
  auto time_best = [&](auto&& copy) {
    double best = 1e30;
    for (int r = 0; r < reps + 1; ++r) {  // the first is a warm-up
      const auto t0 = std::chrono::steady_clock::now();
      symx::ThrowIfError(copy());
      symx::ThrowIfError(gpu.Synchronize());
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0) best = std::min(best, s);
    }
    return bytes / best / 1e9;
  };
  const double h2d = time_best([&] { return gpu.CopyFromHost(host.data(), dst, bytes); });
  const double d2h = time_best([&] { return gpu.CopyToHost(dst, host.data(), bytes); });
  std::printf("{\"bytes\": %zu, \"staging\": \"%s\", \"h2d_GBps\": %.2f, \"d2h_GBps\": %.2f}\n",
              bytes, symx::GetDeviceOptions().pinned_staging ? "1" : "0", h2d, d2h);
  return 0;
}
