"""mx.image.imrotate / random_rotate and mx.image's detection module
(DetAugmenter and its subclasses, CreateMultiRandCropAugmenter,
CreateDetAugmenter, ImageDetIter) against MXNet 1.9.1.

The golden files in tests/testdata/image_det (made by make_golden.py there
with MXNet itself) hold MXNet's outputs: rotations of small float32 images
and batches; every augmenter on two decoded records of det.rec after
random.seed(s)/np.random.seed(s) (symx makes MXNet's random calls in MXNet's
order, so the random crops, pads, flips and whole pipelines must come out
the same); ImageDetIter's batches over det.rec and the photos for each
last_batch_handle, partitions, reshape and seeded random augmentation.
Then properties of the random augmenters (boxes stay in [0, 1], crop
constraints hold, same seed same output) and the errors, each naming what is
wrong."""
import json
import os
import random
import warnings

import numpy as np
import pytest

import symx as mx

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "image_det")
RECDIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "recordio")
DET_REC, DET_IDX = os.path.join(RECDIR, "det.rec"), os.path.join(RECDIR, "det.idx")
PHOTOS = os.path.join(RECDIR, "photos")


def _load(name):
    with open(os.path.join(DIR, name + ".json")) as f:
        meta = json.load(f)
    return meta, np.load(os.path.join(DIR, name + ".npz"))


ROT_META, ROT = _load("rotate")
AUG_META, AUG = _load("augment")
ITER_META, ITER = _load("iter")


def _seed(seed):
    random.seed(seed)
    np.random.seed(seed)


# --------------------------------------------------------------------- rotation


@pytest.mark.parametrize("case", sorted(ROT_META["cases"]))
def test_imrotate_equals_mxnet(case):
    c = ROT_META["cases"][case]
    src = mx.nd.array(ROT["in_" + c["input"]])
    angle = mx.nd.array(c["angle"]) if isinstance(c["angle"], list) else c["angle"]
    out = mx.image.imrotate(src, angle, zoom_in=c["zoom_in"], zoom_out=c["zoom_out"])
    want = ROT["out_" + case]
    assert out.shape == want.shape and out.dtype == np.float32
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("case", sorted(ROT_META["random"]))
def test_random_rotate_equals_mxnet_after_np_random_seed(case):
    c = ROT_META["random"][case]
    np.random.seed(c["seed"])
    out = mx.image.random_rotate(mx.nd.array(ROT["in_" + c["input"]]), tuple(c["limits"]),
                                 zoom_in=c["zoom_in"], zoom_out=c["zoom_out"])
    np.testing.assert_allclose(out.asnumpy(), ROT["out_" + case], rtol=1e-5, atol=1e-3)


def test_imrotate_geometry():
    img = ROT["in_square"]
    # A quarter turn of a square image moves pixels exactly (no interpolation).
    out = mx.image.imrotate(mx.nd.array(img), 90).asnumpy()
    np.testing.assert_allclose(out, np.rot90(img, k=1, axes=(1, 2)), atol=1e-5)
    # 0 degrees is the identity; per-image angles equal separate calls.
    batch = mx.nd.array(ROT["in_batch"])
    np.testing.assert_allclose(mx.image.imrotate(batch, 0).asnumpy(), ROT["in_batch"],
                               atol=1e-6)
    together = mx.image.imrotate(batch, [10.0, -60.0, 135.0]).asnumpy()
    for i, angle in enumerate([10.0, -60.0, 135.0]):
        alone = mx.image.imrotate(batch[i], angle).asnumpy()
        np.testing.assert_allclose(together[i], alone, atol=1e-6)
    # zoom_in shows no zero border; a plain turn by 45 degrees does.
    ones = mx.nd.ones((1, 9, 9))
    assert mx.image.imrotate(ones, 45).asnumpy()[0, 0, 0] == 0
    assert mx.image.imrotate(ones, 45, zoom_in=True).asnumpy().min() > 0.99


