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
seconds="${1:-300}"
out="$(mktemp -d)"
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I. -pthread \
  graph/error.cc train/recordio/record_file.cc train/recordio/image_record.cc \
  train/image/codec.cc tests/fuzz/recordio_fuzz_target.cc -o "$out/recordio_fuzzer" \
  -ljpeg -lpng16 \
  -labsl_status -labsl_statusor -labsl_strings -labsl_str_format_internal \
  -labsl_strings_internal -labsl_int128 -labsl_throw_delegate -labsl_raw_logging_internal \
  -labsl_cord -labsl_cord_internal -labsl_cordz_info -labsl_cordz_functions \
  -labsl_cordz_handle -labsl_base -labsl_spinlock_wait -labsl_synchronization -labsl_time \
  -labsl_time_zone -labsl_stacktrace -labsl_symbolize -labsl_debugging_internal \
  -labsl_demangle_internal -labsl_malloc_internal -labsl_exponential_biased \
  -labsl_graphcycles_internal -labsl_bad_optional_access
"$out/recordio_fuzzer" tests/fuzz/recordio_corpus tests/testdata/recordio \
  -max_total_time="$seconds" -max_len=16384 -rss_limit_mb=2048 -timeout=10
