"""Writes this folder's golden files with MXNet 1.9.1 itself.

Run from the repository root with the MXNet venv (mxnet 1.9.1, numpy<1.24,
opencv-python-headless):
  ~/.cache/symx/mxnet-venv/bin/python tests/testdata/image_det/make_golden.py

tests/python/test_image_det.py and test_libsvm_iter.py replay every case with
symx (no MXNet needed) and compare. What each file holds:
  rotate.json, rotate.npz    mx.image.imrotate / random_rotate: small float32
                             images (CHW) and batches (NCHW), the angles, zoom
                             flags, outputs; which calls raise which error.
  augment.json, augment.npz  the detection augmenters on records 3 and 5 of
                             ../recordio/det.rec (their decoded pixels and parsed
                             labels are stored as the inputs): flips, and the
                             random crops, pads, crop selections and whole
                             CreateDetAugmenter pipelines after random.seed(s)
                             and np.random.seed(s) (symx draws with the same
                             calls, so the same seed must give the same output).
  iter.json, iter.npz        mx.image.ImageDetIter over ../recordio/det.rec (and
                             over ../recordio/photos with imglist / the list file
                             photos.lst here): label_shape, every batch's data,
                             label and pad over several epochs for each
                             last_batch_handle, partitions, reshape, and a
                             shuffled, randomly augmented run after seeding.
  libsvm_data.t, libsvm_label.t, libsvm.json
                             mx.io.LibSVMIter on these two files: every batch
                             (data densified with asnumpy, label, pad, index)
                             over several epochs per configuration, and the
                             configurations MXNet refuses (with its message).
"""
import json
import os
import random
import re
import sys

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RECDIR = os.path.join(HERE, "..", "recordio")
DET_REC = os.path.join(RECDIR, "det.rec")
DET_IDX = os.path.join(RECDIR, "det.idx")
PHOTOS = os.path.join(RECDIR, "photos")


