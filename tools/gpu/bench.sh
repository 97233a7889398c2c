#!/usr/bin/env bash
# The GPU benchmarks, on the GPU machine, beside PyTorch in one call (see
# tools/gpu/bench.py): carry .gpu (tools/gpu/pack.sh) and run
#   bash tools/gpu/bench.sh [--quick]
# Results: $OUT/bench.json and $OUT/bench.md (or ./gpu-logs).
set -euo pipefail
cd "$(dirname "$0")/../.."
dest="${OUT:-gpu-logs}"
mkdir -p "$dest"
[ -f .gpu/suite.tar.xz ] || { echo "no .gpu/suite.tar.xz: run tools/gpu/pack.sh on the build machine first"; exit 2; }
suite="$(mktemp -d)"
tar -xJf .gpu/suite.tar.xz -C "$suite"
suite="$suite/suite"
source tools/gpu/env.sh "$suite"
export PYTHONUNBUFFERED=1
exec python3 tools/gpu/bench.py --suite "$suite" --out "$dest" "$@"
