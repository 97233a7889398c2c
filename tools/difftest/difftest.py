"""Differential fuzzer: random graphs run through MXNet 1.9.1 and symx.

Each graph is 1-8 operators drawn from op_table.py, attributes drawn from
each parameter's domain, random shapes, float32 inputs over wide ranges
(saturating ones included), and a forward plus backward pass with random
head gradients, in MXNet (unfused: MXNET_SUBGRAPH_BACKEND=NONE) and in symx.
Where they disagree, both run again in float64 and the one farther from
MXNet's float64 answer is wrong. A failing graph is minimized (the smallest
failing prefix, then intermediate values cut into fresh inputs) and written
to tools/difftest/found/, where tools/golden/cases_fuzz.py turns it into a
golden case that CI replays without MXNet.

Needs one interpreter with both engines: the mxnet==1.9.1 venv with symx
installed into it (tools/difftest/run.sh does both). Seeded and resumable:

  bash tools/difftest/run.sh --count 500          # continues from the state file
  bash tools/difftest/run.sh --count 100 --seed 7 --state /tmp/s.json
  bash tools/difftest/run.sh --ops                # the op table

DIFFTEST_TRACE=1 prints each graph's number and each op as it is drawn (with
its input shapes), to find the graph when MXNet itself dies (it raised SIGFPE
on empty shapes; SequenceLast's backward corrupted the heap: docs/numerics.md,
erratum 28). With MXNET_USE_SIGNAL_HANDLER=0 and `python -X faulthandler`, a
crash prints the Python stack instead of MXNet's.
"""
import argparse
import collections
import glob
import json
import os
import sys
import traceback

os.environ.setdefault("MXNET_SUBGRAPH_BACKEND", "NONE")

import numpy as np  # noqa: E402

import mxnet  # noqa: E402
import symx  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from op_table import OPS  # noqa: E402
import structured  # noqa: E402

FOUND = os.path.join(HERE, "found")
# Outputs and gradients agree when |a - b| <= RTOL * max(|a|, |b|) + ATOL *
# (1 + the largest input) per tensor: float32 chains of up to 8 ops round
# differently in two engines (a log_softmax of inputs near 24 is 0 to within
# 2e-6), and a mismatch this large is a wrong answer, not rounding.
RTOL, ATOL = 2e-4, 1e-5


# ----------------------------------------------------------------------------- graphs

class Graph:
    """Nodes in topological order: variables ({"var": name, "shape", "domain"})
    and ops ({"op", "attrs", "inputs": [node index], "aux": [...]})."""

    def __init__(self):
        self.nodes = []
        self.shapes = []

    def var(self, shape, domain="any", role="data"):
        name = "v%d" % len(self.nodes)
        self.nodes.append({"var": name, "shape": list(shape), "domain": domain, "role": role})
        self.shapes.append(tuple(shape))
        return len(self.nodes) - 1

    def op(self, entry, attrs, inputs, output=None):
        """An op node; `output` picks one output of a multi-output op."""
        node = {"op": entry["op"], "attrs": attrs, "inputs": inputs}
        if output is not None:
            node["output"] = output
        self.nodes.append(node)
        self.shapes.append(None)
        i = len(self.nodes) - 1
        if os.environ.get("DIFFTEST_TRACE"):
            print("trace:", node, [self.shapes[j] for j in inputs], flush=True)
        try:
            self.shapes[i] = tuple(self.infer(i))
            if 0 in self.shapes[i]:
                # empty outputs (a deconvolution padded away): MXNet's ops
                # downstream divide by zero (UpSampling raises SIGFPE)
                raise ValueError("empty output %s" % (self.shapes[i],))
        except Exception:
            self.nodes.pop()
            self.shapes.pop()
            raise
        return i

    def build(self, lib, outputs):
        syms = {}
        needed = set()
        for o in outputs:
            needed.update(self.ancestors(o))
        for i in sorted(needed):
            n = self.nodes[i]
            if "var" in n:
                syms[i] = lib.sym.Variable(n["var"])
            else:
                ins = [syms[j] for j in n["inputs"]]
                kw = dict(_call_attrs(n["attrs"]))
                if n["op"] in _AUX_BY_NAME:
                    # a legacy op whose Python signature lists only its
                    # arguments: the moving statistics go by name
                    kw.update(zip(_AUX_BY_NAME[n["op"]], ins[3:]))
                    ins = ins[:3]
                syms[i] = _sym_op(lib, n["op"])(*ins, name="n%d" % i, **kw)
                if "output" in n:
                    syms[i] = syms[i][n["output"]]
        return lib.sym.Group([syms[i] for i in outputs]) if len(outputs) > 1 else syms[outputs[0]]

    def infer(self, i):
        s = self.build(mxnet, [i])
        known = {self.nodes[j]["var"]: self.shapes[j] for j in self.ancestors(i)
                 if "var" in self.nodes[j] and self.nodes[j]["role"] != "aux"}
        _, out, _ = s.infer_shape(**known)
        return out[0]

    def ancestors(self, i):
        seen, stack = set(), [i]
        while stack:
            k = stack.pop()
            if k in seen:
                continue
            seen.add(k)
            stack.extend(self.nodes[k].get("inputs", []))
        return sorted(seen)

    def sinks(self):
        used = {j for n in self.nodes for j in n.get("inputs", [])}
        return [i for i, n in enumerate(self.nodes) if "op" in n and i not in used]


# Submodules MXNet files prefixed ops under: _linalg_gemm is sym.linalg.gemm.
_PREFIXES = {"_contrib_": "contrib", "_linalg_": "linalg", "_image_": "image",
             "_random_": "random"}


def _sym_op(lib, name):
    """The symbol function for an op; MXNet keeps the underscored ones
    (_plus_scalar, _maximum, ...) in sym._internal only, and the prefixed
    ones (_contrib_X, _linalg_X, _image_X, _random_X) as sym.contrib.X, ..."""
    for prefix, module in _PREFIXES.items():
        f = getattr(getattr(lib.sym, module), name[len(prefix):], None) \
            if name.startswith(prefix) else None
        if f is not None:
            return f
    f = getattr(lib.sym, name, None) or getattr(lib.sym._internal, name, None)
    # MXNet files the densities (_random_pdf_normal) as sym.random_pdf_normal
    return f if f is not None else getattr(lib.sym, name.lstrip("_"))


