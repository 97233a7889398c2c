"""mx.io.LibSVMIter against MXNet 1.9.1's on the same files.

tests/testdata/image_det/libsvm.json (made by make_golden.py there from
libsvm_data.t and libsvm_label.t) holds every batch MXNet gave for each
configuration over several epochs: data (MXNet's CSR batch densified with
asnumpy()), label, pad and index; and the configurations MXNet refuses.
symx yields dense arrays (stype 'default') with the same values. Then the
parser's rules and errors (naming file and line) on small files written
here."""
import json
import os

import numpy as np
import pytest

import symx as mx

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "image_det")
DATA = os.path.join(DIR, "libsvm_data.t")
LABEL = os.path.join(DIR, "libsvm_label.t")

with open(os.path.join(DIR, "libsvm.json")) as _f:
    GOLDEN = json.load(_f)


def _kwargs(config):
    kw = dict(data_libsvm=DATA)
    for key, value in config.items():
        if key in ("data_libsvm", "label_libsvm"):
            value = os.path.join(DIR, value)
        elif isinstance(value, list):
            value = tuple(value)
        kw[key] = value
    return kw


def _write(tmp_path, text, name="d.t"):
    path = tmp_path / name
    path.write_bytes(text.encode())
    return str(path)


# ------------------------------------------------------------------ golden


# MXNet's defect: when the label file's part holds more lines than the data
# file's, a wrap (or the epoch after it) takes labels from where dmlc's
# threaded parser stopped, not from the first line (its BeforeFirst keeps a
# half-read block), so those rows get other rows' labels. symx pairs data
# line i with label line i always; these cases compare labels row by row.
_MXNET_LABELS_MISALIGNED = {"parts2_0_label"}


def _row_labels(info):
    """Each row's label as MXNet gave it in the first epoch before any wrap."""
    labels = {}
    for batch in info["epochs"][0]:
        rows = batch["index"][:len(batch["index"]) - batch["pad"]]
        for r, lab in zip(rows, batch["label"]):
            labels[r] = lab
    return labels


@pytest.mark.parametrize("case", sorted(GOLDEN["cases"]))
def test_batches_equal_mxnets(case):
    info = GOLDEN["cases"][case]
    it = mx.io.LibSVMIter(**_kwargs(info["config"]))
    row_labels = _row_labels(info)
    assert [it.provide_data[0].name, list(it.provide_data[0].shape)] == info["provide_data"]
    assert [it.provide_label[0].name, list(it.provide_label[0].shape)] == info["provide_label"]
    for e, want_epoch in enumerate(info["epochs"]):
        got = list(it)
        assert len(got) == len(want_epoch), "epoch %d" % e
        for b, (batch, want) in enumerate(zip(got, want_epoch)):
            where = "epoch %d batch %d" % (e, b)
            data, label = batch.data[0], batch.label[0]
            # Dense, and saying so (MXNet's are CSR / default).
            assert data.stype == "default" and label.stype == "default", where
            assert want["data_stype"] == "csr"
            assert data.dtype == np.float32 and label.dtype == np.float32
            np.testing.assert_array_equal(data.asnumpy(), np.float32(want["data"]),
                                          err_msg=where)
            if case in _MXNET_LABELS_MISALIGNED:
                want_label = [row_labels[r] for r in want["index"]]
            else:
                want_label = want["label"]
            np.testing.assert_array_equal(label.asnumpy(), np.float32(want_label),
                                          err_msg=where)
            assert batch.pad == want["pad"], where
            assert batch.index.tolist() == want["index"], where
            assert batch.index.dtype == np.uint64
        it.reset()
    if "error_in_epoch" in info:
        # MXNet refuses a wrap that needs more rows than the part holds; so does symx.
        with pytest.raises(mx.base.MXNetError, match="batch_size 13 is too large"):
            list(it)


