"""Writes the RecordIO and image golden files with MXNet 1.9.1 itself.

Run with the MXNet venv plus OpenCV and scikit-image (PyPI), from the repo root:
  ~/.cache/symx/mxnet-venv/bin/pip install "opencv-python-headless<4.9" "scikit-image<0.22"
  ~/.cache/symx/mxnet-venv/bin/python tests/testdata/recordio/make_recordio_files.py

The photographs are scikit-image's sample images (skimage/data in its wheel:
chelsea.png, coffee.png, astronaut.png, camera.png, rocket.jpg, logo.png),
shrunk so the files stay small. What each file holds:
  framing.rec/.idx/.json  payloads that exercise MXNet's record framing (empty,
                          unaligned lengths, the magic word inside, at 4-aligned
                          and unaligned places), written by MXIndexedRecordIO;
                          the .json lists each payload in hex.
  images.rec/.idx/.json   image records made by mx.recordio.pack_img (JPEG and
                          PNG) with scalar and vector labels; the .json lists
                          each record's header and what mx.image.imdecode
                          returns for it (flag 1 and 0, RGB), as .npy files
                          images_<i>_flag<f>.npy.
  classes.rec/.idx/.lst   12 small photos with class labels 0-2 (and
                          multilabel.rec, two labels each), for ImageRecordIter
  det.rec/.idx            the same photos with box labels (1-3 objects, one box
                          empty), for ImageDetRecordIter; det_<case>_*.npy and
                          det_cases.json: MXNet's ImageDetRecordIter on them
  photos/CLASS/*          a folder of small photos in two classes (and one file
                          that is not an image), for symx im2rec
  iter_<case>_*.npy,      what MXNet's ImageRecordIter returns on them for the
  iter_cases.json         deterministic configurations in ITER_CASES (first
                          epoch: every batch's data and label, and its pad)
  mean_img.nd, mean_img_  the mean image MXNet's ImageRecordIter computed and
  data.npy                saved for classes.rec when mean_img named no file,
                          and its first epoch's data normalized by it
                          (MEAN_IMG_CASE)

Steps can be named on the command line (e.g. `... make_recordio_files.py
mean_img`) to rewrite only their files.
"""
import json
import os
import sys
import tempfile

import cv2
import mxnet as mx
import numpy as np
import skimage
import skimage.io

HERE = os.path.dirname(os.path.abspath(__file__))
MAGIC = (0xCED7230A).to_bytes(4, "little")


def framing_payloads():
    rng = np.random.RandomState(5)
    noise = rng.randint(0, 256, size=100, dtype=np.uint8).tobytes()
    return [
        b"",
        b"a",
        b"abc",
        b"abcd",
        b"abcde",
        noise,
        MAGIC,
        MAGIC + b"tail",
        b"head" + MAGIC + b"12345678" + MAGIC + b"xy",
        b"12345678" + MAGIC,
        MAGIC * 3,
        b"x" + MAGIC + b"yyy",  # unaligned: not cut
        b"ab" + MAGIC[:3],
        noise[:37] + MAGIC + noise[37:64],  # 41 bytes before: unaligned
        noise[:40] + MAGIC + noise[40:80] + MAGIC,
    ]


def write_framing():
    payloads = framing_payloads()
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(HERE, "framing.idx"),
                                        os.path.join(HERE, "framing.rec"), "w")
    for i, p in enumerate(payloads):
        rec.write_idx(i, p)
    rec.close()
    # Read back with MXNet to be sure of what it sees.
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(HERE, "framing.idx"),
                                        os.path.join(HERE, "framing.rec"), "r")
    for i, p in enumerate(payloads):
        assert rec.read_idx(i) == p, i
    rec.close()
    with open(os.path.join(HERE, "framing.json"), "w") as f:
        json.dump({"payloads": [p.hex() for p in payloads]}, f, indent=1)


def sample(name, size):
    path = os.path.join(os.path.dirname(skimage.__file__), "data", name)
    img = skimage.io.imread(path)
    h, w = img.shape[:2]
    scale = size / max(h, w)
    dsize = (max(1, int(round(w * scale))), max(1, int(round(h * scale))))
    img = cv2.resize(img, dsize, interpolation=cv2.INTER_AREA)
    # skimage reads RGB(A); pack_img (OpenCV) expects BGR(A).
    if img.ndim == 3 and img.shape[2] == 3:
        img = img[:, :, ::-1]
    elif img.ndim == 3 and img.shape[2] == 4:
        img = img[:, :, [2, 1, 0, 3]]
    return np.ascontiguousarray(img)


