#!/usr/bin/env bash
# Builds what runs on the GPU machine (which has no Bazel) and packs it into
# .gpu/ (git-ignored; the device tool carries it with `carry: [".gpu"]`):
# the GPU tests and conformance suites linked statically against the
# project's code, the data files they read, and the non-CUDA shared libraries
# they need (Abseil, GoogleTest, oneDNN, ...). cuBLAS/cuDNN/NCCL come from the
# GPU machine itself (tools/gpu/run.sh finds them).
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/gpu/targets.sh
targets=("${SYMX_GPU_TESTS[@]}" "${SYMX_GPU_CONFORMANCE[@]}")
bazel build --config=cuda -c opt --dynamic_mode=off "${targets[@]}"
rm -rf .gpu
mkdir -p .gpu/bin .gpu/lib .gpu/data/tests/cuda
for t in "${targets[@]}"; do
  path="bazel-bin/$(echo "${t#//}" | tr ':' '/')"
  cp "$path" .gpu/bin/
done
cp tests/cuda/gpu_kernels_missing.txt .gpu/data/tests/cuda/
# Shared libraries from the system that the GPU machine may lack: everything
# ldd resolves outside the C library and CUDA's own.
for b in .gpu/bin/*; do
  ldd "$b" | awk '/=> \// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libgcc_s.so*) ;;
    libcuda.so*|libcudart.so*|libcublas*|libcudnn*|libnccl*|libnvrtc*|libnvJitLink*) ;;
    *) cp -L "$lib" .gpu/lib/ ;;
  esac
done
du -sh .gpu
echo "packed: run it there with  bash tools/gpu/run.sh  (carry .gpu)"