def test_golden_covers_the_interesting_cases():
    cases = GOLDEN["cases"]
    # A wrapped last batch makes the next epoch continue, not restart.
    assert cases["b3"]["epochs"][1][0]["index"] == [1, 2, 3]
    # A part boundary on a line's first byte leaves that line to the part before.
    assert len(cases["boundary_at_line_start_1"]["epochs"][0]) == 2
    assert cases["parts2_0_label"]["epochs"][0][0]["label_stype"] == "csr"
    assert cases["b13"]["error_in_epoch"] == 5
    # The defect the label comparison above works around is in the golden file.
    wrapped = cases["parts2_0_label"]["epochs"][0][1]
    assert wrapped["index"] == [2, 0] and \
        wrapped["label"][1] != _row_labels(cases["parts2_0_label"])[0]


def test_reset_mid_epoch_starts_over():
    it = mx.io.LibSVMIter(data_libsvm=DATA, data_shape=(6,), batch_size=3)
    next(it)
    next(it)
    it.reset()
    assert next(it).index.tolist() == [0, 1, 2]


_ERROR_MATCH = {
    "round_batch_false": "round_batch=False is not supported",
    "data_shape_2d": r"data_shape \(6, 1\) must be 1-D",
    "label_shape_without_file": r"label_shape \(2,\) needs label_libsvm",
    "label_file_scalar_shape": r"with label_libsvm, label_shape \(1,\) must be 1-D with more",
    "part_index_too_big": r"part_index 2 must be in \[0, num_parts 2\)",
    "batch_bigger_than_twice_the_rows": "batch_size 23 is more than twice the 11 rows",
    "missing_file": "cannot read the data file .*no_such_file.t",
    "label_part_shorter": "libsvm_label.t has 4 lines in part 1 of 2, fewer than the 8 of",
}


@pytest.mark.parametrize("case", sorted(GOLDEN["errors"]))
def test_refuses_what_mxnet_refuses(case):
    assert GOLDEN["errors"][case] is not None and GOLDEN["errors"][case][0] == "MXNetError"
    config = {k: v for k, v in _kwargs({}).items()}
    from_golden = {
        "round_batch_false": dict(data_shape=(6,), batch_size=3, round_batch=False),
        "data_shape_2d": dict(data_shape=(6, 1), batch_size=3),
        "label_shape_without_file": dict(data_shape=(6,), batch_size=3, label_shape=(2,)),
        "label_file_scalar_shape": dict(data_shape=(6,), batch_size=3, label_libsvm=LABEL),
        "part_index_too_big": dict(data_shape=(6,), batch_size=3, num_parts=2, part_index=2),
        "batch_bigger_than_twice_the_rows": dict(data_shape=(6,), batch_size=23),
        "missing_file": dict(data_libsvm=os.path.join(DIR, "no_such_file.t"), data_shape=(6,),
                             batch_size=3),
        "label_part_shorter": dict(data_shape=(6,), batch_size=3, num_parts=2, part_index=1,
                                   label_libsvm=LABEL, label_shape=(4,)),
    }[case]
    config.update(from_golden)
    with pytest.raises(mx.base.MXNetError, match=_ERROR_MATCH[case]):
        list(mx.io.LibSVMIter(**config))


# ------------------------------------------------------------------ parsing


def test_mxnets_documented_example(tmp_path):
    path = _write(tmp_path, "1.0 0:0.5 2:1.2\n-2.0\n-3.0 0:0.6 1:2.4 2:1.2\n4 2:-1.2\n")
    it = mx.io.LibSVMIter(data_libsvm=path, data_shape=(3,), batch_size=3)
    first, second = list(it)
    np.testing.assert_allclose(first.data[0].asnumpy(),
                               [[0.5, 0, 1.2], [0, 0, 0], [0.6, 2.4, 1.2]], rtol=1e-6)
    np.testing.assert_array_equal(first.label[0].asnumpy(), [1, -2, -3])
    np.testing.assert_allclose(second.data[0].asnumpy(),
                               [[0, 0, -1.2], [0.5, 0, 1.2], [0, 0, 0]], rtol=1e-6)
    np.testing.assert_array_equal(second.label[0].asnumpy(), [4, 1, -2])
    assert second.pad == 2
    # Indices are 0-based: index 0 is the first column, index 3 is out of (3,).
    assert first.data[0].asnumpy()[0, 0] == 0.5


