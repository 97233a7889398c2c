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
# Under AddressSanitizer (bazel test --config=asan), leak checking is off for
# the ranks: Open MPI leaves its own allocations (and those of the components
# it dlopens, which LSan cannot even name) at MPI_Finalize. Every other ASan
# and UBSan check stays on; the in-process tests keep leak checking for symx.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
if [ "$(id -u)" = 0 ]; then flags+=(--allow-run-as-root); fi
exec timeout --kill-after=10 "${SYMX_MPIRUN_TIMEOUT:-240}" mpirun "${flags[@]}" -np "$np" "$@"
