"""Golden cases for the SSD-style detection ops: _contrib_MultiBoxPrior,
_contrib_box_nms (and its backward), _contrib_box_iou, _contrib_box_encode and
_contrib_box_decode and _contrib_bipartite_matching (all three with MXNet's zero
gradient; bipartite_matching's scores tie often, so its stable order is checked).

Scores are distinct so the sort order is unambiguous; boxes are chosen so
that no IoU lies near a threshold."""
import mxnet as mx
import numpy as np

from golden_lib import Case


def _nms_data(batches, n, width, coord_start=2, score_index=1, id_index=0, center=False,
              seed=0, num_ids=2):
    """Rows of `width` values: distinct scores, ids in [0, num_ids), boxes from a
    few clusters so that some overlap strongly and some not at all."""
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, size=(batches, n, width))
    for b in range(batches):
        scores = rng.permutation(n) / float(n) + 0.05  # distinct, in (0, 1.05)
        x[b, :, score_index] = scores
        if id_index >= 0:
            x[b, :, id_index] = rng.randint(0, num_ids, size=n)
        for i in range(n):
            cx, cy = [(0.2, 0.2), (0.7, 0.3), (0.4, 0.8)][rng.randint(0, 3)]
            cx += rng.uniform(-0.05, 0.05)
            cy += rng.uniform(-0.05, 0.05)
            w, h = rng.uniform(0.2, 0.4), rng.uniform(0.2, 0.4)
            box = [cx, cy, w, h] if center else [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]
            x[b, i, coord_start:coord_start + 4] = box
    return x


