"""mx.recordio and mx.image against what MXNet 1.9.1 gives
(tests/testdata/recordio, written by make_recordio_files.py there): reading
MXNet's framing.rec and images.rec in order and by key; writing the same
payloads gives MXNet's .rec and .idx byte for byte; payloads holding the
RecordIO magic word (split at 4-aligned places only, sizes worked out by
hand from the format); the writer's file appearing on close; pickling;
pack/unpack headers (flag semantics as MXNet's pack); pack_img/unpack_img
in OpenCV's BGR order; imdecode equal to MXNet's decoded pixels; and the
crop/resize/border helpers against values worked out by hand or numpy.pad.
Errors surface as mx.base.MXNetError naming the file (and byte offset)."""
import json
import os
import pickle
import re
import struct

import numpy as np
import pytest

import symx as mx

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "recordio")
MAGIC = struct.pack("<I", 0xCED7230A)
assert MAGIC == b"\x0a\x23\xd7\xce"
IR = mx.recordio.IRHeader


def _path(name):
    return os.path.join(DIR, name)


def _payloads():
    with open(_path("framing.json")) as f:
        return [bytes.fromhex(h) for h in json.load(f)["payloads"]]


def _images_meta():
    with open(_path("images.json")) as f:
        return json.load(f)["records"]


def _read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def _idx_offsets(path):
    with open(path) as f:
        return {int(k): int(v) for k, v in (line.split("\t") for line in f if line.strip())}


# ---------------------------------------------------------------- RecordIO


def test_reads_mxnet_framing_in_order():
    want = _payloads()
    rec = mx.recordio.MXRecordIO(_path("framing.rec"), "r")
    got = [rec.read() for _ in want]
    assert got == want
    assert rec.read() is None  # the end, and it stays the end
    assert rec.read() is None
    rec.reset()  # starts again
    assert rec.read() == want[0] and rec.read() == want[1]
    rec.close()


def test_reads_mxnet_files_by_key():
    want = _payloads()
    rec = mx.recordio.MXIndexedRecordIO(_path("framing.idx"), _path("framing.rec"), "r")
    assert rec.keys == list(range(len(want)))
    assert rec.idx == _idx_offsets(_path("framing.idx"))
    assert rec.idx[1] == 8 and rec.idx[2] == 20  # "" takes 8 bytes, "a" 8 + 4
    for i in reversed(range(len(want))):
        assert rec.read_idx(i) == want[i], i
    rec.seek(9)
    assert rec.read() == want[9] and rec.read() == want[10]  # reads on from a key
    with pytest.raises(KeyError):
        rec.read_idx(99)
    rec.close()

    images = mx.recordio.MXIndexedRecordIO(_path("images.idx"), _path("images.rec"), "r")
    meta = _images_meta()
    assert images.keys == list(range(len(meta)))
    for i in (6, 2, 0, 4):
        header, _ = mx.recordio.unpack(images.read_idx(i))
        assert (header.id, header.id2, header.flag) == (meta[i]["id"], meta[i]["id2"],
                                                        meta[i]["flag"])
    images.close()


def test_key_type_parses_the_keys():
    rec = mx.recordio.MXIndexedRecordIO(_path("framing.idx"), _path("framing.rec"), "r",
                                        key_type=str)
    assert rec.keys[:3] == ["0", "1", "2"]
    assert rec.read_idx("5") == _payloads()[5]
    rec.close()


def test_writer_reproduces_mxnet_bytes_and_index(tmp_path):
    payloads = _payloads()
    rec_path, idx_path = tmp_path / "framing.rec", tmp_path / "framing.idx"
    rec = mx.recordio.MXIndexedRecordIO(idx_path, rec_path, "w")
    for i, p in enumerate(payloads):
        rec.write_idx(i, p)
    rec.close()
    assert _read_bytes(rec_path) == _read_bytes(_path("framing.rec"))
    assert _read_bytes(idx_path) == _read_bytes(_path("framing.idx"))

    # The image records too, as bytearray and numpy payloads.
    src = mx.recordio.MXRecordIO(_path("images.rec"), "r")
    out = mx.recordio.MXIndexedRecordIO(str(tmp_path / "images.idx"),
                                        str(tmp_path / "images.rec"), "w")
    i = 0
    while True:
        p = src.read()
        if p is None:
            break
        out.write_idx(i, bytearray(p) if i % 2 else np.frombuffer(p, np.uint8))
        i += 1
    out.close()
    assert i == len(_images_meta())
    assert _read_bytes(tmp_path / "images.rec") == _read_bytes(_path("images.rec"))
    assert _read_bytes(tmp_path / "images.idx") == _read_bytes(_path("images.idx"))


