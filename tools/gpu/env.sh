# Sourced on the GPU machine from the repository root: unpacks the suite
# that tools/gpu/pack.sh made (.gpu/suite.tar.xz) into a temporary folder,
# sets $suite to it, and puts the suite's own libraries and the machine's
# cuBLAS/cuDNN/NCCL (the pip packages' folders under its Python, then CUDA's
# lib64) on LD_LIBRARY_PATH.
if [ ! -f .gpu/suite.tar.xz ]; then
  echo "no .gpu/suite.tar.xz: run tools/gpu/pack.sh on the build machine first" >&2
  exit 2
fi
suite="$(mktemp -d)"
tar -xJf .gpu/suite.tar.xz -C "$suite"
suite="$suite/suite"
libs="$suite/lib"
py_nvidia="$(python3 -c 'import nvidia, os; print(list(nvidia.__path__)[0])' 2>/dev/null || true)"
if [ -n "$py_nvidia" ]; then
  for d in "$py_nvidia"/*/lib; do libs="$libs:$d"; done
fi
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && libs="$libs:$d"
done
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
