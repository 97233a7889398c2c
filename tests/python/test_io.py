"""mx.io: NDArrayIter's batches, pads and descriptions against MXNet 1.9.1's
on the same arrays (golden/train_golden.json, from
tools/golden/make_python_train_golden.py), and the built-in synthetic digits.
"""
import json
import os

import numpy as np
import pytest

import symx as mx

with open(os.path.join(os.path.dirname(__file__), "golden", "train_golden.json")) as _f:
    GOLDEN = {c["name"]: c for c in json.load(_f)["iterator"]}


def _from_json(x):
    """The script's encoding back to arrays: [dtype, values], a list of those,
    or {"dict": [[name, dtype, values], ...]} (pairs keep the dict's order)."""
    if x is None:
        return None
    if isinstance(x, dict):
        return {k: np.array(v, dtype=t) for k, t, v in x["dict"]}
    if isinstance(x[0], str):
        return np.array(x[1], dtype=x[0])
    return [np.array(v, dtype=t) for t, v in x]


def _iterator(case, **overrides):
    kwargs = {"batch_size": case["batch_size"], "last_batch_handle": case["last_batch_handle"],
              "shuffle": False}
    for key in ("data_name", "label_name"):
        if key in case:
            kwargs[key] = case[key]
    kwargs.update(overrides)
    return mx.io.NDArrayIter(_from_json(case["data"]), _from_json(case["label"]), **kwargs)


def _descs(descs):
    return [[d.name, list(d.shape), np.dtype(d.dtype).name] for d in descs]


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_batches_match_mxnet(name):
    case = GOLDEN[name]
    it = _iterator(case)
    for epoch, want_batches in enumerate(case["epochs_out"]):
        got = []
        for batch in it:
            got.append(batch)
            if epoch == 0 and len(got) == case.get("first_epoch_batches", -1):
                break
        where = "%s epoch %d" % (name, epoch)
        assert len(got) == len(want_batches), where
        for i, (batch, want) in enumerate(zip(got, want_batches)):
            arrays = batch.data + batch.label
            assert [np.dtype(a.dtype).name for a in arrays] == want["dtypes"], (where, i)
            assert batch.pad == want["pad"], (where, i)
            for a, w in zip(batch.data, want["data"]):
                np.testing.assert_array_equal(a.asnumpy(), w, err_msg="%s batch %d" % (where, i))
            assert len(batch.label) == len(want["label"])
            for a, w in zip(batch.label, want["label"]):
                np.testing.assert_array_equal(a.asnumpy(), w, err_msg="%s batch %d" % (where, i))
        it.reset()


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_provide_data_and_label_match_mxnet(name):
    case = GOLDEN[name]
    it = _iterator(case)
    assert _descs(it.provide_data) == case["provide_data"]
    assert _descs(it.provide_label) == case["provide_label"]
    assert all(isinstance(d, mx.io.DataDesc) for d in it.provide_data + it.provide_label)


# ------------------------------------------------------------------ by hand

def test_pad_wraps_rows_from_the_start():
    data = np.arange(5, dtype=np.float32).reshape(5, 1)
    batches = list(mx.io.NDArrayIter(data, np.arange(5), batch_size=3))
    assert [b.pad for b in batches] == [0, 1]
    np.testing.assert_array_equal(batches[1].data[0].asnumpy().ravel(), [3, 4, 0])
    np.testing.assert_array_equal(batches[1].label[0].asnumpy(), [3, 4, 0])


def test_roll_over_carries_leftover_rows():
    # 5 rows in 2s: epoch 1 gives 0-1, 2-3 and keeps 4; epoch 2 starts with 4, 0.
    it = mx.io.NDArrayIter(np.arange(5, dtype=np.float32), batch_size=2,
                           last_batch_handle="roll_over")
    first = [b.data[0].asnumpy().tolist() for b in it]
    it.reset()
    second = list(it)
    assert first == [[0, 1], [2, 3]]
    assert [b.data[0].asnumpy().tolist() for b in second] == [[4, 0], [1, 2], [3, 4]]
    # As MXNet does, the carried rows count as the rolled batch's pad.
    assert [b.pad for b in second] == [1, 0, 0]
    # hard_reset drops the leftover.
    it.hard_reset()
    assert [b.data[0].asnumpy().tolist() for b in it] == [[0, 1], [2, 3]]


