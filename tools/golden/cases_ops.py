"""Golden cases for the operators symx had before issue 10 (one module per
family; see golden_lib.py for what a Case holds)."""
import numpy as np

import mxnet as mx
from golden_lib import Case, mxop

V = mx.sym.Variable


def _act_cases():
    d = V("data")
    out = []
    # MXNet 1.9.1 has no log_sigmoid/mish act_type (symx does): not compared here.
    for t in ["relu", "sigmoid", "tanh", "softrelu", "softsign"]:
        out.append(Case("Activation_" + t, mx.sym.Activation(d, act_type=t), {"data": (3, 5)}))
    for t, extra in [("leaky", {"slope": 0.3}), ("elu", {"slope": 0.7}), ("gelu", {})]:
        out.append(Case("LeakyReLU_" + t, mx.sym.LeakyReLU(d, act_type=t, **extra),
                        {"data": (2, 3, 4)}))
    out.append(Case("LeakyReLU_selu", mx.sym.LeakyReLU(d, act_type="selu"), {"data": (2, 3, 4)},
                    fd=True, note="MXNet 1.9.1's selu gradient for x < 0 is off by up to 0.04"))
    out.append(Case("LeakyReLU_prelu", mx.sym.LeakyReLU(d, act_type="prelu", name="pr"),
                    {"data": (2, 3, 4)}))
    for op in ["exp", "negative", "square", "abs", "relu", "sigmoid", "tanh"]:
        out.append(Case("unary_" + op, getattr(mx.sym, op)(d), {"data": (4, 3)}))
    out.append(Case("unary_log", mx.sym.log(d), {"data": (4, 3)},
                    values={"data": np.linspace(0.2, 3, 12)}))
    out.append(Case("unary_sqrt", mx.sym.sqrt(d), {"data": (4, 3)},
                    values={"data": np.linspace(0.2, 3, 12)}))
    return out


def _elemwise_cases():
    a, b = V("a"), V("b")
    out = []
    for op in ["elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div"]:
        out.append(Case("binary_" + op, getattr(mx.sym, op)(a, b), {"a": (3, 4), "b": (3, 4)}))
    for op in ["_maximum", "_minimum"]:
        out.append(Case("binary" + op, getattr(mx.sym._internal, op)(a, b),
                        {"a": (3, 4), "b": (3, 4)}))
    out.append(Case("binary_power", mx.sym._internal._power(a, b), {"a": (3, 4), "b": (3, 4)},
                    values={"a": np.linspace(0.3, 2, 12)}))
    for op in ["add", "sub", "mul", "div", "maximum", "minimum"]:
        out.append(Case("broadcast_" + op, getattr(mx.sym, "broadcast_" + op)(a, b),
                        {"a": (2, 1, 4), "b": (3, 1)}))
    out.append(Case("broadcast_power", mx.sym.broadcast_power(a, b), {"a": (2, 3), "b": (1, 3)},
                    values={"a": np.linspace(0.3, 2, 6)}))
    d = V("data")
    for op, s in [("_plus_scalar", 1.5), ("_minus_scalar", 0.5), ("_rminus_scalar", 2.0),
                  ("_mul_scalar", -3.0), ("_div_scalar", 4.0), ("_maximum_scalar", 0.1),
                  ("_minimum_scalar", -0.2)]:
        out.append(Case("scalar" + op, getattr(mx.sym._internal, op)(d, scalar=s),
                        {"data": (3, 4)}))
    pos = {"data": np.linspace(0.3, 2.5, 12)}
    out.append(Case("scalar_rdiv_scalar", mx.sym._internal._rdiv_scalar(d, scalar=2.0),
                    {"data": (3, 4)}, values=pos))
    out.append(Case("scalar_power_scalar", mx.sym._internal._power_scalar(d, scalar=2.5),
                    {"data": (3, 4)}, values=pos))
    out.append(Case("scalar_rpower_scalar", mx.sym._internal._rpower_scalar(d, scalar=1.7),
                    {"data": (3, 4)}))
    out.append(Case("arith_2a_plus_b", 2 * a + b, {"a": (2, 2), "b": (2, 2)}))
    out.append(Case("ElementWiseSum", mx.sym.ElementWiseSum(a, b, a), {"a": (2, 3), "b": (2, 3)}))
    out.append(Case("clip", mx.sym.clip(d, a_min=-0.5, a_max=0.4), {"data": (3, 4)}))
    c = V("cond")
    out.append(Case("where", mx.sym.where(c, a, b), {"cond": (3, 4), "a": (3, 4), "b": (3, 4)},
                    values={"cond": (np.arange(12) % 3 == 0).astype(np.float32)},
                    no_grad=["cond"]))
    out.append(Case("Cast_float64", mx.sym.Cast(d, dtype="float64"), {"data": (2, 3)}))
    out.append(Case("Cast_int32", mx.sym.Cast(d * 4, dtype="int32"), {"data": (2, 3)},
                    grad=False))
    for name in ["zeros_like", "ones_like", "BlockGrad", "_copy"]:
        out.append(Case("misc_" + name, mxop(name)(d) + d, {"data": (2, 3)}))
    return out


