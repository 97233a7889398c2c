"""Golden cases of the pooling family (graph/ops/pooling.cc): Pooling and Pooling_v1 (see golden_lib.py for what a Case holds)."""
import mxnet as mx
import numpy as np
from golden_lib import Case

V = mx.sym.Variable


def _pooling_cases():
    d = V("data")
    out = []
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
    return out


def _pooling_v1_cases():
    d = V("data")
    out = []
    for label, kw in [
            ("max_pad", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max")),
            ("avg_pad_full", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
                                  pooling_convention="full")),
            ("sum_rect", dict(kernel=(2, 3), stride=(1, 2), pool_type="sum")),
            ("max_full", dict(kernel=(2, 2), stride=(2, 2), pool_type="max",
                              pooling_convention="full")),
            ("global_avg", dict(global_pool=True, pool_type="avg")),
            ("global_max", dict(kernel=(2, 2), global_pool=True, pool_type="max"))]:
        out.append(Case("Pooling_v1_" + label, mx.sym.Pooling_v1(d, **kw),
                        {"data": (2, 2, 5, 7)}))
    # Negative data: max windows over the zero padding return 0, and every
    # element tied with its window's maximum receives the gradient.
    ties = np.array([-1.0, -2.0, -1.0, 0.0, -1.0, -1.0, -3.0, 0.0, -1.0] * 4,
                    dtype=np.float32).reshape(1, 2, 3, 6)
    out.append(Case("Pooling_v1_max_ties", mx.sym.Pooling_v1(d, kernel=(2, 2), pad=(1, 1),
                                                             pool_type="max"),
                    {"data": (1, 2, 3, 6)}, values={"data": ties}))
    out.append(Case("Pooling_v1_avg_float64",
                    mx.sym.Pooling_v1(d, kernel=(3, 3), stride=(2, 2), pad=(1, 1),
                                      pool_type="avg"),
                    {"data": (1, 3, 6, 6)}, dtypes={"data": "float64"}, rtol=1e-12, atol=1e-13))
    return out


def cases():
    return _pooling_cases() + _pooling_v1_cases()
