"""Golden cases from the differential fuzzer's findings (tools/difftest/found/).

Each finding is a minimized graph with its inputs and a verdict per differing
output or gradient. A finding becomes a case when its verdicts say who was
wrong ("symx" ones only once symx is fixed, since the case holds MXNet's
answer; "undecided" and "ill-conditioned" ones never):
  - MXNet wrong in a gradient judged by finite differences: fd=True, the
    gradients come from central differences of MXNet's float64 forward;
  - MXNet wrong, judged by MXNet's own float64 answer: the case runs in float64;
  - symx wrong (now fixed): MXNet's float32 answer, as any case.
Findings judged by central differences of symx's own float64 forward (where
MXNet refuses float64: CTCLoss, SoftmaxActivation) make no case: a golden
gradient from symx would test symx against itself. docs/numerics.md lists them.
Inputs span up to +-90, so tensors compare scaled (relative to their largest
element).
"""
import glob
import json
import os

import numpy as np

import mxnet as mx
from golden_lib import Case

FOUND = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "difftest", "found")


# Findings whose other gradients sit on a kink, where central differences
# give a number and the derivative is infinite: only the gradients named here
# come from finite differences, the others keep MXNet's (the engines agreed
# on them). s15_g36: cbrt(maximum(c3, v4)) with c3 = 0 > v4 at element 0.
# The _mod findings (s31_g620, s34_g1322: relu; s39_g600: gelqf; s33_g785,
# s35_g2036: DeformableConvolution outputs of exactly 0) divide by a zero
# divisor, where _mod jumps, and s40_g236's prod sits on a zero factor:
# finite differences there are no derivative, so only the gradients MXNet got
# wrong come from them.
FD_ONLY = {"s15_g36": ["v4"], "s31_g620": ["c2"], "s34_g1322": ["c1"],
           "s33_g785": ["v0", "v1"], "s35_g2036": ["v2", "v3"], "s39_g600": ["v6"],
           "s40_g236": ["v3", "v4"]}


def _case(path):
    with open(path) as f:
        found = json.load(f)
    verdicts = found["verdicts"].values()
    kinds = {v["wrong"] for v in verdicts}
    if not kinds <= {"mxnet", "symx"}:
        return None
    if any(v.get("judge", "").startswith("finite differences of symx") for v in verdicts):
        return None
    # A 0-d input (s36_g268: beside a squeezed SliceChannel output) cannot be
    # bound by golden_lib (mx.nd.zeros(()) fails in MXNet 1.9.1); the symx bug
    # it found has its test in tests/python/test_ndarray.py.
    if any(not v["shape"] for v in found["values"].values()):
        return None
    symbol = mx.sym.load_json(json.dumps(found["symbol"]))
    values = {k: np.array(v["data"], dtype=np.float64).reshape(v["shape"])
              for k, v in found["values"].items()}
    args = symbol.list_arguments()
    shapes = {k: values[k].shape for k in args}
    fd = any(v.get("judge") == "finite differences" for v in verdicts)
    fd_names = FD_ONLY.get(found["tag"])
    dtypes = {}
    if "mxnet" in kinds and not fd:
        dtypes = {k: "float64" for k in args}
    note = "difftest %s: %s wrong in %s" % (
        found["tag"], "/".join(sorted(kinds)), ", ".join(sorted(found["verdicts"])))
    return Case("fuzz_" + found["tag"], symbol, shapes, values=values, dtypes=dtypes, fd=fd,
                fd_names=fd_names,
                rtol=2e-4, atol=1e-5, compare="scaled", note=note)


def cases():
    out = []
    for path in sorted(glob.glob(os.path.join(FOUND, "*.json"))):
        c = _case(path)
        if c is not None:
            out.append(c)
    return out
