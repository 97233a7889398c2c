"""pip install . — builds symx's extension with Bazel and installs the `symx` package.

The extension (python/BUILD, //python:_symx.so) is built for the interpreter
running pip (SYMX_PYTHON=sys.executable), in Bazel's optimized configuration
unless SYMX_BAZEL_CONFIG names another (`SYMX_BAZEL_CONFIG=` for the default
one, which tools/test_all.sh uses to reuse its test build). Needs what
tools/setup.sh installs (Bazel, the system libraries, pybind11-dev, the
interpreter's headers) and numpy at run time.
"""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class BazelExtension(build_ext):
    def build_extension(self, ext):
        config = os.environ.get("SYMX_BAZEL_CONFIG", "opt")
        cmd = ["bazel", "build", "--repo_env=SYMX_PYTHON=" + sys.executable]
        if config:
            cmd.append("--config=" + config)
        cmd.append("//python:_symx.so")
        print("symx: " + " ".join(cmd), flush=True)
        subprocess.check_call(cmd, cwd=ROOT)
        out = subprocess.check_output(["bazel", "info"] +
                                      (["--config=" + config] if config else []) + ["bazel-bin"],
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
