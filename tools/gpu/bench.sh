#!/usr/bin/env bash
# The GPU benchmarks, on the GPU machine, beside PyTorch in one call (see
# tools/gpu/bench.py): carry .gpu (tools/gpu/pack.sh) and run
#   bash tools/gpu/bench.sh [--quick]
# Results: $OUT/bench.json and $OUT/bench.md (or ./gpu-logs).
set -euo pipefail
cd "$(dirname "$0")/../.."
dest="${OUT:-gpu-logs}"
mkdir -p "$dest"
source tools/gpu/env.sh
export PYTHONUNBUFFERED=1
exec python3 tools/gpu/bench.py --suite "$suite" --out "$dest" "$@"