@pytest.mark.parametrize("payload, size", [
    (b"abcd" + MAGIC + b"efgh", 24),  # aligned at 4: cut in two parts, 8 + 4 and 8 + 4
    (b"abc" + MAGIC + b"defg", 20),  # unaligned: one part of 11 bytes, 8 + 12
    (MAGIC, 16),  # at 0: two empty parts
    (b"12345678" + MAGIC, 24),  # at the end: 8 + 8, then an empty last part
    (MAGIC * 3, 32),  # four empty parts
    (b"x" + MAGIC + b"yyy" + MAGIC, 24),  # at 1 kept, at 8 cut: 8 + 8, then 8 + 0
    (b"ab" + MAGIC[:3], 16),  # a partial magic word is plain data
])
def test_magic_word_in_payloads_round_trips(tmp_path, payload, size):
    path = str(tmp_path / "m.rec")
    w = mx.recordio.MXRecordIO(path, "w")
    w.write(b"before")
    w.write(payload)
    w.write(b"after")
    w.close()
    assert os.path.getsize(path) == 16 + size + 16
    body = _read_bytes(path)[16:16 + size]
    # The writer never leaves the magic word 4-aligned inside a part's data:
    # every aligned occurrence is a part header, with the length after it.
    aligned = [k for k in range(0, size, 4) if body[k:k + 4] == MAGIC]
    k, parts = 0, []
    while k < size:
        lrec = struct.unpack("<I", body[k + 4:k + 8])[0]
        parts.append(k)
        k += 8 + ((lrec & ((1 << 29) - 1)) + 3) // 4 * 4
    assert aligned == parts
    r = mx.recordio.MXRecordIO(path, "r")
    assert [r.read(), r.read(), r.read(), r.read()] == [b"before", payload, b"after", None]
    r.close()


def test_random_payloads_round_trip_by_key(tmp_path):
    rng = np.random.RandomState(0)
    payloads = []
    for n in range(40):
        p = bytearray(rng.randint(0, 256, size=rng.randint(0, 60), dtype=np.uint8).tobytes())
        for at in rng.randint(0, max(1, len(p)), size=rng.randint(0, 3)):
            p[at:at] = MAGIC  # at aligned and unaligned places
        payloads.append(bytes(p))
    assert sum(MAGIC in p for p in payloads) > 10
    w = mx.recordio.MXIndexedRecordIO(tmp_path / "r.idx", tmp_path / "r.rec", "w")
    for n, p in enumerate(payloads):
        w.write_idx(1000 + n, p)
    w.close()
    r = mx.recordio.MXIndexedRecordIO(tmp_path / "r.idx", tmp_path / "r.rec", "r")
    assert r.keys == [1000 + n for n in range(40)]
    for n in rng.permutation(40):
        assert r.read_idx(1000 + n) == payloads[n], n
    r.reset()
    assert [r.read() for _ in range(41)] == payloads + [None]
    r.close()


def test_writer_file_appears_on_close(tmp_path):
    path = tmp_path / "w.rec"
    w = mx.recordio.MXRecordIO(str(path), "w")
    w.write(b"payload")
    assert w.tell() == 16
    assert not path.exists() and (tmp_path / "w.rec.partial").exists()
    w.close()
    assert path.exists() and not (tmp_path / "w.rec.partial").exists()
    assert os.path.getsize(path) == 16
    w.close()  # again: nothing
    # reset() on a writer starts an empty file.
    w = mx.recordio.MXRecordIO(str(path), "w")
    w.write(b"first")
    w.reset()
    w.write(b"second")
    w.close()
    r = mx.recordio.MXRecordIO(str(path), "r")
    assert (r.read(), r.read()) == (b"second", None)


