#!/usr/bin/env bash
# Installs what is missing, builds the symx tool and runs the main job. Until the
# executor exists (README.md, Status) the main job inspects the bundled ResNet
# block: shapes, dtypes and parameter count as MXNet would infer them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bazel build -c opt //tools/symx
bazel-bin/tools/symx/symx inspect tools/examples/resnet_block-symbol.json \
  --shape data=1,3,224,224 "$@"