_ROT_ERRORS = {
    "zoom_in_and_out": (lambda img, b: mx.image.imrotate(img, 10, True, True),
                        "zoom_in.*zoom_out.*both True"),
    "float64": (lambda img, b: mx.image.imrotate(img.astype("float64"), 10),
                "only float32 images.*float64"),
    "uint8": (lambda img, b: mx.image.imrotate(img.astype("uint8"), 10), "uint8"),
    "single_with_vector": (lambda img, b: mx.image.imrotate(img, mx.nd.array([10.0])),
                           "one image .* needs a scalar rotation angle"),
    "rank_2": (lambda img, b: mx.image.imrotate(img[0], 10), r"got shape \(9, 12\)"),
    "rank_5": (lambda img, b: mx.image.imrotate(b.reshape((1,) + b.shape), 10),
               r"\(C, H, W\) or \(N, C, H, W\)"),
    "count_mismatch": (lambda img, b: mx.image.imrotate(b, mx.nd.array([1.0, 2.0])),
                       r"3 images but rotation_degrees has shape \(2,\)"),
}


@pytest.mark.parametrize("case", sorted(ROT_META["errors"]))
def test_imrotate_raises_mxnets_errors(case):
    img, batch = mx.nd.array(ROT["in_img"]), mx.nd.array(ROT["in_batch"])
    fn, match = _ROT_ERRORS[case]
    kind = {"ValueError": ValueError, "TypeError": TypeError}[ROT_META["errors"][case]]
    with pytest.raises(kind, match=match):
        fn(img, batch)


def test_imrotate_wants_an_ndarray():
    with pytest.raises(TypeError, match="src must be an NDArray, got ndarray"):
        mx.image.imrotate(ROT["in_img"], 10)


# ------------------------------------------------------------------- augmenters


def _runs():
    for name in sorted(AUG_META["cases"]):
        for run in AUG_META["cases"][name]["runs"]:
            yield name, run


@pytest.mark.parametrize("name,run", list(_runs()),
                         ids=["%s-%s" % (n, r["tag"]) for n, r in _runs()])
def test_augmenters_equal_mxnet_for_the_same_seed(name, run):
    augs = eval(AUG_META["cases"][name]["source"])  # noqa: S307 - golden's fixed sources
    _seed(run["seed"])
    img = mx.nd.array(AUG["in_img_%d" % run["input"]], dtype=np.uint8)
    label = AUG["in_label_%d" % run["input"]].copy()
    for aug in augs:
        img, label = aug(img, label)
    want_img, want_label = AUG["img_" + run["tag"]], AUG["label_" + run["tag"]]
    got = img.asnumpy()
    assert got.shape == want_img.shape
    if name.startswith("pipeline"):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want_img.astype(np.float32), rtol=1e-4, atol=2e-3)
    else:
        assert got.dtype == np.uint8
        np.testing.assert_array_equal(got, want_img)
    assert label.dtype == np.float32 and label.shape == want_label.shape
    np.testing.assert_allclose(label, want_label, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(AUG_META["cases"]))
def test_dumps_equal_mxnets(name):
    augs = eval(AUG_META["cases"][name]["source"])  # noqa: S307
    assert json.loads(json.dumps([a.dumps() for a in augs])) == AUG_META["cases"][name]["dumps"]


def test_create_det_augmenter_order_equals_mxnets():
    augs = mx.image.CreateDetAugmenter(
        (3, 30, 30), resize=20, rand_crop=0.5, rand_pad=0.5, rand_gray=0.1, rand_mirror=True,
        mean=True, std=True, brightness=0.1, contrast=0.1, saturation=0.1, pca_noise=0.1,
        hue=0.1)
    assert [type(a).__name__ for a in augs] == AUG_META["create_names"]
    assert [type(a.augmenter).__name__ for a in augs
            if isinstance(a, mx.image.DetBorrowAug)] == AUG_META["create_borrowed"]
    plain = mx.image.CreateDetAugmenter((3, 8, 8))
    assert [type(a.augmenter).__name__ for a in plain] == ["ForceResizeAug", "CastAug"]
    assert mx.image.det is mx.image.detection
    assert mx.image.det.ImageDetIter is mx.image.ImageDetIter


