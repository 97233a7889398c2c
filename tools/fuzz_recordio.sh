#!/usr/bin/env bash
# Fuzzes the RecordIO reader and the JPEG/PNG decoders with clang's libFuzzer
# (+ ASan/UBSan).
#   bash tools/fuzz_recordio.sh [SECONDS]   (default 300)
# Builds outside Bazel (its autoconfigured toolchain is gcc) from the few
# train/ files involved. New interesting inputs land in
# tests/fuzz/recordio_corpus/; crashers are written as crash-* in the current
# directory: add each to the corpus, fix the bug, and
# tests/fuzz:recordio_corpus_test replays it forever after.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/fuzz_link.sh
seconds="${1:-300}"
out="$(mktemp -d)"
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I. -pthread \
  graph/error.cc train/recordio/record_file.cc train/recordio/image_record.cc \
  train/image/codec.cc tests/fuzz/recordio_fuzz_target.cc -o "$out/recordio_fuzzer" \
  -ljpeg -lpng16 \
  "${FUZZ_ABSL_LIBS[@]}"
"$out/recordio_fuzzer" tests/fuzz/recordio_corpus tests/testdata/recordio \
  -max_total_time="$seconds" -max_len=16384 -rss_limit_mb=2048 -timeout=10
