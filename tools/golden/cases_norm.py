"""Golden cases of the norm family (graph/ops/norm.cc): BatchNorm (and BatchNorm_v1,
_contrib_SyncBatchNorm, _contrib_BatchNormWithReLU), LayerNorm,
L2Normalization, InstanceNorm and GroupNorm (see golden_lib.py for what a Case holds)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _batch_layer_norm_cases():
    d = V("data")
    return [
        Case("BatchNorm_inference", mx.sym.BatchNorm(d, name="bn", fix_gamma=False),
             {"data": (2, 3, 2, 2)}),
        Case("BatchNorm_train", mx.sym.BatchNorm(d, name="bn", fix_gamma=False), {"data": (4, 3, 2, 2)},
             is_train=True),
        Case("BatchNorm_train_fix_gamma", mx.sym.BatchNorm(d, name="bn"), {"data": (4, 3)},
             is_train=True),
        Case("BatchNorm_global_stats", mx.sym.BatchNorm(d, name="bn", use_global_stats=True,
                                                        fix_gamma=False),
             {"data": (2, 3, 2)}, is_train=True),
        # BatchNorm's variants. MXNet's BatchNorm_v1 and SyncBatchNorm update the
        # moving statistics in backward, symx in the training forward: the
        # cases run both, so the aux states compare.
        Case("BatchNorm_v1_train", mx.sym.BatchNorm_v1(d, name="bn", fix_gamma=False),
             {"data": (4, 3, 2, 2)}, is_train=True),
        # MXNet's backward after an inference forward uses the training formula
        # (batch-statistics terms over the moving statistics) in BatchNorm_v1 and
        # BatchNormWithReLU, and neither runs in float64 for finite differences:
        # their inference cases check the forward pass (tests/ops/norm_test checks
        # the inference gradient against finite differences).
        Case("BatchNorm_v1_inference", mx.sym.BatchNorm_v1(d, name="bn"), {"data": (2, 3)},
             grad=False),
        Case("SyncBatchNorm_train",
             mx.sym.contrib.SyncBatchNorm(d, name="bn", fix_gamma=False, key="bn0"),
             {"data": (4, 3, 2, 2)}, is_train=True),
        Case("SyncBatchNorm_inference",
             mx.sym.contrib.SyncBatchNorm(d, name="bn", ndev=4, key="bn1"), {"data": (2, 3, 2)},
             # MXNet's backward waits at a barrier for all ndev devices.
             grad=False),
        Case("BatchNormWithReLU_train",
             mx.sym.contrib.BatchNormWithReLU(d, name="bn", fix_gamma=False),
             {"data": (4, 3, 2, 2)}, is_train=True),
        Case("BatchNormWithReLU_inference", mx.sym.contrib.BatchNormWithReLU(d, name="bn"),
             {"data": (2, 3, 2, 2)}, grad=False),
        Case("LayerNorm", mx.sym.LayerNorm(d, name="ln"), {"data": (2, 3, 4)}),
        Case("LayerNorm_axis0", mx.sym.LayerNorm(d, axis=0, name="ln"), {"data": (3, 2)}),
    ]


def _l2_cases():
    d = V("data")
    out = []
    for mode in ["instance", "channel", "spatial"]:
        out.append(Case("L2Normalization_%s" % mode, mx.sym.L2Normalization(d, mode=mode),
                        {"data": (2, 3, 2, 2)}))
        out.append(Case("L2Normalization_%s_eps" % mode,
                        mx.sym.L2Normalization(d, mode=mode, eps=0.5), {"data": (2, 3, 4)},
                        note="eps inside the root: x / sqrt(sum(x^2) + eps)"))
    out.append(Case("L2Normalization_instance_2d", mx.sym.L2Normalization(d), {"data": (4, 5)}))
    return out


def _instance_norm_cases():
    d, g, b = V("data"), V("gamma"), V("beta")
    return [
        Case("InstanceNorm_3d", mx.sym.InstanceNorm(d, g, b), {"data": (2, 3, 5)}),
        Case("InstanceNorm_4d", mx.sym.InstanceNorm(d, g, b, eps=1e-5), {"data": (2, 3, 3, 4)},
             rtol=1e-3, atol=1e-4),
        Case("InstanceNorm_eps_big", mx.sym.InstanceNorm(d, g, b, eps=0.3), {"data": (1, 2, 6)}),
    ]


def _group_norm_cases():
    d, g, b = V("data"), V("gamma"), V("beta")
    return [
        Case("GroupNorm_one_group", mx.sym.GroupNorm(d, g, b), {"data": (2, 4, 3, 2)},
             rtol=1e-3, atol=1e-4),
        Case("GroupNorm_two_groups", mx.sym.GroupNorm(d, g, b, num_groups=2),
             {"data": (2, 6, 2, 3)}, rtol=1e-3, atol=1e-4,
             note="gamma and beta are per group: shape (num_groups,)"),
        Case("GroupNorm_group_per_channel", mx.sym.GroupNorm(d, g, b, num_groups=4, eps=0.3),
             {"data": (2, 4, 5)}, rtol=1e-3, atol=1e-4),
        Case("GroupNorm_output_mean_var",
             mx.sym.GroupNorm(d, g, b, num_groups=3, output_mean_var=True),
             {"data": (2, 6, 4)}, grad=False,
             note="outputs mean and std = sqrt(var + eps), (N, num_groups)"),
    ]


def cases():
    return _batch_layer_norm_cases() + _l2_cases() + _instance_norm_cases() + _group_norm_cases()