def _boxes():
    return np.array([[0, 0.1, 0.2, 0.6, 0.7], [1, 0.5, 0.1, 0.95, 0.5],
                     [2, 0.3, 0.6, 0.45, 0.9]], dtype=np.float32)


def _image(h=40, w=50):
    y, x = np.mgrid[0:h, 0:w]
    return mx.nd.array(np.stack([x * 5, y * 6, (x + y) * 2], axis=2).astype(np.uint8),
                       dtype=np.uint8)


def test_flip_mirrors_image_and_boxes_in_place():
    img, label = _image(), _boxes()
    out, same = mx.image.DetHorizontalFlipAug(1.0)(img, label)
    assert same is label
    np.testing.assert_array_equal(out.asnumpy(), img.asnumpy()[:, ::-1])
    np.testing.assert_allclose(label[:, 1], 1 - _boxes()[:, 3], rtol=1e-6)
    np.testing.assert_allclose(label[:, 3], 1 - _boxes()[:, 1], rtol=1e-6)
    out, label = mx.image.DetHorizontalFlipAug(0.0)(img, _boxes())
    assert out is img


def _coverage(orig, crop_box, w, h):
    """Fraction of each original box's area inside the pixel crop."""
    x0, y0, cw, ch = crop_box
    wx = (x0 / w, y0 / h, (x0 + cw) / w, (y0 + ch) / h)
    ix = np.maximum(0, np.minimum(orig[:, 3], wx[2]) - np.maximum(orig[:, 1], wx[0]))
    iy = np.maximum(0, np.minimum(orig[:, 4], wx[3]) - np.maximum(orig[:, 2], wx[1]))
    return ix * iy / ((orig[:, 3] - orig[:, 1]) * (orig[:, 4] - orig[:, 2]))


@pytest.mark.parametrize("seed", range(12))
def test_random_crop_respects_its_constraints(seed):
    aug = mx.image.DetRandomCropAug(min_object_covered=0.5, aspect_ratio_range=(0.5, 2.0),
                                    area_range=(0.2, 0.8), min_eject_coverage=0.4)
    h, w = 40, 50
    orig = _boxes()
    _seed(seed)
    proposal = aug._random_crop_proposal(orig.copy(), h, w)
    assert proposal  # these constraints leave room: every seed here finds a crop
    x, y, cw, ch, label = proposal
    assert 0 <= x and x + cw <= w and 0 <= y and y + ch <= h
    assert 0.2 * h * w <= cw * ch <= 0.8 * h * w
    assert 0.5 * ch - 0.5 <= cw <= 2.0 * ch + 0.5  # aspect ratio, up to rounding
    coverage = _coverage(orig, (x, y, cw, ch), w, h)
    touched = coverage[coverage > 0]
    assert touched.size and touched.min() > 0.5
    assert ((label[:, 1:5] >= 0) & (label[:, 1:5] <= 1)).all()
    assert (label[:, 3] > label[:, 1]).all() and (label[:, 4] > label[:, 2]).all()
    # Kept objects are those that keep more than min_eject_coverage of their area.
    assert sorted(label[:, 0].tolist()) == sorted(orig[coverage > 0.4, 0].tolist())
    # The augmenter crops the image to the same window after the same draws.
    _seed(seed)
    out, label2 = aug(_image(h, w), orig.copy())
    np.testing.assert_array_equal(out.asnumpy(), _image(h, w).asnumpy()[y:y + ch, x:x + cw])
    np.testing.assert_array_equal(label2, label)