def _has_op(lib, name):
    try:
        _sym_op(lib, name)
        return True
    except AttributeError:
        return False


_AUX_BY_NAME = {"BatchNorm_v1": ("moving_mean", "moving_var")}


def _call_attrs(attrs):
    return {k: v for k, v in attrs.items() if v is not None}


def _adapt(g, rng, i, domain):
    """Node i's value brought into `domain` by ops of the graph itself (an
    intermediate value cannot be drawn where an op is defined)."""
    if domain == "any" or "var" in g.nodes[i]:
        return i
    op = lambda name, attrs, inputs: g.op({"op": name}, attrs, inputs)  # noqa: E731
    if domain in ("positive", "nonzero"):
        return op("_plus_scalar", {"scalar": 0.1}, [op("abs", {}, [i])])
    if domain == "open_unit":
        return op("_mul_scalar", {"scalar": 0.99}, [op("tanh", {}, [i])])
    if domain == "above_minus_one":
        return op("_minus_scalar", {"scalar": 0.9}, [op("abs", {}, [i])])
    if domain == "at_least_one":
        return op("_plus_scalar", {"scalar": 1.05}, [op("abs", {}, [i])])
    raise ValueError(domain)


def _random_shape(rng, ndim=None, low=1):
    ndim = ndim or int(rng.integers(1, 5))
    return tuple(int(rng.integers(low, 6)) for _ in range(ndim))


def _pick(rng, g, pred):
    cands = [i for i, s in enumerate(g.shapes) if "op" in g.nodes[i] and pred(s)]
    return int(rng.choice(cands)) if cands else None


def _draw_attrs(rng, entry):
    """The attributes with a list of choices; "*" ones are drawn by the kind
    from the input's shape."""
    return {k: v[int(rng.integers(len(v)))] for k, v in entry["attrs"].items() if v != "*"}


def _draw_layout(rng, op, shape, attrs):
    """The shape-dependent attributes of a layout op."""
    nd = len(shape)
    axis = int(rng.integers(-nd, nd))
    if op == "transpose":
        attrs["axes"] = tuple(int(a) for a in rng.permutation(nd)) if rng.random() < 0.8 else None
    elif op in ("flip", "reverse"):
        attrs["axis"] = axis
    elif op == "expand_dims":
        attrs["axis"] = int(rng.integers(-nd - 1, nd + 1))
    elif op == "squeeze":
        ones = [k for k, d in enumerate(shape) if d == 1]
        if ones and rng.random() < 0.7:
            attrs["axis"] = int(rng.choice(ones)) - (nd if rng.random() < 0.5 else 0)
    elif op == "slice":
        begin, end, step = [], [], []
        for d in shape[:int(rng.integers(1, nd + 1))]:
            st = int(rng.choice([1, 1, 2, -1]))
            if st > 0:
                b = int(rng.integers(0, d))
                begin.append(b if rng.random() < 0.8 else None)
                end.append(int(rng.integers(b + 1, d + 1)) if rng.random() < 0.8 else None)
            else:
                b = int(rng.integers(0, d))
                begin.append(b)
                end.append(int(rng.integers(-1, b)) if b > 0 and rng.random() < 0.5 else None)
                if end[-1] == -1:
                    end[-1] = None
            step.append(st)
        attrs.update(begin=tuple(begin), end=tuple(end),
                     step=tuple(step) if rng.random() < 0.7 else None)
    elif op in ("swapaxes", "SwapAxis"):
        attrs["dim1"], attrs["dim2"] = int(rng.integers(nd)), int(rng.integers(nd))
    elif op == "tile":
        attrs["reps"] = tuple(int(r) for r in rng.integers(1, 3, size=int(rng.integers(1, nd + 2))))
    elif op == "repeat":
        attrs["axis"] = axis if rng.random() < 0.8 else None
    elif op == "slice_axis":
        n = shape[axis]
        begin = int(rng.integers(-n, n))
        lo = begin % n
        attrs.update(axis=axis, begin=begin,
                     end=None if rng.random() < 0.3 else int(rng.integers(lo + 1, n + 1)))
    elif op == "Reshape":
        size = int(np.prod(shape))
        choices = [(-1,), (0, -1), (size,), (-3, -2) if nd >= 2 else (-1,), (-2,)]
        if nd >= 2:
            choices.append((0, 0, -1)[:nd] if nd >= 3 else (0, -1))
        attrs["shape"] = choices[int(rng.integers(len(choices)))]
    return attrs


