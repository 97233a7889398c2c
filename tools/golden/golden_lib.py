"""What a golden case is, and how one is computed with MXNet and written.

A case is a symbol, the shapes (and optionally values and dtypes) of its
arguments, and what to check: the outputs of one forward pass, and, unless
`grad=False`, the gradients of every differentiable argument after a
backward pass with random head gradients. `make_golden.py` runs each case
through MXNet 1.9.1 and writes it under tests/golden/cases/<name>/:

  symbol.json   the symbol, as MXNet writes it
  args.params   argument and aux values ("arg:x", "aux:x"), as mx.nd.save writes them
  case.json     is_train, grad_req per argument, tolerances, fill rules, notes
  out<i>.npy    MXNet's outputs
  ograd<i>.npy  the head gradients given to backward
  grad_<arg>.npy  MXNet's input gradients (or finite differences, see below)
  aux_<name>.npy  aux states after a training pass (forward, then backward where the
                  case has gradients: some ops move them in backward)

Large cases (whole networks) fill their arguments from a formula instead of
storing them (`fill="hash"`): value i of argument j is offset + scale * u,
u = 2 * (splitmix64(j << 32 | i) >> 40) / 2^24 - 1 (u in [0, 1) where `abs`),
in float64 then cast. The test computes the same numbers, so a ResNet case
costs a few kilobytes. Their parameter gradients are stored as summaries
(L2 norm, sum and 64 evenly spaced elements) in case.json.

Where MXNet's gradient is known to be wrong, a case sets `fd=True`: its
gradients are then central finite differences computed with MXNet's forward
pass in float64, and case.json records how far MXNet's own gradient was from
them.
"""
import hashlib
import json
import os
import zlib

import numpy as np

import mxnet as mx

SAMPLES = 64


class Case:
    def __init__(self, name, symbol, shapes, values=None, dtypes=None, no_grad=(), grad=True,
                 is_train=False, rtol=1e-4, atol=1e-5, note="", fill=None, fd=False,
                 compare="elementwise", ograd_values=None, fd_names=None):
        self.name = name
        self.symbol = symbol
        self.shapes = {k: tuple(v) for k, v in shapes.items()}
        self.values = dict(values or {})
        self.dtypes = dict(dtypes or {})
        self.no_grad = set(no_grad)
        self.grad = grad
        self.is_train = is_train
        self.rtol = rtol
        self.atol = atol
        self.note = note
        self.fill = fill
        self.fd = fd
        # "elementwise": |a - b| <= atol + rtol * |b|; "scaled": rtol is
        # relative to the largest |b| of the tensor (deep networks, where
        # float32 summation order alone moves small elements).
        self.compare = compare
        self.ograd_values = ograd_values
        # With fd: the arguments whose gradients come from finite differences
        # (None: all of them); the others keep MXNet's.
        self.fd_names = fd_names


def _seed(name):
    return zlib.crc32(name.encode()) & 0x7fffffff


def fill_rule(index, shape, name):
    """The formula parameters for argument `index` (see the module doc)."""
    n = name.lower()
    rule = {"scale": 1.0, "offset": 0.0, "abs": False}
    if n.endswith("gamma") or n.endswith("running_var") or n.endswith("moving_var"):
        rule.update(scale=0.2, offset=1.0 if not n.endswith("var") else 0.8, abs=n.endswith("var"))
    elif n.endswith("beta") or n.endswith("bias") or n.endswith("mean"):
        rule.update(scale=0.1)
    elif len(shape) >= 2:
        fan_in = int(np.prod(shape[1:]))
        rule.update(scale=float(np.sqrt(3.0 / max(fan_in, 1))))
    rule["index"] = index
    return rule


