"""mx.io.ImageRecordIter and mx.io.CSVIter from Python.

ImageRecordIter against MXNet 1.9.1's on the same files
(tests/testdata/recordio/iter_cases.json and iter_<case>_*.npy, made by
make_recordio_files.py there): every deterministic configuration's first
epoch, batch for batch (data within 1e-5 relative, labels and pads equal),
with the keyword arguments passed as a Python script passes them (tuples,
bools, floats). Then the Python layer: provide_data/provide_label, the
DataBatch fields (index = the records' header ids, 100 + i in classes.rec),
epochs, shuffling, determinism over thread counts, rand_mirror, the
launcher's automatic sharding, and errors surfacing as mx.base.MXNetError.
CSVIter against values written into small files here: shapes, round_batch's
wrap or zero fill and pad, dtypes, and the errors naming file, line and
column."""
import json
import os
import re

import numpy as np
import pytest

import symx as mx

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "recordio")
CLASSES = os.path.join(DIR, "classes.rec")
IDS = list(range(100, 112))  # classes.rec's header ids, in file order

with open(os.path.join(DIR, "iter_cases.json")) as _f:
    CASES = json.load(_f)


def _kwargs(config):
    """The golden configuration as a Python script writes it."""
    kw = {}
    for key, value in config.items():
        if key.startswith("path_"):
            value = os.path.join(DIR, value)
        elif isinstance(value, list):
            value = tuple(value)
        kw[key] = value
    return kw


def _epoch(it):
    return [(b.data[0].asnumpy(), b.label[0].asnumpy(), b.pad, b.index) for b in it]


def _small(**kw):
    args = dict(path_imgrec=CLASSES, data_shape=(3, 16, 16), resize=16, batch_size=4)
    args.update(kw)
    return mx.io.ImageRecordIter(**args)


# ---------------------------------------------------------------- ImageRecordIter


@pytest.mark.parametrize("case", sorted(CASES))
def test_equals_mxnet_on_deterministic_configurations(case):
    kw = _kwargs(CASES[case]["config"])
    it = mx.io.ImageRecordIter(preprocess_threads=2, **kw)
    want_data = np.load(os.path.join(DIR, "iter_%s_data.npy" % case))
    want_label = np.load(os.path.join(DIR, "iter_%s_label.npy" % case))
    batches = list(it)
    assert len(batches) == len(CASES[case]["pads"]) == len(want_data)
    dtype = np.uint8 if kw.get("dtype") == "uint8" else np.float32
    assert it.provide_data[0].shape == want_data.shape[1:]
    assert it.provide_data[0].dtype == dtype
    assert it.provide_label[0].shape == want_label.shape[1:]
    for b, batch in enumerate(batches):
        assert len(batch.data) == 1 and len(batch.label) == 1
        data, label = batch.data[0].asnumpy(), batch.label[0].asnumpy()
        assert data.dtype == dtype and data.shape == want_data[b].shape, b
        assert label.dtype == np.float32 and label.shape == want_label[b].shape, b
        if dtype == np.uint8:
            np.testing.assert_array_equal(data, want_data[b], err_msg="batch %d" % b)
        else:
            np.testing.assert_allclose(data, want_data[b], rtol=1e-5, atol=1e-5,
                                       err_msg="batch %d" % b)
        np.testing.assert_array_equal(label, want_label[b], err_msg="batch %d" % b)
        assert batch.pad == CASES[case]["pads"][b], b
        assert batch.provide_data == it.provide_data
        assert batch.provide_label == it.provide_label


def test_provide_data_and_label_names_and_shapes():
    it = mx.io.ImageRecordIter(path_imgrec=os.path.join(DIR, "multilabel.rec"),
                               data_shape=(3, 20, 18), batch_size=3, label_width=2,
                               data_name="image", label_name="target")
    (d,), (l,) = it.provide_data, it.provide_label
    assert (d.name, d.shape, d.dtype) == ("image", (3, 3, 20, 18), np.float32)
    assert (l.name, l.shape) == ("target", (3, 2))
    batch = it.next()
    assert batch.data[0].shape == (3, 3, 20, 18) and batch.label[0].shape == (3, 2)
    np.testing.assert_array_equal(batch.label[0].asnumpy(), [[0, 0], [1, 1], [2, 0]])
    it = _small(batch_size=5, data_shape=(1, 8, 10))
    assert it.provide_data == [mx.io.DataDesc("data", (5, 1, 8, 10))]
    assert [(x.name, x.shape) for x in it.provide_label] == [("softmax_label", (5,))]


