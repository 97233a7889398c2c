#!/usr/bin/env bash
# Fuzzes the symbol JSON loader with clang's libFuzzer (+ ASan/UBSan).
#   bash tools/fuzz_json.sh [SECONDS]   (default 300)
# Builds outside Bazel, whose autoconfigured toolchain is gcc; the sources are
# the graph library as a whole. New interesting inputs land in
# tests/fuzz/json_corpus/ (commit the useful ones); crashers are written as
# crash-* in the current directory: add each to the corpus, fix the bug, and
# tests/fuzz:json_corpus_test replays it forever after.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-300}"
out="$(mktemp -d)"
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I. graph/*.cc graph/ops/*.cc tests/fuzz/json_fuzz_target.cc -o "$out/json_fuzzer" \
  -labsl_status -labsl_statusor -labsl_strings -labsl_str_format_internal \
  -labsl_strings_internal -labsl_int128 -labsl_throw_delegate -labsl_raw_logging_internal \
  -labsl_cord -labsl_cord_internal -labsl_cordz_info -labsl_cordz_functions \
  -labsl_cordz_handle -labsl_base -labsl_spinlock_wait -labsl_synchronization -labsl_time \
  -labsl_time_zone -labsl_stacktrace -labsl_symbolize -labsl_debugging_internal \
  -labsl_demangle_internal -labsl_malloc_internal -labsl_exponential_biased \
  -labsl_graphcycles_internal -labsl_bad_optional_access
"$out/json_fuzzer" tests/fuzz/json_corpus tests/testdata/bad_json tools/examples \
  -max_total_time="$seconds" -max_len=8192 -rss_limit_mb=2048 -timeout=10 \
  -dict=tests/fuzz/json.dict
