"""Golden cases for the indexing and ordering operators (issue 10): one_hot,
pick, take, gather_nd, argmax, argmin, argmax_channel, sort, argsort, topk
and cumsum. Index inputs get fixed values (including out-of-range ones for
the clip and wrap modes) and no gradient. Sort and topk inputs are the
default uniform values, which have no ties, so MXNet's order is unambiguous;
one small case per op has ties in rows of at most 16 elements, where
MXNet's CPU sort keeps the original order."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _one_hot_cases():
    i = V("indices")
    idx = np.array([0, 2, 4, 7, -1, 2.7])
    return [
        Case("one_hot_basic", mx.sym.one_hot(i, depth=5), {"indices": (6,)},
             values={"indices": idx}, grad=False),
        Case("one_hot_on_off_2d", mx.sym.one_hot(i, depth=3, on_value=2.5, off_value=-1),
             {"indices": (2, 3)}, values={"indices": np.array([[1, 0, 3], [2, -3, 1]])},
             grad=False),
        Case("one_hot_int_indices_int_out", mx.sym.one_hot(i, depth=4, dtype="int32"),
             {"indices": (4,)}, values={"indices": np.array([3, 0, 9, 1])},
             dtypes={"indices": "int32"}, grad=False),
    ]


def _pick_cases():
    d, i = V("data"), V("index")
    return [
        Case("pick_axis1_clip", mx.sym.pick(d, i, axis=1), {"data": (3, 4), "index": (3,)},
             values={"index": np.array([0, 5, -1])}, no_grad=["index"]),
        Case("pick_wrap_keepdims", mx.sym.pick(d, i, axis=-1, keepdims=True, mode="wrap"),
             {"data": (3, 4), "index": (3,)}, values={"index": np.array([-1.7, 5.2, -5])},
             no_grad=["index"]),
        Case("pick_axis0_3d_int_index", mx.sym.pick(d, i, axis=0),
             {"data": (3, 2, 4), "index": (2, 4)},
             values={"index": np.array([[0, 1, 2, 2], [1, 1, 0, 2]])},
             dtypes={"index": "int32"}, no_grad=["index"]),
        Case("pick_legacy_alias", mx.sym.choose_element_0index(d, i),
             {"data": (2, 5), "index": (2,)}, values={"index": np.array([4, 1])},
             no_grad=["index"]),
    ]


def _take_cases():
    a, i = V("a"), V("indices")
    idx = np.array([[0, 5, -1], [-4, 1.7, 1]])
    return [
        Case("take_axis0_clip", mx.sym.take(a, i), {"a": (3, 4), "indices": (2, 3)},
             values={"indices": idx}, no_grad=["indices"]),
        Case("take_axis0_wrap", mx.sym.take(a, i, mode="wrap"), {"a": (3, 4), "indices": (2, 3)},
             values={"indices": idx}, no_grad=["indices"]),
        Case("take_axis1_wrap_dup", mx.sym.take(a, i, axis=1, mode="wrap"),
             {"a": (2, 3, 4), "indices": (4,)}, values={"indices": np.array([0, 4, -1, 1])},
             no_grad=["indices"]),
        Case("take_axis_neg1_raise_int64", mx.sym.take(a, i, axis=-1, mode="raise"),
             {"a": (2, 5), "indices": (2, 2)}, values={"indices": np.array([[4, 0], [2, 2]])},
             dtypes={"indices": "int64"}, no_grad=["indices"]),
    ]


def _gather_nd_cases():
    d, i = V("data"), V("indices")
    return [
        Case("gather_nd_elements_dup", mx.sym.gather_nd(d, i), {"data": (3, 4), "indices": (2, 4)},
             values={"indices": np.array([[0, 2, 2, 1], [1, 3, 3, 0]])}, no_grad=["indices"]),
        Case("gather_nd_rows_3d", mx.sym.gather_nd(d, i), {"data": (3, 4, 2), "indices": (1, 2, 2)},
             values={"indices": np.array([[[2, 0], [1, 2]]])}, no_grad=["indices"]),
        Case("gather_nd_negative_int", mx.sym.gather_nd(d, i),
             {"data": (2, 3, 2), "indices": (2, 3)},
             values={"indices": np.array([[1, 0, -1], [2, -1, 0]])}, dtypes={"indices": "int32"},
             grad=False,
             note="forward only: MXNet 1.9.1's _backward_gather_nd does not wrap negative "
                  "indices and corrupts memory (symx wraps them as the forward does)"),
    ]


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
    return (_one_hot_cases() + _pick_cases() + _take_cases() + _gather_nd_cases() +
            _arg_reduce_cases() + _sort_cases() + _cumsum_cases())
