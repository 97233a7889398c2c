"""Golden cases of the indexing family (graph/ops/indexing.cc): one_hot, pick,
take, gather_nd, Embedding, batch_take, ravel_multi_index, unravel_index and
contrib.index_array. Index inputs get fixed values (including
out-of-range ones for the clip and wrap modes) and no gradient (see golden_lib.py for what a Case holds)."""
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


def _embedding_cases():
    d = V("data")
    return [
        Case("Embedding", mx.sym.Embedding(d, input_dim=6, output_dim=3, name="emb"),
             {"data": (2, 3)}, values={"data": np.array([0, 5, 2, 2, 1, 4])}, no_grad=["data"]),
    ]


def _index_math_cases():
    a, i, d = V("a"), V("indices"), V("data")
    return [
        Case("batch_take", mx.sym.batch_take(a, i), {"a": (4, 3), "indices": (4,)},
             values={"indices": np.array([0, 2, -1, 5])}, dtypes={"indices": "int32"},
             grad=False, note="MXNet clips indices to the row"),
        Case("ravel_multi_index", mx.sym.ravel_multi_index(d, shape=(3, 4, 5)), {"data": (3, 4)},
             values={"data": np.array([[0, 2, 1, 2], [3, 0, 1, 3], [4, 1, 0, 2]])}, grad=False),
        Case("unravel_index_int64", mx.sym.unravel_index(d, shape=(3, 4, 5)), {"data": (4,)},
             values={"data": np.array([0, 59, 22, 37])}, dtypes={"data": "int64"}, grad=False),
        Case("index_array", mx.sym.contrib.index_array(d), {"data": (3, 2)}, grad=False),
        Case("index_array_axes", mx.sym.contrib.index_array(d, axes=(1, -3)),
             {"data": (3, 2, 2)}, grad=False),
    ]


def cases():
    return (_one_hot_cases() + _pick_cases() + _take_cases() + _gather_nd_cases() +
            _embedding_cases() + _index_math_cases())
