#!/usr/bin/env bash
# Builds what runs on the GPU machine (which has no Bazel) and packs it into
# .gpu/suite.tar.xz (git-ignored; the device tool carries it with
# `carry: [".gpu"]`, which allows 64 MiB: the suite is ~100 MB unpacked,
# ~18 MB packed): the GPU tests and conformance suites linked statically
# against the project's code, the data files they read, and the non-CUDA
# shared libraries they need (Abseil, oneDNN, libstdc++, ...). cuBLAS, cuDNN
# and NCCL come from the GPU machine itself (tools/gpu/run.sh finds them).
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/gpu/targets.sh
targets=("${SYMX_GPU_TESTS[@]}" "${SYMX_GPU_CONFORMANCE[@]}" "${SYMX_GPU_RETARGETED[@]}")
bazel build --config=cuda -c opt --dynamic_mode=off "${targets[@]}" "${SYMX_GPU_TOOLS[@]}"
stage="$(mktemp -d)/suite"
mkdir -p "$stage/bin" "$stage/tools" "$stage/lib" "$stage/data"
binary() { echo "bazel-bin/$(echo "${1#//}" | tr ':' '/')"; }
for t in "${targets[@]}"; do cp "$(binary "$t")" "$stage/bin/"; done
for t in "${SYMX_GPU_TOOLS[@]}"; do cp "$(binary "$t")" "$stage/tools/"; done
for f in "${SYMX_GPU_DATA[@]}"; do
  mkdir -p "$stage/data/$(dirname "$f")"
  cp "$f" "$stage/data/$f"
done
# Shared libraries from the system that the GPU machine may lack: everything
# ldd resolves outside the C library and CUDA's own.
for b in "$stage"/bin/* "$stage"/tools/*; do
  ldd "$b" | awk '/=> \// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libgcc_s.so*) ;;
    libcuda.so*|libcudart.so*|libcublas*|libcudnn*|libnccl*|libnvrtc*|libnvJitLink*) ;;
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
done
strip --strip-unneeded "$stage"/bin/* "$stage"/tools/* "$stage"/lib/* 2>/dev/null || true
rm -rf .gpu
mkdir -p .gpu
# A 64 MiB dictionary (-9) lets xz fold the code every statically linked
# binary repeats: the carry limit is 64 MiB.
XZ_OPT=-9 tar -cJf .gpu/suite.tar.xz -C "$(dirname "$stage")" suite
rm -rf "$(dirname "$stage")"
ls -la .gpu/suite.tar.xz
echo "packed: on the GPU machine run  bash tools/gpu/run.sh  and  bash tools/gpu/bench.sh  (carry .gpu)"
