"""Golden cases for the region ops: ROIPooling, _contrib_ROIAlign,
_contrib_PSROIPooling, _contrib_DeformablePSROIPooling, _contrib_Proposal and
_contrib_MultiProposal (MXNet 1.9.1, float32).

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


def _psroi(name, data_shape, rois, **kw):
    d, r = mx.sym.Variable("data"), mx.sym.Variable("rois")
    return Case("PSROIPooling_" + name, mx.sym.contrib.PSROIPooling(d, r, **kw),
                shapes={"data": data_shape, "rois": rois.shape},
                values={"data": _ramp(data_shape, 3), "rois": rois}, no_grad=["rois"])


def _deform_psroi(name, data_shape, rois, classes, seed, **kw):
    d, r = mx.sym.Variable("data"), mx.sym.Variable("rois")
    values = {"data": _ramp(data_shape, seed), "rois": rois}
    if kw.get("no_trans"):
        sym = mx.sym.contrib.DeformablePSROIPooling(d, r, **kw)
    else:
        part = kw.get("part_size") or kw["pooled_size"]
        shape = (rois.shape[0], 2 * classes, part, part)
        values["trans"] = np.random.RandomState(seed).uniform(-1, 1, size=shape).astype(np.float32)
        sym = mx.sym.contrib.DeformablePSROIPooling(d, r, mx.sym.Variable("trans"), **kw)
    return Case("DeformablePSROIPooling_" + name, sym,
                shapes={k: v.shape for k, v in values.items()}, values=values, no_grad=["rois"])


_RROIS = np.array([
    [0, 3.3, 2.6, 4.2, 2.7, 30],
    [1, 1.2, 4.1, 5.5, 3.3, -65],
    [0, 5.6, 0.4, 3.1, 6.2, 135],
    [1, 2.2, 2.9, 0.4, 0.3, 10],
    [0, 30, 30, 4, 4, 45],
], dtype=np.float32)


def _rroialign(name, data_shape, **kw):
    d, r = mx.sym.Variable("data"), mx.sym.Variable("rois")
    return Case("RROIAlign_" + name, mx.sym.contrib.RROIAlign(d, r, **kw),
                shapes={"data": data_shape, "rois": _RROIS.shape},
                values={"data": _ramp(data_shape, 8), "rois": _RROIS}, grad=False,
                note="MXNet's RROIAlign has no gradient")


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
        _psroi("2x2", (2, 8, 6, 7), _ROIS, spatial_scale=1.0, output_dim=2, pooled_size=2),
        _psroi("3x3_group2", (2, 10, 6, 7), _ROIS, spatial_scale=1.0, output_dim=2,
               pooled_size=3, group_size=2),
        _psroi("scale_half", (2, 9, 6, 7), _ROIS, spatial_scale=0.5, output_dim=1,
               pooled_size=3),
        _deform_psroi("2x2", (2, 8, 6, 7), _ROIS, 1, 4, spatial_scale=1.0, output_dim=2,
                      group_size=2, pooled_size=2, sample_per_part=2, trans_std=0.1),
        _deform_psroi("3x3_part2_classes", (2, 18, 6, 7), _ROIS, 2, 5, spatial_scale=1.0,
                      output_dim=2, group_size=3, pooled_size=3, part_size=2,
                      sample_per_part=3, trans_std=0.5),
        _deform_psroi("far_trans", (2, 9, 6, 7), _ROIS, 1, 6, spatial_scale=0.5, output_dim=1,
                      group_size=3, pooled_size=3, sample_per_part=2, trans_std=0.9),
        _deform_psroi("no_trans", (2, 8, 6, 7), _ROIS, 1, 7, spatial_scale=1.0, output_dim=2,
                      group_size=2, pooled_size=2, sample_per_part=4, no_trans=True),
        _rroialign("2x2", (2, 3, 6, 7), pooled_size=(2, 2), spatial_scale=1.0),
        _rroialign("3x2_ratio2", (2, 2, 6, 7), pooled_size=(3, 2), spatial_scale=1.0,
                   sampling_ratio=2),
        _rroialign("scale_half", (2, 2, 5, 6), pooled_size=(2, 2), spatial_scale=0.5),
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