def add_random_op(g, rng, entry):
    kind, dom = entry["kind"], entry["domain"]
    attrs = _draw_attrs(rng, entry)
    src = _pick(rng, g, lambda s: True) if rng.random() < 0.8 else None

    def data(pred, make_shape):
        j = _pick(rng, g, pred) if src is not None else None
        return _adapt(g, rng, j, dom) if j is not None else g.var(make_shape(), dom)

    if kind == "unary":
        return g.op(entry, attrs, [data(lambda s: True, lambda: _random_shape(rng))])
    if kind == "softmax_act":
        # mode=instance on 3+ dims is where MXNet 1.9.1 disagrees with itself
        # (docs/numerics.md): drawn on 2-D data only.
        rank = 2 if attrs["mode"] == "instance" else int(rng.integers(3, 5))
        return g.op(entry, attrs, [data(lambda s: len(s) == rank, lambda: _random_shape(rng, rank))])
    if kind in ("binary", "bcast"):
        a = data(lambda s: True, lambda: _random_shape(rng))
        shape = list(g.shapes[a])
        if kind == "bcast":
            shape = [1 if rng.random() < 0.4 else d for d in shape]
        b = g.var(shape, entry.get("domain2", dom))
        return g.op(entry, attrs, [a, b] if rng.random() < 0.5 or kind == "bcast" else [b, a])
    if kind in ("reduce", "softmax"):
        a = data(lambda s: True, lambda: _random_shape(rng))
        nd = len(g.shapes[a])
        if kind == "reduce":
            attrs["axis"] = int(rng.integers(-nd, nd)) if rng.random() < 0.7 else None
        else:
            attrs["axis"] = int(rng.integers(-nd, nd))
        return g.op(entry, attrs, [a])
    if kind == "fc":
        a = data(lambda s: len(s) >= 2, lambda: _random_shape(rng, int(rng.integers(2, 5))))
        k = int(np.prod(g.shapes[a][1:]))
        w = g.var((attrs["num_hidden"], k), "any", "weight")
        ins = [a, w] + ([] if attrs["no_bias"] else [g.var((attrs["num_hidden"],), "any", "weight")])
        return g.op(entry, attrs, ins)
    if kind in ("conv", "pool"):
        kh = attrs["kernel"][0]
        a = data(lambda s: len(s) == 4 and min(s[2:]) >= kh,
                 lambda: (int(rng.integers(1, 3)), int(rng.integers(1, 4)),
                          int(rng.integers(kh, 7)), int(rng.integers(kh, 7))))
        if kind == "pool":
            return g.op(entry, attrs, [a])
        c = g.shapes[a][1]
        wshape = ((c, attrs["num_filter"]) if entry["op"] == "Deconvolution"
                  else (attrs["num_filter"], c))
        w = g.var(wshape + tuple(attrs["kernel"]), "any", "weight")
        ins = [a, w] + ([] if attrs["no_bias"] else [g.var((attrs["num_filter"],), "any", "weight")])
        return g.op(entry, attrs, ins)
    if kind == "layout":
        a = data(lambda s: len(s) >= 1, lambda: _random_shape(rng))
        return g.op(entry, _draw_layout(rng, entry["op"], g.shapes[a], attrs), [a])
    if kind == "join":
        a = data(lambda s: True, lambda: _random_shape(rng))
        shape = g.shapes[a]
        nd = len(shape)
        if entry["op"] == "stack":
            attrs["axis"] = int(rng.integers(-nd - 1, nd + 1))
            others = [g.var(shape) for _ in range(int(rng.integers(1, 3)))]
        else:
            attrs["dim"] = int(rng.integers(-nd, nd))
            others = []
            for _ in range(int(rng.integers(1, 3))):
                s2 = list(shape)
                s2[attrs["dim"]] = int(rng.integers(1, 4))
                others.append(g.var(s2))
            attrs["num_args"] = 1 + len(others)
        if entry["op"] == "stack":
            attrs["num_args"] = 1 + len(others)
        ins = [a] + others
        rng.shuffle(ins)
        return g.op(entry, attrs, [int(i) for i in ins])
    if kind == "dot":
        nd = 2 if entry["op"] == "dot" else 3
        a = data(lambda s: len(s) == nd, lambda: _random_shape(rng, nd))
        sa = g.shapes[a]
        k = sa[-2] if attrs["transpose_a"] else sa[-1]
        m = int(rng.integers(1, 5))
        sb = (m, k) if attrs["transpose_b"] else (k, m)
        if nd == 3:
            sb = (sa[0],) + sb
        return g.op(entry, attrs, [a, g.var(sb)])
    if kind == "layernorm":
        a = data(lambda s: True, lambda: _random_shape(rng))
        nd = len(g.shapes[a])
        attrs["axis"] = int(rng.integers(-nd, nd))
        c = g.shapes[a][attrs["axis"]]
        return g.op(entry, attrs, [a, g.var((c,), "any", "weight"), g.var((c,), "any", "weight")])
    if kind == "groupnorm":
        a = data(lambda s: len(s) == 4, lambda: _random_shape(rng, 4))
        c = g.shapes[a][1]
        if entry["op"] == "GroupNorm":
            attrs["num_groups"] = int(rng.choice([d for d in range(1, c + 1) if c % d == 0]))
            gshape = (attrs["num_groups"],)
        else:
            gshape = (c,)
        return g.op(entry, attrs, [a, g.var(gshape, "any", "weight"),
                                   g.var(gshape, "any", "weight")])
    if kind == "l2norm":
        low = 3 if attrs["mode"] == "spatial" else 2
        a = data(lambda s: len(s) >= low,
                 lambda: _random_shape(rng, int(rng.integers(low, 5))))
        return g.op(entry, attrs, [a])
    if kind == "batchnorm":
        # MXNet runs BatchNormWithReLU through oneDNN only, on 4-D data
        ranks = [4] if entry["op"] == "_contrib_BatchNormWithReLU" else [2, 4]
        a = data(lambda s: len(s) in ranks, lambda: _random_shape(rng, int(rng.choice(ranks))))
        c = g.shapes[a][1]
        ins = [a, g.var((c,), "any", "weight"), g.var((c,), "any", "weight"),
               g.var((c,), "any", "aux"), g.var((c,), "positive", "aux")]
        return g.op(entry, attrs, ins)
    if kind == "image":
        a = data(lambda s: len(s) == 4, lambda: _random_shape(rng, 4, low=2))
        if entry["op"] == "LRN" and attrs["nsize"] == 1 and int(np.prod(g.shapes[a])) == 1:
            # MXNet's LRN backward crashes the process there (docs/numerics.md, erratum 32)
            raise ValueError("LRN nsize 1 of one element")
        return g.op(entry, attrs, [a])
    if kind == "pad":
        a = data(lambda s: len(s) == 4, lambda: _random_shape(rng, 4, low=2))
        h, w = g.shapes[a][2:]
        top = 1 if attrs["mode"] != "reflect" else h - 1
        left = 1 if attrs["mode"] != "reflect" else w - 1
        widths = [int(rng.integers(0, top + 2)), int(rng.integers(0, top + 2)),
                  int(rng.integers(0, left + 2)), int(rng.integers(0, left + 2))]
        if attrs["mode"] == "reflect":
            widths = [min(v, top) for v in widths[:2]] + [min(v, left) for v in widths[2:]]
        attrs["pad_width"] = (0, 0, 0, 0) + tuple(widths)
        return g.op(entry, attrs, [a])
    if kind == "like":
        a = data(lambda s: True, lambda: _random_shape(rng))
        shape = g.shapes[a]
        like = [int(rng.integers(1, d + 1)) for d in shape]
        nd = len(shape)
        if rng.random() < 0.5:
            attrs["axes"] = tuple(sorted({int(rng.integers(-nd, nd)) for _ in range(nd)}))
        return g.op(entry, attrs, [a, g.var(like)])
    if kind == "where":
        x = data(lambda s: True, lambda: _random_shape(rng))
        shape = g.shapes[x]
        cond = g.var(shape if rng.random() < 0.8 else shape[:1], "bool", "index")
        return g.op(entry, attrs, [cond, x, g.var(shape)])
    if kind == "index":
        return _add_index_op(g, rng, entry, attrs, data)
    if kind == "split":
        a = data(lambda s: True, lambda: _random_shape(rng))
        shape = g.shapes[a]
        nd = len(shape)
        attrs["axis"] = int(rng.integers(-nd, nd))
        n = shape[attrs["axis"]]
        attrs["num_outputs"] = int(rng.choice([k for k in range(1, n + 1) if n % k == 0]))
        if attrs.get("squeeze_axis") and n != attrs["num_outputs"]:
            attrs["squeeze_axis"] = False
        return g.op(entry, attrs, [a], output=int(rng.integers(attrs["num_outputs"])))
    if kind == "create":
        shape = _random_shape(rng)
        if entry["op"] == "_arange":
            attrs["stop"] = attrs["start"] + attrs["step"] * int(rng.integers(1, 6))
        elif entry["op"] != "_eye":
            attrs["shape"] = shape
        return g.op(entry, attrs, [])
    if kind == "rnn":
        return _add_rnn_op(g, rng, entry, attrs, data)
    if kind == "ctc":
        a = data(lambda s: len(s) == 3 and s[2] >= 2,
                 lambda: (int(rng.integers(2, 7)), int(rng.integers(1, 4)), int(rng.integers(2, 6))))
        t, n, c = g.shapes[a]
        label = g.var((n, int(rng.integers(1, max(2, t // 2 + 1)))), "index:1:%d" % c, "index")
        return g.op(entry, attrs, [a, label])
    if kind == "roi":
        a = data(lambda s: len(s) == 4 and min(s[2:]) >= 2, lambda: _random_shape(rng, 4, low=2))
        n, _, h, w = g.shapes[a]
        rois = g.var((int(rng.integers(1, 4)), 5),
                     "rois:%d:%g:%g" % (n, h / attrs["spatial_scale"], w / attrs["spatial_scale"]),
                     "index")
        return g.op(entry, attrs, [a, rois])
    if kind == "boxes":
        return _add_box_op(g, rng, entry, attrs)
    if kind == "sampler":
        return _add_sampler_op(g, rng, entry, attrs, data)
    if kind == "loss":
        return _add_loss_op(g, rng, entry, attrs, data)
    if kind in structured.KINDS:
        return structured.add_structured_op(g, rng, entry, attrs, data)
    raise ValueError(kind)


def _add_index_op(g, rng, entry, attrs, data):
    """take, pick, one_hot, Embedding and gather_nd: integer inputs drawn
    inside the data's extent (take and pick also a little outside it, where
    mode clip or wrap decides)."""
    op = entry["op"]
    if op == "one_hot":
        idx = g.var(_random_shape(rng, int(rng.integers(1, 3))), "index:%d" % attrs["depth"], "index")
        return g.op(entry, attrs, [idx])
    if op == "Embedding":
        idx = g.var(_random_shape(rng, int(rng.integers(1, 3))), "index:%d" % attrs["input_dim"],
                    "index")
        w = g.var((attrs["input_dim"], attrs["output_dim"]), "any", "weight")
        return g.op(entry, attrs, [idx, w])
    a = data(lambda s: True, lambda: _random_shape(rng))
    shape = g.shapes[a]
    nd = len(shape)
    if op == "gather_nd":
        m = int(rng.integers(1, nd + 1))
        rows = [g.var((1,) + _random_shape(rng, int(rng.integers(1, 3))), "index:%d" % shape[k],
                      "index") for k in range(m)]
        # one (M, ...) index tensor: M rows, each inside its axis
        idx = g.op({"op": "Concat"}, {"dim": 0, "num_args": m}, rows) if m > 1 else rows[0]
        if m > 1 and g.shapes[idx][1:] != g.shapes[rows[0]][1:]:
            raise ValueError("rows of different shapes")
        return g.op(entry, attrs, [a, idx])
    attrs["axis"] = int(rng.integers(-nd, nd))
    extent = shape[attrs["axis"]]
    # clip and wrap decide indices outside [0, extent)
    dom = "index:%d:%d" % (-1 if rng.random() < 0.3 else 0, extent + (1 if rng.random() < 0.3 else 0))
    if op == "take":
        return g.op(entry, attrs, [a, g.var(_random_shape(rng, int(rng.integers(1, 3))), dom, "index")])
    ishape = list(shape)
    del ishape[attrs["axis"]]
    if attrs["keepdims"]:
        ishape.insert(attrs["axis"] % nd, 1)
    return g.op(entry, attrs, [a, g.var(ishape or [1], dom, "index")])


def _rnn_param_size(mode, layers, dirs, inp, hidden):
    gates = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}[mode]
    size = 0
    for layer in range(layers):
        width = inp if layer == 0 else hidden * dirs
        size += dirs * gates * hidden * (width + hidden + 2)
    return size


def _add_rnn_op(g, rng, entry, attrs, data):
    """RNN over (T, N, I) data: the flat parameter vector sized for the mode,
    layers and directions, initial states (and cells for LSTM)."""
    a = data(lambda s: len(s) == 3, lambda: _random_shape(rng, 3))
    _, n, inp = g.shapes[a]
    dirs = 2 if attrs["bidirectional"] else 1
    h = attrs["state_size"]
    size = _rnn_param_size(attrs["mode"], attrs["num_layers"], dirs, inp, h)
    ins = [a, g.var((size,), "any", "weight"), g.var((attrs["num_layers"] * dirs, n, h))]
    if attrs["mode"] == "lstm":
        ins.append(g.var((attrs["num_layers"] * dirs, n, h)))
    out = int(rng.integers(1 + (2 if attrs["mode"] == "lstm" else 1))) if attrs["state_outputs"] else None
    return g.op(entry, attrs, ins, output=out)


def _add_box_op(g, rng, entry, attrs):
    """Box ops over well-formed boxes (x1 < x2, y1 < y2): box_iou of two sets,
    box_nms of (N, K, 6) rows [class id, score, x1, y1, x2, y2], MultiBoxPrior
    of a feature map."""
    op = entry["op"]
    if op == "_contrib_MultiBoxPrior":
        return g.op(entry, attrs, [g.var(_random_shape(rng, 4, low=2))])
    if op == "_contrib_box_iou":
        fmt = attrs["format"]
        lhs = g.var(_random_shape(rng, int(rng.integers(1, 3))) + (4,), "boxes:" + fmt, "index")
        rhs = g.var(_random_shape(rng, int(rng.integers(1, 3))) + (4,), "boxes:" + fmt, "index")
        return g.op(entry, attrs, [lhs, rhs])
    if op == "_contrib_MultiBoxDetection":
        n, c, a = int(rng.integers(1, 3)), int(rng.integers(2, 4)), int(rng.integers(1, 7))
        return g.op(entry, attrs, [g.var((n, c, a), "probs", "index"),
                                   g.var((n, a * 4), "loc", "index"),
                                   g.var((1, a, 4), "boxes:unit", "index")])
    if op == "_contrib_MultiBoxTarget":
        n, c, a = int(rng.integers(1, 3)), int(rng.integers(2, 4)), int(rng.integers(1, 7))
        return g.op(entry, attrs, [g.var((1, a, 4), "boxes:unit", "index"),
                                   g.var((n, int(rng.integers(1, 4)), 5), "labels:%d" % (c - 1),
                                         "index"),
                                   g.var((n, c, a), "any", "index")],
                    output=int(rng.integers(3)))
    if op in ("_contrib_Proposal", "_contrib_MultiProposal"):
        anchors = len(attrs["scales"]) * len(attrs["ratios"])
        n = 1 if op == "_contrib_Proposal" else int(rng.integers(1, 3))
        h, w = int(rng.integers(2, 5)), int(rng.integers(2, 5))
        stride = attrs["feature_stride"]
        return g.op(entry, attrs, [g.var((n, 2 * anchors, h, w), "unit01", "index"),
                                   g.var((n, 4 * anchors, h, w), "loc", "index"),
                                   g.var((n, 3), "im_info:%d:%d" % (h * stride, w * stride),
                                         "index")],
                    output=0)
    rows = g.var((int(rng.integers(1, 3)), int(rng.integers(1, 9)), 6), "detections", "index")
    return g.op(entry, attrs, [rows])


def _add_sampler_op(g, rng, entry, attrs, data):
    """GridGenerator, BilinearSampler and SpatialTransformer: affine
    parameters near the identity, sampling grids in (-1, 1) (a few points
    outside, where the border rules decide)."""
    op = entry["op"]
    if op == "GridGenerator":
        if attrs["transform_type"] == "affine":
            # A target axis of length 1 is 0/0 in MXNet's grid (NaN; symx
            # places the point at -1): docs/numerics.md, not drawn.
            attrs["target_shape"] = (int(rng.integers(2, 5)), int(rng.integers(2, 5)))
            return g.op(entry, attrs, [g.var((int(rng.integers(1, 3)), 6), "affine", "data")])
        # warp over a flow axis of length 1 is the same division by zero
        flow = (int(rng.integers(1, 3)), 2, int(rng.integers(2, 5)), int(rng.integers(2, 5)))
        return g.op(entry, attrs, [g.var(flow, "any", "data")])
    a = data(lambda s: len(s) == 4, lambda: _random_shape(rng, 4, low=2))
    n = g.shapes[a][0]
    if op == "BilinearSampler":
        grid = g.var((n, 2, int(rng.integers(1, 5)), int(rng.integers(1, 5))), "grid", "data")
        return g.op(entry, attrs, [a, grid])
    attrs["target_shape"] = (int(rng.integers(2, 5)), int(rng.integers(2, 5)))
    return g.op(entry, attrs, [a, g.var((n, 6), "affine", "data")])


def _add_loss_op(g, rng, entry, attrs, data):
    """Loss heads with their labels: same-shape targets for the regressions
    (in [0, 1] for the logistic one), class indices for SoftmaxOutput (with
    multi_output, the label of (N, C, d1, ...) data is (N, d1 * ...), as in
    MXNet)."""
    if entry["op"] != "SoftmaxOutput":
        a = data(lambda s: True, lambda: _random_shape(rng))
        dom = "unit01" if entry["op"] == "LogisticRegressionOutput" else "any"
        return g.op(entry, attrs, [a, g.var(g.shapes[a], dom, "index")])
    if attrs["multi_output"]:
        a = data(lambda s: len(s) >= 3, lambda: _random_shape(rng, int(rng.integers(3, 5))))
        s = g.shapes[a]
        label = (s[0], int(np.prod(s[2:])))
    else:
        a = data(lambda s: len(s) == 2, lambda: _random_shape(rng, 2))
        s = g.shapes[a]
        label = (s[0],)
    return g.op(entry, attrs, [a, g.var(label, "index:0:%d" % s[1], "index")])


def random_graph(rng, stats):
    g = Graph()
    target = int(rng.integers(1, 9))
    tries = 0
    while sum("op" in n for n in g.nodes) < target and tries < 40:
        tries += 1
        entry = OPS[int(rng.integers(len(OPS)))]
        snapshot = (list(g.nodes), list(g.shapes))
        try:
            add_random_op(g, rng, entry)
        except Exception:
            g.nodes, g.shapes = snapshot  # not defined for the drawn shapes: draw again
            continue
        stats["ops"][entry["op"]] += 1
        for k, v in g.nodes[-1]["attrs"].items():
            stats["attrs"]["%s.%s=%s" % (entry["op"], k, v)] += 1
    return g


# ----------------------------------------------------------------------------- values

def draw_values(g, rng, names=None):
    vals = {}
    for n in g.nodes:
        if "var" not in n:
            continue
        shape, dom = tuple(n["shape"]), n["domain"]
        scale = float(rng.choice([1.0, 4.0, 30.0])) if n["role"] == "data" else 0.5
        v = rng.normal(0, scale, shape)
        if n["role"] == "data" and rng.random() < 0.3:  # saturating values
            v.flat[rng.integers(v.size)] = float(rng.choice([-90.0, -20.0, 17.0, 40.0]))
        if dom == "positive":
            v = np.abs(v) + 0.05
        elif dom == "nonzero":
            v = np.where(np.abs(v) < 0.05, 0.5, v)
        elif dom == "open_unit":
            v = np.tanh(v) * 0.99
        elif dom == "above_minus_one":
            v = np.abs(v) - 0.9
        elif dom == "at_least_one":
            v = np.abs(v) + 1.05
        elif dom == "bool":
            v = (rng.random(shape) < 0.5).astype(np.float64)
        elif dom == "unit01":
            v = rng.random(shape)
        elif dom == "grid":
            v = rng.uniform(-1.1, 1.1, shape)
        elif dom == "affine":
            v = np.tile([1.0, 0.0, 0.0, 0.0, 1.0, 0.0], (shape[0], 1)) + rng.normal(0, 0.3, shape)
        elif dom.startswith("rois:"):
            batch, h, w = (float(b) for b in dom.split(":")[1:])
            x = np.sort(rng.uniform(0, w, (shape[0], 2)), axis=1)
            y = np.sort(rng.uniform(0, h, (shape[0], 2)), axis=1)
            v = np.stack([rng.integers(0, int(batch), shape[0]), x[:, 0], y[:, 0], x[:, 1], y[:, 1]],
                         1)
        elif dom == "probs":  # class probabilities along axis 1
            e = np.exp(rng.normal(0, 2, shape))
            v = e / e.sum(axis=1, keepdims=True)
        elif dom == "loc":  # box regression offsets
            v = rng.normal(0, 0.3, shape)
        elif dom.startswith("labels:"):  # [class, x1, y1, x2, y2], -1 rows padding
            lo = rng.uniform(0, 0.6, shape[:-1] + (2,))
            v = np.concatenate([rng.integers(-1, int(dom.split(":")[1]) + 1, shape[:-1] + (1,)),
                                lo, lo + rng.uniform(0.1, 0.4, shape[:-1] + (2,))], -1)
        elif dom.startswith("im_info:"):  # (height, width, scale) per image
            h, w = (float(b) for b in dom.split(":")[1:])
            v = np.tile([h, w, 1.0], (shape[0], 1))
        elif dom.startswith("boxes:"):
            unit = dom == "boxes:unit"
            lo = rng.uniform(0, 0.7 if unit else 10, shape[:-1] + (2,))
            size = rng.uniform(0.05, 0.3, shape[:-1] + (2,)) if unit else \
                rng.uniform(0.5, 6, shape[:-1] + (2,))
            if dom in ("boxes:corner", "boxes:unit"):
                v = np.concatenate([lo, lo + size], -1)
            else:
                v = np.concatenate([lo + size / 2, size], -1)
        elif dom == "detections":
            v = np.empty(shape)
            v[..., 0] = rng.integers(-1, 3, shape[:-1])  # -1: background, removed
            v[..., 1] = rng.permutation(np.arange(np.prod(shape[:-1]))).reshape(shape[:-1]) / 10.0
            lo = rng.uniform(0, 4, shape[:-1] + (2,))
            v[..., 2:4] = lo
            v[..., 4:6] = lo + rng.uniform(0.5, 3, shape[:-1] + (2,))
        elif dom.startswith("index:"):
            bounds = [int(b) for b in dom.split(":")[1:]]
            lo, hi = (0, bounds[0]) if len(bounds) == 1 else bounds
            v = rng.integers(lo, hi, shape).astype(np.float64)
        else:
            made = structured.structured_value(dom, shape, rng)
            v = v if made is None else made
        vals[n["var"]] = v
    return vals


# ----------------------------------------------------------------------------- engines

def run(lib, g, outputs, values, heads, dtype):
    sym = g.build(lib, outputs)
    args = sym.list_arguments()
    aux_names = sym.list_auxiliary_states()
    shapes = {n: values[n].shape for n in args}
    # Integer inputs (indices, labels, conditions) get no gradient.
    index = {n["var"] for n in g.nodes if "var" in n and n["role"] == "index"}
    grad_req = {n: "null" if n in index else "write" for n in args}
    exe = sym.simple_bind(lib.cpu(), grad_req=grad_req, type_dict={n: dtype for n in args},
                          **shapes)
    for n in args:
        exe.arg_dict[n][:] = values[n].astype(dtype)
    for n in aux_names:
        exe.aux_dict[n][:] = values[n].astype(dtype)
    outs = [o.asnumpy().astype(np.float64) for o in exe.forward(is_train=False)]
    exe.forward(is_train=True)
    exe.backward([lib.nd.array(h.astype(dtype), dtype=dtype) for h in heads])
    grads = {n: exe.grad_dict[n].asnumpy().astype(np.float64) for n in args
             if exe.grad_dict.get(n) is not None}
    return outs, grads


def heads_for(g, outputs, rng):
    return [rng.normal(0, 1, g.shapes[i]) for i in outputs]


def worst(a, b, magnitude=1.0):
    """The largest |a - b| in units of the tolerance; above 1 is a mismatch.
    `magnitude`: the largest input of the graph."""
    if a.shape != b.shape:
        return float("inf")
    if not np.all(np.isfinite(b) == np.isfinite(a)):
        return float("inf")
    fin = np.isfinite(b)
    if not fin.any():
        return 0.0 if np.array_equal(np.isnan(a), np.isnan(b)) else float("inf")
    scale = RTOL * max(np.abs(b[fin]).max(), np.abs(a[fin]).max()) + ATOL * (1 + magnitude)
    return float(np.abs(a[fin] - b[fin]).max() / scale)


class MXNetRefused(Exception):
    """MXNet itself rejects the graph: not a finding about symx."""


def compare(g, outputs, values, rng_seed):
    """None when the engines agree, else a dict saying what differs and who is right."""
    rng = np.random.default_rng(rng_seed)
    heads = heads_for(g, outputs, rng)
    try:
        mx32 = run(mxnet, g, outputs, values, heads, "float32")
    except Exception as e:
        raise MXNetRefused(str(e).splitlines()[0] if str(e) else repr(e))
    try:
        sx32 = run(symx, g, outputs, values, heads, "float32")
    except Exception as e:
        return {("error", "symx"): {"wrong": "symx", "message": str(e).strip()[:400]}}
    magnitude = max((float(np.abs(v).max()) for v in values.values() if v.size), default=0.0)
    diffs = _diffs(sx32, mx32, magnitude)
    if not diffs:
        return None
    try:
        mx64 = run(mxnet, g, outputs, values, heads, "float64")
    except Exception as e:
        # Some of MXNet's ops refuse float64 (CTCLoss, SoftmaxActivation,
        # BatchNorm after a Cast). Where the float32 forwards agree and only
        # gradients differ, central differences of symx's float64 forward
        # judge the gradients (a gradient is right when it is the derivative
        # of the forward both engines compute); otherwise a person decides.
        note = "MXNet refused float64: " + (str(e).splitlines()[0] if str(e) else repr(e))
        if any(what[0] == "out" for what in diffs):
            return {what: {"wrong": "undecided", "judge": note[:300]} for what in diffs}
        mx64 = None
    try:
        sx64 = run(symx, g, outputs, values, heads, "float64")
    except Exception as e:
        # symx refuses float64 where MXNet does (Proposal, MultiProposal).
        note = "symx refused float64: " + (str(e).strip().splitlines()[-1] if str(e) else repr(e))
        return {what: {"wrong": "undecided", "judge": note[:300]} for what in diffs}
    verdicts = {}
    for what in diffs:
        if mx64 is None:
            ref = finite_differences(g, outputs, values, heads, what[1], lib=symx)
            agree64, judge = False, "finite differences of symx's float64 forward"
        else:
            ref = _pick_tensor(mx64, what)
            agree64 = worst(_pick_tensor(sx64, what), ref, magnitude) <= 1e-3
            judge = "mxnet float64"
        if mx64 is not None and not agree64 and what[0] == "grad":
            # The float64 engines disagree on a gradient: central differences
            # of MXNet's float64 forward decide.
            ref = finite_differences(g, outputs, values, heads, what[1])
            judge = "finite differences"
        e_sx = worst(_pick_tensor(sx32, what), ref, magnitude)
        e_mx = worst(_pick_tensor(mx32, what), ref, magnitude)
        if not np.all(np.isfinite(ref)):
            wrong = "overflow"  # infinities in the reference: IEEE special cases, not counted
        elif not agree64 and what[0] == "out":
            wrong = "undecided"  # the float64 forwards differ: decide by hand
        elif e_sx <= 1 < e_mx:
            wrong = "mxnet"
        elif e_mx <= 1 < e_sx:
            wrong = "symx"
        else:
            wrong = "ill-conditioned"  # both float32 answers far from float64
        verdicts[what] = {"symx_err": e_sx, "mxnet_err": e_mx, "float64_agree": agree64,
                          "judge": judge, "wrong": wrong}
    return verdicts


def finite_differences(g, outputs, values, heads, name, eps=1e-6, lib=mxnet):
    """d/d(name) of sum_k <output_k, head_k>, by central differences of
    lib's float64 forward (MXNet's, unless MXNet refuses float64)."""
    sym = g.build(lib, outputs)
    args = sym.list_arguments()
    exe = sym.simple_bind(lib.cpu(), grad_req="null", type_dict={n: "float64" for n in args},
                          **{n: values[n].shape for n in args})
    for n in args:
        exe.arg_dict[n][:] = values[n]
    for n in sym.list_auxiliary_states():
        exe.aux_dict[n][:] = values[n].astype(np.float64)

    def loss(x):
        exe.arg_dict[name][:] = x
        outs = exe.forward(is_train=True)
        return sum(float((o.asnumpy() * h).sum()) for o, h in zip(outs, heads))

    x = values[name].astype(np.float64).copy()
    grad = np.zeros_like(x)
    for i in range(x.size):
        keep = x.flat[i]
        h = eps * max(1.0, abs(keep))
        x.flat[i] = keep + h
        up = loss(x)
        x.flat[i] = keep - h
        down = loss(x)
        x.flat[i] = keep
        grad.flat[i] = (up - down) / (2 * h)
    exe.arg_dict[name][:] = x
    return grad


def _diffs(a, b, magnitude):
    out = []
    for k, (x, y) in enumerate(zip(a[0], b[0])):
        if worst(x, y, magnitude) > 1:
            out.append(("out", k))
    for n in b[1]:
        if n in a[1] and worst(a[1][n], b[1][n], magnitude) > 1:
            out.append(("grad", n))
    return out


def _pick_tensor(result, what):
    return result[0][what[1]] if what[0] == "out" else result[1][what[1]]


# ----------------------------------------------------------------------------- minimizing

# Verdicts that are no finding: both engines far from float64, or an
# infinite reference.
NOT_COUNTED = ("ill-conditioned", "overflow")


def _finding(verdicts):
    return verdicts and any(v["wrong"] not in NOT_COUNTED for v in verdicts.values())


def minimize(g, outputs, values, seed):
    """A smaller graph that still fails: the smallest failing single-output
    prefix, then each intermediate input cut into a fresh variable holding
    MXNet's value of it."""
    best = (g, outputs, values)
    for i in sorted((i for i, n in enumerate(g.nodes) if "op" in n),
                    key=lambda i: len(g.ancestors(i))):
        try:
            if _finding(compare(g, [i], values, seed)):
                best = (g, [i], values)
                break
        except Exception:
            continue
    g, outputs, values = best
    changed = True
    while changed:
        changed = False
        for i in g.ancestors(outputs[0]):
            n = g.nodes[i]
            if "op" not in n or i == outputs[0]:
                continue
            cut, cut_values = _cut(g, i, values)
            out = [outputs[0]]
            try:
                if _finding(compare(cut, out, cut_values, seed)):
                    g, outputs, values, changed = cut, out, cut_values, True
                    break
            except Exception:
                continue
    return _prune(g, outputs, values)


def _cut(g, i, values):
    """g with node i replaced by a variable holding MXNet's float32 value of it."""
    sym = g.build(mxnet, [i])
    args = sym.list_arguments()
    exe = sym.simple_bind(mxnet.cpu(), grad_req="null",
                          **{n: values[n].shape for n in args})
    for n in args:
        exe.arg_dict[n][:] = values[n]
    for n in sym.list_auxiliary_states():
        exe.aux_dict[n][:] = values[n]
    v = exe.forward(is_train=False)[0].asnumpy().astype(np.float64)
    cut = Graph()
    cut.nodes = [dict(n) for n in g.nodes]
    cut.shapes = list(g.shapes)
    name = "c%d" % i
    cut.nodes[i] = {"var": name, "shape": list(v.shape), "domain": "any", "role": "data"}
    new_values = dict(values)
    new_values[name] = v
    return cut, new_values


def _prune(g, outputs, values):
    keep = set()
    for o in outputs:
        keep.update(g.ancestors(o))
    order = sorted(keep)
    index = {old: new for new, old in enumerate(order)}
    p = Graph()
    for old in order:
        n = dict(g.nodes[old])
        if "inputs" in n:
            n["inputs"] = [index[j] for j in n["inputs"]]
        p.nodes.append(n)
        p.shapes.append(g.shapes[old])
    names = {n["var"] for n in p.nodes if "var" in n}
    return p, [index[o] for o in outputs], {k: v for k, v in values.items() if k in names}


# ----------------------------------------------------------------------------- driver

def _op_label(node):
    """The op with the attribute that selects its function (act_type, pool_type)."""
    a = node["attrs"]
    sub = a.get("act_type") or a.get("pool_type")
    return "%s(%s)" % (node["op"], sub) if sub else node["op"]


def save_case(tag, g, outputs, values, verdicts, seed, signature):
    os.makedirs(FOUND, exist_ok=True)
    sym = g.build(mxnet, outputs)
    case = {
        "tag": tag,
        "seed": seed,
        "symbol": json.loads(sym.tojson()),
        "values": {k: {"shape": list(v.shape), "data": v.ravel().tolist()} for k, v in values.items()},
        "aux": [n["var"] for n in g.nodes if "var" in n and n["role"] == "aux"],
        "verdicts": {"%s:%s" % k: v for k, v in verdicts.items()},
        "ops": sorted({n["op"] for n in g.nodes if "op" in n}),
        "signature": signature,
    }
    path = os.path.join(FOUND, tag + ".json")
    with open(path, "w") as f:
        json.dump(case, f, indent=1, sort_keys=True)
    return path


def load_state(path, seed):
    if path and os.path.exists(path):
        with open(path) as f:
            s = json.load(f)
        if s["seed"] == seed:
            s["ops"] = collections.Counter(s["ops"])
            s["attrs"] = collections.Counter(s["attrs"])
            return s
    return {"seed": seed, "next": 0, "graphs": 0, "skipped": 0, "failures": [],
            "ops": collections.Counter(), "attrs": collections.Counter()}


def save_state(path, state):
    if path:
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(state, f, indent=1, sort_keys=True)
        os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--state", default=os.path.join(HERE, "state.json"))
    ap.add_argument("--ops", action="store_true")
    opts = ap.parse_args()
    if opts.ops:
        for e in OPS:
            print("%-18s %-9s %-16s %s" % (e["op"], e["kind"], e["domain"], e["attrs"]))
        return 0
    # The registry's ops that symx lacks are listed once, not found again and again.
    missing = sorted({e["op"] for e in OPS if not _has_op(symx, e["op"])})
    if missing:
        print("not in symx's registry (left out of the draw): %s" % ", ".join(missing))
    OPS[:] = [e for e in OPS if e["op"] not in missing]
    state = load_state(opts.state, opts.seed)
    # Bugs already written down (any seed) are counted, not saved again.
    known = set()
    for path in glob.glob(os.path.join(FOUND, "*.json")):
        with open(path) as f:
            known.add(json.load(f).get("signature"))
    end = state["next"] + opts.count
    while state["next"] < end:
        k = state["next"]
        state["next"] += 1
        rng = np.random.default_rng([opts.seed, k])
        if os.environ.get("DIFFTEST_TRACE"):
            print("trace: graph %d" % k, flush=True)
        g = random_graph(rng, state)
        outputs = g.sinks()
        if not outputs:
            state["skipped"] += 1
            continue
        values = draw_values(g, rng)
        try:
            verdicts = compare(g, outputs, values, [opts.seed, k, 1])
        except MXNetRefused:
            state["skipped"] += 1
            continue
        state["graphs"] += 1
        if verdicts and all(v["wrong"] in NOT_COUNTED for v in verdicts.values()):
            state["ill_conditioned"] = state.get("ill_conditioned", 0) + 1
            verdicts = None
        if verdicts:
            try:
                g2, out2, values2 = minimize(g, outputs, values, [opts.seed, k, 1])
                verdicts2 = compare(g2, out2, values2, [opts.seed, k, 1]) or verdicts
            except Exception:
                g2, out2, values2, verdicts2 = g, outputs, values, verdicts
            tag = "s%d_g%d" % (opts.seed, k)
            wrong = sorted({v["wrong"] for v in verdicts2.values()})
            ops = sorted({_op_label(n) for n in g2.nodes if "op" in n})
            # One case per (operators, who is wrong, in what): the same bug
            # found again is counted, not saved again.
            signature = "|".join(ops + wrong + sorted({w[0] for w in verdicts2}))
            state["failures"].append({"tag": tag, "wrong": wrong, "ops": ops,
                                      "signature": signature})
            if signature in known:
                print("graph %d: %s wrong, seen before (%s)" % (k, "/".join(wrong), ", ".join(ops)))
            else:
                known.add(signature)
                path = save_case(tag, g2, out2, values2, verdicts2, [opts.seed, k], signature)
                print("graph %d: %s wrong, minimized to %d ops -> %s" %
                      (k, "/".join(wrong), sum("op" in n for n in g2.nodes), os.path.relpath(path)))
        if state["next"] % 25 == 0:
            save_state(opts.state, state)
    save_state(opts.state, state)
    wrong = collections.Counter(w for f in state["failures"] for w in f["wrong"])
    print("seed %d: %d graphs run (%d skipped: MXNet refused them), %d operators and %d attribute "
          "values covered, %d failing graphs (%s), %d ill-conditioned or overflowing (not "
          "counted)" % (
              opts.seed, state["graphs"], state["skipped"], len(state["ops"]), len(state["attrs"]),
              len(state["failures"]), ", ".join("%s wrong: %d" % kv for kv in sorted(wrong.items())),
              state.get("ill_conditioned", 0)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception:
        traceback.print_exc()
        sys.exit(1)
