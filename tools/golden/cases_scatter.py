"""Golden cases of the scatter family (graph/ops/scatter.cc): _slice_assign
(_crop_assign), _slice_assign_scalar (_crop_assign_scalar), scatter_nd,
_scatter_set_nd and contrib.index_copy. MXNet registers no gradient for the
slice assignments (binding one for gradients fails there), so their cases
are forward only; _scatter_set_nd has none (golden_test.cc's kNoGoldenCase); index inputs get fixed values with
distinct positions (see golden_lib.py for what a Case holds)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable
I = mx.sym._internal


def _slice_assign_cases():
    a, b = V("lhs"), V("rhs")
    return [
        Case("slice_assign_rows", I._slice_assign(a, b, begin=(0,), end=(1,)),
             {"lhs": (2, 3), "rhs": (1, 3)}, grad=False),
        Case("slice_assign_steps",
             I._slice_assign(a, b, begin=(None, 4), end=(None, 0), step=(2, -2)),
             {"lhs": (3, 5), "rhs": (2, 2)}, grad=False),
        Case("crop_assign_alias", I._crop_assign(a, b, begin=(1, 0, 1), end=(2, 2, 4)),
             {"lhs": (2, 3, 4), "rhs": (1, 2, 3)}, grad=False),
        Case("slice_assign_scalar", I._slice_assign_scalar(a, scalar=2.5, begin=(-1,), end=(None,)),
             {"lhs": (3, 2)}, grad=False),
        Case("crop_assign_scalar_int32",
             I._crop_assign_scalar(a, scalar=-3.7, begin=(0, 1), end=(2, 3)),
             {"lhs": (3, 4)}, dtypes={"lhs": "int32"}, values={"lhs": np.arange(12).reshape(3, 4)},
             grad=False),
    ]


def _scatter_nd_cases():
    d, i = V("data"), V("indices")
    return [
        Case("scatter_nd_elements", mx.sym.scatter_nd(d, i, shape=(3, 4)),
             {"data": (3,), "indices": (2, 3)},
             values={"indices": np.array([[0, 2, 1], [3, 0, 1]])}, no_grad=["indices"]),
        Case("scatter_nd_rows_int_indices", mx.sym.scatter_nd(d, i, shape=(4, 2, 3)),
             {"data": (2, 2, 3), "indices": (1, 2)}, values={"indices": np.array([[3, 0]])},
             dtypes={"indices": "int32"}, no_grad=["indices"]),
    ]


def _index_copy_cases():
    o, i, n = V("old"), V("index"), V("new")
    return [
        Case("index_copy", mx.sym.contrib.index_copy(o, i, n), {"old": (5, 3), "index": (2,),
                                                                "new": (2, 3)},
             values={"index": np.array([4, 1])}, dtypes={"index": "int64"}, no_grad=["index"]),
        Case("index_copy_3d", mx.sym.contrib.index_copy(o, i, n),
             {"old": (4, 2, 2), "index": (3,), "new": (3, 2, 2)},
             values={"index": np.array([2, 0, 3])}, no_grad=["index"]),
    ]


def cases():
    return _slice_assign_cases() + _scatter_nd_cases() + _index_copy_cases()