@pytest.mark.parametrize("seed", range(8))
def test_random_pad_keeps_boxes_on_the_image(seed):
    aug = mx.image.DetRandomPadAug(area_range=(1.0, 3.0), pad_val=(1, 2, 3))
    img, orig = _image(20, 30), _boxes()
    _seed(seed)
    out, label = aug(img, orig.copy())
    oh, ow = out.shape[:2]
    # At least 2 pixels of padding per axis; the area at most 3 times the
    # image's, up to the rounding of the canvas's sides.
    assert oh >= 20 + 2 and ow >= 30 + 2 and oh * ow <= 3 * 20 * 30 + oh + ow + 1
    assert ((label[:, 1:5] >= 0) & (label[:, 1:5] <= 1)).all()
    a = out.asnumpy()
    # Find the image in the canvas: the boxes, in pixels, moved with it.
    x = int(round(label[0, 1] * ow - orig[0, 1] * 30))
    y = int(round(label[0, 2] * oh - orig[0, 2] * 20))
    np.testing.assert_array_equal(a[y:y + 20, x:x + 30], img.asnumpy())
    assert (a[0, 0] == [1, 2, 3]).all() or (x == 0 and y == 0)


def test_same_seed_same_output_other_seeds_differ():
    augs = mx.image.CreateDetAugmenter((3, 24, 24), rand_crop=0.8, rand_pad=0.8,
                                       rand_mirror=True, brightness=0.3, pca_noise=0.1)

    def run(seed):
        _seed(seed)
        img, label = _image(), _boxes()
        for aug in augs:
            img, label = aug(img, label)
        return img.asnumpy(), label

    a, b = run(3), run(3)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert any(not np.array_equal(run(s)[0], a[0]) for s in range(4, 8))


def test_random_select_and_multi_crop():
    flip = mx.image.DetHorizontalFlipAug(1.0)
    select = mx.image.DetRandomSelectAug(flip, skip_prob=0)
    assert select.aug_list == [flip]
    img, label = _image(), _boxes()
    out, _ = select(img, label.copy())
    np.testing.assert_array_equal(out.asnumpy(), img.asnumpy()[:, ::-1])
    out, _ = mx.image.DetRandomSelectAug([flip], skip_prob=1)(img, label.copy())
    assert out is img
    empty = mx.image.DetRandomSelectAug([])
    assert empty.skip_prob == 1 and empty(img, label)[0] is img
    multi = mx.image.CreateMultiRandCropAugmenter(min_object_covered=[0.1, 0.3, 0.5],
                                                  area_range=(0.2, 1.0), max_attempts=[5])
    assert [a.min_object_covered for a in multi.aug_list] == [0.1, 0.3, 0.5]
    assert all(a.area_range == (0.2, 1.0) and a.max_attempts == 5 for a in multi.aug_list)


def test_invalid_ranges_warn_and_disable():
    with pytest.warns(UserWarning, match="disabled: invalid area_range"):
        crop = mx.image.DetRandomCropAug(area_range=(0.8, 0.2))
    with pytest.warns(UserWarning, match="disabled: invalid aspect_ratio_range"):
        mx.image.DetRandomCropAug(aspect_ratio_range=(0, 1))
    with pytest.warns(UserWarning, match="largest area must exceed 1"):
        pad = mx.image.DetRandomPadAug(area_range=(0.5, 1.0))
    with pytest.warns(UserWarning, match="disabled: invalid aspect_ratio_range"):
        mx.image.DetRandomPadAug(aspect_ratio_range=(2, 1))
    img, label = _image(), _boxes()
    assert crop(img, label)[0] is img and pad(img, label)[0] is img
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fixed = mx.image.DetRandomCropAug(aspect_ratio_range=1.0, area_range=0.5)
    assert fixed.aspect_ratio_range == (1.0, 1.0) and fixed.area_range == (0.5, 0.5)


