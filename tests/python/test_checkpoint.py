"""Files MXNet wrote, read by symx: a checkpoint (mx.model) and mx.nd.save
list/dict files, and the numbers MXNet computed with that checkpoint
(python/symx/model.py, ndarray.py save/load).

The files under golden/ come from MXNet 1.9.1, written by
tools/golden/make_python_golden.py (see its docstring to regenerate them).
"""
import json
import os

import numpy as np
import pytest

import symx as mx

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
PREFIX = os.path.join(GOLDEN, "mlp_bn")


def _expected():
    with open(PREFIX + "-expected.json") as f:
        return json.load(f)


def _read(path, mode="rb"):
    with open(path, mode) as f:
        return f.read()


def test_load_checkpoint():
    want = _expected()
    sym, arg_params, aux_params = mx.model.load_checkpoint(PREFIX, want["epoch"])
    assert sym.list_arguments() == want["arguments"]
    assert sym.list_auxiliary_states() == want["auxiliary_states"]
    assert sym.list_outputs() == want["outputs"]
    # The .params keys are arg:<name> / aux:<name>; data and label are not saved.
    assert sorted(arg_params) == sorted(set(want["arguments"]) - {"data", "softmax_label"})
    assert sorted(aux_params) == sorted(want["auxiliary_states"])
    for arr in list(arg_params.values()) + list(aux_params.values()):
        assert arr.dtype == np.float32 and arr.context == mx.cpu()
    assert arg_params["fc1_weight"].shape == (8, 6)


def test_symbol_json_is_written_as_mxnet_writes_it():
    sym = mx.sym.load(PREFIX + "-symbol.json")
    assert sym.tojson() == _read(PREFIX + "-symbol.json", "r")


def _bound_checkpoint():
    want = _expected()
    sym, arg_params, aux_params = mx.model.load_checkpoint(PREFIX, want["epoch"])
    args = dict(arg_params, data=mx.nd.array(want["data"]),
                softmax_label=mx.nd.array(want["softmax_label"]))
    grads = {k: mx.nd.zeros(v.shape) for k, v in args.items()}
    exe = sym.bind(mx.cpu(), args, args_grad=grads, aux_states=aux_params)
    return exe, want


def test_forward_backward_match_mxnet():
    exe, want = _bound_checkpoint()
    # Inference: BatchNorm with the checkpoint's moving statistics.
    np.testing.assert_allclose(exe.forward(is_train=False)[0].asnumpy(), want["infer_output"],
                               rtol=1e-5, atol=1e-7)
    # Training: batch statistics.
    np.testing.assert_allclose(exe.forward(is_train=True)[0].asnumpy(), want["train_output"],
                               rtol=1e-5, atol=1e-7)
    exe.backward()
    assert sorted(exe.grad_dict) == sorted(want["grads"])
    for name, values in want["grads"].items():
        np.testing.assert_allclose(exe.grad_dict[name].asnumpy(), values, rtol=1e-5, atol=1e-6,
                                   err_msg=name)
    # The moving statistics moved once in the step (MXNet moves them in
    # backward, symx in the training forward; the inference forward did not).
    for name, values in want["aux_after_step"].items():
        np.testing.assert_allclose(exe.aux_dict[name].asnumpy(), values, rtol=1e-5, atol=1e-7,
                                   err_msg=name)


def test_copy_params_from_checkpoint_matches_mxnet():
    # The usual inference path: simple_bind, then the checkpoint's parameters.
    want = _expected()
    sym, arg_params, aux_params = mx.model.load_checkpoint(PREFIX, want["epoch"])
    data = np.array(want["data"], dtype=np.float32)
    exe = sym.simple_bind(mx.cpu(), data=data.shape, grad_req="null")
    exe.copy_params_from(arg_params, aux_params)
    out = exe.forward(is_train=False, data=data)[0].asnumpy()
    np.testing.assert_allclose(out, want["infer_output"], rtol=1e-5, atol=1e-7)


