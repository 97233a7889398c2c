"""Dumps MXNet's operator registry to JSON (run with the mxnet==1.9.1 venv).

    ~/.cache/symx/mxnet-venv/bin/python tools/registry/dump_mxnet_registry.py \
        tools/registry/mxnet_1.9.1_ops.json

One entry per operator (not per name): its registered name, the other names
that reach the same operator (aliases), its array inputs, and its parameters
with the type text and default MXNet reports. Backward operators
(`_backward_*`) are left out: symx derives its own. The file is the ground
truth of //tests/registry:op_coverage_test and docs/operators.md, so it is
committed; regenerate it only from MXNet 1.9.1.
"""
import ctypes
import json
import re
import sys

import mxnet as mx
from mxnet.base import _LIB, c_str, check_call, py_str


def all_names():
    n = ctypes.c_uint()
    arr = ctypes.POINTER(ctypes.c_char_p)()
    check_call(_LIB.MXListAllOpNames(ctypes.byref(n), ctypes.byref(arr)))
    return sorted(py_str(arr[i]) for i in range(n.value))


def handle_of(name):
    h = ctypes.c_void_p()
    check_call(_LIB.NNGetOpHandle(c_str(name), ctypes.byref(h)))
    return h


def info_of(handle):
    real = ctypes.c_char_p()
    desc = ctypes.c_char_p()
    num = ctypes.c_uint()
    names = ctypes.POINTER(ctypes.c_char_p)()
    types = ctypes.POINTER(ctypes.c_char_p)()
    descs = ctypes.POINTER(ctypes.c_char_p)()
    key_var = ctypes.c_char_p()
    ret = ctypes.c_char_p()
    check_call(_LIB.MXSymbolGetAtomicSymbolInfo(
        handle, ctypes.byref(real), ctypes.byref(desc), ctypes.byref(num),
        ctypes.byref(names), ctypes.byref(types), ctypes.byref(descs),
        ctypes.byref(key_var), ctypes.byref(ret)))
    args = [(py_str(names[i]), py_str(types[i])) for i in range(num.value)]
    return py_str(real.value), args, py_str(key_var.value) if key_var.value else ""


# "int, optional, default='2'" -> ("int", False, "2"); "Shape(tuple), required" -> (.., True, None)
_TYPE = re.compile(r"^(?P<type>.*?),\s*(?P<req>required|optional)(?:,\s*default=(?P<def>.*))?$",
                   re.S)


def parse_type(text):
    m = _TYPE.match(text.strip())
    if not m:
        return {"type": text, "required": False, "default": None}
    default = m.group("def")
    if default is not None:
        default = default.strip()
        if len(default) >= 2 and default[0] == default[-1] and default[0] in "'\"":
            default = default[1:-1]
    return {"type": m.group("type").strip(), "required": m.group("req") == "required",
            "default": default}


def main(out_path):
    groups = {}
    for name in all_names():
        groups.setdefault(handle_of(name).value, []).append(name)
    ops = []
    for handle, names in groups.items():
        real, args, key_var = info_of(ctypes.c_void_p(handle))
        if real.startswith("_backward_"):
            continue
        inputs, params = [], []
        for arg, text in args:
            if text.startswith(("NDArray", "Symbol")):
                inputs.append({"name": arg, "variadic": text.endswith("[]")})
            else:
                entry = {"name": arg}
                entry.update(parse_type(text))
                entry["text"] = text
                params.append(entry)
        ops.append({"name": real, "aliases": sorted(n for n in names if n != real),
                    "inputs": inputs, "params": params, "key_var_num_args": key_var})
    ops.sort(key=lambda o: o["name"])
    doc = {"mxnet_version": mx.__version__, "made_by": "tools/registry/dump_mxnet_registry.py",
           "operators": ops}
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    print("%d operators (%d names) written to %s" % (
        len(ops), sum(1 + len(o["aliases"]) for o in ops), out_path))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: dump_mxnet_registry.py OUT.json")
    main(sys.argv[1])