def test_shuffle_is_a_permutation():
    data = np.arange(12, dtype=np.float32).reshape(12, 1)
    it = mx.io.NDArrayIter(data, data.ravel() * 10, batch_size=4, shuffle=True)
    rows, labels = [], []
    for b in it:
        rows += b.data[0].asnumpy().ravel().tolist()
        labels += b.label[0].asnumpy().tolist()
    assert sorted(rows) == list(range(12))
    assert labels == [r * 10 for r in rows]  # data and label stay paired


def test_ndarray_inputs_keep_their_dtype():
    data = mx.nd.array(np.arange(4), dtype="float64")
    it = mx.io.NDArrayIter(data, batch_size=2)
    assert next(iter(it)).data[0].dtype == np.float64
    assert it.provide_data[0].dtype == np.float64


def test_mismatched_row_counts():
    with pytest.raises(ValueError, match="rows"):
        mx.io.NDArrayIter(np.zeros((5, 2)), np.zeros(4), batch_size=2)
    with pytest.raises(ValueError, match="rows"):
        mx.io.NDArrayIter({"a": np.zeros((5, 2)), "b": np.zeros((6, 2))}, batch_size=2)


def test_bad_arguments():
    with pytest.raises(ValueError, match="last_batch_handle"):
        mx.io.NDArrayIter(np.zeros((4, 2)), batch_size=2, last_batch_handle="wrap")
    with pytest.raises(TypeError):
        mx.io.NDArrayIter("not an array", batch_size=2)


def test_reset_restarts():
    it = mx.io.NDArrayIter(np.arange(6, dtype=np.float32), batch_size=4,
                           last_batch_handle="discard")
    assert len(list(it)) == 1
    assert len(list(it)) == 0  # exhausted until reset
    it.reset()
    assert [b.data[0].asnumpy().tolist() for b in it] == [[0, 1, 2, 3]]


# ------------------------------------------------------------------ digits

def test_synthetic_digits_shapes_and_values():
    d = mx.io.synthetic_digits(num_train=500, num_test=120, seed=3)
    assert d["train_data"].shape == (500, 1, 28, 28)
    assert d["test_data"].shape == (120, 1, 28, 28)
    assert d["train_label"].shape == (500,) and d["test_label"].shape == (120,)
    for key in ("train_data", "test_data"):
        x = d[key]
        assert x.dtype == np.float32
        assert x.min() >= 0.0 and x.max() <= 1.0
        assert x.std() > 0.05  # images, not a constant
    for key in ("train_label", "test_label"):
        y = d[key]
        np.testing.assert_array_equal(y, np.round(y))
        assert y.min() >= 0 and y.max() <= 9
    assert set(d["train_label"].astype(int)) == set(range(10))


def test_synthetic_digits_determinism():
    a = mx.io.synthetic_digits(num_train=50, num_test=20, seed=11)
    b = mx.io.synthetic_digits(num_train=50, num_test=20, seed=11)
    c = mx.io.synthetic_digits(num_train=50, num_test=20, seed=12)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert not np.array_equal(a["train_data"], c["train_data"])
    # Train and test come from separate streams.
    assert not np.array_equal(a["train_data"][:20], a["test_data"])


def test_synthetic_digits_feed_an_iterator():
    d = mx.io.synthetic_digits(num_train=64, num_test=8, seed=1)
    it = mx.io.NDArrayIter(d["train_data"], d["train_label"], batch_size=32)
    assert _descs(it.provide_data) == [["data", [32, 1, 28, 28], "float32"]]
    assert _descs(it.provide_label) == [["softmax_label", [32], "float32"]]
    assert len(list(it)) == 2