def test_batch_index_is_the_record_ids_and_reset_starts_a_new_epoch():
    it = _small(batch_size=5)
    assert it.num_records == 12
    first = _epoch(it)
    assert [e[3].tolist() for e in first] == [IDS[0:5], IDS[5:10], IDS[10:12] + IDS[0:3]]
    assert [e[2] for e in first] == [0, 0, 3]
    assert first[0][3].dtype == np.uint64
    assert first[1][1].tolist() == [i % 3 for i in range(5, 10)]  # classes.rec: i % 3
    with pytest.raises(StopIteration):
        it.next()
    it.reset()
    second = _epoch(it)
    assert len(second) == 3
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[3], b[3])
    # The wrapped rows repeat the first records' pixels.
    np.testing.assert_array_equal(first[2][0][2:], first[0][0][:3])
    # round_batch=False: the last batch's missing rows are zeros.
    last = _epoch(_small(batch_size=5, round_batch=False))[-1]
    assert last[2] == 3 and last[3][:2].tolist() == IDS[10:12]
    assert not last[0][2:].any() and last[0][:2].any()


def test_shuffle_visits_every_record_once_per_epoch():
    it = _small(batch_size=5, shuffle=True, seed=11, round_batch=False, data_shape=(3, 8, 8),
                resize=8)
    orders = []
    for _ in range(3):
        ids = []
        for batch in it:
            ids += batch.index[:5 - batch.pad].tolist()
        assert sorted(ids) == IDS
        orders.append(ids)
        it.reset()
    assert orders[0] != IDS and orders[0] != orders[1]  # shuffled, anew each epoch
    again = _small(batch_size=5, shuffle=True, seed=11, round_batch=False, data_shape=(3, 8, 8),
                   resize=8)
    assert sum((b.index[:5 - b.pad].tolist() for b in again), []) == orders[0]


def _random_kwargs(threads):
    return dict(path_imgrec=CLASSES, data_shape=(3, 24, 24), batch_size=5, shuffle=True,
                seed=7, rand_crop=True, rand_mirror=True, max_random_scale=1.2,
                min_random_scale=0.8, max_rotate_angle=10, brightness=0.3, contrast=0.3,
                saturation=0.3, pca_noise=0.1, inter_method=10, preprocess_threads=threads)


def test_same_seed_gives_the_same_batches_for_any_thread_count():
    one = _epoch(mx.io.ImageRecordIter(**_random_kwargs(1)))
    four_it = mx.io.ImageRecordIter(**_random_kwargs(4))
    four = _epoch(four_it)
    assert len(one) == len(four) == 3
    for a, b in zip(one, four):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        np.testing.assert_array_equal(a[3], b[3])
    four_it.reset()
    next_epoch = _epoch(four_it)
    assert not np.array_equal(one[0][0], next_epoch[0][0])
    other_seed = _epoch(mx.io.ImageRecordIter(**dict(_random_kwargs(2), seed=8)))
    assert not np.array_equal(one[0][0], other_seed[0][0])


def test_rand_mirror_mirrors_some_rows():
    plain = _small(batch_size=12).next().data[0].asnumpy()
    it = _small(batch_size=12, rand_mirror=True, seed=3)
    flipped = kept = 0
    for _ in range(3):
        got = it.next().data[0].asnumpy()
        for r in range(12):
            if np.array_equal(got[r], plain[r]):
                kept += 1
            else:
                np.testing.assert_array_equal(got[r], plain[r][:, :, ::-1], err_msg="row %d" % r)
                flipped += 1
        it.reset()
    assert flipped >= 6 and kept >= 6
    # mirror=True mirrors every row.
    np.testing.assert_array_equal(_small(batch_size=12, mirror=True).next().data[0].asnumpy(),
                                  plain[:, :, :, ::-1])
    # seed_aug: the same draws every epoch.
    it = _small(batch_size=12, rand_mirror=True, seed_aug=5)
    a = it.next().data[0].asnumpy()
    it.reset()
    np.testing.assert_array_equal(it.next().data[0].asnumpy(), a)