def test_augmenter_argument_errors():
    with pytest.raises(TypeError, match="DetBorrowAug: augmenter must be an "
                                        "mx.image.Augmenter, got DetHorizontalFlipAug"):
        mx.image.DetBorrowAug(mx.image.DetHorizontalFlipAug(0.5))
    with pytest.raises(ValueError, match="aug_list may hold DetAugmenters only, got "
                                         "HorizontalFlipAug"):
        mx.image.DetRandomSelectAug([mx.image.HorizontalFlipAug(0.5)])
    with pytest.raises(ValueError, match="area_range has 2 values, another argument 3"):
        mx.image.CreateMultiRandCropAugmenter(min_object_covered=[0.1, 0.2, 0.3],
                                              area_range=[(0.1, 1.0), (0.2, 1.0)])
    with pytest.raises(TypeError, match="aspect_ratio_range must be a number or a"):
        mx.image.DetRandomCropAug(aspect_ratio_range="wide")
    with pytest.raises(ValueError, match=r"area_range must be a number or a \(low, high\) pair"):
        mx.image.DetRandomPadAug(area_range=(1.0, 2.0, 3.0))
    with pytest.raises(TypeError, match="pad_val must be a number or one value per channel"):
        mx.image.DetRandomPadAug(pad_val="grey")
    with pytest.raises(ValueError, match="mean must hold 1 or 3 values"):
        mx.image.CreateDetAugmenter((3, 8, 8), mean=np.array([1.0, 2.0]))
    with pytest.raises(mx.base.MXNetError, match=r"image must be \(height, width, channels\)"):
        mx.image.DetRandomPadAug()(mx.nd.zeros((4, 4)), _boxes())
    with pytest.raises(NotImplementedError):
        mx.image.DetAugmenter()(None, None)
    with pytest.raises(TypeError, match="rand_mirorr"):
        mx.image.CreateDetAugmenter((3, 8, 8), rand_mirorr=True)



# ----------------------------------------------------------------- ImageDetIter


def _photo_imglist():
    names = ["animals/0.jpg", "animals/1.png", "animals/2.jpg", "space/0.jpg", "space/1.png"]
    items = []
    for i, name in enumerate(names):
        objects = [[float(i % 3), 0.1 + 0.05 * i, 0.2, 0.7, 0.8 - 0.05 * i]]
        if i % 2:
            objects.append([5.0, 0.4, 0.1, 0.9, 0.6])
        items.append([[2.0, 5.0] + [v for o in objects for v in o], name])
    return items


def _iter_kwargs(config):
    """make_golden.py's iter_kwargs: the case with this checkout's paths."""
    kw = {}
    for key, value in config.items():
        if value == "PHOTOS":
            value = _photo_imglist()
        elif value == "PHOTOS_ROOT":
            value = PHOTOS
        elif key in ("path_imgrec", "path_imgidx"):
            value = os.path.join(RECDIR, value)
        elif key == "path_imglist":
            value = os.path.join(DIR, value)
        elif isinstance(value, list):
            value = tuple(value)
        kw[key] = value
    return kw


@pytest.mark.parametrize("case", sorted(k for k in ITER_META if not k.startswith("_")))
def test_image_det_iter_equals_mxnet(case):
    info = ITER_META[case]
    if info["seed"] is not None:
        _seed(info["seed"])
    it = mx.image.ImageDetIter(**_iter_kwargs(info["config"]))
    assert list(it.label_shape) == info["label_shape"]
    assert list(it.provide_label[0][1]) == info["provide_label"]
    assert it.provide_label[0][0] == "label" and it.provide_data[0][0] == "data"
    if info["reshape"] is not None:
        it.reshape(label_shape=tuple(info["reshape"]))
        assert list(it.provide_label[0][1]) == info["provide_label_after"]
    loose = info["seed"] is not None or "mean" in info["config"]
    for epoch, want_pads in enumerate(info["pads"]):
        batches = list(it)
        assert [b.pad for b in batches] == want_pads, "epoch %d" % epoch
        for b, batch in enumerate(batches):
            tag = "%s_e%d_b%d_" % (case, epoch, b)
            data, label = batch.data[0].asnumpy(), batch.label[0].asnumpy()
            want_data = ITER[tag + "data"].astype(np.float32)
            assert data.dtype == np.float32 and data.shape == want_data.shape
            if loose:
                np.testing.assert_allclose(data, want_data, rtol=1e-4, atol=2e-3, err_msg=tag)
            else:
                np.testing.assert_array_equal(data, want_data, err_msg=tag)
            np.testing.assert_allclose(label, ITER[tag + "label"], rtol=1e-6, atol=1e-7,
                                       err_msg=tag)
        it.reset()


