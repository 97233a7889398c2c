"""mx.nd: NDArray and the engine's ops run at once on arrays.

The class and MXNet's Python-level functions live in symx/ndarray/ndarray.py;
symx/__init__.py adds a function here for every registered op (mx.nd.dot,
mx.nd.slice, mx.nd.max, ...), which must not shadow the builtins that module's
own code uses. mx.nd.contrib, .linalg, .random, .image, ._internal and .op
hold the same functions by group.
"""
from .ndarray import *  # noqa: F401,F403 (the public names, __all__)
from .ndarray import __all__, _wrap_all, _rebuild, _dtype_name  # noqa: F401
