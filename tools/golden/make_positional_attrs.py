"""Writes python/symx/_positional_attrs.json: for every op symx registers
that MXNet 1.9.1's mx.nd also has, the attributes MXNet's generated function
accepts positionally after the op's inputs, in MXNet's order (its parameter
declarations): mx.nd.topk(x, 1, 2) is topk(x, axis=1, k=2).

Run with the MXNet venv's Python and a built symx importable (for symx's op
list), e.g. after `pip install .`:

    $VENV/bin/python tools/golden/make_positional_attrs.py

Ops taking a variable number of inputs (*data) take no positional attribute.
"""
import inspect
import json
import os

import mxnet as mx
import symx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "python", "symx", "_positional_attrs.json")
SKIP = {"out", "name", "attr", "kwargs", "ctx"}
# The op groups MXNet's generated functions live in under a short name (the
# mx.nd.random functions are Python wrappers with their own signatures:
# python/symx/_random_wrappers.py).
GROUPS = {"_contrib_": mx.nd.contrib, "_image_": mx.nd.image, "_linalg_": mx.nd.linalg}


def main():
    table = {}
    for name, aliases, _, _, is_backward in symx.base._core.list_ops():
        if is_backward:
            continue
        fn = None
        for spelling in [name] + list(aliases):
            fn = getattr(mx.nd, spelling, None) or getattr(mx.nd._internal, spelling, None)
            if fn is not None:
                break
        for prefix, group in GROUPS.items():
            if fn is None and name.startswith(prefix):
                # mx.nd.contrib.box_nms is _contrib_box_nms, and so on.
                fn = getattr(group, name[len(prefix):], None)
        if fn is None:
            continue
        params = list(inspect.signature(fn).parameters.values())
        if any(p.kind == p.VAR_POSITIONAL for p in params):
            continue
        # MXNet's generated functions default inputs to None and
        # attributes to _Null.
        attrs = [p.name for p in params
                 if p.kind == p.POSITIONAL_OR_KEYWORD and p.default is not None
                 and p.name not in SKIP]
        if attrs:
            table[name] = attrs
    with open(OUT, "w") as f:
        json.dump(table, f, indent=0, sort_keys=True)
        f.write("\n")
    print("wrote %s (%d ops)" % (OUT, len(table)))


if __name__ == "__main__":
    main()