def test_pickled_reader_reads(tmp_path):
    want = _payloads()
    rec = mx.recordio.MXIndexedRecordIO(_path("framing.idx"), _path("framing.rec"), "r")
    assert rec.read() == want[0]
    copy = pickle.loads(pickle.dumps(rec))
    assert copy.is_open and copy.keys == rec.keys
    assert copy.read_idx(8) == want[8]
    assert copy.read() == want[9]
    copy.reset()
    assert copy.read() == want[0]
    plain = pickle.loads(pickle.dumps(mx.recordio.MXRecordIO(_path("framing.rec"), "r")))
    assert [plain.read() for _ in want] == want
    # A closed reader stays closed through pickling.
    closed = mx.recordio.MXRecordIO(_path("framing.rec"), "r")
    closed.close()
    assert not pickle.loads(pickle.dumps(closed)).is_open


def test_invalid_flag_missing_and_truncated_files(tmp_path):
    with pytest.raises(ValueError, match="Invalid flag"):
        mx.recordio.MXRecordIO(str(tmp_path / "x.rec"), "a")
    missing = str(tmp_path / "no_such.rec")
    with pytest.raises(mx.base.MXNetError, match=re.escape(missing)):
        mx.recordio.MXRecordIO(missing, "r")
    with pytest.raises(mx.base.MXNetError, match=re.escape(missing)):
        mx.recordio.MXIndexedRecordIO(str(tmp_path / "no_such.idx"), missing, "r")
    no_idx = str(tmp_path / "no_such.idx")  # MXNet: open()'s FileNotFoundError
    with pytest.raises((OSError, mx.base.MXNetError), match=re.escape(no_idx)):
        mx.recordio.MXIndexedRecordIO(no_idx, _path("framing.rec"), "r")

    good = _read_bytes(_path("framing.rec"))
    cut = str(tmp_path / "cut.rec")
    with open(cut, "wb") as f:
        f.write(good[:17])  # record 0 (8 bytes), then 9 bytes of record 1's 12
    r = mx.recordio.MXRecordIO(cut, "r")
    assert r.read() == b""
    with pytest.raises(mx.base.MXNetError, match=re.escape(cut) + ": byte 8: .*truncated"):
        r.read()
    bad = str(tmp_path / "bad_magic.rec")
    with open(bad, "wb") as f:
        f.write(good[:20] + b"\x00" + good[21:])  # record 2's magic word
    r = mx.recordio.MXRecordIO(bad, "r")
    assert (r.read(), r.read()) == (b"", b"a")
    with pytest.raises(mx.base.MXNetError, match=re.escape(bad) + ": byte 20: .*magic"):
        r.read()
    # An .idx line that is not KEY<TAB>OFFSET names the .idx file and line.
    idx = str(tmp_path / "bad.idx")
    with open(idx, "w") as f:
        f.write("0\t0\n1\n")
    with pytest.raises(mx.base.MXNetError, match=re.escape(idx) + ": line 2"):
        mx.recordio.MXIndexedRecordIO(idx, _path("framing.rec"), "r")


# ---------------------------------------------------------------- pack / unpack


def test_pack_scalar_and_vector_labels():
    packed = mx.recordio.pack(IR(7, 3.5, 11, 12), b"img")  # a number: flag 0 whatever given
    assert packed == struct.pack("<IfQQ", 0, 3.5, 11, 12) + b"img"
    header, s = mx.recordio.unpack(packed)
    assert header == (0, 3.5, 11, 12) and s == b"img"

    packed = mx.recordio.pack(IR(0, [1, 2.5, -4], 5, 0), b"xy")  # a list: flag = its length
    assert packed == struct.pack("<IfQQ3f", 3, 0, 5, 0, 1, 2.5, -4) + b"xy"
    header, s = mx.recordio.unpack(packed)
    assert header.flag == 3 and (header.id, header.id2) == (5, 0) and s == b"xy"
    assert header.label.dtype == np.float32
    np.testing.assert_array_equal(header.label, [1, 2.5, -4])

    packed = mx.recordio.pack(IR(0, np.array([7.0]), 1, 2), b"")  # a vector of one
    assert struct.unpack("<I", packed[:4])[0] == 1 and len(packed) == 28
    np.testing.assert_array_equal(mx.recordio.unpack(packed)[0].label, [7.0])

    packed = mx.recordio.pack((4, np.float32(2.0), 1, 2), b"")  # numpy scalar: a number
    assert packed == struct.pack("<IfQQ", 0, 2.0, 1, 2)
    assert mx.recordio.unpack(packed)[0].label == 2.0