def test_sync_label_shape_equals_mxnet():
    a = mx.image.ImageDetIter(**_iter_kwargs(ITER_META["rec_pad"]["config"]))
    three = [[[2.0, 5.0, 0, 0.1, 0.1, 0.5, 0.5, 1, 0.2, 0.2, 0.6, 0.6, 2, 0.3, 0.3, 0.9, 0.9],
              "animals/0.jpg"]]
    b = mx.image.ImageDetIter(batch_size=1, data_shape=(3, 16, 16), imglist=three,
                              path_root=PHOTOS)
    want = ITER_META["_sync"]
    assert [list(a.label_shape), list(b.label_shape)] == want["before"]
    assert a.sync_label_shape(b, verbose=True) is b
    assert [list(a.label_shape), list(b.label_shape)] == want["after"]
    batch = next(iter(a))
    assert batch.label[0].shape == (4, 3, 5)
    assert (batch.label[0].asnumpy()[:, 2] == -1).all()


def _det_iter(**kw):
    args = dict(batch_size=4, data_shape=(3, 16, 16), path_imgrec=DET_REC, path_imgidx=DET_IDX)
    args.update(kw)
    return mx.image.ImageDetIter(**args)


def test_labels_pad_with_minus_one_and_boxes_stay_in_range():
    _seed(2)
    it = _det_iter(rand_crop=1, rand_pad=1, rand_mirror=True, shuffle=True)
    for batch in it:
        label = batch.label[0].asnumpy()
        real = label[:, :, 0] >= 0
        assert (label[~real] == -1).all()
        boxes = label[real][:, 1:5]
        assert ((boxes >= 0) & (boxes <= 1)).all()
        assert (boxes[:, 2] > boxes[:, 0]).all() and (boxes[:, 3] > boxes[:, 1]).all()


def test_hard_reset_drops_a_rolled_over_batch():
    it = _det_iter(last_batch_handle="roll_over")
    assert [b.pad for b in it] == [0, 0]
    it.hard_reset()
    assert [b.pad for b in it] == [0, 0]  # no kept image opens this epoch


def test_images_the_augmenters_reject_are_skipped():
    class RejectSecond(mx.image.DetAugmenter):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def __call__(self, src, label):
            self.calls += 1
            if self.calls == 2:
                raise mx.base.MXNetError("rejected")
            return src, label

    augs = [RejectSecond()] + mx.image.CreateDetAugmenter((3, 16, 16))
    it = _det_iter(aug_list=augs, batch_size=8, last_batch_handle="discard")
    batch = next(iter(it))
    full = next(iter(_det_iter(batch_size=9)))
    # Row 1 holds image 2: image 1 was skipped.
    np.testing.assert_array_equal(batch.data[0].asnumpy()[1], full.data[0].asnumpy()[2])


def test_draw_next_yields_images_with_boxes():
    it = _det_iter()
    images = list(it.draw_next(color=(255, 0, 0), thickness=1))
    assert len(images) == 9
    img = images[0]
    assert img.dtype == np.uint8 and img.shape == (16, 16, 3)
    # record 0's first box: x from 0.1, y from 0.2 (of 16 pixels); red in BGR.
    x1, y1 = int(0.1 * 16), int(0.2 * 16)
    np.testing.assert_array_equal(img[y1 + 2, x1], [0, 0, 255])
    it.reset()
    normalized = _det_iter(mean=True, std=True)
    again = next(normalized.draw_next(color=(255, 0, 0), thickness=1, mean=True, std=True))
    assert np.abs(again.astype(int) - img.astype(int)).max() <= 1


def test_draw_next_window_needs_opencv():
    try:
        import cv2  # noqa: F401
    except ImportError:
        with pytest.raises(mx.base.MXNetError, match="waitKey=0 .* OpenCV"):
            next(_det_iter().draw_next(waitKey=0))
        with pytest.warns(UserWarning, match="class names need OpenCV"):
            assert next(_det_iter().draw_next(id2labels={0: "cat"})).shape == (16, 16, 3)
    else:
        pytest.skip("OpenCV is installed here")


