// Test helper for atomic_save_test: saves a large .params file again and
// again, generation after generation (every element of generation g is g),
// and prints each generation number once its save has returned. It runs
// until it is killed.
#include <cstdio>
#include <string>

#include "devices/params_io.h"
#include "graph/error.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: save_params_loop PATH ELEMENTS\n");
    return 2;
  }
  const std::string path = argv[1];
  const int64_t elements = std::stoll(argv[2]);
  symx::Tensor t =
      symx::ValueOrThrow(symx::Tensor::Empty(symx::Shape{elements}, symx::DType::kFloat32));
  for (int gen = 1;; ++gen) {
    t.Fill(gen);
    symx::ThrowIfError(symx::SaveParams(path, symx::NamedTensors{{"arg:w"}, {t}}));
    std::printf("%d\n", gen);
    std::fflush(stdout);
  }
}