def test_save_checkpoint_round_trip(tmp_path):
    sym, arg_params, aux_params = mx.model.load_checkpoint(PREFIX, 3)
    prefix = str(tmp_path / "copy")
    mx.model.save_checkpoint(prefix, 7, sym, arg_params, aux_params)
    assert sorted(os.listdir(tmp_path)) == ["copy-0007.params", "copy-symbol.json"]
    sym2, arg2, aux2 = mx.model.load_checkpoint(prefix, 7)
    assert sym2.tojson() == sym.tojson()
    for mine, theirs in ((arg2, arg_params), (aux2, aux_params)):
        assert list(mine) == list(theirs)
        for name in mine:
            assert mine[name].dtype == theirs[name].dtype
            np.testing.assert_array_equal(mine[name].asnumpy(), theirs[name].asnumpy())
    # The written .params, read as a plain dict, has MXNet's key prefixes.
    raw = mx.nd.load(prefix + "-0007.params")
    assert sorted(raw) == sorted(["arg:" + k for k in arg_params] +
                                 ["aux:" + k for k in aux_params])
    # Same arrays in the same order: the bytes MXNet wrote.
    assert _read(prefix + "-0007.params") == _read(PREFIX + "-0003.params")


def test_save_checkpoint_without_symbol(tmp_path):
    prefix = str(tmp_path / "params_only")
    mx.model.save_checkpoint(prefix, 1, None, {"w": mx.nd.ones(2)}, {"m": mx.nd.zeros(1)})
    assert os.listdir(tmp_path) == ["params_only-0001.params"]
    arg, aux = mx.model.load_params(prefix, 1)
    np.testing.assert_array_equal(arg["w"].asnumpy(), [1, 1])
    np.testing.assert_array_equal(aux["m"].asnumpy(), [0])


def _described(arr, want):
    assert np.dtype(arr.dtype).name == want["dtype"]
    assert list(arr.shape) == want["shape"]
    np.testing.assert_array_equal(arr.asnumpy(), np.array(want["values"], dtype=want["dtype"]))


def test_load_mxnet_list_file():
    with open(os.path.join(GOLDEN, "ndarray_files.json")) as f:
        want = json.load(f)
    loaded = mx.nd.load(os.path.join(GOLDEN, "ndarray_list.nd"))
    assert isinstance(loaded, list) and len(loaded) == len(want["list"])
    for arr, described in zip(loaded, want["list"]):
        _described(arr, described)


def test_load_mxnet_dict_file():
    with open(os.path.join(GOLDEN, "ndarray_files.json")) as f:
        want = json.load(f)
    loaded = mx.nd.load(os.path.join(GOLDEN, "ndarray_dict.nd"))
    assert isinstance(loaded, dict)
    assert list(loaded) == want["dict_order"]
    for name, arr in loaded.items():
        _described(arr, want["dict"][name])


@pytest.mark.parametrize("name", ["ndarray_list.nd", "ndarray_dict.nd"])
def test_nd_save_writes_mxnets_bytes(tmp_path, name):
    loaded = mx.nd.load(os.path.join(GOLDEN, name))
    path = str(tmp_path / name)
    mx.nd.save(path, loaded)
    assert _read(path) == _read(os.path.join(GOLDEN, name))


def test_truncated_params_file_names_the_file(tmp_path):
    raw = _read(PREFIX + "-0003.params")
    prefix = str(tmp_path / "cut")
    with open(prefix + "-symbol.json", "w") as f:
        f.write(_read(PREFIX + "-symbol.json", "r"))
    with open(prefix + "-0003.params", "wb") as f:
        f.write(raw[:len(raw) // 2])
    with pytest.raises(mx.base.MXNetError, match="cut-0003.params"):
        mx.model.load_checkpoint(prefix, 3)
    with pytest.raises(mx.base.MXNetError, match="cut-0003.params"):
        mx.nd.load(prefix + "-0003.params")


def test_malformed_symbol_json_names_the_file(tmp_path):
    prefix = str(tmp_path / "broken")
    with open(prefix + "-symbol.json", "w") as f:
        f.write(_read(PREFIX + "-symbol.json", "r")[:100])
    with open(prefix + "-0003.params", "wb") as f:
        f.write(_read(PREFIX + "-0003.params"))
    with pytest.raises(mx.base.MXNetError, match="broken-symbol.json"):
        mx.model.load_checkpoint(prefix, 3)


def test_missing_params_file_names_the_file(tmp_path):
    with pytest.raises(mx.base.MXNetError, match="nothing-0001.params"):
        mx.nd.load(str(tmp_path / "nothing-0001.params"))


def test_list_file_is_not_a_checkpoint(tmp_path):
    prefix = str(tmp_path / "listy")
    mx.nd.save(prefix + "-0001.params", [mx.nd.ones(1)])
    with pytest.raises(mx.base.MXNetError, match="listy-0001.params"):
        mx.model.load_params(prefix, 1)