def test_dense_batches_are_ordinary_ndarrays(tmp_path):
    path = _write(tmp_path, "1 0:1\n2 1:2\n")
    batch = next(iter(mx.io.LibSVMIter(data_libsvm=path, data_shape=(2,), batch_size=2)))
    data = batch.data[0]
    assert isinstance(data, mx.nd.NDArray) and data.stype == "default"
    if hasattr(data, "tostype"):
        np.testing.assert_array_equal(data.tostype("default").asnumpy(), data.asnumpy())
    np.testing.assert_array_equal((data * 2).asnumpy(), [[2, 0], [0, 4]])
    assert "sparse storage" in mx.io.LibSVMIter.__doc__ and "dense" in mx.io.LibSVMIter.__doc__


def test_comments_blank_lines_weights_qid_and_line_breaks(tmp_path):
    text = ("# header\n\n1:0.5 qid:3 0:1 # comment 1:5\n   # indented comment\r\n"
            "2 1:2e-1 2:-.5\r3\t0:7\n  \n4 2:1 2:3\n")
    it = mx.io.LibSVMIter(data_libsvm=_write(tmp_path, text), data_shape=(3,), batch_size=4)
    batch = next(iter(it))
    np.testing.assert_allclose(batch.data[0].asnumpy(),
                               [[1, 0, 0], [0, 0.2, -0.5], [7, 0, 0], [0, 0, 3]], rtol=1e-6)
    np.testing.assert_array_equal(batch.label[0].asnumpy(), [1, 2, 3, 4])
    assert batch.pad == 0 and it.num_rows == 4


def test_folder_reads_its_files_in_name_order(tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "b.t").write_text("2 1:2\n")
    (folder / "a.t").write_text("1 0:1\n")
    (folder / "empty.t").write_text("")
    batch = next(iter(mx.io.LibSVMIter(data_libsvm=str(folder), data_shape=(2,),
                                       batch_size=2)))
    np.testing.assert_array_equal(batch.label[0].asnumpy(), [1, 2])


def test_label_file_dtype_names_and_iter_next(tmp_path):
    data = _write(tmp_path, "9 0:1\n9 1:2\n9 2:3\n")
    label = _write(tmp_path, "0 0:1\n0 1:0.5\n5 2:2 0:3\n", "l.t")
    it = mx.io.LibSVMIter(data_libsvm=data, data_shape=(3,), label_libsvm=label,
                          label_shape=(3,), batch_size=2, dtype="float64", data_name="x",
                          label_name="y", prefetch_buffer=1, ctx="cpu")
    assert it.provide_data[0].name == "x" and it.provide_label[0].shape == (2, 3)
    assert it.provide_data[0].dtype == np.float64
    assert it.iter_next()
    np.testing.assert_array_equal(it.getlabel()[0].asnumpy(), [[1, 0, 0], [0, 0.5, 0]])
    assert it.getdata()[0].dtype == np.float64 and it.getpad() == 0
    assert it.getindex().tolist() == [0, 1]
    assert it.iter_next() and it.getpad() == 1
    np.testing.assert_array_equal(it.getlabel()[0].asnumpy(), [[3, 0, 2], [1, 0, 0]])
    assert not it.iter_next()
    with pytest.raises(mx.base.MXNetError, match="call iter_next"):
        it.getdata()
    # hard_reset starts over even after a wrapped batch.
    it.hard_reset()
    assert next(iter(it)).index.tolist() == [0, 1]


