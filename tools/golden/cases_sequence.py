"""Golden cases of the sequence family (graph/ops/sequence.cc): SequenceMask,
SequenceLast and SequenceReverse, with and without sequence_length (float,
int32 and int64 lengths, a fractional one; all within the data's steps,
where MXNet reads no memory outside it), along both axes where MXNet has
them (see golden_lib.py for what a Case holds)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _mask_cases():
    d, n = V("data"), V("sequence_length")
    return [
        Case("sequence_mask_identity", mx.sym.SequenceMask(d), {"data": (4, 3, 2)}),
        Case("sequence_mask_axis0_value",
             mx.sym.SequenceMask(d, n, use_sequence_length=True, value=-1.5),
             {"data": (4, 3, 2), "sequence_length": (3,)},
             values={"sequence_length": np.array([1, 4, 2.6])}, no_grad=["sequence_length"],
             note="2.6 is truncated to 2"),
        Case("sequence_mask_axis1_int32",
             mx.sym.SequenceMask(d, n, use_sequence_length=True, axis=1, value=0.1),
             {"data": (2, 5, 3), "sequence_length": (2,)},
             values={"sequence_length": np.array([3, 0])}, dtypes={"sequence_length": "int32"},
             note="value is rounded to float32"),
    ]


def _last_cases():
    d, n = V("data"), V("sequence_length")
    return [
        Case("sequence_last_default", mx.sym.SequenceLast(d), {"data": (4, 3, 2)}),
        Case("sequence_last_axis0", mx.sym.SequenceLast(d, n, use_sequence_length=True),
             {"data": (4, 3, 2), "sequence_length": (3,)},
             values={"sequence_length": np.array([1, 4, 2.6])}, no_grad=["sequence_length"]),
        Case("sequence_last_axis1_int64",
             mx.sym.SequenceLast(d, n, use_sequence_length=True, axis=1),
             {"data": (2, 5, 2, 2), "sequence_length": (2,)},
             values={"sequence_length": np.array([5, 2])}, dtypes={"sequence_length": "int64"}),
        Case("sequence_last_axis1_default", mx.sym.SequenceLast(d, axis=1), {"data": (3, 4)}),
    ]


def _reverse_cases():
    d, n = V("data"), V("sequence_length")
    return [
        Case("sequence_reverse_default", mx.sym.SequenceReverse(d), {"data": (4, 3, 2)}),
        Case("sequence_reverse_lengths", mx.sym.SequenceReverse(d, n, use_sequence_length=True),
             {"data": (4, 3, 2), "sequence_length": (3,)},
             values={"sequence_length": np.array([1, 4, 2.6])}, no_grad=["sequence_length"]),
        Case("sequence_reverse_int32_2d",
             mx.sym.SequenceReverse(d, n, use_sequence_length=True),
             {"data": (5, 2), "sequence_length": (2,)},
             values={"sequence_length": np.array([3, 5])}, dtypes={"sequence_length": "int32"}),
    ]


def cases():
    return _mask_cases() + _last_cases() + _reverse_cases()