def _splitmix64(x):
    """splitmix64's output function on uint64 arrays (wrapping arithmetic)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def fill_values(rule, shape, dtype):
    """offset + scale * u, u uniform in [-1, 1) (in [0, 1) where `abs`),
    from a hash of (argument index, element index): exactly reproducible in
    C++, and unstructured, so batch statistics are well conditioned."""
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        h = _splitmix64((np.uint64(rule["index"]) << np.uint64(32)) | i)
    u = (h >> np.uint64(40)).astype(np.float64) / float(1 << 24)
    v = u if rule["abs"] else 2.0 * u - 1.0
    v = rule["offset"] + rule["scale"] * v
    return v.astype(dtype).reshape(shape)


def _json_number(x):
    x = float(x)
    return x if np.isfinite(x) else str(x)


def _summary(g):
    flat = g.astype(np.float64).ravel()
    if flat.size == 0:
        return {"l2": 0.0, "sum": 0.0, "positions": [], "values": []}
    pos = np.unique(np.linspace(0, flat.size - 1, min(SAMPLES, flat.size)).astype(np.int64))
    return {"l2": float(np.sqrt((flat ** 2).sum())), "sum": float(flat.sum()),
            "max_abs": float(np.abs(flat).max()),
            "positions": [int(p) for p in pos], "values": [float(flat[p]) for p in pos]}


def _bind(case, arrays, aux, dtype_of, grad_req, want_grad):
    sym = case.symbol
    args_grad = None
    if want_grad:
        args_grad = {k: mx.nd.zeros(v.shape, dtype=v.dtype) for k, v in arrays.items()
                     if grad_req[k] != "null"}
    return sym.bind(mx.cpu(), args={k: v.copy() for k, v in arrays.items()}, args_grad=args_grad,
                    grad_req=grad_req, aux_states={k: v.copy() for k, v in aux.items()})


def _forward_loss(case, np_args, np_aux, ograds, dtype):
    arrays = {k: mx.nd.array(v, dtype=dtype if v.dtype.kind == "f" else v.dtype)
              for k, v in np_args.items()}
    aux = {k: mx.nd.array(v, dtype=dtype) for k, v in np_aux.items()}
    exe = case.symbol.bind(mx.cpu(), args=arrays, aux_states=aux, grad_req="null")
    outs = exe.forward(is_train=case.is_train)
    return sum(float((o.asnumpy().astype(np.float64) * g).sum()) for o, g in zip(outs, ograds))


def finite_differences(case, np_args, np_aux, ograds, names, eps=1e-6):
    """d/dx sum_k <y_k, ograd_k> in float64 by central differences."""
    grads = {}
    base = {k: v.astype(np.float64) if v.dtype.kind == "f" else v for k, v in np_args.items()}
    aux64 = {k: v.astype(np.float64) for k, v in np_aux.items()}
    for name in names:
        g = np.zeros(base[name].shape, dtype=np.float64)
        flat = base[name].reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + eps
            lp = _forward_loss(case, base, aux64, ograds, np.float64)
            flat[i] = old - eps
            lm = _forward_loss(case, base, aux64, ograds, np.float64)
            flat[i] = old
            g.reshape(-1)[i] = (lp - lm) / (2 * eps)
        grads[name] = g
    return grads


def run_case(case, out_root):
    sym = case.symbol
    arg_names = sym.list_arguments()
    aux_names = sym.list_auxiliary_states()
    type_dict = {k: np.dtype(case.dtypes.get(k, "float32")) for k in arg_names}
    arg_shapes, out_shapes, aux_shapes = sym.infer_shape(**case.shapes)
    if arg_shapes is None:
        raise ValueError("%s: shapes are not fully inferred from %s" % (case.name, case.shapes))
    rng = np.random.RandomState(_seed(case.name))

    np_args, np_aux, fills, stored = {}, {}, {}, {}
    all_names = [(n, s, False) for n, s in zip(arg_names, arg_shapes)] + \
                [(n, s, True) for n, s in zip(aux_names, aux_shapes)]
    for index, (name, shape, is_aux) in enumerate(all_names):
        dt = type_dict.get(name, np.dtype("float32"))
        if name in case.values:
            v = np.asarray(case.values[name]).astype(dt).reshape(shape)
            stored[name] = True
        elif case.fill == "hash":
            rule = fill_rule(index, shape, name)
            v = fill_values(rule, shape, dt)
            fills[name] = dict(rule, shape=list(shape), dtype=str(dt), aux=is_aux)
        else:
            if name.endswith("moving_var") or name.endswith("running_var"):
                v = rng.uniform(0.5, 1.5, size=shape).astype(dt)
            else:
                v = rng.uniform(-1, 1, size=shape).astype(dt)
            stored[name] = True
        (np_aux if is_aux else np_args)[name] = v

    grad_req = {k: ("null" if (not case.grad or k in case.no_grad or
                               type_dict[k].kind != "f") else "write") for k in arg_names}
    arrays = {k: mx.nd.array(v, dtype=v.dtype) for k, v in np_args.items()}
    aux = {k: mx.nd.array(v, dtype=v.dtype) for k, v in np_aux.items()}
    exe = _bind(case, arrays, aux, type_dict, grad_req, case.grad)
    outs = [o.asnumpy() for o in exe.forward(is_train=case.is_train)]
    ograds = []
    grads = {}
    meta = {"name": case.name, "is_train": case.is_train, "grad": case.grad,
            "grad_req": grad_req, "rtol": case.rtol, "atol": case.atol,
            "compare": case.compare, "note": case.note, "num_outputs": len(outs),
            "mxnet": mx.__version__, "fill": fills, "grad_summaries": {}}
    if case.grad and any(r == "write" for r in grad_req.values()):
        for i, o in enumerate(outs):
            if case.ograd_values is not None:
                g = np.asarray(case.ograd_values[i]).astype(o.dtype).reshape(o.shape)
            else:
                g = rng.uniform(-1, 1, size=o.shape).astype(o.dtype)
            ograds.append(g)
        exe.backward([mx.nd.array(g, dtype=g.dtype) for g in ograds])
        grads = {k: exe.grad_dict[k].asnumpy() for k in arg_names if grad_req[k] == "write"}
        if case.fd:
            names = sorted(grads) if case.fd_names is None else \
                [k for k in case.fd_names if k in grads]
            fd = finite_differences(case, np_args, np_aux, [g.astype(np.float64) for g in ograds],
                                    names)
            meta["grad_source"] = "finite_differences"
            # A NaN or infinite error (MXNet's gradient was) is written as text: JSON has
            # no such numbers.
            meta["mxnet_grad_error"] = {k: _json_number(np.abs(grads[k] - fd[k]).max()) for k in fd}
            grads.update({k: fd[k].astype(grads[k].dtype) for k in fd})

    d = os.path.join(out_root, case.name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    with open(os.path.join(d, "symbol.json"), "w") as f:
        # tojson() drops amp_cast and amp_multicast nodes by default; a symbol that has
        # them is written whole (in that call's own layout).
        whole = sym.tojson(remove_amp_cast=False)
        has_amp = '"amp_cast"' in whole or '"amp_multicast"' in whole
        f.write(whole if has_amp else sym.tojson())
    saved = {}
    for k, v in np_args.items():
        if stored.get(k):
            saved["arg:" + k] = mx.nd.array(v, dtype=v.dtype)
    for k, v in np_aux.items():
        if stored.get(k):
            saved["aux:" + k] = mx.nd.array(v, dtype=v.dtype)
    mx.nd.save(os.path.join(d, "args.params"), saved)
    for i, o in enumerate(outs):
        np.save(os.path.join(d, "out%d.npy" % i), o)
    for i, g in enumerate(ograds):
        np.save(os.path.join(d, "ograd%d.npy" % i), g)
    for k, g in grads.items():
        if k in fills and g.size > 4096:
            meta["grad_summaries"][k] = _summary(g)
        else:
            np.save(os.path.join(d, "grad_%s.npy" % k), g)
    if case.is_train:
        for k in aux_names:
            np.save(os.path.join(d, "aux_%s.npy" % k), exe.aux_dict[k].asnumpy())
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    return d


def mxop(name):
    """mx.sym.<name>, or mx.sym._internal.<name> for the underscore ops."""
    f = getattr(mx.sym, name, None)
    return f if f is not None else getattr(mx.sym._internal, name)
