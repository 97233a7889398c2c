"""Golden cases for the region ops: ROIPooling, _contrib_ROIAlign,
_contrib_Proposal and _contrib_MultiProposal (MXNet 1.9.1, float32).

Data values are distinct (a shuffled ramp) so every max-pooling bin has one
maximum; ROI corners times spatial_scale stay away from .5 so rounding is
unambiguous; proposal scores are distinct and no box is filtered, so the
descending sort has no ties."""
import numpy as np
import mxnet as mx

from golden_lib import Case


def _ramp(shape, seed, lo=-1.0, hi=1.0):
    n = int(np.prod(shape))
    perm = np.random.RandomState(seed).permutation(n).astype(np.float64)
    return (lo + (hi - lo) * perm / n).reshape(shape).astype(np.float32)


_ROIS = np.array([
    [0, 0, 0, 3, 3],
    [1, 1.2, 0.7, 5.3, 4.2],
    [0, -2.2, -1.8, 1.2, 2.4],
    [1, 4.2, 3.8, 9.3, 8.4],
    [0, 2, 2, 2, 2],
    [1, 4, 4, 1, 1],
], dtype=np.float32)

_ALIGN_ROIS = np.array([
    [0, 0.3, 0.6, 3.7, 4.1],
    [1, 1.25, 0.4, 5.8, 5.2],
    [0, -1.6, -0.7, 2.3, 1.9],
    [1, 3.1, 2.2, 8.9, 7.6],
    [1, 0.5, 0.5, 6.5, 5.5],
], dtype=np.float32)

_SMALL_ROI = np.array([[0, 2.2, 2.4, 2.3, 2.6]], dtype=np.float32)


def _roipool(name, data_shape, rois, pooled, scale):
    d, r = mx.sym.Variable("data"), mx.sym.Variable("rois")
    return Case("ROIPooling_" + name,
                mx.sym.ROIPooling(d, r, pooled_size=pooled, spatial_scale=scale),
                shapes={"data": data_shape, "rois": rois.shape},
                values={"data": _ramp(data_shape, 1), "rois": rois}, no_grad=["rois"])


def _roialign(name, data_shape, rois, **kw):
    d, r = mx.sym.Variable("data"), mx.sym.Variable("rois")
    return Case("ROIAlign_" + name, mx.sym.contrib.ROIAlign(d, r, **kw),
                shapes={"data": data_shape, "rois": rois.shape},
                values={"data": _ramp(data_shape, 2), "rois": rois}, no_grad=["rois"])


def _proposal(name, multi, n, a, h, w, im_info, seed, delta_scale=0.3, **kw):
    c, b, i = (mx.sym.Variable(k) for k in ("cls_prob", "bbox_pred", "im_info"))
    op = mx.sym.contrib.MultiProposal if multi else mx.sym.contrib.Proposal
    sym = op(c, b, i, **kw)
    if kw.get("output_score"):
        sym = mx.sym.Group([sym[0], sym[1]])
    cls = _ramp((n, 2 * a, h, w), seed, 0.0, 1.0)
    bbox = _ramp((n, 4 * a, h, w), seed + 1) * delta_scale
    info = np.array(im_info, dtype=np.float32).reshape(n, 3)
    prefix = "MultiProposal_" if multi else "Proposal_"
    return Case(prefix + name, sym,
                shapes={"cls_prob": cls.shape, "bbox_pred": bbox.shape, "im_info": info.shape},
                values={"cls_prob": cls, "bbox_pred": bbox, "im_info": info}, grad=False)


def cases():
    out = [
        _roipool("2x2", (2, 3, 6, 7), _ROIS, (2, 2), 1.0),
        _roipool("3x2", (2, 2, 6, 7), _ROIS, (3, 2), 1.0),
        _roipool("1x1", (2, 2, 6, 7), _ROIS, (1, 1), 1.0),
        _roipool("scale_half", (2, 2, 6, 7),
                 np.array([[0, 2.2, 3.4, 10.2, 8.6], [1, 0.6, 0.2, 12.6, 11.4],
                           [0, 6.2, 2.2, 7.0, 12.2]], dtype=np.float32), (2, 3), 0.5),
        _roialign("2x2", (2, 3, 6, 7), np.concatenate([_ALIGN_ROIS, _SMALL_ROI]),
                  pooled_size=(2, 2), spatial_scale=1.0),
        _roialign("sample2", (2, 3, 6, 7), _ALIGN_ROIS, pooled_size=(2, 2), spatial_scale=1.0,
                  sample_ratio=2),
        _roialign("3x2_sample1", (2, 2, 6, 7), _ALIGN_ROIS, pooled_size=(3, 2),
                  spatial_scale=1.0, sample_ratio=1),
        _roialign("aligned", (2, 2, 6, 7), _ALIGN_ROIS, pooled_size=(3, 2), spatial_scale=1.0,
                  aligned=True),
        _roialign("aligned_scale_half", (2, 2, 6, 7), _ALIGN_ROIS, pooled_size=(2, 2),
                  spatial_scale=0.5, sample_ratio=3, aligned=True),
        _roialign("position_sensitive", (2, 12, 5, 6), _ALIGN_ROIS, pooled_size=(2, 3),
                  spatial_scale=1.0, position_sensitive=True),
        _roialign("position_sensitive_aligned", (2, 6, 5, 6), _ALIGN_ROIS, pooled_size=(2, 3),
                  spatial_scale=1.0, sample_ratio=2, position_sensitive=True, aligned=True),
        _proposal("basic", False, 1, 6, 4, 5, [64, 80, 1], 3, scales=(2, 4),
                  ratios=(0.5, 1, 2), rpn_min_size=1, rpn_post_nms_top_n=12,
                  output_score=True),
        _proposal("padded", False, 1, 6, 4, 5, [64, 80, 1], 4, scales=(2, 4),
                  ratios=(0.5, 1, 2), rpn_min_size=1, rpn_pre_nms_top_n=20,
                  rpn_post_nms_top_n=30, threshold=0.05, output_score=True),
        _proposal("iou_loss", False, 1, 2, 3, 3, [48, 48, 1.5], 5, delta_scale=6.0,
                  scales=(1.5, 3), ratios=(1,), rpn_min_size=1, rpn_pre_nms_top_n=-1,
                  rpn_post_nms_top_n=8, iou_loss=True),
        _proposal("defaults", False, 1, 12, 3, 4, [48, 64, 1], 6, output_score=True,
                  rpn_min_size=4, rpn_post_nms_top_n=20),
        _proposal("batch", True, 2, 4, 4, 4, [32, 32, 1, 32, 32, 0.5], 7, scales=(2, 4),
                  ratios=(0.5, 2), rpn_min_size=2, rpn_pre_nms_top_n=25,
                  rpn_post_nms_top_n=10, feature_stride=8, output_score=True),
        _proposal("batch_no_score", True, 2, 3, 3, 3, [48, 40, 1, 40, 48, 1], 8,
                  scales=(2,), ratios=(0.5, 1, 2), rpn_min_size=1, rpn_post_nms_top_n=6),
    ]
    return out
