"""pip install . — builds symx's extension with Bazel and installs the `symx` package.

The extension (python/BUILD, //python:_symx.so) is built for the interpreter
running pip (SYMX_PYTHON=sys.executable), in Bazel's optimized configuration
unless SYMX_BAZEL_CONFIG names another (`SYMX_BAZEL_CONFIG=` for the default
one, which tools/test_all.sh uses to reuse its test build). Needs what
tools/setup.sh installs (Bazel, the system libraries, pybind11-dev, the
interpreter's headers) and numpy at run time.

GPUs: with CUDA present (nvcc, cuDNN and NCCL under /usr/local/cuda, where
the WORKSPACE's @cuda repository points), the extension is built with
--config=cuda: the
gpu(N) devices, every op's CUDA kernel, cuDNN, cuBLAS and NCCL come with it.
SYMX_CUDA=1 insists (and fails without CUDA), SYMX_CUDA=0 declines.
SYMX_BAZEL_FLAGS adds Bazel flags (space-separated), e.g.
--define=symx_cuda_ptx_only=1, which tools/python_tests.sh --cuda uses to
check the CUDA extension on machines without a GPU in a third of the time.
"""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
CUDA = "/usr/local/cuda"
# What the CUDA build needs (third_party/cuda.BUILD): the compiler, and
# cuDNN's and NCCL's headers and libraries beside the toolkit's.
CUDA_PARTS = ["bin/nvcc", "include/cudnn.h", "include/nccl.h", "lib64/libcudnn.so",
              "lib64/libnccl.so"]


def _missing_cuda_parts():
    return [os.path.join(CUDA, p) for p in CUDA_PARTS if not os.path.exists(os.path.join(CUDA, p))]


def _with_cuda():
    """SYMX_CUDA=1/0, or whether CUDA (with cuDNN and NCCL) is installed."""
    wanted = os.environ.get("SYMX_CUDA", "").strip().lower()
    missing = _missing_cuda_parts()
    if wanted in ("1", "yes", "true", "on"):
        if missing:
            sys.exit("symx: SYMX_CUDA=1 but the CUDA build needs %s" % ", ".join(missing))
        return True
    if wanted in ("0", "no", "false", "off"):
        return False
    if wanted:
        sys.exit("symx: SYMX_CUDA must be 1 or 0 (or unset to detect CUDA), got %r" % wanted)
    if missing and os.path.exists(os.path.join(CUDA, "bin/nvcc")):
        print("symx: CUDA is installed but %s missing: building without CUDA"
              % ", ".join(missing), flush=True)
    return not missing


def bazel_flags():
    """The build's flags after `bazel build`/`bazel info` (the same for both,
    so `info bazel-bin` names this configuration's output)."""
    config = os.environ.get("SYMX_BAZEL_CONFIG", "opt")
    flags = ["--config=" + config] if config else []
    if _with_cuda():
        flags.append("--config=cuda")
    flags += os.environ.get("SYMX_BAZEL_FLAGS", "").split()
    return flags


class BazelExtension(build_ext):
    def build_extension(self, ext):
        flags = bazel_flags()
        cmd = ["bazel", "build", "--repo_env=SYMX_PYTHON=" + sys.executable] + flags
        cmd.append("//python:_symx.so")
        print("symx: " + " ".join(cmd), flush=True)
        subprocess.check_call(cmd, cwd=ROOT)
        out = subprocess.check_output(["bazel", "info"] + flags + ["bazel-bin"],
                                      cwd=ROOT, text=True).strip()
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.lexists(target):
            os.remove(target)
        shutil.copyfile(os.path.join(out, "python", "_symx.so"), target)


setup(
    name="symx",
    version="1.9.1+symx",
    description="MXNet 1.x's symbolic API (import symx as mx) on the symx engine",
    packages=["symx", "symx.module", "symx.ndarray", "symx.metric", "symx.rnn"],
    package_dir={"": "python"},
    package_data={"symx": ["_positional_attrs.json"]},
    ext_modules=[Extension("symx._symx", sources=[])],
    cmdclass={"build_ext": BazelExtension},
    install_requires=["numpy"],
    python_requires=">=3.8",
    zip_safe=False,
)
