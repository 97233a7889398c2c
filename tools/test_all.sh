#!/usr/bin/env bash
# Installs what is missing, then runs every test: the normal build, then the
# same suite under AddressSanitizer + UndefinedBehaviorSanitizer. This is the
# README's test command and what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bazel test //... "$@"
bazel test --config=asan //... "$@"
