"""mx.image's Python augmenters, CreateAugmenter and ImageIter, against what
MXNet 1.9.1's do (their documented arithmetic, checked on small arrays) and
on the golden RecordIO files and photos in tests/testdata/recordio."""
import json
import os
import random

import numpy as np
import pytest

import symx as mx

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "recordio")
REC, IDX = os.path.join(DIR, "classes.rec"), os.path.join(DIR, "classes.idx")


def _img():
    y, x = np.mgrid[0:6, 0:8]
    return mx.nd.array(np.stack([x * 30, y * 40, (x + y) * 10], axis=2).astype(np.float32))


def test_colour_augmenters_follow_mxnets_formulas():
    src = _img()
    a = src.asnumpy()
    random.seed(3)
    alpha = 1.0 + random.Random(3).uniform(-0.5, 0.5)
    out = mx.image.BrightnessJitterAug(0.5)(src).asnumpy()
    np.testing.assert_allclose(out, a * alpha, rtol=1e-5)
    # Contrast keeps the mean luma; saturation 1 - alpha of each pixel's luma.
    luma = (a * [0.299, 0.587, 0.114]).sum(axis=2)
    out = mx.image.ContrastJitterAug(0.5)(src).asnumpy()
    np.testing.assert_allclose((out * [0.299, 0.587, 0.114]).sum(axis=2).mean(), luma.mean(),
                               rtol=1e-4)
    random.seed(5)
    alpha = 1.0 + random.Random(5).uniform(-0.5, 0.5)
    out = mx.image.SaturationJitterAug(0.5)(src).asnumpy()
    np.testing.assert_allclose(out, a * alpha + (1 - alpha) * luma[:, :, None], rtol=1e-4,
                               atol=1e-3)
    # Hue by 0: the identity (up to the YIQ matrices' rounding).
    np.testing.assert_allclose(mx.image.HueJitterAug(0.0)(src).asnumpy(), a, atol=1.0)
    gray = mx.image.RandomGrayAug(1.0)(src).asnumpy()
    np.testing.assert_allclose(gray[:, :, 0], (a * [0.21, 0.72, 0.07]).sum(axis=2), rtol=1e-5)
    assert (gray[:, :, 0] == gray[:, :, 2]).all()
    np.random.seed(1)
    shift = (mx.image.LightingAug(0.1, [55.46, 4.794, 1.148], np.eye(3))(src).asnumpy() - a)
    assert np.allclose(shift, shift[0, 0], atol=1e-4) and np.abs(shift[0, 0]).max() > 0
    norm = mx.image.ColorNormalizeAug([1, 2, 3], [2, 2, 2])(src).asnumpy()
    np.testing.assert_allclose(norm, (a - [1, 2, 3]) / 2, rtol=1e-6)


def test_geometry_augmenters():
    src = mx.nd.array(np.arange(6 * 8 * 3).reshape(6, 8, 3).astype(np.uint8), dtype=np.uint8)
    flipped = mx.image.HorizontalFlipAug(1.0)(src).asnumpy()
    np.testing.assert_array_equal(flipped, src.asnumpy()[:, ::-1])
    assert mx.image.HorizontalFlipAug(0.0)(src) is src
    assert mx.image.ForceResizeAug((5, 3))(src).shape == (3, 5, 3)
    assert mx.image.CenterCropAug((4, 2))(src).shape == (2, 4, 3)
    np.testing.assert_array_equal(mx.image.CenterCropAug((4, 2))(src).asnumpy(),
                                  src.asnumpy()[2:4, 2:6])
    assert mx.image.RandomCropAug((4, 2))(src).shape == (2, 4, 3)
    assert mx.image.ResizeAug(12)(src).shape == (12, 16, 3)
    assert mx.image.RandomSizedCropAug((4, 4), 0.3, (0.75, 1.33))(src).shape == (4, 4, 3)
    assert mx.image.CastAug()(src).dtype == np.float32
    seq = mx.image.SequentialAug([mx.image.CastAug(), mx.image.ColorNormalizeAug([1, 1, 1],
                                                                                 None)])
    np.testing.assert_allclose(seq(src).asnumpy(), src.asnumpy() - 1.0)
    assert seq.dumps()[0] == "sequentialaug"
    assert json.loads(mx.image.ResizeAug(12, 1).dumps()) == ["resizeaug",
                                                             {"size": 12, "interp": 1}]


