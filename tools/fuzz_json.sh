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
source tools/fuzz_link.sh
seconds="${1:-300}"
out="$(mktemp -d)"
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I. graph/*.cc graph/ops/*.cc tests/fuzz/json_fuzz_target.cc -o "$out/json_fuzzer" \
  "${FUZZ_ABSL_LIBS[@]}"
"$out/json_fuzzer" tests/fuzz/json_corpus tests/testdata/bad_json tools/examples \
  -max_total_time="$seconds" -max_len=8192 -rss_limit_mb=2048 -timeout=10 \
  -dict=tests/fuzz/json.dict