def _save(name, meta, arrays):
    with open(os.path.join(HERE, name + ".json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    np.savez_compressed(os.path.join(HERE, name + ".npz"), **arrays)


def _compact(arr):
    """uint8 when that loses nothing (the files stay small; tests compare as float)."""
    arr = np.asarray(arr)
    if arr.dtype != np.uint8 and arr.size and np.all((arr >= 0) & (arr <= 255)) and \
            np.array_equal(arr, np.round(arr)):
        return arr.astype(np.uint8)
    return arr


def _error_name(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__
    return None


# ------------------------------------------------------------------- rotation
ROTATE_CASES = [
    # (name, input key, angle or per-image angles, zoom_in, zoom_out)
    ("img_0", "img", 0.0, False, False),
    ("img_30", "img", 30.0, False, False),
    ("img_m45", "img", -45.0, False, False),
    ("img_90", "img", 90.0, False, False),
    ("img_180", "img", 180.0, False, False),
    ("img_33_in", "img", 33.3, True, False),
    ("img_33_out", "img", 33.3, False, True),
    ("img_m120_in", "img", -120.0, True, False),
    ("sq_90", "square", 90.0, False, False),
    ("batch_scalar", "batch", 25.0, False, False),
    ("batch_list", "batch", [10.0, -60.0, 135.0], False, False),
    ("batch_list_in", "batch", [10.0, -60.0, 135.0], True, False),
    ("batch_list_out", "batch", [10.0, -60.0, 135.0], False, True),
]


def write_rotate():
    rng = np.random.RandomState(0)
    inputs = {"img": rng.uniform(0, 255, (3, 9, 12)).astype(np.float32),
              "square": rng.uniform(0, 1, (2, 7, 7)).astype(np.float32),
              "batch": rng.uniform(-1, 1, (3, 2, 8, 6)).astype(np.float32)}
    arrays = {"in_" + k: v for k, v in inputs.items()}
    meta = {"cases": {}, "random": {}, "errors": {}}
    for name, key, angle, zin, zout in ROTATE_CASES:
        src = mx.nd.array(inputs[key])
        rot = mx.nd.array(angle) if isinstance(angle, list) else angle
        out = mx.image.imrotate(src, rot, zoom_in=zin, zoom_out=zout)
        arrays["out_" + name] = out.asnumpy()
        meta["cases"][name] = dict(input=key, angle=angle, zoom_in=zin, zoom_out=zout)
    for name, key, limits, zin, zout, seed in [("r_img", "img", (-40, 40), False, False, 3),
                                               ("r_batch", "batch", (-90, 90), False, True, 4),
                                               ("r_batch_in", "batch", (0, 30), True, False, 5)]:
        np.random.seed(seed)
        out = mx.image.random_rotate(mx.nd.array(inputs[key]), limits, zoom_in=zin,
                                     zoom_out=zout)
        arrays["out_" + name] = out.asnumpy()
        meta["random"][name] = dict(input=key, limits=limits, zoom_in=zin, zoom_out=zout,
                                    seed=seed)
    img = mx.nd.array(inputs["img"])
    batch = mx.nd.array(inputs["batch"])
    meta["errors"] = {
        "zoom_in_and_out": _error_name(lambda: mx.image.imrotate(img, 10, True, True)),
        "float64": _error_name(lambda: mx.image.imrotate(img.astype("float64"), 10)),
        "uint8": _error_name(lambda: mx.image.imrotate(img.astype("uint8"), 10)),
        "single_with_vector": _error_name(
            lambda: mx.image.imrotate(img, mx.nd.array([10.0]))),
        "rank_2": _error_name(lambda: mx.image.imrotate(img[0], 10)),
        "rank_5": _error_name(lambda: mx.image.imrotate(batch.expand_dims(0), 10)),
        "count_mismatch": _error_name(
            lambda: mx.image.imrotate(batch, mx.nd.array([1.0, 2.0]))),
    }
    _save("rotate", meta, arrays)


# ------------------------------------------------------------------ augmenters
def _det_inputs():
    rec = mx.recordio.MXIndexedRecordIO(DET_IDX, DET_REC, "r")
    out = {}
    for key in (3, 5):
        header, buf = mx.recordio.unpack(rec.read_idx(key))
        img = mx.image.imdecode(buf).asnumpy()
        raw = np.asarray(header.label, dtype=np.float32)
        objects = raw[int(raw[0]):].reshape(-1, int(raw[1]))
        valid = (objects[:, 3] > objects[:, 1]) & (objects[:, 4] > objects[:, 2])
        out[key] = (img, objects[valid])
    return out


AUG_CASES = {
    # name: (constructor source evaluated with mx in scope, seeds)
    "flip_always": ("[mx.image.DetHorizontalFlipAug(1.0)]", [0]),
    "flip_half": ("[mx.image.DetHorizontalFlipAug(0.5)]", [0, 1, 2, 3, 4, 5]),
    "crop_default": ("[mx.image.DetRandomCropAug()]", [0, 1, 2, 3, 4, 5]),
    "crop_strict": ("[mx.image.DetRandomCropAug(min_object_covered=0.7, "
                    "aspect_ratio_range=(0.5, 2.0), area_range=(0.3, 0.9), "
                    "min_eject_coverage=0.5, max_attempts=20)]", [0, 1, 2, 3, 4, 5]),
    "crop_fixed_ratio": ("[mx.image.DetRandomCropAug(aspect_ratio_range=1.0, "
                         "area_range=0.5)]", [0, 1, 2, 3]),
    "pad_default": ("[mx.image.DetRandomPadAug()]", [0, 1, 2, 3]),
    "pad_colour": ("[mx.image.DetRandomPadAug(aspect_ratio_range=(0.5, 1.5), "
                   "area_range=(1.5, 4.0), max_attempts=10, pad_val=(10, 200, 77))]",
                   [0, 1, 2]),
    "pad_fixed": ("[mx.image.DetRandomPadAug(aspect_ratio_range=1.0, area_range=(2.0, 2.0), "
                  "pad_val=(127, 127, 127))]", [0, 1]),
    "multi_crop": ("[mx.image.CreateMultiRandCropAugmenter(min_object_covered=[0.1, 0.5, 0.9], "
                   "area_range=[(0.1, 1.0), (0.3, 1.0), (0.5, 1.0)], skip_prob=0.2)]",
                   [0, 1, 2, 3, 4, 5, 6, 7]),
    "select_empty": ("[mx.image.DetRandomSelectAug([], skip_prob=0)]", [0]),
    "pipeline_geometry": ("mx.image.CreateDetAugmenter((3, 24, 24), resize=28, rand_crop=0.7, "
                          "rand_pad=0.6, rand_mirror=True, area_range=(0.1, 2.5), "
                          "inter_method=1)", [0, 1, 2, 3, 4, 5]),
    "pipeline_colour": ("mx.image.CreateDetAugmenter((3, 24, 28), rand_crop=0.5, rand_pad=0.5, "
                        "rand_mirror=True, mean=True, std=True, brightness=0.2, contrast=0.2, "
                        "saturation=0.2, hue=0.1, pca_noise=0.05, rand_gray=0.3, "
                        "min_object_covered=[0.3, 0.7], pad_val=(0, 0, 0))", [0, 1, 2, 3]),
}


def write_augment():
    inputs = _det_inputs()
    arrays, meta = {}, {"cases": {}, "inputs": [0, 3]}
    for key, (img, label) in inputs.items():
        arrays["in_img_%d" % key] = img
        arrays["in_label_%d" % key] = label
    for name, (source, seeds) in AUG_CASES.items():
        runs = []
        for key in inputs:
            for seed in seeds:
                augs = eval(source)  # noqa: S307 - the fixed sources above
                random.seed(seed)
                np.random.seed(seed)
                img = mx.nd.array(inputs[key][0], dtype=np.uint8)
                label = inputs[key][1].copy()
                for aug in augs:
                    img, label = aug(img, label)
                tag = "%s_%d_%d" % (name, key, seed)
                arrays["img_" + tag] = _compact(img.asnumpy())
                arrays["label_" + tag] = np.asarray(label)
                runs.append(dict(input=key, seed=seed, tag=tag))
        meta["cases"][name] = dict(source=source, runs=runs,
                                   dumps=[a.dumps() for a in eval(source)])  # noqa: S307
    meta["create_names"] = [type(a).__name__ for a in mx.image.CreateDetAugmenter(
        (3, 30, 30), resize=20, rand_crop=0.5, rand_pad=0.5, rand_gray=0.1, rand_mirror=True,
        mean=True, std=True, brightness=0.1, contrast=0.1, saturation=0.1, pca_noise=0.1,
        hue=0.1)]
    meta["create_borrowed"] = [type(a.augmenter).__name__ for a in mx.image.CreateDetAugmenter(
        (3, 30, 30), resize=20, rand_crop=0.5, rand_pad=0.5, rand_gray=0.1, rand_mirror=True,
        mean=True, std=True, brightness=0.1, contrast=0.1, saturation=0.1, pca_noise=0.1,
        hue=0.1) if isinstance(a, mx.image.DetBorrowAug)]
    _save("augment", meta, arrays)


# ---------------------------------------------------------------- ImageDetIter
def _photo_imglist():
    names = ["animals/0.jpg", "animals/1.png", "animals/2.jpg", "space/0.jpg", "space/1.png"]
    items = []
    for i, name in enumerate(names):
        objects = [[float(i % 3), 0.1 + 0.05 * i, 0.2, 0.7, 0.8 - 0.05 * i]]
        if i % 2:
            objects.append([5.0, 0.4, 0.1, 0.9, 0.6])
        items.append([[2.0, 5.0] + [v for o in objects for v in o], name])
    return items


ITER_CASES = {
    # name: (keyword arguments, epochs, seed or None, reshape label_shape or None)
    "rec_pad": (dict(batch_size=4, data_shape=(3, 20, 20), path_imgrec="det.rec"), 2, None,
                None),
    "idx_pad_resize": (dict(batch_size=5, data_shape=(3, 20, 28), path_imgrec="det.rec",
                            path_imgidx="det.idx", resize=30, inter_method=1), 2, None, None),
    "idx_discard": (dict(batch_size=4, data_shape=(3, 16, 16), path_imgrec="det.rec",
                         path_imgidx="det.idx", last_batch_handle="discard"), 2, None, None),
    "rec_roll_over": (dict(batch_size=4, data_shape=(3, 16, 16), path_imgrec="det.rec",
                           last_batch_handle="roll_over"), 3, None, None),
    "idx_roll_over": (dict(batch_size=2, data_shape=(3, 16, 16), path_imgrec="det.rec",
                           path_imgidx="det.idx", last_batch_handle="roll_over"), 3, None, None),
    "parts": (dict(batch_size=3, data_shape=(3, 16, 16), path_imgrec="det.rec",
                   path_imgidx="det.idx", num_parts=2, part_index=1), 1, None, None),
    "mean_std": (dict(batch_size=3, data_shape=(3, 16, 16), path_imgrec="det.rec",
                      mean=True, std=True), 1, None, None),
    "reshaped": (dict(batch_size=4, data_shape=(3, 16, 16), path_imgrec="det.rec"), 1, None,
                 (4, 5)),
    "imglist": (dict(batch_size=2, data_shape=(3, 20, 20), imglist="PHOTOS",
                     path_root="PHOTOS_ROOT"), 2, None, None),
    "imglist_file": (dict(batch_size=3, data_shape=(3, 20, 20), path_imglist="photos.lst",
                          path_root="PHOTOS_ROOT"), 1, None, None),
    "shuffled_augmented": (dict(batch_size=3, data_shape=(3, 20, 20), path_imgrec="det.rec",
                                path_imgidx="det.idx", shuffle=True, rand_crop=0.6, rand_pad=0.5,
                                rand_mirror=True, area_range=(0.2, 2.0)), 2, 11, None),
    "coloured": (dict(batch_size=4, data_shape=(3, 18, 22), path_imgrec="det.rec",
                      path_imgidx="det.idx", shuffle=True, rand_crop=0.5, rand_mirror=True,
                      brightness=0.3, contrast=0.3, saturation=0.3, hue=0.2, pca_noise=0.1,
                      rand_gray=0.3, mean=True, std=True), 1, 5, None),
}


def iter_kwargs(config):
    """The case's keyword arguments with this checkout's paths (shared with the test)."""
    kw = {}
    for key, value in config.items():
        if value == "PHOTOS":
            value = _photo_imglist()
        elif value == "PHOTOS_ROOT":
            value = PHOTOS
        elif key in ("path_imgrec", "path_imgidx"):
            value = os.path.join(RECDIR, value)
        elif key == "path_imglist":
            value = os.path.join(HERE, value)
        elif isinstance(value, list):
            value = tuple(value)
        kw[key] = value
    return kw


def write_iter():
    with open(os.path.join(HERE, "photos.lst"), "w") as f:
        for i, (label, name) in enumerate(_photo_imglist()):
            f.write("\t".join([str(i)] + ["%g" % v for v in label] + [name]) + "\n")
    arrays, meta = {}, {}
    for name, (config, epochs, seed, reshape) in ITER_CASES.items():
        if seed is not None:
            random.seed(seed)
            np.random.seed(seed)
        it = mx.image.ImageDetIter(**iter_kwargs(config))
        info = dict(config=config, epochs=epochs, seed=seed, reshape=reshape,
                    label_shape=list(it.label_shape),
                    provide_label=list(it.provide_label[0][1]), pads=[])
        if reshape is not None:
            it.reshape(label_shape=reshape)
            info["provide_label_after"] = list(it.provide_label[0][1])
        for epoch in range(epochs):
            pads = []
            for b, batch in enumerate(it):
                arrays["%s_e%d_b%d_data" % (name, epoch, b)] = _compact(batch.data[0].asnumpy())
                arrays["%s_e%d_b%d_label" % (name, epoch, b)] = batch.label[0].asnumpy()
                pads.append(int(batch.pad))
            info["pads"].append(pads)
            it.reset()
        meta[name] = info
    # sync_label_shape between an iterator of at most 2 objects and one of 3.
    a = mx.image.ImageDetIter(**iter_kwargs(ITER_CASES["rec_pad"][0]))
    three = [[[2.0, 5.0, 0, 0.1, 0.1, 0.5, 0.5, 1, 0.2, 0.2, 0.6, 0.6, 2, 0.3, 0.3, 0.9, 0.9],
              "animals/0.jpg"]]
    b = mx.image.ImageDetIter(batch_size=1, data_shape=(3, 16, 16), imglist=three,
                              path_root=PHOTOS)
    before = [list(a.label_shape), list(b.label_shape)]
    a.sync_label_shape(b)
    meta["_sync"] = dict(before=before, after=[list(a.label_shape), list(b.label_shape)])
    _save("iter", meta, arrays)


# ------------------------------------------------------------------- LibSVMIter
LIBSVM_DATA = (
    "# a comment line opens the file\n"
    "1.0 0:0.5 2:1.2\n"
    "-2.0\n"
    "3:0.25 qid:7 1:2.5 5:-1e-3   # a label with a weight, a query id, a trailing comment\n"
    "\n"
    "4 0:1 1:2 2:3 3:4 4:5 5:6\n"
    "+5 5:.5 0:-.25\n"
    "0\t2:7\t4:8\n"
    "6 1:1.5e2\r\n"
    "7 3:3 3:9\n"
    "-8 2:0.125 4:-4\n"
    "9 0:9\n"
    "10 5:10 1:-1\n"
)
LIBSVM_LABEL = (
    "0 0:1\n"
    "0 1:1 3:0.5\n"
    "0\n"
    "0 2:2\n"
    "0 3:-1 0:4\n"
    "0 1:1\n"
    "0 0:0.5 1:0.5\n"
    "0 2:1\n"
    "0 3:3\n"
    "0 0:2 2:2\n"
    "0 1:7\n"
)

LIBSVM_CASES = {
    # name: (keyword arguments, epochs)
    "b3": (dict(data_shape=(6,), batch_size=3), 5),
    "b4": (dict(data_shape=(6,), batch_size=4), 4),
    "b11": (dict(data_shape=(6,), batch_size=11), 2),
    "b13": (dict(data_shape=(6,), batch_size=13), 7),
    "label_file": (dict(data_shape=(6,), batch_size=4, label_libsvm="libsvm_label.t",
                        label_shape=(4,)), 3),
    "parts2_0": (dict(data_shape=(6,), batch_size=2, num_parts=2, part_index=0), 3),
    "parts2_1": (dict(data_shape=(6,), batch_size=2, num_parts=2, part_index=1), 3),
    "parts3_1": (dict(data_shape=(6,), batch_size=2, num_parts=3, part_index=1), 2),
    "parts2_0_label": (dict(data_shape=(6,), batch_size=2, num_parts=2, part_index=0,
                            label_libsvm="libsvm_label.t", label_shape=(4,)), 3),
    # A part boundary (byte 43 of 85) falls exactly on a line start: that line
    # still belongs to the part before.
    "boundary_at_line_start_0": (dict(data_libsvm="libsvm_label.t", data_shape=(4,),
                                      batch_size=3, num_parts=2, part_index=0), 2),
    "boundary_at_line_start_1": (dict(data_libsvm="libsvm_label.t", data_shape=(4,),
                                      batch_size=3, num_parts=2, part_index=1), 2),
    "wide": (dict(data_shape=(9,), batch_size=5, round_batch=True), 2),
}

LIBSVM_ERRORS = {
    "round_batch_false": dict(data_shape=(6,), batch_size=3, round_batch=False),
    "data_shape_2d": dict(data_shape=(6, 1), batch_size=3),
    "label_shape_without_file": dict(data_shape=(6,), batch_size=3, label_shape=(2,)),
    "label_file_scalar_shape": dict(data_shape=(6,), batch_size=3,
                                    label_libsvm="libsvm_label.t"),
    "part_index_too_big": dict(data_shape=(6,), batch_size=3, num_parts=2, part_index=2),
    "batch_bigger_than_twice_the_rows": dict(data_shape=(6,), batch_size=23),
    "missing_file": dict(data_libsvm="no_such_file.t", data_shape=(6,), batch_size=3),
    "label_part_shorter": dict(data_shape=(6,), batch_size=3, num_parts=2, part_index=1,
                               label_libsvm="libsvm_label.t", label_shape=(4,)),
}


def _libsvm_kwargs(config):
    kw = dict(data_libsvm=os.path.join(HERE, "libsvm_data.t"))
    for key, value in config.items():
        if key in ("data_libsvm", "label_libsvm"):
            value = os.path.join(HERE, value)
        kw[key] = value
    return kw


def write_libsvm():
    with open(os.path.join(HERE, "libsvm_data.t"), "w", newline="") as f:
        f.write(LIBSVM_DATA)
    with open(os.path.join(HERE, "libsvm_label.t"), "w", newline="") as f:
        f.write(LIBSVM_LABEL)
    meta = {"cases": {}, "errors": {}}
    for name, (config, epochs) in LIBSVM_CASES.items():
        it = mx.io.LibSVMIter(**_libsvm_kwargs(config))
        info = dict(config={k: list(v) if isinstance(v, tuple) else v
                            for k, v in config.items()},
                    provide_data=[it.provide_data[0].name, list(it.provide_data[0].shape)],
                    provide_label=[it.provide_label[0].name, list(it.provide_label[0].shape)],
                    epochs=[])
        for epoch in range(epochs):
            batches = []
            try:
                for batch in it:
                    batches.append(dict(data=batch.data[0].asnumpy().tolist(),
                                        data_stype=batch.data[0].stype,
                                        label=batch.label[0].asnumpy().tolist(),
                                        label_stype=batch.label[0].stype,
                                        pad=int(batch.pad),
                                        index=[int(i) for i in batch.index]))
            except mx.base.MXNetError:
                # MXNet refuses a wrap that needs more rows than the part holds.
                info["error_in_epoch"] = epoch
                break
            info["epochs"].append(batches)
            it.reset()
        meta["cases"][name] = info
    for name, config in LIBSVM_ERRORS.items():
        try:
            it = mx.io.LibSVMIter(**_libsvm_kwargs(config))
            for _ in it:
                pass
            meta["errors"][name] = None
        except Exception as e:  # noqa: BLE001
            # Without dmlc's "[hh:mm:ss] " stamp, so that a rerun writes the same file.
            lines = [re.sub(r"\[\d\d:\d\d:\d\d\] ", "", l) for l in str(e).splitlines()
                     if l.strip()]
            meta["errors"][name] = [type(e).__name__] + [l for l in lines
                                                         if "Check failed" in l or
                                                         "Error" in l][:1]
    with open(os.path.join(HERE, "libsvm.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)


STEPS = {"rotate": write_rotate, "augment": write_augment, "iter": write_iter,
         "libsvm": write_libsvm}

if __name__ == "__main__":
    for step in sys.argv[1:] or list(STEPS):
        STEPS[step]()
