"""Golden cases of the shape family (graph/ops/shape.cc): Flatten, Reshape,
expand_dims, squeeze, transpose, Concat, SliceChannel and slice_axis, and two
graphs whose reshaped entry is a head more than once (MXNet 1.9.1 drops one
head's gradient there) (see golden_lib.py for what a Case holds)."""
import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _shape_cases():
    d = V("data")
    out = []
    out.append(Case("Flatten", mx.sym.Flatten(d), {"data": (2, 3, 4)}))
    for label, shape, kw in [("special", (0, -1), {}), ("minus2", (-2,), {}),
                             ("minus3", (-3, 4), {}), ("minus4", (-4, 1, 2, 0, 0), {}),
                             ("reverse", (-1, 0), {"reverse": True})]:
        out.append(Case("Reshape_" + label, mx.sym.Reshape(d, shape=shape, **kw),
                        {"data": (2, 3, 4)}))
    out.append(Case("expand_dims", mx.sym.expand_dims(d, axis=-1), {"data": (2, 3)}))
    out.append(Case("squeeze", mx.sym.squeeze(mx.sym.expand_dims(d, axis=1), axis=1),
                    {"data": (2, 3)}))
    out.append(Case("transpose_default", mx.sym.transpose(d), {"data": (2, 3, 4)}))
    out.append(Case("transpose_axes", mx.sym.transpose(d, axes=(1, 0, 2)), {"data": (2, 3, 4)}))
    out.append(Case("Concat_dim1", mx.sym.Concat(d, d * 2, dim=1), {"data": (2, 3)}))
    out.append(Case("rnn_param_concat",
                    mx.sym._internal._rnn_param_concat(
                        d, mx.sym._internal._mul_scalar(d, scalar=2, name="twice"), V("w"),
                        dim=0, num_args=3, name="params"),
                    {"data": (6,), "w": (4,)}))
    out.append(Case("SliceChannel", mx.sym.SliceChannel(d, num_outputs=3, axis=1),
                    {"data": (2, 6, 2)}))
    out.append(Case("SliceChannel_squeeze",
                    mx.sym.SliceChannel(d, num_outputs=3, axis=1, squeeze_axis=True),
                    {"data": (2, 3, 2)}))
    out.append(Case("slice_axis", mx.sym.slice_axis(d, axis=1, begin=1, end=-1),
                    {"data": (2, 5)}))
    return out


def _mxnet_gradient_bug_cases():
    # One reshaped entry given twice as a head (and once through another op).
    # MXNet 1.9.1 drops one head's gradient for this graph, so its input
    # gradient disagrees with finite differences; the case stores the finite
    # differences and case.json records MXNet's error.
    x = V("x")
    r = mx.sym.Reshape(x, shape=(2, 6))
    return [
        Case("reshape_shared_heads", mx.sym.Group([r, r, mx.sym.square(r)]), {"x": (3, 4)},
             fd=True, note="MXNet 1.9.1's gradient drops a repeated head"),
        Case("reshape_distinct_heads", mx.sym.Group([mx.sym.sum(r, axis=1), r * 3]),
             {"x": (3, 4)}, fd=True),
    ]


def cases():
    return _shape_cases() + _mxnet_gradient_bug_cases()
