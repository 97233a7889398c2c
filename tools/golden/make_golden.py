"""Writes the golden cases under tests/golden/cases/ with MXNet 1.9.1.

Run it with tools/golden/make_golden.sh, which makes the venv (mxnet==1.9.1,
numpy<1.24) the first time. Each cases_<family>.py module lists the cases of
one op family (graph/ops/<family>.cc; models, numerics and fuzz hold cases
across families) in cases(); `--only family[,family]` regenerates those
families only, and `--list` prints the case names. A case directory is rewritten whole, and
directories of cases that no longer exist are removed (with --only, only
within those families: the family is recorded in case.json).
"""
import argparse
import importlib
import json
import os
import shutil
import sys
import traceback

# MXNet's default CPU build rewrites bound graphs into fused oneDNN subgraphs;
# the golden data should be each operator's own result.
os.environ.setdefault("MXNET_SUBGRAPH_BACKEND", "NONE")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import golden_lib  # noqa: E402

FAMILIES = ["activation", "amp", "attention", "binary", "compare", "control_flow", "convolution",
            "crop", "ctc", "deformable", "dense", "detection", "dropout", "elemwise", "image",
            "image_random", "indexing", "init", "layout", "linalg", "loss", "lrn", "math", "norm",
            "ordering", "pooling", "random", "random_pdf", "reduce", "resample", "rnn", "roi",
            "scatter", "sequence", "shape", "softmax", "spatial", "statistics", "tensor",
            "optimizer_contrib", "models", "numerics", "fuzz"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "tests", "golden", "cases"))
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    opts = ap.parse_args()
    families = [f for f in opts.only.split(",") if f] or FAMILIES
    out_root = os.path.abspath(opts.out)
    os.makedirs(out_root, exist_ok=True)
    failed = 0
    written = set()
    for family in families:
        path = os.path.join(HERE, "cases_%s.py" % family)
        if not os.path.exists(path):
            print("skip %s: %s does not exist" % (family, path))
            continue
        module = importlib.import_module("cases_%s" % family)
        for case in module.cases():
            if case.name in written:
                print("FAIL %s: duplicate case name" % case.name)
                failed += 1
                continue
            written.add(case.name)
            if opts.list:
                print(family, case.name)
                continue
            try:
                d = golden_lib.run_case(case, out_root)
                meta_path = os.path.join(d, "case.json")
                with open(meta_path) as f:
                    meta = json.load(f)
                meta["family"] = family
                with open(meta_path, "w") as f:
                    json.dump(meta, f, indent=1, sort_keys=True)
                print("ok   %s/%s" % (family, case.name))
            except Exception:  # one bad case must not hide the others
                failed += 1
                print("FAIL %s/%s" % (family, case.name))
                traceback.print_exc()
    if not opts.list:
        for name in sorted(os.listdir(out_root)):
            meta_path = os.path.join(out_root, name, "case.json")
            family = None
            if os.path.exists(meta_path):
                with open(meta_path) as f:
                    family = json.load(f).get("family")
            if name not in written and (family in families or family is None):
                shutil.rmtree(os.path.join(out_root, name))
                print("removed stale case %s" % name)
    print("%d cases, %d failed" % (len(written), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
