"""Golden cases of the pooling family (graph/ops/pooling.cc): Pooling (see golden_lib.py for what a Case holds)."""
import mxnet as mx
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


def cases():
    return _pooling_cases()