def test_unpack_matches_mxnet_headers_and_refuses_short_records():
    rec = mx.recordio.MXRecordIO(_path("images.rec"), "r")
    for m in _images_meta():
        header, img = mx.recordio.unpack(rec.read())
        assert (header.flag, header.id, header.id2) == (m["flag"], m["id"], m["id2"])
        np.testing.assert_array_equal(np.atleast_1d(header.label), m["label"])
        assert img[:2] == (b"\x89P" if m["format"] == ".png" else b"\xff\xd8")
        # Packing the same header again gives MXNet's record.
        assert mx.recordio.pack(header, img) == _repacked(m, header, img)
    with pytest.raises(mx.base.MXNetError, match="record of 5 bytes"):
        mx.recordio.unpack(b"short")
    three = mx.recordio.pack(IR(0, [1, 2, 3], 0, 0), b"")
    with pytest.raises(mx.base.MXNetError, match="flag 3"):
        mx.recordio.unpack(three[:30])


def _repacked(m, header, img):
    if m["flag"] == 0:
        return struct.pack("<IfQQ", 0, m["label"][0], m["id"], m["id2"]) + img
    return (struct.pack("<IfQQ", m["flag"], 0, m["id"], m["id2"])
            + np.asarray(m["label"], np.float32).tobytes() + img)


def test_pack_img_round_trips_png_exactly_in_bgr_order():
    rng = np.random.RandomState(1)
    bgr = rng.randint(0, 256, size=(9, 13, 3)).astype(np.uint8)
    s = mx.recordio.pack_img(IR(0, 4.0, 3, 0), bgr, quality=3, img_fmt=".png")
    header, back = mx.recordio.unpack_img(s)
    assert header == (0, 4.0, 3, 0)
    assert back.dtype == np.uint8
    np.testing.assert_array_equal(back, bgr)
    # The PNG holds RGB: imdecode (RGB by default) gives the channels reversed.
    _, encoded = mx.recordio.unpack(s)
    np.testing.assert_array_equal(mx.image.imdecode(encoded).asnumpy(), bgr[:, :, ::-1])
    np.testing.assert_array_equal(mx.image.imdecode(encoded, to_rgb=0).asnumpy(), bgr)
    # Gray images are 2-D both ways; iscolor=1 repeats the channel.
    gray = rng.randint(0, 256, size=(7, 5)).astype(np.uint8)
    s = mx.recordio.pack_img(IR(0, [1, 2], 0, 0), gray, quality=9, img_fmt=".PNG")
    header, back = mx.recordio.unpack_img(s)
    assert header.flag == 2 and back.shape == (7, 5)
    np.testing.assert_array_equal(back, gray)
    _, color = mx.recordio.unpack_img(s, iscolor=1)
    np.testing.assert_array_equal(color, np.repeat(gray[:, :, None], 3, axis=2))
    # 4 channels: BGRA kept through a PNG; imdecode's RGB drops the alpha.
    bgra = rng.randint(0, 256, size=(5, 6, 4)).astype(np.uint8)
    s = mx.recordio.pack_img(IR(0, 1, 0, 0), bgra, quality=1, img_fmt=".png")
    np.testing.assert_array_equal(mx.recordio.unpack_img(s)[1], bgra)
    rgb = mx.image.imdecode(mx.recordio.unpack(s)[1]).asnumpy()
    np.testing.assert_array_equal(rgb, bgra[:, :, 2::-1])
    # MXNet's RGBA logo.png record: BGRA from unpack_img, 3 channels with iscolor=1.
    logo = mx.recordio.MXIndexedRecordIO(_path("images.idx"), _path("images.rec"), "r").read_idx(5)
    want = np.load(_path("images_5_flag1.npy"))
    np.testing.assert_array_equal(mx.recordio.unpack_img(logo)[1][:, :, 2::-1], want)
    np.testing.assert_array_equal(mx.recordio.unpack_img(logo, iscolor=1)[1], want[:, :, ::-1])
    # iscolor=0 of a colour PNG: one channel, as a 2-D array.
    _, g = mx.recordio.unpack_img(mx.recordio.pack_img(IR(0, 0, 0, 0), bgr, 0, ".png"), 0)
    assert g.shape == (9, 13)


