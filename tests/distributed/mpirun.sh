#!/usr/bin/env bash
# Test entry point for multi-rank tests: mpirun.sh NP PROGRAM [ARGS...] runs
# PROGRAM on NP ranks of this machine and exits with mpirun's status. The
# flags are for test machines only: root (CI runs as root) and more ranks
# than cores (2-core machines). A hard timeout keeps a broken test from
# hanging the suite.
set -euo pipefail
np=$1
shift
flags=(--oversubscribe --bind-to none)
if [ "$(id -u)" = 0 ]; then flags+=(--allow-run-as-root); fi
exec timeout --kill-after=10 "${SYMX_MPIRUN_TIMEOUT:-240}" mpirun "${flags[@]}" -np "$np" "$@"