def write_images():
    IR = mx.recordio.IRHeader
    items = [
        ("chelsea.png", 64, ".jpg", 90, IR(0, 3.0, 10, 0)),
        ("coffee.png", 80, ".jpg", 75, IR(0, 1.0, 11, 7)),
        ("astronaut.png", 48, ".png", 3, IR(0, [1.0, 2.5, -4.0], 12, 0)),
        ("camera.png", 40, ".jpg", 95, IR(0, 0.0, 13, 0)),  # gray JPEG
        ("rocket.jpg", 72, ".jpg", 60, IR(0, [7.0], 14, 0)),  # vector of one
        ("logo.png", 36, ".png", 9, IR(0, 2.0, 15, 0)),  # RGBA PNG
        ("camera.png", 33, ".png", 1, IR(0, 5.0, 16, 0)),  # gray PNG, odd size
    ]
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(HERE, "images.idx"),
                                        os.path.join(HERE, "images.rec"), "w")
    meta = []
    for i, (name, size, fmt, quality, header) in enumerate(items):
        img = sample(name, size)
        packed = mx.recordio.pack_img(header, img, quality=quality, img_fmt=fmt)
        rec.write_idx(i, packed)
        head, encoded = mx.recordio.unpack(packed)
        entry = {"source": name, "format": fmt, "flag": head.flag,
                 "label": np.atleast_1d(head.label).astype(float).tolist(),
                 "id": head.id, "id2": head.id2, "decoded": {}}
        for flag in (1, 0):
            out = mx.image.imdecode(encoded, flag=flag, to_rgb=1).asnumpy()
            fname = "images_%d_flag%d.npy" % (i, flag)
            np.save(os.path.join(HERE, fname), out)
            entry["decoded"][str(flag)] = fname
        meta.append(entry)
    rec.close()
    with open(os.path.join(HERE, "images.json"), "w") as f:
        json.dump({"records": meta}, f, indent=1)


CLASS_IMAGES = [  # (sample, longer side): some smaller than the 24-32 pixel crops
    ("astronaut.png", 48), ("chelsea.png", 40), ("coffee.png", 36), ("camera.png", 30),
    ("rocket.jpg", 44), ("coins.png", 20), ("motorcycle_left.png", 52),
    ("hubble_deep_field.jpg", 34), ("retina.jpg", 38), ("brick.png", 26), ("color.png", 42),
    ("ihc.png", 50),
]


def write_classes():
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(HERE, "classes.idx"),
                                        os.path.join(HERE, "classes.rec"), "w")
    multi = mx.recordio.MXIndexedRecordIO(os.path.join(HERE, "multilabel.idx"),
                                          os.path.join(HERE, "multilabel.rec"), "w")
    with open(os.path.join(HERE, "classes.lst"), "w") as lst:
        for i, (name, size) in enumerate(CLASS_IMAGES):
            img = sample(name, size)
            if img.ndim == 3 and img.shape[2] == 4:
                img = img[:, :, :3]
            rec.write_idx(i, mx.recordio.pack_img(IRHeader(0, float(i % 3), 100 + i, 0), img,
                                                  quality=90))
            multi.write_idx(i, mx.recordio.pack_img(
                IRHeader(0, [float(i % 3), float(i % 2)], 100 + i, 0), img, quality=90))
            # The list gives other labels than the records (path_imglist wins).
            lst.write("%d\t%f\t%f\t%s\n" % (100 + i, float(i % 4), float(i), name))
    rec.close()
    multi.close()


IRHeader = mx.recordio.IRHeader

# Deterministic configurations: no random draws (MXNet's draws cannot be
# reproduced), exact arithmetic everywhere but the float normalization.
ITER_CASES = {
    "resize_center": dict(path_imgrec="classes.rec", data_shape=(3, 32, 32), resize=40,
                          batch_size=5, mean_r=123.68, mean_g=116.28, mean_b=103.53,
                          std_r=58.395, std_g=57.12, std_b=57.375),
    "upscale_mirror": dict(path_imgrec="classes.rec", data_shape=(3, 28, 24), batch_size=4,
                           mirror=True, scale=1.0 / 255),
    "gray": dict(path_imgrec="classes.rec", data_shape=(1, 24, 24), resize=26, batch_size=5,
                 mean_r=128.0, inter_method=2),
    "uint8_area": dict(path_imgrec="classes.rec", data_shape=(3, 20, 20), resize=22,
                       batch_size=7, dtype="uint8", inter_method=3),
    "pad_fill": dict(path_imgrec="classes.rec", data_shape=(3, 36, 36), resize=28, pad=4,
                     fill_value=17, batch_size=6),
    "part_bytes": dict(path_imgrec="classes.rec", data_shape=(3, 16, 16), resize=16,
                       batch_size=2, num_parts=3, part_index=1),
    "part_index": dict(path_imgrec="classes.rec", path_imgidx="classes.idx",
                       data_shape=(3, 16, 16), resize=16, batch_size=3, num_parts=5,
                       part_index=3),
    "multilabel": dict(path_imgrec="multilabel.rec", data_shape=(3, 16, 16), resize=16,
                       batch_size=4, label_width=2),
    "imglist": dict(path_imgrec="classes.rec", path_imglist="classes.lst",
                    data_shape=(3, 16, 16), resize=16, batch_size=4, label_width=2),
}