@pytest.mark.parametrize("text,match", [
    ("1 0:1\nx 1:2\n", r"d.t line 2: the label 'x' is not a number"),
    ("1 0:1\n2 1:2 3\n", r"d.t line 2: '3' is not a feature index:value"),
    ("1 0:1\n\n2 a:3\n", r"d.t line 3: 'a:3' is not a feature index:value"),
    ("1 0:1\n2 -1:3\n", r"d.t line 2: '-1:3' is not a feature index:value"),
    ("1 0:1\n2 1:x\n", r"d.t line 2: feature '1:x': the value 'x' is not a number"),
    ("1 0:1\r\n2 1:1\r\n3 4:1\r\n", r"d.t line 3: feature index 4 is out of range for the "
                                      r"data shape \(4,\) \(indices are 0-based\)"),
    ("1:2:3 0:1\n", r"d.t line 1: the label '1:2:3' is not a number"),
    ("", r"holds no data"),
    ("# only a comment\n\n", r"part 0 of 1 of .*d.t holds no rows"),
])
def test_malformed_lines_name_file_and_line(tmp_path, text, match):
    with pytest.raises(mx.base.MXNetError, match=match):
        mx.io.LibSVMIter(data_libsvm=_write(tmp_path, text), data_shape=(4,), batch_size=1)


def test_label_file_errors_name_the_label_file(tmp_path):
    data = _write(tmp_path, "1 0:1\n2 1:1\n")
    label = _write(tmp_path, "0 0:1\n0 3:1\n", "lab.t")
    with pytest.raises(mx.base.MXNetError, match=r"lab.t line 2: feature index 3 is out of "
                                                 r"range for the label shape \(3,\)"):
        mx.io.LibSVMIter(data_libsvm=data, data_shape=(2,), label_libsvm=label,
                         label_shape=(3,), batch_size=1)
    short = _write(tmp_path, "0 0:1\n", "short.t")
    with pytest.raises(mx.base.MXNetError, match="short.t has 1 lines in part 0 of 1, fewer "
                                                 "than the 2 of"):
        mx.io.LibSVMIter(data_libsvm=data, data_shape=(2,), label_libsvm=short,
                         label_shape=(3,), batch_size=1)
    with pytest.raises(mx.base.MXNetError, match="cannot read the label file .*nope.t"):
        mx.io.LibSVMIter(data_libsvm=data, data_shape=(2,), batch_size=1, label_shape=(3,),
                         label_libsvm=str(tmp_path / "nope.t"))


def test_argument_errors(tmp_path):
    data = _write(tmp_path, "1 0:1\n2 1:1\n")
    with pytest.raises(mx.base.MXNetError, match="batch_size is required"):
        mx.io.LibSVMIter(data_libsvm=data, data_shape=(2,))
    with pytest.raises(mx.base.MXNetError, match="data_shape .* is required"):
        mx.io.LibSVMIter(data_libsvm=data, batch_size=1)
    with pytest.raises(mx.base.MXNetError, match="data_libsvm .* is required"):
        mx.io.LibSVMIter(data_shape=(2,), batch_size=1)
    with pytest.raises(mx.base.MXNetError, match="batch_size must be positive"):
        mx.io.LibSVMIter(data_libsvm=data, data_shape=(2,), batch_size=0)
    with pytest.raises(mx.base.MXNetError, match="dtype 'complex64'"):
        mx.io.LibSVMIter(data_libsvm=data, data_shape=(2,), batch_size=1, dtype="complex64")
    with pytest.raises(mx.base.MXNetError, match=r"part_index -1 must be in \[0, num_parts 2\)"):
        mx.io.LibSVMIter(data_libsvm=data, data_shape=(2,), batch_size=1, num_parts=2,
                         part_index=-1)
    with pytest.raises(TypeError, match="rand_mirror"):
        mx.io.LibSVMIter(data_libsvm=data, data_shape=(2,), batch_size=1, rand_mirror=True)
