"""mx.io.MNISTIter against what MXNet 1.9.1's gives for the same files
(worked out with it on 23 images of 28x28 whose pixel i is i % 256 and whose
label i is i % 10): full batches only, pixels / 256, num_parts/part_index
rows [n*i/parts, n*(i+1)/parts), shuffle once from the seed; and the errors."""
import gzip
import struct

import numpy as np
import pytest

import symx as mx

N = 23


def _write(tmp_path, compress=False):
    images = (np.arange(N * 28 * 28) % 256).astype(np.uint8)
    labels = (np.arange(N) % 10).astype(np.uint8)
    opener, suffix = (gzip.open, ".gz") if compress else (open, "")
    img, lab = str(tmp_path / ("img" + suffix)), str(tmp_path / ("lab" + suffix))
    with opener(img, "wb") as f:
        f.write(struct.pack(">IIII", 2051, N, 28, 28) + images.tobytes())
    with opener(lab, "wb") as f:
        f.write(struct.pack(">II", 2049, N) + labels.tobytes())
    return img, lab


def _labels(it):
    return [b.label[0].asnumpy().tolist() for b in it]


def test_batches_as_mxnet(tmp_path):
    img, lab = _write(tmp_path)
    it = mx.io.MNISTIter(image=img, label=lab, batch_size=5, shuffle=False)
    assert it.provide_data[0].shape == (5, 1, 28, 28) and it.provide_label[0].shape == (5,)
    batches = list(it)
    assert len(batches) == 4  # 20 of the 23 images: the last 3 fill no batch
    assert _labels(batches) == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]] * 2
    first = batches[0].data[0].asnumpy()
    assert first.dtype == np.float32 and first.max() == np.float32(255 / 256)
    np.testing.assert_array_equal(first[0, 0, 0, :5], np.arange(5) / 256)
    it.reset()
    assert len(list(it)) == 4


def test_parts_of_a_distributed_job(tmp_path):
    img, lab = _write(tmp_path, compress=True)
    parts = [mx.io.MNISTIter(image=img, label=lab, batch_size=4, shuffle=False, flat=True,
                             num_parts=3, part_index=i) for i in range(3)]
    assert parts[1].provide_data[0].shape == (4, 784)
    assert _labels(parts[0]) == [[0, 1, 2, 3]]  # rows 0-6
    assert _labels(parts[1]) == [[7, 8, 9, 0], [1, 2, 3, 4]]  # rows 7-14
    assert _labels(parts[2]) == [[5, 6, 7, 8], [9, 0, 1, 2]]  # rows 15-22


def test_shuffle_is_once_from_the_seed(tmp_path):
    img, lab = _write(tmp_path)
    it = mx.io.MNISTIter(image=img, label=lab, batch_size=4, seed=3)
    first = _labels(it)
    it.reset()
    assert _labels(it) == first
    assert first == _labels(mx.io.MNISTIter(image=img, label=lab, batch_size=4, seed=3))
    assert sorted(sum(first, [])) != sum(first, [])  # shuffled


def test_errors_name_the_file_and_the_value(tmp_path):
    img, lab = _write(tmp_path)
    with pytest.raises(mx.base.MXNetError, match="cannot read the image file .*nothing"):
        mx.io.MNISTIter(image=str(tmp_path / "nothing"), label=lab)
    with pytest.raises(mx.base.MXNetError, match="lab is not an MNIST image file"):
        mx.io.MNISTIter(image=lab, label=lab)
    with pytest.raises(mx.base.MXNetError, match="part_index 2 must be in \\[0, num_parts 2\\)"):
        mx.io.MNISTIter(image=img, label=lab, num_parts=2, part_index=2)
    with pytest.raises(mx.base.MXNetError, match="holds 23 images, fewer than batch_size 40"):
        mx.io.MNISTIter(image=img, label=lab, batch_size=40)
    with pytest.raises(mx.base.MXNetError, match="data_shape \\(3, 3\\) does not hold 784"):
        mx.io.MNISTIter(image=img, label=lab, data_shape=(3, 3))
    with open(img, "r+b") as f:
        f.truncate(100)
    with pytest.raises(mx.base.MXNetError, match="holds 84 bytes of image, its header says"):
        mx.io.MNISTIter(image=img, label=lab)