def write_cases(cases, make_iter, prefix, json_name):
    """Each case's first epoch through MXNet's iterator: every batch's data
    and label as PREFIX<case>_data/_label.npy, the pads in JSON_NAME."""
    meta = {}
    for name, cfg in cases.items():
        kw = dict(cfg)
        for key in ("path_imgrec", "path_imgidx", "path_imglist"):
            if key in kw:
                kw[key] = os.path.join(HERE, kw[key])
        it = make_iter(preprocess_threads=1, **kw)
        datas, labels, pads = [], [], []
        for batch in it:
            datas.append(batch.data[0].asnumpy())
            labels.append(batch.label[0].asnumpy())
            pads.append(int(batch.pad))
        np.save(os.path.join(HERE, "%s%s_data.npy" % (prefix, name)), np.stack(datas))
        np.save(os.path.join(HERE, "%s%s_label.npy" % (prefix, name)), np.stack(labels))
        meta[name] = dict(config=cfg, pads=pads)
    with open(os.path.join(HERE, json_name), "w") as f:
        json.dump(meta, f, indent=1)


def write_folder():
    classes = {"animals": ["astronaut.png", "chelsea.png", "coffee.png", "horse.png"],
               "space": ["hubble_deep_field.jpg", "moon.png", "rocket.jpg", "coins.png"]}
    for cls, names in classes.items():
        os.makedirs(os.path.join(HERE, "photos", cls), exist_ok=True)
        for k, name in enumerate(names):
            img = sample(name, 40)
            if img.dtype == bool:
                img = img.astype(np.uint8) * 255
            ext = ".jpg" if k % 2 == 0 else ".png"
            cv2.imwrite(os.path.join(HERE, "photos", cls, "%d%s" % (k, ext)), img)
    with open(os.path.join(HERE, "photos", "space", "broken.jpg"), "wb") as f:
        f.write(b"this is not a JPEG")


def det_label(i):
    objects = [[float(i % 4), 0.1, 0.2, 0.6, 0.7]]
    if i % 2 == 0:
        objects.append([1.0, 0.5, 0.1, 0.95, 0.5])
    if i % 3 == 0:
        objects.append([2.0, 0.3, 0.3, 0.3, 0.8])  # empty: xmax == xmin, dropped
    return [2.0, 5.0] + [v for o in objects for v in o]


def write_det():
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(HERE, "det.idx"),
                                        os.path.join(HERE, "det.rec"), "w")
    for i, (name, size) in enumerate(CLASS_IMAGES[:9]):
        img = sample(name, size)
        if img.ndim == 3 and img.shape[2] == 4:
            img = img[:, :, :3]
        rec.write_idx(i, mx.recordio.pack_img(IRHeader(0, det_label(i), 200 + i, 0), img,
                                              quality=90))
    rec.close()


DET_CASES = {
    "force": dict(path_imgrec="det.rec", data_shape=(3, 24, 24), batch_size=4, resize=30,
                  mean_r=120.0, mean_g=110.0, mean_b=100.0, std_r=60.0, std_g=55.0,
                  std_b=50.0),
    "fit_pad_label": dict(path_imgrec="det.rec", data_shape=(3, 20, 28), batch_size=5,
                          resize_mode="fit", label_pad_width=20, label_pad_value=-2.0,
                          scale=0.5),
    "shrink_gray": dict(path_imgrec="det.rec", data_shape=(1, 32, 32), batch_size=3,
                        resize_mode="shrink", inter_method=2),
}


MEAN_IMG_CASE = dict(path_imgrec="classes.rec", data_shape=(3, 16, 16), resize=16,
                     batch_size=5, scale=0.5)


def write_mean_img():
    """MXNet computes a missing mean_img from the iterator's output and saves
    it; the epoch that follows is normalized by it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mean.nd")
        kw = dict(MEAN_IMG_CASE, path_imgrec=os.path.join(HERE, "classes.rec"), mean_img=path)
        it = mx.io.ImageRecordIter(preprocess_threads=1, **kw)
        datas = [batch.data[0].asnumpy() for batch in it]
        with open(path, "rb") as f, open(os.path.join(HERE, "mean_img.nd"), "wb") as out:
            out.write(f.read())
    np.save(os.path.join(HERE, "mean_img_data.npy"), np.stack(datas))


STEPS = {
    "folder": write_folder,
    "framing": write_framing,
    "images": write_images,
    "classes": write_classes,
    "iter": lambda: write_cases(ITER_CASES, mx.io.ImageRecordIter, "iter_", "iter_cases.json"),
    "det": write_det,
    "det_cases": lambda: write_cases(DET_CASES, mx.io.ImageDetRecordIter, "det_",
                                     "det_cases.json"),
    "mean_img": write_mean_img,
}

if __name__ == "__main__":
    for step in sys.argv[1:] or list(STEPS):
        STEPS[step]()