def test_uint8_and_int8_iterators():
    it = mx.io.ImageRecordUInt8Iter(path_imgrec=CLASSES, data_shape=(3, 16, 16), resize=16,
                                    batch_size=4, mean_r=100.0)  # no normalization in uint8
    assert it.provide_data[0].dtype == np.uint8
    data = it.next().data[0]
    assert data.dtype == np.uint8
    floats = _small().next().data[0].asnumpy()
    np.testing.assert_array_equal(data.asnumpy(), floats.astype(np.uint8))
    assert floats.max() > 200  # raw pixels in both
    it = mx.io.ImageRecordInt8Iter(path_imgrec=CLASSES, data_shape=(3, 16, 16), resize=16,
                                   batch_size=4)
    assert it.provide_data[0].dtype == np.int8
    assert it.next().data[0].dtype == np.int8
    # dtype given as a numpy type, as scripts do.
    it = _small(dtype=np.uint8)
    assert it.provide_data[0].dtype == np.uint8 and it.next().data[0].dtype == np.uint8


def test_rotate_list_draws_each_angle_from_the_list():
    base = dict(path_imgrec=CLASSES, data_shape=(3, 16, 16), resize=16, batch_size=12)
    r30 = _epoch(mx.io.ImageRecordIter(rotate=30, **base))[0][0]
    r60 = _epoch(mx.io.ImageRecordIter(rotate=60, **base))[0][0]
    listed = mx.io.ImageRecordIter(rotate_list=[30, 60], **base)
    seen = set()
    for _ in range(3):
        data = _epoch(listed)[0][0]
        listed.reset()
        for row in range(12):
            if np.array_equal(data[row], r30[row]):
                seen.add(30)
            elif np.array_equal(data[row], r60[row]):
                seen.add(60)
            else:
                pytest.fail("row %d is neither rotated by 30 nor by 60" % row)
    assert seen == {30, 60}


def test_missing_mean_img_is_computed_as_mxnet_does(tmp_path):
    path = str(tmp_path / "mean.nd")
    kw = dict(path_imgrec=CLASSES, data_shape=(3, 16, 16), resize=16, batch_size=5, scale=0.5,
              mean_img=path)
    it = mx.io.ImageRecordIter(**kw)
    saved = mx.nd.load(path)
    want = mx.nd.load(os.path.join(DIR, "mean_img.nd"))
    assert list(saved) == ["mean_img"]
    np.testing.assert_allclose(saved["mean_img"].asnumpy(), want["mean_img"].asnumpy(),
                               rtol=1e-5, atol=1e-5)
    got = np.stack([b.data[0].asnumpy() for b in it])
    np.testing.assert_allclose(got, np.load(os.path.join(DIR, "mean_img_data.npy")),
                               rtol=1e-4, atol=1e-4)