def _reduce_shape_cases():
    d = V("data")
    out = []
    for op in ["sum", "mean", "max"]:
        out.append(Case("reduce_%s_all" % op, getattr(mx.sym, op)(d), {"data": (2, 3, 4)}))
        out.append(Case("reduce_%s_axis1_keep" % op, getattr(mx.sym, op)(d, axis=1, keepdims=True),
                        {"data": (2, 3, 4)}))
        out.append(Case("reduce_%s_exclude" % op,
                        getattr(mx.sym, op)(d, axis=(0, 2), exclude=True), {"data": (2, 3, 4)}))
    out.append(Case("reduce_sum_neg_axes", mx.sym.sum(d, axis=(-1, -3)), {"data": (2, 3, 4)}))
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
    out.append(Case("SliceChannel", mx.sym.SliceChannel(d, num_outputs=3, axis=1),
                    {"data": (2, 6, 2)}))
    out.append(Case("SliceChannel_squeeze",
                    mx.sym.SliceChannel(d, num_outputs=3, axis=1, squeeze_axis=True),
                    {"data": (2, 3, 2)}))
    out.append(Case("slice_axis", mx.sym.slice_axis(d, axis=1, begin=1, end=-1),
                    {"data": (2, 5)}))
    for op, ax in [("softmax", -1), ("log_softmax", 1)]:
        out.append(Case("%s_axis%d" % (op, ax), getattr(mx.sym, op)(d, axis=ax),
                        {"data": (2, 3, 4)}))
    out.append(Case("softmax_temperature", mx.sym.softmax(d, temperature=2.5), {"data": (3, 4)}))
    return out


def _dense_cases():
    d, w, b = V("data"), V("w"), V("b")
    out = [
        Case("FullyConnected", mx.sym.FullyConnected(d, num_hidden=4, name="fc"),
             {"data": (3, 5)}),
        Case("FullyConnected_4d_flatten", mx.sym.FullyConnected(d, num_hidden=3, name="fc"),
             {"data": (2, 2, 2, 3)}),
        Case("FullyConnected_noflatten_nobias",
             mx.sym.FullyConnected(d, num_hidden=3, flatten=False, no_bias=True, name="fc"),
             {"data": (2, 2, 4)}),
        Case("dot", mx.sym.dot(d, w), {"data": (3, 4), "w": (4, 2)}),
        Case("dot_transpose", mx.sym.dot(d, w, transpose_a=True, transpose_b=True),
             {"data": (4, 3), "w": (2, 4)}),
        Case("batch_dot", mx.sym.batch_dot(d, w), {"data": (2, 3, 4), "w": (2, 4, 5)}),
        Case("batch_dot_transpose_b", mx.sym.batch_dot(d, w, transpose_b=True),
             {"data": (2, 3, 4), "w": (2, 5, 4)}),
        Case("Embedding", mx.sym.Embedding(d, input_dim=6, output_dim=3, name="emb"),
             {"data": (2, 3)}, values={"data": np.array([0, 5, 2, 2, 1, 4])}, no_grad=["data"]),
    ]
    return out


