#!/usr/bin/env bash
# Fuzzes the .params and .npy loaders with clang's libFuzzer (+ ASan/UBSan).
#   bash tools/fuzz_params.sh [SECONDS]   (default 300)
# Builds outside Bazel, whose autoconfigured toolchain is gcc; the sources are
# the few graph/ and devices/ files the loaders need. New interesting inputs
# land in tests/fuzz/params_corpus/ (commit the useful ones, after
# `-merge=1` minimization if it grew); crashers are written as crash-* in the
# current directory: add each to the corpus, fix the bug, and
# tests/fuzz:params_corpus_test replays it forever after. Seeds come from
# tests/testdata/make_params_files.py.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/fuzz_link.sh
seconds="${1:-300}"
out="$(mktemp -d)"
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I. -I/usr/include/eigen3 -DEIGEN_MPL2_ONLY -pthread \
  graph/dtype.cc graph/shape.cc graph/error.cc \
  devices/allocator.cc devices/context.cc devices/device.cc devices/tensor.cc \
  devices/cpu/cpu_device.cc devices/params_io.cc devices/npy.cc \
  tests/fuzz/params_fuzz_target.cc -o "$out/params_fuzzer" \
  "${FUZZ_ABSL_LIBS[@]}"
"$out/params_fuzzer" tests/fuzz/params_corpus tests/testdata/bad_params \
  -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 -timeout=10 \
  -dict=tests/fuzz/params.dict