def test_several_rec_files_read_as_one(tmp_path):
    records = mx.recordio.MXRecordIO(CLASSES, "r")
    parts = [mx.recordio.MXRecordIO(str(tmp_path / ("part-%d.rec" % k)), "w") for k in range(2)]
    for i in range(12):
        parts[i // 7].write(records.read())
    for p in parts:
        p.close()
    base = dict(data_shape=(3, 16, 16), resize=16, batch_size=4, round_batch=False)
    whole = _epoch(mx.io.ImageRecordIter(path_imgrec=CLASSES, **base))
    for uri in (";".join(str(tmp_path / ("part-%d.rec" % k)) for k in range(2)),
                str(tmp_path), str(tmp_path / r"part-\d\.rec")):
        got = _epoch(mx.io.ImageRecordIter(path_imgrec=uri, **base))
        np.testing.assert_array_equal(np.stack([b[0] for b in got]),
                                      np.stack([b[0] for b in whole]))
    with pytest.raises(mx.base.MXNetError, match="no file in .* matches 'zzz.*'"):
        mx.io.ImageRecordIter(path_imgrec=str(tmp_path / "zzz.*"), **base)


def test_errors_surface_as_mxnet_errors():
    base = dict(path_imgrec=CLASSES, data_shape=(3, 8, 8), batch_size=2)
    with pytest.raises(mx.base.MXNetError, match="unknown parameter 'rand_mirorr'"):
        mx.io.ImageRecordIter(rand_mirorr=True, **base)
    with pytest.raises(mx.base.MXNetError, match="batch_size"):
        mx.io.ImageRecordIter(path_imgrec=CLASSES, data_shape=(3, 8, 8))
    with pytest.raises(mx.base.MXNetError, match=re.escape("data_shape=\"(3, 8)\"")):
        mx.io.ImageRecordIter(**dict(base, data_shape=(3, 8)))
    with pytest.raises(mx.base.MXNetError, match="channels must be 1, 3 or 4"):
        mx.io.ImageRecordIter(**dict(base, data_shape=(2, 8, 8)))
    missing = os.path.join(DIR, "no_such.rec")
    with pytest.raises(mx.base.MXNetError, match=re.escape(missing)):
        mx.io.ImageRecordIter(**dict(base, path_imgrec=missing))
    with pytest.raises(mx.base.MXNetError, match="rotate_list.*integer angles"):
        mx.io.ImageRecordIter(rotate_list="5,x", **base)
    with pytest.raises(mx.base.MXNetError, match=re.escape("part_index 3 must be in [0, num")):
        mx.io.ImageRecordIter(num_parts=3, part_index=3, **base)
    with pytest.raises(mx.base.MXNetError, match="dtype"):
        mx.io.ImageRecordIter(dtype="float16", **base)
    with pytest.raises(mx.base.MXNetError, match="inter_method 7"):
        mx.io.ImageRecordIter(inter_method=7, **base)


def test_label_width_mismatch_fails_on_first_next():
    rec = os.path.join(DIR, "multilabel.rec")
    it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=2)
    assert it.provide_label[0].shape == (2,)  # the constructor reads no record
    message = re.escape(rec) + ": record at byte 0: record id 100 has 2 label"
    with pytest.raises(mx.base.MXNetError, match=message):
        it.next()
    it.reset()  # stays usable: the same error again
    with pytest.raises(mx.base.MXNetError, match="label_width is 1"):
        it.next()


class _Job:
    def __init__(self, size, rank):
        self.size, self.rank = size, rank


def test_reads_the_launchers_share(monkeypatch):
    assert mx.kvstore.job_ranks() is None  # outside mpirun: the whole file
    assert _small().num_records == 12
    # Under a launcher of 3 ranks, rank 1 reads what num_parts=3, part_index=1 gives.
    monkeypatch.setattr(mx.kvstore, "job_ranks", lambda: _Job(3, 1))
    case = CASES["part_bytes"]
    auto = mx.io.ImageRecordIter(**{k: v for k, v in _kwargs(case["config"]).items()
                                    if k not in ("num_parts", "part_index")})
    explicit = mx.io.ImageRecordIter(**_kwargs(case["config"]))
    assert auto.num_records == explicit.num_records < 12
    want = np.load(os.path.join(DIR, "iter_part_bytes_data.npy"))
    got = _epoch(auto)
    assert [g[2] for g in got] == case["pads"]
    np.testing.assert_allclose(np.stack([g[0] for g in got]), want, rtol=1e-5, atol=1e-5)
    # num_parts=1 keeps every rank on the whole file.
    assert _small(num_parts=1).num_records == 12
    monkeypatch.setattr(mx.kvstore, "job_ranks", lambda: _Job(1, 0))
    assert _small().num_records == 12


# ---------------------------------------------------------------- CSVIter