def _conv_pool_cases():
    d = V("data")
    out = []
    for label, kw, shape in [
            ("3x3", dict(kernel=(3, 3), num_filter=4), (2, 3, 6, 6)),
            ("stride2_pad1", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=3),
             (1, 2, 7, 7)),
            ("dilate_group", dict(kernel=(3, 3), dilate=(2, 2), num_group=2, num_filter=4),
             (1, 4, 7, 7)),
            ("1x1_nobias", dict(kernel=(1, 1), num_filter=5, no_bias=True), (2, 3, 4, 4)),
            ("1d", dict(kernel=(3,), pad=(1,), num_filter=2), (2, 3, 8)),
            ("3d", dict(kernel=(2, 2, 2), num_filter=2), (1, 2, 3, 4, 4))]:
        out.append(Case("Convolution_" + label, mx.sym.Convolution(d, name="conv", **kw),
                        {"data": shape}, rtol=1e-4, atol=1e-4))
    for label, kw, shape in [
            ("3x3", dict(kernel=(3, 3), num_filter=2), (1, 3, 4, 4)),
            ("stride2_adj", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 1),
                                 num_filter=2), (2, 2, 3, 3)),
            ("pad_nobias", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=3,
                                no_bias=True), (1, 2, 4, 4))]:
        # target_shape is left to the conformance tests: MXNet 1.9.1's oneDNN
        # Deconvolution fails to run with it ("could not create a descriptor").
        out.append(Case("Deconvolution_" + label, mx.sym.Deconvolution(d, name="deconv", **kw),
                        {"data": shape}, rtol=1e-4, atol=1e-4))
    for label, kw in [
            ("max_2x2", dict(kernel=(2, 2), stride=(2, 2), pool_type="max")),
            ("avg_3x3_pad", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg")),
            ("avg_no_pad_count",
             dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
                  count_include_pad=False)),
            ("sum", dict(kernel=(2, 2), stride=(1, 1), pool_type="sum")),
            ("max_full", dict(kernel=(3, 3), stride=(2, 2), pool_type="max",
                              pooling_convention="full")),
            ("global_avg", dict(kernel=(1, 1), global_pool=True, pool_type="avg")),
            ("global_max", dict(kernel=(1, 1), global_pool=True, pool_type="max"))]:
        # is_train: MXNet 1.9.1's oneDNN max pooling gives a wrong gradient
        # after an inference forward pass (it keeps no workspace then).
        out.append(Case("Pooling_" + label, mx.sym.Pooling(d, **kw), {"data": (2, 2, 6, 6)},
                        is_train=True))
    out.append(Case("UpSampling_nearest", mx.sym.UpSampling(d, scale=2, sample_type="nearest"),
                    {"data": (1, 2, 3, 3)}))
    return out


def _norm_loss_cases():
    d, l = V("data"), V("label")
    out = [
        Case("BatchNorm_inference", mx.sym.BatchNorm(d, name="bn", fix_gamma=False),
             {"data": (2, 3, 2, 2)}),
        Case("BatchNorm_train", mx.sym.BatchNorm(d, name="bn", fix_gamma=False), {"data": (4, 3, 2, 2)},
             is_train=True),
        Case("BatchNorm_train_fix_gamma", mx.sym.BatchNorm(d, name="bn"), {"data": (4, 3)},
             is_train=True),
        Case("BatchNorm_global_stats", mx.sym.BatchNorm(d, name="bn", use_global_stats=True,
                                                        fix_gamma=False),
             {"data": (2, 3, 2)}, is_train=True),
        Case("LayerNorm", mx.sym.LayerNorm(d, name="ln"), {"data": (2, 3, 4)}),
        Case("LayerNorm_axis0", mx.sym.LayerNorm(d, axis=0, name="ln"), {"data": (3, 2)}),
        Case("Dropout_inference", mx.sym.Dropout(d, p=0.5), {"data": (3, 4)}),
        Case("SoftmaxOutput", mx.sym.SoftmaxOutput(d, l, name="sm"), {"data": (4, 5), "label": (4,)},
             values={"label": np.array([0, 4, 2, 1])}, no_grad=["label"]),
        Case("SoftmaxOutput_ignore_normalize",
             mx.sym.SoftmaxOutput(d, l, use_ignore=True, ignore_label=2, normalization="valid",
                                  grad_scale=2.0, name="sm"),
             {"data": (4, 3), "label": (4,)}, values={"label": np.array([0, 2, 1, 2])},
             no_grad=["label"]),
        Case("LinearRegressionOutput", mx.sym.LinearRegressionOutput(d, l, name="lro"),
             {"data": (3, 2), "label": (3, 2)}, no_grad=["label"]),
        Case("LogisticRegressionOutput", mx.sym.LogisticRegressionOutput(d, l, name="lro"),
             {"data": (3, 2), "label": (3, 2)}, no_grad=["label"]),
        Case("MAERegressionOutput", mx.sym.MAERegressionOutput(d, l, name="lro"),
             {"data": (3, 2), "label": (3, 2)}, no_grad=["label"]),
        Case("MakeLoss", mx.sym.MakeLoss(mx.sym.square(d), grad_scale=0.5), {"data": (2, 3)}),
    ]
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
    return (_act_cases() + _elemwise_cases() + _reduce_shape_cases() + _dense_cases() +
            _conv_pool_cases() + _norm_loss_cases() + _mxnet_gradient_bug_cases())
