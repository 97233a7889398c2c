"""Golden cases of the tensor family (graph/ops/tensor.cc): slice (crop),
slice_like, SwapAxis (swapaxes), tile, repeat, reverse (flip), Pad (pad),
stack and diag (see golden_lib.py for what a Case holds).

They get the default uniform inputs and full gradients (the gradients of
tile, repeat and edge/reflect Pad sum several output gradients per input).

Avoided on purpose: slice with a begin before -len on a positive step (MXNet's
oneDNN slice fails with "could not construct a sub-memory"; the default CPU
kernel and symx clamp like numpy)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _slice_cases():
    d = V("data")
    return [
        Case("slice_neg_step", mx.sym.slice(d, begin=(None, 3), end=(2, None), step=(1, -1)),
             {"data": (3, 5)}),
        Case("slice_3d_step2_neg", mx.sym.slice(d, begin=(1, -1), end=(3, 0), step=(1, -2)),
             {"data": (4, 5, 6)}),
        Case("slice_reverse_all_none", mx.sym.slice(d, begin=(None, None), end=(None, None),
                                                    step=(-1, -1)),
             {"data": (4, 5)}),
        Case("slice_begin_past_end_back", mx.sym.slice(d, begin=(7,), end=(None,), step=(-1,)),
             {"data": (5, 2)}),
        Case("slice_prefix_axes", mx.sym.slice(d, begin=(0, 1), end=(10, 3)),
             {"data": (4, 6, 3)}),
        Case("slice_crop_alias_step", mx.sym.crop(d, begin=(0, 1, 2), end=(3, 4, 5),
                                                  step=(2, 2, 2)),
             {"data": (3, 4, 5)}),
    ]


def _slice_like_cases():
    d, l = V("data"), V("shape_like")
    return [
        Case("slice_like_all", mx.sym.slice_like(d, l), {"data": (4, 5), "shape_like": (2, 3)}),
        Case("slice_like_neg_axis", mx.sym.slice_like(d, l, axes=(-1,)),
             {"data": (4, 5), "shape_like": (1, 3)}),
        Case("slice_like_axes_3d", mx.sym.slice_like(d, l, axes=(0, 2)),
             {"data": (3, 4, 5), "shape_like": (2, 9, 4)}),
    ]


def _swap_cases():
    d = V("data")
    return [
        Case("SwapAxis_0_2", mx.sym.SwapAxis(d, dim1=0, dim2=2), {"data": (2, 3, 4)}),
        Case("SwapAxis_neg", mx.sym.swapaxes(d, dim1=-1, dim2=1), {"data": (2, 3, 4, 5)}),
        Case("SwapAxis_default", mx.sym.SwapAxis(d), {"data": (3, 4)}),
    ]


def _tile_repeat_cases():
    d = V("data")
    return [
        Case("tile_short_reps", mx.sym.tile(d, reps=(2,)), {"data": (2, 3)}),
        Case("tile_long_reps", mx.sym.tile(d, reps=(2, 1, 3)), {"data": (2, 3)}),
        Case("tile_2d", mx.sym.tile(d, reps=(3, 2)), {"data": (2, 3)}),
        Case("repeat_flat", mx.sym.repeat(d, repeats=2), {"data": (2, 3)}),
        Case("repeat_neg_axis", mx.sym.repeat(d, repeats=3, axis=-1), {"data": (2, 3)}),
        Case("repeat_axis1_3d", mx.sym.repeat(d, repeats=2, axis=1), {"data": (2, 3, 2)}),
    ]


def _reverse_cases():
    d = V("data")
    return [
        Case("reverse_two_axes", mx.sym.reverse(d, axis=(0, 2)), {"data": (2, 3, 4)}),
        Case("reverse_flip_alias", mx.sym.flip(d, axis=1), {"data": (3, 4)}),
        Case("reverse_twice_identity", mx.sym.reverse(d, axis=(1, 1)), {"data": (3, 4)}),
    ]


def _pad_cases():
    d = V("data")
    pw4 = (0, 0, 0, 0, 1, 2, 2, 1)
    return [
        Case("Pad_constant", mx.sym.Pad(d, mode="constant", pad_width=pw4, constant_value=1.5),
             {"data": (2, 2, 3, 4)}),
        Case("Pad_edge", mx.sym.Pad(d, mode="edge", pad_width=pw4), {"data": (2, 2, 3, 4)}),
        Case("Pad_reflect", mx.sym.pad(d, mode="reflect", pad_width=(0, 0, 0, 0, 2, 2, 3, 1)),
             {"data": (2, 2, 3, 4)}),
        Case("Pad_edge_5d", mx.sym.Pad(d, mode="edge", pad_width=(0, 0, 0, 0, 1, 0, 2, 2, 0, 1)),
             {"data": (1, 2, 2, 3, 3)}),
        Case("Pad_reflect_5d",
             mx.sym.Pad(d, mode="reflect", pad_width=(0, 0, 0, 0, 1, 1, 2, 0, 3, 2)),
             {"data": (1, 2, 3, 3, 4)}),
    ]


def _stack_cases():
    a, b, c = V("a"), V("b"), V("c")
    return [
        Case("stack_axis0", mx.sym.stack(a, b, axis=0), {"a": (2, 3), "b": (2, 3)}),
        Case("stack_neg_axis", mx.sym.stack(a, b, c, axis=-1),
             {"a": (2, 3), "b": (2, 3), "c": (2, 3)}),
        Case("stack_mid_axis", mx.sym.stack(a, b, axis=1), {"a": (4, 2), "b": (4, 2)}),
    ]


def _diag_cases():
    d = V("data")
    return [
        Case("diag_1d_k1", mx.sym.diag(d, k=1), {"data": (3,)}),
        Case("diag_1d_kneg", mx.sym.diag(d, k=-2), {"data": (3,)}),
        Case("diag_2d_k1", mx.sym.diag(d, k=1), {"data": (3, 4)}),
        Case("diag_2d_kneg", mx.sym.diag(d, k=-2), {"data": (3, 4)}),
        Case("diag_3d_axes", mx.sym.diag(d, k=-1, axis1=0, axis2=2), {"data": (3, 4, 5)}),
        Case("diag_3d_neg_axes", mx.sym.diag(d, k=1, axis1=-1, axis2=0), {"data": (3, 4, 5)}),
    ]


def cases():
    return (_slice_cases() + _slice_like_cases() + _swap_cases() + _tile_repeat_cases() +
            _reverse_cases() + _pad_cases() + _stack_cases() + _diag_cases())