def _write_csv(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text("".join(",".join(str(v) for v in row) + "\n" for row in rows))
    return str(path)


def _csv(tmp_path, n=5, label_cols=1):
    data = _write_csv(tmp_path, "data.csv", [[4 * i + k for k in range(4)] for i in range(n)])
    rows = [[10 + i] if label_cols == 1 else [10 + i, 20 + i] for i in range(n)]
    return data, _write_csv(tmp_path, "label.csv", rows)


def test_csv_shapes_and_round_batch(tmp_path):
    data, label = _csv(tmp_path)
    it = mx.io.CSVIter(data_csv=data, data_shape=(2, 2), label_csv=label, batch_size=2)
    assert it.provide_data[0].shape == (2, 2, 2) and it.provide_data[0].name == "data"
    assert it.provide_label[0].shape == (2,) and it.provide_label[0].name == "softmax_label"
    batches = list(it)
    assert len(batches) == 3
    assert [b.pad for b in batches] == [0, 0, 1]
    np.testing.assert_array_equal(batches[0].data[0].asnumpy(),
                                  [[[0, 1], [2, 3]], [[4, 5], [6, 7]]])
    assert batches[0].data[0].dtype == np.float32
    # The last batch wraps to the first row.
    np.testing.assert_array_equal(batches[2].data[0].asnumpy().reshape(2, 4),
                                  [[16, 17, 18, 19], [0, 1, 2, 3]])
    assert batches[2].label[0].asnumpy().tolist() == [14, 10]
    # reset: the first line again.
    it.reset()
    again = list(it)
    assert len(again) == 3
    np.testing.assert_array_equal(again[0].data[0].asnumpy(), batches[0].data[0].asnumpy())

    data, label = _csv(tmp_path, label_cols=2)
    it = mx.io.CSVIter(data_csv=data, data_shape=(4,), label_csv=label, label_shape=(2,),
                       batch_size=3, round_batch=False, data_name="x", label_name="y")
    assert (it.provide_data[0].name, it.provide_data[0].shape) == ("x", (3, 4))
    assert (it.provide_label[0].name, it.provide_label[0].shape) == ("y", (3, 2))
    batches = list(it)
    assert [b.pad for b in batches] == [0, 1]
    np.testing.assert_array_equal(batches[1].data[0].asnumpy(),
                                  [[12, 13, 14, 15], [16, 17, 18, 19], [0, 0, 0, 0]])
    np.testing.assert_array_equal(batches[1].label[0].asnumpy(), [[13, 23], [14, 24], [0, 0]])


@pytest.mark.parametrize("dtype", ["int32", "int64", np.int64])
def test_csv_integer_dtypes(tmp_path, dtype):
    big = 2 ** 40 if np.dtype(dtype) == np.int64 else 2 ** 30
    data = _write_csv(tmp_path, "d.csv", [[big + 1, -7], [3, 2 ** 24 + 1]])
    label = _write_csv(tmp_path, "l.csv", [[5], [-6]])
    it = mx.io.CSVIter(data_csv=data, data_shape=(2,), label_csv=label, batch_size=2,
                       dtype=dtype)
    assert it.provide_data[0].dtype == np.dtype(dtype).type
    batch = it.next()
    assert batch.data[0].dtype == np.dtype(dtype)
    assert batch.data[0].asnumpy().tolist() == [[big + 1, -7], [3, 2 ** 24 + 1]]
    assert batch.label[0].asnumpy().tolist() == [5, -6]
    # Without label_csv the labels are zeros.
    it = mx.io.CSVIter(data_csv=data, data_shape=(2,), batch_size=2, dtype=dtype)
    assert it.next().label[0].asnumpy().tolist() == [0, 0]


def test_csv_number_forms_and_line_endings(tmp_path):
    path = tmp_path / "forms.csv"
    path.write_bytes(b"1e3, -2.5\r\n+3,.5\r\n\n")  # CRLF, spaces, a blank last line
    it = mx.io.CSVIter(data_csv=str(path), data_shape=(2,), batch_size=2)
    assert it.next().data[0].asnumpy().tolist() == [[1000, -2.5], [3, 0.5]]
    with pytest.raises(StopIteration):
        it.next()


def test_csv_errors(tmp_path):
    data, _ = _csv(tmp_path)
    bad = _write_csv(tmp_path, "bad.csv", [[1, 2, 3, 4], [5, "x", 7, 8]])
    with pytest.raises(mx.base.MXNetError,
                       match=re.escape(bad) + ": line 2, column 2: \"x\" is not"):
        mx.io.CSVIter(data_csv=bad, data_shape=(4,), batch_size=2)
    ragged = _write_csv(tmp_path, "ragged.csv", [[1, 2, 3, 4], [5, 6, 7]])
    with pytest.raises(mx.base.MXNetError, match=re.escape(ragged) + ": line 2 has 3 values"):
        mx.io.CSVIter(data_csv=ragged, data_shape=(4,), batch_size=2)
    short = _write_csv(tmp_path, "short.csv", [[1], [2]])
    with pytest.raises(mx.base.MXNetError, match=re.escape(short) + " has 2 rows, fewer than"):
        mx.io.CSVIter(data_csv=data, data_shape=(4,), label_csv=short, batch_size=2)
    with pytest.raises(mx.base.MXNetError, match="unknown parameter 'shuffle'"):
        mx.io.CSVIter(data_csv=data, data_shape=(4,), batch_size=2, shuffle=True)
    with pytest.raises(mx.base.MXNetError, match="batch_size"):
        mx.io.CSVIter(data_csv=data, data_shape=(4,))
    missing = str(tmp_path / "missing.csv")
    with pytest.raises(mx.base.MXNetError, match=re.escape(missing)):
        mx.io.CSVIter(data_csv=missing, data_shape=(4,), batch_size=2)


def test_old_style_loop_iter_next_getdata():
    """MXNet's MXDataIter loop: iter_next() then getdata/getlabel/getindex/getpad."""
    it = mx.io.ImageRecordIter(path_imgrec=os.path.join(DIR, "classes.rec"), data_shape=(3, 8, 8),
                               resize=8, batch_size=5)
    with pytest.raises(mx.base.MXNetError, match="iter_next"):
        it.getdata()
    pads, ids = [], []
    while it.iter_next():
        assert it.getdata()[0].shape == (5, 3, 8, 8)
        assert it.getlabel()[0].shape == (5,)
        pads.append(it.getpad())
        ids.extend(int(i) for i in it.getindex())
    assert pads == [0, 0, 3]
    assert ids[:12] == list(range(100, 112))
    it.reset()
    assert it.iter_next() and it.getpad() == 0


@pytest.mark.parametrize("case", ["force", "fit_pad_label", "shrink_gray"])
def test_det_iter_equals_mxnet(case):
    """mx.io.ImageDetRecordIter against MXNet 1.9.1's on det.rec (det_cases.json)."""
    import json
    meta = json.load(open(os.path.join(DIR, "det_cases.json")))[case]
    kw = dict(meta["config"])
    kw["path_imgrec"] = os.path.join(DIR, kw["path_imgrec"])
    kw["data_shape"] = tuple(kw["data_shape"])
    it = mx.io.ImageDetRecordIter(preprocess_threads=2, **kw)
    want_data = np.load(os.path.join(DIR, "det_%s_data.npy" % case))
    want_label = np.load(os.path.join(DIR, "det_%s_label.npy" % case))
    batches = list(it)
    assert [b.pad for b in batches] == meta["pads"]
    for b, d, l in zip(batches, want_data, want_label):
        np.testing.assert_allclose(b.data[0].asnumpy(), d, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(b.label[0].asnumpy(), l)
    assert it.provide_label[0].name == "softmax_label"
    assert it.provide_label[0].shape == want_label.shape[1:]


def test_det_iter_errors():
    rec = os.path.join(DIR, "det.rec")
    with pytest.raises(mx.base.MXNetError, match="unknown parameter 'rand_crop'"):
        mx.io.ImageDetRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=2,
                                 rand_crop=True)
    with pytest.raises(mx.base.MXNetError, match="single label"):
        mx.io.ImageDetRecordIter(path_imgrec=os.path.join(DIR, "classes.rec"),
                                 data_shape=(3, 8, 8), batch_size=2)
    with pytest.raises(mx.base.MXNetError, match="crop samplers"):
        mx.io.ImageDetRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=2,
                                 num_crop_sampler=2, min_crop_scales=(0.1, 0.2, 0.3))


def test_det_iter_tuple_parameters_keep_their_fractions():
    """Crop-sampler tuples reach the engine with their fractional values: a
    scale range that does not fit (min 0.5 > max 0.4) is refused naming it."""
    with pytest.raises(mx.base.MXNetError, match=r"scales \[0.5, 0.4\]"):
        mx.io.ImageDetRecordIter(path_imgrec=os.path.join(DIR, "det.rec"), data_shape=(3, 8, 8),
                                 batch_size=2, num_crop_sampler=2, min_crop_scales=(0.1, 0.5),
                                 max_crop_scales=(0.9, 0.4))