# MXNet's OpenCV clamps IMWRITE_PNG_COMPRESSION to [0, 9]: the default
# quality=95 packs a PNG (im2rec --encoding .png relies on it).
def test_pack_img_png_with_default_quality():
    bgr = np.arange(4 * 6 * 3).reshape(4, 6, 3).astype(np.uint8)
    _, back = mx.recordio.unpack_img(mx.recordio.pack_img(IR(0, 1, 0, 0), bgr, img_fmt=".png"))
    np.testing.assert_array_equal(back, bgr)


def test_pack_img_jpeg_is_close():
    y, x = np.mgrid[0:32, 0:48]
    bgr = np.stack([x * 5, y * 7, (x + y) * 3], axis=2).astype(np.uint8)
    s = mx.recordio.pack_img(IR(0, 1, 2, 3), bgr, quality=95)
    _, encoded = mx.recordio.unpack(s)
    assert encoded[:3] == b"\xff\xd8\xff"
    header, back = mx.recordio.unpack_img(s)
    assert back.shape == bgr.shape and header == (0, 1.0, 2, 3)
    err = np.abs(back.astype(int) - bgr.astype(int))
    assert err.mean() < 2 and err.max() < 20
    # BGR kept: the blue channel (x * 5) still grows along x.
    assert back[16, 40, 0] > back[16, 5, 0] + 100
    low = mx.recordio.unpack(mx.recordio.pack_img(IR(0, 1, 2, 3), bgr, quality=10))[1]
    assert len(low) < len(encoded)
    with pytest.raises(mx.base.MXNetError, match="bmp"):
        mx.recordio.pack_img(IR(0, 1, 2, 3), bgr, img_fmt=".bmp")


# ---------------------------------------------------------------- mx.image


def _image_records():
    rec = mx.recordio.MXRecordIO(_path("images.rec"), "r")
    return [mx.recordio.unpack(rec.read())[1] for _ in _images_meta()]


def test_imdecode_equals_mxnet():
    for i, (m, encoded) in enumerate(zip(_images_meta(), _image_records())):
        for flag in (1, 0):
            want = np.load(_path(m["decoded"][str(flag)]))
            got = mx.image.imdecode(encoded, flag=flag)
            assert isinstance(got, mx.nd.NDArray)
            assert got.dtype == np.uint8 and got.shape == want.shape, (i, flag)
            np.testing.assert_array_equal(got.asnumpy(), want, err_msg="%d flag %d" % (i, flag))
        bgr = mx.image.imdecode(encoded, to_rgb=0).asnumpy()
        np.testing.assert_array_equal(bgr, np.load(_path(m["decoded"]["1"]))[:, :, ::-1])
    # flag -1: as stored (logo.png is RGBA, camera.png gray).
    assert mx.image.imdecode(_image_records()[5], flag=-1).shape == (36, 36, 4)
    assert mx.image.imdecode(_image_records()[6], flag=-1).shape[2] == 1


def test_imdecode_inputs():
    encoded = _image_records()[2]
    want = np.load(_path("images_2_flag1.npy"))
    as_np = np.frombuffer(encoded, dtype=np.uint8)
    for buf in (encoded, bytearray(encoded), as_np, mx.nd.array(as_np, dtype=np.uint8)):
        np.testing.assert_array_equal(mx.image.imdecode(buf).asnumpy(), want)
    out = mx.nd.zeros(want.shape, dtype=np.uint8)
    assert mx.image.imdecode(encoded, out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), want)
    with pytest.raises(ValueError, match="bytes"):
        mx.image.imdecode(encoded.decode("latin-1"))
    with pytest.raises(mx.base.MXNetError, match="neither a JPEG"):
        mx.image.imdecode(b"garbage, not an image")
    with pytest.raises(mx.base.MXNetError, match="JPEG"):
        mx.image.imdecode(_image_records()[0][:40])  # a cut JPEG