def _imglist_iter(items, **kw):
    return mx.image.ImageDetIter(batch_size=1, data_shape=(3, 8, 8), imglist=items,
                                 path_root=PHOTOS, **kw)


@pytest.mark.parametrize("label,match", [
    ([2, 5, 0, 0.1, 0.1], "a label of 5 values is too short"),
    ([2, 4, 0, 0.1, 0.1, 0.5, 0.5, 1, 2], "header width 2 and object width 4"),
    ([2, 5, 0, 0.1, 0.1, 0.5, 0.5, 1], "a label of 8 values does not split into a header "
                                       "of 2 and objects of 5"),
    ([2, 5, 0, 0.5, 0.1, 0.5, 0.5], "no valid object"),
])
def test_bad_labels_name_the_problem(label, match):
    with pytest.raises(mx.base.MXNetError, match=match):
        _imglist_iter([[label, "animals/0.jpg"]])


def test_iterator_errors():
    ok = [[[2, 5, 0, 0.1, 0.1, 0.5, 0.5], "animals/0.jpg"]]
    with pytest.raises(ValueError, match=r"data_shape \(3, 8\) must be \(channels, height"):
        mx.image.ImageDetIter(batch_size=1, data_shape=(3, 8), imglist=ok, path_root=PHOTOS)
    with pytest.raises(ValueError, match="only 3 channels"):
        mx.image.ImageDetIter(batch_size=1, data_shape=(1, 8, 8), imglist=ok, path_root=PHOTOS)
    with pytest.raises(mx.base.MXNetError, match="holds no images"):
        _imglist_iter([])
    with pytest.raises(mx.base.MXNetError, match="last_batch_handle 'keep'"):
        _imglist_iter(ok, last_batch_handle="keep")
    it = _imglist_iter(ok)
    with pytest.raises(ValueError, match="must be \\(objects, width\\)"):
        it.reshape(label_shape=(3,))
    with pytest.raises(ValueError, match=r"holds fewer objects than the 1"):
        it.reshape(label_shape=(0, 5))
    with pytest.raises(ValueError, match="object width must stay 5"):
        it.reshape(label_shape=(2, 6))
    with pytest.raises(ValueError, match="only 3 channels"):
        it.reshape(data_shape=(4, 8, 8))
    it.reshape(data_shape=(3, 6, 6))
    with pytest.raises(mx.base.MXNetError, match=r"has shape \(3, 8, 8\).*data_shape is "
                                                 r"\(3, 6, 6\)"):
        next(it)
    with pytest.raises(TypeError, match="expected an ImageDetIter, got ImageIter"):
        it.sync_label_shape(mx.image.ImageIter(batch_size=1, data_shape=(3, 8, 8),
                                               imglist=[[1.0, "animals/0.jpg"]],
                                               path_root=PHOTOS, resize=8))
    wide = _imglist_iter([[[2, 6, 0, 0.1, 0.1, 0.5, 0.5, 7], "animals/0.jpg"]])
    with pytest.raises(ValueError, match="object widths differ: 5 and 6"):
        _imglist_iter(ok).sync_label_shape(wide)
    with pytest.raises(mx.base.MXNetError, match="cannot read image .*animals/none.jpg"):
        _imglist_iter([[[2, 5, 0, 0.1, 0.1, 0.5, 0.5], "animals/none.jpg"]])
    broken = _imglist_iter([[[2, 5, 0, 0.1, 0.1, 0.5, 0.5], "space/broken.jpg"]])
    with pytest.raises(mx.base.MXNetError, match="broken image space/broken.jpg"):
        next(broken)
    grow = _imglist_iter(ok, aug_list=[_AddObject()] + mx.image.CreateDetAugmenter((3, 8, 8)))
    with pytest.raises(mx.base.MXNetError, match=r"label of shape \(2, 5\) does not fit "
                                                 r"label_shape \(1, 5\)"):
        next(grow)


class _AddObject(mx.image.DetAugmenter):
    def __call__(self, src, label):
        return src, np.concatenate([label, label])
