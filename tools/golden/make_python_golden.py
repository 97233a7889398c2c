"""Writes tests/python/golden/ with MXNet 1.9.1: the files the Python front's
tests (tests/python/test_checkpoint.py) read to check that symx loads what
MXNet wrote and computes what MXNet computed.

Run it with the MXNet venv's interpreter (tools/golden/make_golden.sh makes
one; any venv with mxnet==1.9.1 and numpy<1.24 will do):

  $VENV/bin/python tools/golden/make_python_golden.py

It writes:

  mlp_bn-symbol.json, mlp_bn-0003.params
      mx.model.save_checkpoint of an MLP with BatchNorm (arg: and aux: keys),
      parameters and aux states from a fixed seed.
  mlp_bn-expected.json
      the inputs fed to that checkpoint and MXNet's results: the outputs of an
      inference forward, then of a training forward (batch statistics), every
      argument's gradient after backward, and the aux states after that
      forward + backward step.
  ndarray_list.nd, ndarray_dict.nd
      mx.nd.save of a list and of a dict of arrays of several dtypes;
      ndarray_files.json holds their names, dtypes, shapes and values.

Everything is deterministic, so rerunning it rewrites identical files.
"""
import json
import os
import sys

# MXNet's default CPU build rewrites bound graphs into fused oneDNN subgraphs;
# the golden numbers should be the plain operators' results.
os.environ.setdefault("MXNET_SUBGRAPH_BACKEND", "NONE")

import numpy as np  # noqa: E402

import mxnet as mx  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "tests", "python", "golden")
PREFIX, EPOCH = "mlp_bn", 3
BATCH, FEATURES, HIDDEN, CLASSES = 4, 6, 8, 3


def mlp_bn():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, name="fc1", num_hidden=HIDDEN)
    # fix_gamma=False so gamma matters (MXNet's default fixes it at 1);
    # momentum 0.8 so the aux update after one training forward is visible.
    net = mx.sym.BatchNorm(net, name="bn1", fix_gamma=False, momentum=0.8, eps=1e-3)
    net = mx.sym.Activation(net, name="relu1", act_type="relu")
    net = mx.sym.FullyConnected(net, name="fc2", num_hidden=CLASSES)
    return mx.sym.SoftmaxOutput(net, name="softmax")


def params(sym, rng):
    arg_shapes, _, aux_shapes = sym.infer_shape(data=(BATCH, FEATURES))
    args = {}
    for name, shape in zip(sym.list_arguments(), arg_shapes):
        if name in ("data", "softmax_label"):
            continue
        values = rng.uniform(-1, 1, shape)
        if name == "bn1_gamma":
            values = 1 + 0.5 * values
        args[name] = mx.nd.array(values, dtype="float32")
    aux = {}
    for name, shape in zip(sym.list_auxiliary_states(), aux_shapes):
        # Moving statistics far from the batch's, so inference and training differ.
        values = rng.uniform(-0.5, 0.5, shape) if "mean" in name else rng.uniform(0.5, 2, shape)
        aux[name] = mx.nd.array(values, dtype="float32")
    return args, aux


def tolist(arr):
    return arr.asnumpy().astype(np.float64).tolist()


def run(sym, args, aux, data, label):
    """MXNet's numbers for the checkpoint on (data, label)."""
    arrays = dict(args, data=mx.nd.array(data), softmax_label=mx.nd.array(label))
    grads = {k: mx.nd.zeros(v.shape) for k, v in arrays.items()}
    exe = sym.bind(mx.cpu(), arrays, args_grad=grads,
                   aux_states={k: v.copy() for k, v in aux.items()})
    infer = tolist(exe.forward(is_train=False)[0])
    train = tolist(exe.forward(is_train=True)[0])
    exe.backward()
    # MXNet's CPU BatchNorm moves its statistics in backward (symx in the
    # training forward): after the whole step both have moved them once. That
    # write is not one MXNet's engine tracks, so aux_dict[...].asnumpy() alone
    # may read the old values: wait for everything first.
    mx.nd.waitall()
    return {
        "data": data.tolist(),
        "softmax_label": label.tolist(),
        "arguments": sym.list_arguments(),
        "auxiliary_states": sym.list_auxiliary_states(),
        "outputs": sym.list_outputs(),
        "infer_output": infer,
        "train_output": train,
        "aux_after_step": {k: tolist(v) for k, v in exe.aux_dict.items()},
        "grads": {k: tolist(v) for k, v in exe.grad_dict.items()},
    }


def ndarray_files(rng):
    """The list and dict files, and what MXNet reads back from them."""
    items = [
        ("weight", mx.nd.array(rng.uniform(-1, 1, (2, 3)), dtype="float32")),
        ("counts", mx.nd.array([1, -2, 3, 2 ** 20], dtype="int32")),
        ("precise", mx.nd.array([np.pi, -np.e], dtype="float64")),
        ("half", mx.nd.array([0.5, -1.25, 2048], dtype="float16")),
        ("bytes", mx.nd.array([[0, 7], [255, 128]], dtype="uint8")),
        ("ids", mx.nd.array([2 ** 40, -1], dtype="int64")),
    ]
    list_path = os.path.join(OUT, "ndarray_list.nd")
    dict_path = os.path.join(OUT, "ndarray_dict.nd")
    mx.nd.save(list_path, [a for _, a in items])
    mx.nd.save(dict_path, dict(items))

    def describe(arr):
        return {"dtype": np.dtype(arr.dtype).name, "shape": list(arr.shape),
                "values": arr.asnumpy().tolist()}
    loaded_list = mx.nd.load(list_path)
    loaded_dict = mx.nd.load(dict_path)
    return {"list": [describe(a) for a in loaded_list],
            "dict": {k: describe(v) for k, v in loaded_dict.items()},
            "dict_order": [k for k, _ in items]}


def write_json(name, obj):
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")


def main():
    if mx.__version__ != "1.9.1":
        print("needs mxnet 1.9.1, this is %s" % mx.__version__)
        return 1
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.RandomState(20240601)
    sym = mlp_bn()
    args, aux = params(sym, rng)
    prefix = os.path.join(OUT, PREFIX)
    mx.model.save_checkpoint(prefix, EPOCH, sym, args, aux)
    data = rng.uniform(-2, 2, (BATCH, FEATURES)).astype(np.float32)
    label = np.array([0, 2, 1, 2], dtype=np.float32)
    # Run what was written, as a reader of the checkpoint sees it.
    sym2, args2, aux2 = mx.model.load_checkpoint(prefix, EPOCH)
    expected = run(sym2, args2, aux2, data, label)
    expected["epoch"] = EPOCH
    write_json(PREFIX + "-expected.json", expected)
    write_json("ndarray_files.json", ndarray_files(rng))
    mine = [PREFIX + "-symbol.json", "%s-%04d.params" % (PREFIX, EPOCH), PREFIX + "-expected.json",
            "ndarray_list.nd", "ndarray_dict.nd", "ndarray_files.json"]
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in mine)
    print("wrote %d files to %s (%d bytes)" % (len(mine), os.path.abspath(OUT), total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
