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
seconds="${1:-300}"
out="$(mktemp -d)"
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I. -I/usr/include/eigen3 -DEIGEN_MPL2_ONLY -pthread \
  graph/dtype.cc graph/shape.cc graph/error.cc \
  devices/allocator.cc devices/context.cc devices/device.cc devices/tensor.cc \
  devices/cpu/cpu_device.cc devices/params_io.cc devices/npy.cc \
  tests/fuzz/params_fuzz_target.cc -o "$out/params_fuzzer" \
  -labsl_status -labsl_statusor -labsl_strings -labsl_str_format_internal \
  -labsl_strings_internal -labsl_int128 -labsl_throw_delegate -labsl_raw_logging_internal \
  -labsl_cord -labsl_cord_internal -labsl_cordz_info -labsl_cordz_functions \
  -labsl_cordz_handle -labsl_base -labsl_spinlock_wait -labsl_synchronization -labsl_time \
  -labsl_time_zone -labsl_stacktrace -labsl_symbolize -labsl_debugging_internal \
  -labsl_demangle_internal -labsl_malloc_internal -labsl_exponential_biased \
  -labsl_graphcycles_internal -labsl_bad_optional_access
"$out/params_fuzzer" tests/fuzz/params_corpus tests/testdata/bad_params \
  -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 -timeout=10 \
  -dict=tests/fuzz/params.dict
