"""Golden cases of the ordering family (graph/ops/ordering.cc): argmax, argmin,
argmax_channel, sort, argsort, topk and cumsum. Sort and topk inputs are the
default uniform values, which have no ties, so MXNet's order is unambiguous;
one small case per op has ties in rows of at most 16 elements, where MXNet's
CPU sort keeps the original order (see golden_lib.py for what a Case holds)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _arg_reduce_cases():
    d = V("data")
    ties = np.array([[1, 3, 3, 0], [2, 2, -1, -1], [5, 0, 5, 5]], dtype=np.float64)
    return [
        Case("argmax_axis1_ties", mx.sym.argmax(d, axis=1), {"data": (3, 4)},
             values={"data": ties}, grad=False),
        Case("argmin_axis0_keepdims", mx.sym.argmin(d, axis=0, keepdims=True), {"data": (3, 4)},
             values={"data": ties}, grad=False),
        Case("argmax_flat", mx.sym.argmax(d), {"data": (3, 4)}, values={"data": ties},
             grad=False),
        Case("argmin_neg_axis_3d", mx.sym.argmin(d, axis=-2), {"data": (2, 3, 4)}, grad=False),
        Case("argmax_float64", mx.sym.argmax(d, axis=-1), {"data": (2, 5)},
             dtypes={"data": "float64"}, grad=False),
        Case("argmax_channel_3d", mx.sym.argmax_channel(d), {"data": (2, 3, 4)}, grad=False),
    ]


def _sort_cases():
    d = V("data")
    ties = np.array([[3, 1, 3, 2, 1, 3, 0, 1], [0, 0, 1, 1, 0, 2, 2, 1]], dtype=np.float64)
    return [
        Case("sort_last_axis", mx.sym.sort(d, axis=-1), {"data": (3, 5)},
             note="axis given: MXNet 1.9.1 cannot build the gradient of sort with the default axis"),
        Case("sort_default_axis_forward", mx.sym.sort(d), {"data": (3, 5)}, grad=False),
        Case("sort_axis0_desc", mx.sym.sort(d, axis=0, is_ascend=False), {"data": (4, 3)}),
        Case("sort_flat", mx.sym.sort(d, axis=None), {"data": (3, 4)}),
        Case("argsort_axis1_3d", mx.sym.argsort(d, axis=1), {"data": (2, 4, 3)}, grad=False),
        Case("argsort_desc_int32", mx.sym.argsort(d, is_ascend=False, dtype="int32"),
             {"data": (3, 6)}, grad=False),
        Case("argsort_ties_small_rows", mx.sym.argsort(d, is_ascend=False), {"data": (2, 8)},
             values={"data": ties}, grad=False,
             note="rows of <= 16 elements: MXNet's std::sort keeps ties in order"),
        Case("topk_indices_default", mx.sym.topk(d), {"data": (3, 5)}, grad=False),
        Case("topk_value_k2", mx.sym.topk(d, k=2, ret_typ="value"), {"data": (3, 5)}),
        Case("topk_both_axis0_asc", mx.sym.topk(d, axis=0, k=2, ret_typ="both", is_ascend=True),
             {"data": (4, 3)}, no_grad=[]),
        Case("topk_mask_k3", mx.sym.topk(d, k=3, ret_typ="mask"), {"data": (2, 6)}, grad=False),
        Case("topk_all_k0", mx.sym.topk(d, k=0, ret_typ="value"), {"data": (2, 5)}),
        Case("topk_flat_both", mx.sym.topk(d, axis=None, k=4, ret_typ="both"), {"data": (3, 4)}),
        Case("topk_partial_sort", mx.sym.topk(d, k=2, ret_typ="both", dtype="int32"),
             {"data": (2, 40)}, note="8 k <= n: MXNet's partial sort"),
        Case("topk_ties_k_size", mx.sym.topk(d, k=8, ret_typ="indices"), {"data": (2, 8)},
             values={"data": ties}, grad=False),
    ]


def _cumsum_cases():
    a = V("a")
    return [
        Case("cumsum_flat", mx.sym.cumsum(a), {"a": (2, 3, 4)}),
        Case("cumsum_axis1", mx.sym.cumsum(a, axis=1), {"a": (2, 3, 4)}),
        Case("cumsum_axis0_float64_out", mx.sym.cumsum(a, axis=0, dtype="float64"),
             {"a": (3, 4)}),
        Case("cumsum_int32", mx.sym.cumsum(a, axis=1), {"a": (2, 5)},
             values={"a": np.arange(10).reshape(2, 5) - 4}, dtypes={"a": "int32"}, grad=False),
    ]


def cases():
    return _arg_reduce_cases() + _sort_cases() + _cumsum_cases()