def test_imread(tmp_path):
    encoded = _image_records()[1]
    path = tmp_path / "coffee.jpg"
    path.write_bytes(encoded)
    np.testing.assert_array_equal(mx.image.imread(str(path)).asnumpy(),
                                  np.load(_path("images_1_flag1.npy")))
    np.testing.assert_array_equal(mx.image.imread(str(path), flag=0).asnumpy(),
                                  np.load(_path("images_1_flag0.npy")))
    missing = str(tmp_path / "missing.png")
    with pytest.raises(mx.base.MXNetError, match=re.escape(missing)):
        mx.image.imread(missing)
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a png")
    with pytest.raises(mx.base.MXNetError, match=re.escape(str(bad))):
        mx.image.imread(str(bad))


def _blocks(h, w, c=3, k=2):
    """An image whose k x k blocks have integer means (area downscaling by k
    gives them exactly) but other centres (what bilinear would pick at k=3)."""
    rng = np.random.RandomState(3)
    small = rng.randint(2, 60, size=(h // k, w // k, c)) * 4
    big = np.repeat(np.repeat(small, k, 0), k, 1)
    block = [[1, -1], [-1, 1]] if k == 2 else [[1, 0, -1], [0, 2, 0], [-1, 0, -1]]
    jitter = np.tile(np.array(block), (h // k, w // k))[:, :, None]
    return (big + jitter).astype(np.uint8), small.astype(np.uint8)


def test_imresize():
    img, small = _blocks(10, 14)
    nd_img = mx.nd.array(img, dtype=np.uint8)
    half = mx.image.imresize(nd_img, 7, 5, interp=3)  # w, h; area
    assert half.shape == (5, 7, 3) and half.dtype == np.uint8
    np.testing.assert_array_equal(half.asnumpy(), small)
    up = mx.image.imresize(mx.nd.array(small, dtype=np.uint8), 14, 10, interp=0)  # nearest
    np.testing.assert_array_equal(up.asnumpy(), np.repeat(np.repeat(small, 2, 0), 2, 1))
    for interp in (0, 1, 2, 3, 4):
        got = mx.image.imresize(nd_img, 9, 6, interp=interp)
        want = mx.nd.image.resize(nd_img, size=(9, 6), interp=interp)
        assert got.shape == (6, 9, 3)
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    out = mx.nd.zeros((5, 7, 3), dtype=np.uint8)
    assert mx.image.imresize(nd_img, 7, 5, interp=3, out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), small)


def test_scale_down_resize_short_and_crops():
    assert mx.image.scale_down((640, 480), (720, 120)) == (640, 106)  # MXNet's docstring
    assert mx.image.scale_down((100, 100), (50, 30)) == (50, 30)
    assert mx.image.scale_down((30, 20), (60, 20)) == (30, 10)
    assert mx.image.scale_down((30, 20), (20, 40)) == (10, 20)

    img, small = _blocks(20, 28)
    nd_img = mx.nd.array(img, dtype=np.uint8)
    short = mx.image.resize_short(nd_img, 10, interp=3)  # 20x28 -> 10x14
    assert short.shape == (10, 14, 3)
    np.testing.assert_array_equal(short.asnumpy(), small)
    tall = mx.image.resize_short(mx.nd.array(img.transpose(1, 0, 2).copy(), dtype=np.uint8), 10,
                                 interp=3)
    np.testing.assert_array_equal(tall.asnumpy(), small.transpose(1, 0, 2))
    assert mx.image.resize_short(nd_img, 15).shape == (15, 21, 3)  # 28 * 15 // 20
    # interp 9 picks area to shrink, bicubic to enlarge (MXNet's _get_interp_method).
    img3, small3 = _blocks(30, 42, k=3)
    np.testing.assert_array_equal(
        mx.image.resize_short(mx.nd.array(img3, dtype=np.uint8), 10, interp=9).asnumpy(), small3)
    np.testing.assert_array_equal(mx.image.resize_short(nd_img, 30, interp=9).asnumpy(),
                                  mx.image.imresize(nd_img, 42, 30, interp=2).asnumpy())
    with pytest.raises(ValueError, match="interp"):
        mx.image.resize_short(nd_img, 10, interp=7)

    src = mx.nd.array(np.arange(10 * 12 * 3).reshape(10, 12, 3) % 251, dtype=np.uint8)
    a = src.asnumpy()
    np.testing.assert_array_equal(mx.image.fixed_crop(src, 2, 3, 5, 4).asnumpy(), a[3:7, 2:7])
    crop = mx.image.fixed_crop(src, 2, 3, 5, 4, size=(10, 8), interp=0)
    np.testing.assert_array_equal(crop.asnumpy(), np.repeat(np.repeat(a[3:7, 2:7], 2, 0), 2, 1))
    out, box = mx.image.center_crop(src, (6, 4))
    assert box == (3, 3, 6, 4)
    np.testing.assert_array_equal(out.asnumpy(), a[3:7, 3:9])
    out, box = mx.image.center_crop(src, (24, 10), interp=0)  # scaled down to 12x5, then 2x
    assert box == (0, 2, 12, 5) and out.shape == (10, 24, 3)
    np.testing.assert_array_equal(out.asnumpy(), np.repeat(np.repeat(a[2:7], 2, 0), 2, 1))
    out, (x, y, w, h) = mx.image.random_crop(src, (5, 5))
    assert (w, h) == (5, 5) and 0 <= x <= 7 and 0 <= y <= 5
    np.testing.assert_array_equal(out.asnumpy(), a[y:y + 5, x:x + 5])
    out, (x, y, w, h) = mx.image.random_size_crop(src, (6, 6), (0.3, 0.6), (0.75, 1.33))
    assert out.shape == (6, 6, 3) and x + w <= 12 and y + h <= 10


def test_copy_make_border():
    row = mx.nd.array(np.array([1, 2, 3], np.uint8).reshape(1, 3, 1), dtype=np.uint8)
    want = {  # two columns each side, by hand from OpenCV's border types
        0: [9, 9, 1, 2, 3, 9, 9],  # constant
        1: [1, 1, 1, 2, 3, 3, 3],  # replicate
        2: [2, 1, 1, 2, 3, 3, 2],  # reflect
        3: [2, 3, 1, 2, 3, 1, 2],  # wrap
        4: [3, 2, 1, 2, 3, 2, 1],  # reflect_101
    }
    for t, w in want.items():
        got = mx.image.copyMakeBorder(row, 0, 0, 2, 2, type=t, value=9)
        assert got.shape == (1, 7, 1) and got.dtype == np.uint8
        assert got.asnumpy()[0, :, 0].tolist() == w, t

    a = np.arange(4 * 5 * 3).reshape(4, 5, 3).astype(np.float32)
    src = mx.nd.array(a)
    modes = {1: "edge", 2: "symmetric", 3: "wrap", 4: "reflect"}
    for t, mode in modes.items():
        got = mx.image.copyMakeBorder(src, 1, 2, 3, 1, type=t)
        np.testing.assert_array_equal(got.asnumpy(),
                                      np.pad(a, [(1, 2), (3, 1), (0, 0)], mode=mode))
    got = mx.image.copyMakeBorder(src, 2, 1, 0, 2, type=0, value=-1.5).asnumpy()
    np.testing.assert_array_equal(got, np.pad(a, [(2, 1), (0, 2), (0, 0)],
                                              constant_values=-1.5))
    got = mx.image.copyMakeBorder(src, 1, 1, 1, 1, values=(7, 8, 9)).asnumpy()
    assert got[0, 0].tolist() == [7, 8, 9] and got[5, 6].tolist() == [7, 8, 9]
    np.testing.assert_array_equal(got[1:5, 1:6], a)
    with pytest.raises(mx.base.MXNetError, match="border type"):
        mx.image.copyMakeBorder(src, 1, 1, 1, 1, type=5)


def test_color_normalize():
    a = np.arange(2 * 3 * 3, dtype=np.float32).reshape(2, 3, 3)
    mean = mx.nd.array([1.0, 2.0, 3.0])
    std = mx.nd.array([2.0, 4.0, 0.5])
    got = mx.image.color_normalize(mx.nd.array(a), mean, std).asnumpy()
    np.testing.assert_allclose(got, (a - [1, 2, 3]) / [2, 4, 0.5], rtol=1e-6)
    assert got[0, 0].tolist() == [-0.5, -0.25, -2.0]
    got = mx.image.color_normalize(mx.nd.array(a), mean).asnumpy()
    np.testing.assert_array_equal(got, a - [1, 2, 3])