def test_create_augmenter_lists_mxnets_augmenters():
    names = [type(a).__name__ for a in mx.image.CreateAugmenter(
        (3, 24, 24), resize=28, rand_crop=True, rand_resize=True, rand_mirror=True, mean=True,
        std=True, brightness=0.1, contrast=0.1, saturation=0.1, hue=0.1, pca_noise=0.1,
        rand_gray=0.1)]
    assert names == ["ResizeAug", "RandomSizedCropAug", "HorizontalFlipAug", "CastAug",
                     "ColorJitterAug", "HueJitterAug", "LightingAug", "RandomGrayAug",
                     "ColorNormalizeAug"]
    assert [type(a).__name__ for a in mx.image.CreateAugmenter((3, 8, 8))] == [
        "CenterCropAug", "CastAug"]
    with pytest.raises(mx.base.MXNetError, match="rand_resize needs rand_crop"):
        mx.image.CreateAugmenter((3, 8, 8), rand_resize=True)


@pytest.mark.parametrize("handle,pads,batches", [("pad", [0, 0, 3], 3), ("discard", [0, 0], 2),
                                                 ("roll_over", [0, 0], 2)])
def test_image_iter_last_batch(handle, pads, batches):
    it = mx.image.ImageIter(batch_size=5, data_shape=(3, 16, 16), path_imgrec=REC, resize=16,
                            last_batch_handle=handle)
    got = list(it)
    assert [b.pad for b in got] == pads and len(got) == batches
    assert got[0].data[0].shape == (5, 3, 16, 16) and got[0].label[0].shape == (5,)
    np.testing.assert_array_equal(got[0].label[0].asnumpy(), [0, 1, 2, 0, 1])
    it.reset()
    again = list(it)
    if handle == "roll_over":
        # The two left over open the next epoch: records 10, 11, then 0, 1, 2.
        np.testing.assert_array_equal(again[0].label[0].asnumpy(), [1, 2, 0, 1, 2])
    else:
        assert len(again) == batches


def test_image_iter_equals_engine_decode_and_crop():
    """No random augmentation: ImageIter's centre crop of resized images, as
    NCHW float32, equals mx.image's own pipeline on the same records."""
    it = mx.image.ImageIter(batch_size=4, data_shape=(3, 16, 16), path_imgrec=REC, resize=20,
                            inter_method=1)
    batch = next(iter(it))
    r = mx.recordio.MXRecordIO(REC, "r")
    for row in range(4):
        _, buf = mx.recordio.unpack(r.read())
        img = mx.image.center_crop(mx.image.resize_short(mx.image.imdecode(buf), 20, 1),
                                   (16, 16), 1)[0]
        np.testing.assert_allclose(batch.data[0].asnumpy()[row],
                                   img.asnumpy().astype(np.float32).transpose(2, 0, 1))


def test_image_iter_from_files_shuffle_and_parts(tmp_path):
    photos = os.path.join(DIR, "photos")
    lst = tmp_path / "photos.lst"
    names = sorted("animals/" + f for f in os.listdir(os.path.join(photos, "animals")))
    lst.write_text("".join("%d\t%d\t%s\n" % (i, i % 2, n) for i, n in enumerate(names)))
    it = mx.image.ImageIter(batch_size=2, data_shape=(3, 16, 16), path_imglist=str(lst),
                            path_root=photos, resize=16, shuffle=True)
    labels = sorted(v for b in it for v in b.label[0].asnumpy().tolist())
    assert labels == [0, 0, 1, 1]
    it = mx.image.ImageIter(batch_size=2, data_shape=(3, 16, 16), imglist=[[1.0, names[0]]],
                            path_root=photos, resize=16)
    assert next(iter(it)).pad == 1
    part = mx.image.ImageIter(batch_size=3, data_shape=(3, 8, 8), path_imgrec=REC,
                              path_imgidx=IDX, num_parts=4, part_index=1, resize=8)
    np.testing.assert_array_equal(next(iter(part)).label[0].asnumpy(), [0, 1, 2])  # ids 103-105
    with pytest.raises(mx.base.MXNetError, match="need path_imgidx"):
        mx.image.ImageIter(batch_size=2, data_shape=(3, 8, 8), path_imgrec=REC, shuffle=True)
    with pytest.raises(mx.base.MXNetError, match=r"expected \(3, height, width\)"):
        mx.image.ImageIter(batch_size=2, data_shape=(1, 8, 8), path_imgrec=REC)
    with pytest.raises(mx.base.MXNetError, match="give path_imgrec"):
        mx.image.ImageIter(batch_size=2, data_shape=(3, 8, 8))
