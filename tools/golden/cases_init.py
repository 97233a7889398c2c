"""Golden cases of the init family (graph/ops/init.cc): _zeros, _ones, _full
and _arange (see golden_lib.py for what a Case holds).

They have no inputs; they are checked alone (forward only) and added to a
variable, which also exercises the legacy 0-dim / infer_range shapes that are
filled from the use. Avoided on purpose: float16 _arange (MXNet 1.9.1 returns
zeros for arange(0, 1, 0.1, dtype=float16))."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _creation_cases():
    d = V("data")
    return [
        Case("_zeros_int32", mx.sym.zeros(shape=(2, 3), dtype="int32"), {}, grad=False),
        Case("_ones_float64", mx.sym.ones(shape=(3,), dtype="float64"), {}, grad=False),
        Case("_full_int_trunc", mx.sym.full(shape=(2, 2), val=2.7, dtype="int32"), {},
             grad=False, note="integer dtypes truncate the value"),
        Case("_full_float", mx.sym.full(shape=(2, 2), val=-1.25), {}, grad=False),
        Case("_arange_repeat", mx.sym.arange(start=1, stop=7, step=2, repeat=2), {},
             grad=False),
        Case("_arange_down_int", mx.sym.arange(start=7, stop=1, step=-2, dtype="int32"), {},
             grad=False),
        Case("_arange_no_stop", mx.sym.arange(start=5), {}, grad=False),
        Case("_arange_int_step_cast", mx.sym.arange(start=-2.5, stop=3, step=1.3,
                                                    dtype="int64"), {},
             grad=False, note="int dtypes cast start and step first"),
        Case("_zeros_legacy_dim_from_use", mx.sym.zeros(shape=(0, 3)) + d, {"data": (4, 3)},
             note="shape (0, 3): dim 0 inferred from the use"),
        Case("_ones_unknown_shape_from_use", mx.sym.ones(shape=()) * d, {"data": (2, 5)}),
        Case("_arange_infer_range", mx.sym.arange(start=2, step=3, infer_range=True,
                                                  repeat=2) * d,
             {"data": (6,)}),
    ]


def _more_creation_cases():
    d = V("data")
    I = mx.sym._internal
    return [
        Case("_eye", I._eye(N=3, M=4, k=1), {}, grad=False),
        Case("_eye_lower_int32", I._eye(N=4, k=-2, dtype="int32"), {}, grad=False),
        Case("_linspace", I._linspace(start=-1.5, stop=2, num=6), {}, grad=False),
        Case("_linspace_no_endpoint_int32",
             I._linspace(start=0, stop=7, num=5, endpoint=False, dtype="int32"), {}, grad=False,
             note="values computed in double, truncated"),
        Case("_contrib_arange_like", mx.sym.contrib.arange_like(d, start=1.5, step=0.5, repeat=2),
             {"data": (2, 3)}),
        Case("_contrib_arange_like_axis", mx.sym.contrib.arange_like(d, step=2, axis=-1) + 1,
             {"data": (2, 3, 4)}),
        Case("_contrib_arange_like_int8", mx.sym.contrib.arange_like(d, start=100, step=20),
             {"data": (2, 3)}, dtypes={"data": "int8"}, grad=False, note="int8 wraps"),
        Case("_zeros_without_dtype_from_use", I._zeros_without_dtype(shape=(2, 3)) + d,
             {"data": (2, 3)}, dtypes={"data": "float64"},
             note="dtype -1: the output's use gives float64"),
    ]


def cases():
    return _creation_cases() + _more_creation_cases()