def _min_margin(x, thresh, coord_start, center):
    """Smallest |IoU - thresh| over all pairs of one batch (case design check)."""
    def corner(r):
        a, b, c, d = r[coord_start:coord_start + 4]
        return (a - c / 2, b - d / 2, a + c / 2, b + d / 2) if center else (a, b, c, d)
    m = 1.0
    for bx in x.reshape((-1,) + x.shape[-2:]):
        for i in range(len(bx)):
            for j in range(i + 1, len(bx)):
                p, q = corner(bx[i]), corner(bx[j])
                w = max(0, min(p[2], q[2]) - max(p[0], q[0]))
                h = max(0, min(p[3], q[3]) - max(p[1], q[1]))
                inter = w * h
                u = (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - inter
                m = min(m, abs(inter / u - thresh))
    return m


def _nms_cases():
    d = mx.sym.Variable("data")
    out = []
    specs = [
        ("box_nms_default", dict(), (2, 8, 6), dict()),
        ("box_nms_ids", dict(overlap_thresh=0.3, id_index=0), (2, 8, 6), dict()),
        ("box_nms_force", dict(overlap_thresh=0.3, id_index=0, force_suppress=True), (2, 8, 6),
         dict()),
        ("box_nms_topk_valid", dict(overlap_thresh=0.4, topk=4, valid_thresh=0.3), (1, 10, 6),
         dict()),
        ("box_nms_background", dict(overlap_thresh=0.4, id_index=0, background_id=1), (2, 8, 6),
         dict()),
        ("box_nms_center_out", dict(overlap_thresh=0.3, out_format="center"), (2, 7, 6), dict()),
        ("box_nms_center_in", dict(overlap_thresh=0.3, in_format="center"), (2, 7, 6),
         dict(center=True)),
        ("box_nms_layout", dict(overlap_thresh=0.3, coord_start=0, score_index=5, id_index=4),
         (1, 9, 7), dict(coord_start=0, score_index=5, id_index=4)),
        ("box_nms_2d", dict(overlap_thresh=0.3), (8, 6), dict()),
        ("box_nms_4d", dict(overlap_thresh=0.3, alias=True), (2, 2, 6, 6), dict()),
    ]
    for i, (name, kw, shape, dk) in enumerate(specs):
        kw = dict(kw)
        alias = kw.pop("alias", False)
        n, width = shape[-2], shape[-1]
        batches = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
        x = _nms_data(batches, n, width, seed=100 + i, **dk).reshape(shape)
        thresh = kw.get("overlap_thresh", 0.5)
        assert _min_margin(x, thresh, dk.get("coord_start", 2), dk.get("center", False)) > 1e-3
        fn = mx.sym.contrib.box_non_maximum_suppression if alias else mx.sym.contrib.box_nms
        for dt in ("float32", "float64"):
            out.append(Case("%s_%s" % (name, dt), fn(d, **kw), shapes={"data": shape},
                            values={"data": x.astype(dt)}, dtypes={"data": dt}))
    # MXNet converts formats only for rows whose first coordinate is >= 0.
    x = np.array([[0, 0.9, -0.1, 0.5, 0.3, 0.8], [0, 0.8, 0.5, -0.5, 0.6, 0.2],
                  [0, 0.7, 2, 2, -1, 3], [0, 0.6, 5, 5, 6, -0.5], [0, 0.5, 0.0, 1, 2, 3]])
    for fmt in ("center", "corner"):
        other = "corner" if fmt == "center" else "center"
        out.append(Case("box_nms_convert_negative_%s" % fmt,
                        mx.sym.contrib.box_nms(d, overlap_thresh=0.99, in_format=other,
                                               out_format=fmt),
                        shapes={"data": (5, 6)}, values={"data": x}))
    return out


def _prior_cases():
    d = mx.sym.Variable("data")
    specs = [
        ("MultiBoxPrior_default", dict(), (1, 3, 2, 3)),
        ("MultiBoxPrior_sizes_ratios", dict(sizes=(0.5, 0.25), ratios=(1, 2, 0.5)), (2, 3, 3, 4)),
        ("MultiBoxPrior_ratio0", dict(sizes=(0.5, 0.3), ratios=(4, 1)), (1, 2, 1, 2)),
        ("MultiBoxPrior_clip_steps", dict(sizes=(0.5, 0.25), ratios=(1, 2), steps=(0.3, 0.2),
                                          offsets=(0.2, 0.7), clip=True), (1, 1, 2, 3)),
        ("MultiBoxPrior_5d", dict(sizes=(0.4,), ratios=(1, 3)), (1, 2, 4, 2, 3)),
    ]
    return [Case(name, mx.sym.contrib.MultiBoxPrior(d, **kw), shapes={"data": shape})
            for name, kw, shape in specs]


def _iou_cases():
    lhs, rhs = mx.sym.Variable("lhs"), mx.sym.Variable("rhs")
    rng = np.random.RandomState(7)

    def boxes(shape, center):
        c = rng.uniform(0.2, 0.8, size=shape + (2,))
        wh = rng.uniform(0.1, 0.6, size=shape + (2,))
        if center:
            return np.concatenate([c, wh], axis=-1)
        return np.concatenate([c - wh / 2, c + wh / 2], axis=-1)

    out = []
    for fmt in ("corner", "center"):
        for dt in ("float32", "float64"):
            a, b = boxes((3,), fmt == "center"), boxes((2, 4), fmt == "center")
            # A degenerate (negative-width) box gives IoU 0.
            b[1, 2] = [0.6, 0.6, 0.4, 0.4] if fmt == "corner" else [0.5, 0.5, -0.1, 0.2]
            out.append(Case("box_iou_%s_%s" % (fmt, dt),
                            mx.sym.contrib.box_iou(lhs, rhs, format=fmt),
                            shapes={"lhs": (3, 4), "rhs": (2, 4, 4)},
                            values={"lhs": a.astype(dt), "rhs": b.astype(dt)},
                            dtypes={"lhs": dt, "rhs": dt}))
    out.append(Case("box_iou_3d", mx.sym.contrib.box_iou(lhs, rhs),
                    shapes={"lhs": (2, 2, 4), "rhs": (5, 4)},
                    values={"lhs": boxes((2, 2), False), "rhs": boxes((5,), False)}))
    return out


def _detection_cases():
    c, l, a = mx.sym.Variable("cls_prob"), mx.sym.Variable("loc_pred"), mx.sym.Variable("anchor")
    specs = [
        ("MultiBoxDetection_default", dict(), (2, 4, 8)),
        ("MultiBoxDetection_threshold", dict(threshold=0.3), (2, 4, 8)),
        ("MultiBoxDetection_force", dict(force_suppress=True, nms_threshold=0.1), (2, 3, 8)),
        ("MultiBoxDetection_noclip_var", dict(clip=False, variances=(0.2, 0.1, 0.3, 0.1)),
         (1, 3, 6)),
        ("MultiBoxDetection_topk", dict(nms_topk=3, threshold=0.1, nms_threshold=0.2), (2, 4, 8)),
        ("MultiBoxDetection_background_ignored", dict(background_id=2), (2, 4, 6)),
        ("MultiBoxDetection_no_nms", dict(nms_threshold=0), (1, 3, 6)),
    ]
    out = []
    for i, (name, kw, (n, nc, na)) in enumerate(specs):
        rng = np.random.RandomState(200 + i)
        # Distinct probabilities (a random permutation of a grid, normalized).
        logits = rng.permutation(n * nc * na).reshape(n, nc, na) / float(n * nc * na) * 4
        prob = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
        loc = rng.uniform(-1, 1, (n, na * 4))
        cen = rng.uniform(0.2, 0.8, (1, na, 2))
        wh = rng.uniform(0.2, 0.5, (1, na, 2))
        anc = np.concatenate([cen - wh / 2, cen + wh / 2], -1)
        out.append(Case(name, mx.sym.contrib.MultiBoxDetection(c, l, a, **kw),
                        shapes={"cls_prob": prob.shape, "loc_pred": loc.shape,
                                "anchor": anc.shape},
                        values={"cls_prob": prob, "loc_pred": loc, "anchor": anc}, grad=False,
                        note="float32 only: MXNet's MultiBoxDetection takes no other dtype"))
    return out


def _target_cases():
    a, l, c = mx.sym.Variable("anchor"), mx.sym.Variable("label"), mx.sym.Variable("cls_pred")
    specs = [
        ("MultiBoxTarget_default", dict(), (3, 3, 12, 4, 5)),
        ("MultiBoxTarget_overlap_low", dict(overlap_threshold=0.2), (2, 3, 12, 4, 5)),
        ("MultiBoxTarget_bipartite_only", dict(overlap_threshold=0), (2, 4, 10, 3, 6)),
        ("MultiBoxTarget_mining", dict(negative_mining_ratio=2), (3, 3, 16, 4, 5)),
        ("MultiBoxTarget_mining_opts",
         dict(negative_mining_ratio=1, negative_mining_thresh=0.3, minimum_negative_samples=3,
              ignore_label=-2, overlap_threshold=0.3), (3, 3, 16, 4, 5)),
        ("MultiBoxTarget_variances", dict(variances=(0.2, 0.1, 0.3, 0.1)), (2, 3, 10, 3, 5)),
    ]
    out = []
    for i, (name, kw, (n, nc, na, m, w)) in enumerate(specs):
        rng = np.random.RandomState(300 + i)
        cen = rng.uniform(0.2, 0.8, (1, na, 2))
        wh = rng.uniform(0.1, 0.4, (1, na, 2))
        anc = np.concatenate([cen - wh / 2, cen + wh / 2], -1)
        lab = -np.ones((n, m, w))
        for b in range(n):
            g = [m, 0, 2][b % 3]  # a full batch, an empty one, a padded one
            for k in range(g):
                cc, s = rng.uniform(0.2, 0.8, 2), rng.uniform(0.1, 0.4, 2)
                lab[b, k, :5] = [rng.randint(0, nc - 1)] + list(cc - s / 2) + list(cc + s / 2)
        pred = rng.uniform(-2, 2, (n, nc, na))
        out.append(Case(name, mx.sym.contrib.MultiBoxTarget(a, l, c, **kw),
                        shapes={"anchor": anc.shape, "label": lab.shape, "cls_pred": pred.shape},
                        values={"anchor": anc, "label": lab, "cls_pred": pred}, grad=False,
                        note="float32 only: MXNet's MultiBoxTarget takes no other dtype"))
    return out


def _corner_boxes(rng, shape):
    c = rng.uniform(0.2, 0.8, size=shape + (2,))
    wh = rng.uniform(0.1, 0.6, size=shape + (2,))
    return np.concatenate([c - wh / 2, c + wh / 2], axis=-1)


def _encode_cases():
    names = ("samples", "matches", "anchors", "refs", "means", "stds")
    v = [mx.sym.Variable(n) for n in names]
    out = []
    for i, (dt, (b, n, m)) in enumerate([("float32", (2, 6, 3)), ("float64", (1, 5, 4)),
                                         ("float16", (2, 4, 2))]):
        rng = np.random.RandomState(400 + i)
        samples = rng.choice([1.0, 0.0, -1.0, 0.75, 0.5], size=(b, n))
        matches = rng.randint(0, m, size=(b, n)).astype(np.float64)
        matches[0, 0] = m - 0.5  # truncated toward zero: ref m - 1
        matches[0, 1] = -0.5     # truncated toward zero: ref 0
        samples[0, :2] = 1
        vals = [samples, matches, _corner_boxes(rng, (b, n)), _corner_boxes(rng, (b, m)),
                rng.uniform(-0.1, 0.1, 4), rng.uniform(0.5, 1.5, 4)]
        out.append(Case("box_encode_%s" % dt, mx.sym.contrib.box_encode(*v),
                        shapes={k: x.shape for k, x in zip(names, vals)},
                        values={k: x.astype(dt) for k, x in zip(names, vals)},
                        dtypes={k: dt for k in names},
                        rtol=1e-2 if dt == "float16" else 1e-4,
                        atol=1e-2 if dt == "float16" else 1e-5))
    return out


def _decode_cases():
    d, a = mx.sym.Variable("data"), mx.sym.Variable("anchors")
    specs = [("box_decode_default", dict(), "float32", (2, 5)),
             ("box_decode_corner", dict(format="corner"), "float32", (1, 4)),
             ("box_decode_stds_clip", dict(std0=0.5, std1=0.25, std2=2, std3=1.5, clip=0.3,
                                           format="corner"), "float32", (2, 6)),
             ("box_decode_float64", dict(clip=0.5, std2=1.25), "float64", (2, 3)),
             ("box_decode_float16", dict(format="corner", std0=0.1, std1=0.1, std2=0.2,
                                         std3=0.2), "float16", (1, 4))]
    out = []
    for i, (name, kw, dt, (b, n)) in enumerate(specs):
        rng = np.random.RandomState(500 + i)
        x = rng.uniform(-1, 1, (b, n, 4))
        anc = _corner_boxes(rng, (1, n))
        if kw.get("format", "center") == "center":
            anc = np.concatenate([(anc[..., :2] + anc[..., 2:]) / 2,
                                  anc[..., 2:] - anc[..., :2]], axis=-1)
        tol = 1e-2 if dt == "float16" else 1e-4
        out.append(Case(name, mx.sym.contrib.box_decode(d, a, **kw),
                        shapes={"data": x.shape, "anchors": anc.shape},
                        values={"data": x.astype(dt), "anchors": anc.astype(dt)},
                        dtypes={"data": dt, "anchors": dt}, rtol=tol,
                        atol=tol if dt == "float16" else 1e-5))
    return out


def _matching_cases():
    d = mx.sym.Variable("data")
    specs = [("bipartite_matching_ties", dict(threshold=0.0), (2, 5, 4), "float32"),
             ("bipartite_matching_ascend", dict(threshold=0.5, is_ascend=True), (2, 4, 5),
              "float32"),
             ("bipartite_matching_topk", dict(threshold=-1.0, topk=2), (3, 5, 5), "float32"),
             ("bipartite_matching_2d", dict(threshold=0.3), (6, 3), "float64"),
             ("bipartite_matching_4d_float16", dict(threshold=0.1, topk=1), (2, 2, 3, 3),
              "float16")]
    out = []
    for i, (name, kw, shape, dt) in enumerate(specs):
        rng = np.random.RandomState(600 + i)
        x = rng.randint(0, 6, size=shape) * 0.125 - 0.125  # few values: many ties
        out.append(Case(name, mx.sym.contrib.bipartite_matching(d, **kw),
                        shapes={"data": shape}, values={"data": x.astype(dt)},
                        dtypes={"data": dt}, rtol=0, atol=0))
    return out


def cases():
    return (_prior_cases() + _nms_cases() + _iou_cases() + _detection_cases() +
            _target_cases() + _encode_cases() + _decode_cases() + _matching_cases())
