"""Every single-op golden case (tests/golden/cases, made with MXNet 1.9.1 by
tools/golden/make_golden.sh) run imperatively: mx.nd.<op>(inputs, **attrs)
must give MXNet's outputs within the case's tolerances. The graph path checks
the same cases in tests/golden/golden_test.cc; this is the one-op-plan path
(executor/imperative.h) over the whole operator family."""
import glob
import json
import os

import numpy as np
import pytest

import symx as mx

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "cases")


def _single_op_cases():
    """(case dir, why skipped or None) for every case."""
    out = []
    for d in sorted(glob.glob(os.path.join(CASES, "*"))):
        with open(os.path.join(d, "case.json")) as f:
            meta = json.load(f)
        with open(os.path.join(d, "symbol.json")) as f:
            sym = json.load(f)
        ops = [n for n in sym["nodes"] if n["op"] != "null"]
        if len(ops) != 1:
            why = "a graph of %d ops" % len(ops)
        elif ops[0].get("subgraphs"):
            # MXNet's mx.nd.contrib.foreach/while_loop/cond take Python
            # functions, not body graphs; symx's control-flow ops run in binds.
            why = "a control-flow node whose bodies are subgraphs"
        elif meta["fill"]:
            why = "inputs filled by formula (whole networks)"
        elif meta["is_train"]:
            why = "training mode (mx.autograd is out of scope)"
        else:
            why = None
        out.append((d, why))
    return out


ALL = _single_op_cases()
RUN = [d for d, why in ALL if why is None]


def test_the_cases_are_there():
    # The family is large; a path mistake must not make this suite empty.
    assert len(RUN) >= 500, "found %d runnable cases under %s" % (len(RUN), CASES)


@pytest.mark.parametrize("case", RUN, ids=[os.path.basename(d) for d in RUN])
def test_imperative_call_gives_mxnets_outputs(case):
    with open(os.path.join(case, "case.json")) as f:
        meta = json.load(f)
    with open(os.path.join(case, "symbol.json")) as f:
        sym = json.load(f)
    node = [n for n in sym["nodes"] if n["op"] != "null"][0]
    loaded = mx.nd.load(os.path.join(case, "args.params"))  # [] when the op has no inputs
    params = {k.split(":", 1)[1]: v for k, v in loaded.items()} if isinstance(loaded, dict) else {}
    inputs = [params[sym["nodes"][i[0]]["name"]] for i in node["inputs"]]
    result = getattr(mx.nd, node["op"])(*inputs, **node.get("attrs", {}))
    outputs = result if isinstance(result, list) else [result]
    for j, head in enumerate(sym["heads"][:meta["num_outputs"]]):
        want = np.load(os.path.join(case, "out%d.npy" % j)).astype(np.float64)
        got = outputs[head[1]].asnumpy().astype(np.float64)
        assert got.shape == want.shape, "output %d" % j
        scale = np.abs(want).max() if meta["compare"] == "scaled" and want.size else np.abs(want)
        bound = meta["atol"] + meta["rtol"] * scale
        close = (np.abs(got - want) <= bound) | (np.isnan(got) & np.isnan(want)) | (got == want)
        assert close.all(), "output %d: %s vs MXNet %s" % (j, got[~close][:5], want[~close][:5])
