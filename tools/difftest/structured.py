"""Kinds and value domains for the operators whose inputs have structure.

op_table.py's later entries (linear algebra, sequences, attention, detection,
densities, images, deformable and position-sensitive pooling, index and
assignment ops, shape ops with constraints between their attributes and the
input's shape) need inputs that a plain random tensor is not: symmetric
positive definite or triangular matrices, lengths inside the time axis,
index tuples without repeats, samples inside a distribution's support. The
kinds here make those inputs as fresh variables (an intermediate value of the
graph cannot be brought there) and, where any tensor will do, take one from
the graph through `data` as difftest.py's own kinds do.

`add_structured_op(g, rng, entry, attrs, data)` adds one op of such a kind;
`structured_value(dom, shape, rng)` draws a variable of one of the domains
below (None for a domain that is not one of these).

domains:
  range:LO:HI        uniform in [LO, HI]
  spd                symmetric positive definite (X X^T / n + I), per matrix
  tri:lower|upper    triangular, diagonal in [1, 2], off-diagonal N(0, 0.3):
                     well-conditioned for trsm, trmm, potri and sumlogdiag
  wellcond           n I + N(0, 0.5): det, slogdet and inverse away from 0
  symeig             symmetric with eigenvalues at least 0.5 apart (syevd's
                     eigenvectors are then defined up to the sign it fixes)
  simplex            points of the simplex along the last axis (dirichlet)
  distinct:D0,D1,..  rows of an (M, K) index tensor (the transposed layout of
                     scatter_nd: M coordinates of K points) holding K
                     different points of the grid D0 x D1 x ...
  perm:N             K different integers of [0, N) (index_copy's rows)
"""
import numpy as np


def structured_value(dom, shape, rng):
    head = dom.split(":")[0]
    if head == "range":
        lo, hi = (float(b) for b in dom.split(":")[1:])
        return rng.uniform(lo, hi, shape)
    if head == "spd":
        n = shape[-1]
        x = rng.normal(0, 1, shape)
        return x @ np.swapaxes(x, -1, -2) / n + np.eye(n)
    if head == "tri":
        n = shape[-1]
        a = rng.normal(0, 0.3, shape)
        a = np.tril(a) if dom.endswith("lower") else np.triu(a)
        idx = np.arange(n)
        a[..., idx, idx] = rng.uniform(1, 2, shape[:-1])
        return a
    if head == "wellcond":
        return shape[-1] * np.eye(shape[-1]) + rng.normal(0, 0.5, shape)
    if head == "symeig":
        n = shape[-1]
        q, _ = np.linalg.qr(rng.normal(0, 1, shape))
        lam = np.cumsum(rng.uniform(0.5, 2, shape[:-1]), -1) - n
        return (q * lam[..., None, :]) @ np.swapaxes(q, -1, -2)
    if head == "simplex":
        return rng.dirichlet(np.ones(shape[-1]), shape[:-1])
    if head == "distinct":
        dims = [int(d) for d in dom.split(":")[1].split(",")]
        k = shape[1]
        flat = rng.choice(int(np.prod(dims)), size=k, replace=False)
        return np.array(np.unravel_index(flat, dims), dtype=np.float64).reshape(shape)
    if head == "perm":
        return rng.choice(int(dom.split(":")[1]), size=shape[0], replace=False).astype(np.float64)
    return None


def _shape(rng, ndim, low=1, high=6):
    return tuple(int(rng.integers(low, high)) for _ in range(ndim))


def add_structured_op(g, rng, entry, attrs, data):
    """Adds one op of a kind named in KINDS. An entry marked "nograd" (MXNet
    registers no gradient for the op, or symx deliberately gives none) takes
    fresh inputs only, all without a gradient, so no gradient is asked of it."""
    if entry.get("nograd"):
        data = lambda pred, make: g.var(make())  # noqa: E731
    i = _KINDS[entry["kind"]](g, rng, entry, attrs, data)
    if entry.get("nograd"):
        for j in g.nodes[i]["inputs"]:
            if "var" in g.nodes[j]:
                g.nodes[j]["role"] = "index"
    return i


def _reduce2(g, rng, entry, attrs, data):
    """moments (over drawn axes) and norm (ord 1 or 2 over one axis or all).
    moments gives its mean only: MXNet 1.9.1 computes the variance about an
    unwritten mean when the mean output is not used (docs/numerics.md,
    erratum 27), so a graph using the variance alone finds that again."""
    a = data(lambda s: True, lambda: _shape(rng, int(rng.integers(1, 5))))
    nd = len(g.shapes[a])
    if entry["op"] == "moments":
        axes = {int(rng.integers(nd)) for _ in range(int(rng.integers(1, 3)))}
        attrs["axes"] = tuple(sorted(axes))
        return g.op(entry, attrs, [a], output=0)
    attrs["axis"] = int(rng.integers(-nd, nd)) if rng.random() < 0.7 else None
    return g.op(entry, attrs, [a])


def _broadcast_shape(g, rng, entry, attrs, data):
    """broadcast_to, broadcast_axis and broadcast_like of an input with axes of
    length 1; reshape_like to a shape of the same size."""
    op = entry["op"]

    def with_ones():
        s = list(_shape(rng, int(rng.integers(1, 5))))
        s[int(rng.integers(len(s)))] = 1
        return tuple(s)

    if op == "reshape_like":
        a = data(lambda s: True, lambda: _shape(rng, int(rng.integers(1, 5))))
        s = g.shapes[a]
        size = int(np.prod(s))
        like = [s[::-1], (size,), (1,) + tuple(s), tuple(s[:-2]) + (s[-2] * s[-1],) if len(s) > 1
                else (size, 1)][int(rng.integers(4))]
        return g.op(entry, attrs, [a, g.var(like)])
    a = data(lambda s: 1 in s, with_ones)
    s = g.shapes[a]
    ones = [k for k, d in enumerate(s) if d == 1]
    if not ones:
        raise ValueError("no axis of length 1")
    grown = [int(rng.integers(1, 5)) for _ in ones]
    target = list(s)
    for k, d in zip(ones, grown):
        target[k] = d
    if op == "broadcast_to":
        attrs["shape"] = tuple(0 if d == t and rng.random() < 0.3 else t for d, t in zip(s, target))
        return g.op(entry, attrs, [a])
    if op == "broadcast_axis":
        attrs["axis"], attrs["size"] = tuple(ones), tuple(grown)
        return g.op(entry, attrs, [a])
    return g.op(entry, attrs, [a, g.var(target)])


def _block(g, rng, entry, attrs, data):
    """depth_to_space (C divisible by b^2) and space_to_depth (H, W by b)."""
    b = attrs["block_size"]
    if entry["op"] == "depth_to_space":
        a = data(lambda s: len(s) == 4 and s[1] % (b * b) == 0,
                 lambda: (int(rng.integers(1, 3)), b * b * int(rng.integers(1, 3)),
                          int(rng.integers(1, 4)), int(rng.integers(1, 4))))
    else:
        a = data(lambda s: len(s) == 4 and s[2] % b == 0 and s[3] % b == 0,
                 lambda: (int(rng.integers(1, 3)), int(rng.integers(1, 4)),
                          b * int(rng.integers(1, 4)), b * int(rng.integers(1, 4))))
    return g.op(entry, attrs, [a])


def _split_v2(g, rng, entry, attrs, data):
    a = data(lambda s: True, lambda: _shape(rng, int(rng.integers(1, 5))))
    s = g.shapes[a]
    nd = len(s)
    attrs["axis"] = int(rng.integers(-nd, nd))
    n = s[attrs["axis"]]
    if rng.random() < 0.5:
        attrs["sections"] = int(rng.choice([k for k in range(1, n + 1) if n % k == 0]))
        outputs = attrs["sections"]
        squeezable = n == outputs
    else:
        cuts = sorted(set(int(c) for c in rng.integers(1, n + 1, size=int(rng.integers(1, 3)))))
        attrs["indices"] = tuple([0] + [c for c in cuts if c < n])
        outputs = len(attrs["indices"])
        squeezable = False
    attrs["squeeze_axis"] = bool(attrs.get("squeeze_axis")) and squeezable
    return g.op(entry, attrs, [a], output=int(rng.integers(outputs)))


def _columns(g, rng, entry, attrs, data):
    """im2col of a 4-D map, col2im of (N, C kh kw, L) columns back to a map,
    khatri_rao of 2-3 matrices with one column count."""
    op = entry["op"]
    if op == "khatri_rao":
        a = data(lambda s: len(s) == 2, lambda: _shape(rng, 2))
        k = g.shapes[a][1]
        others = [g.var((int(rng.integers(1, 4)), k)) for _ in range(int(rng.integers(1, 3)))]
        attrs["num_args"] = 1 + len(others)
        return g.op(entry, attrs, [a] + others)
    kh, kw = attrs["kernel"]
    st, pd, dl = attrs["stride"][0], attrs["pad"][0], attrs["dilate"][0]
    span = dl * (kh - 1) + 1
    if op == "im2col":
        a = data(lambda s: len(s) == 4 and min(s[2:]) + 2 * pd >= span,
                 lambda: (int(rng.integers(1, 3)), int(rng.integers(1, 4)),
                          int(rng.integers(span, 7)), int(rng.integers(span, 7))))
        return g.op(entry, attrs, [a])
    h, w = int(rng.integers(span, 7)), int(rng.integers(span, 7))
    c = int(rng.integers(1, 3))
    oh = (h + 2 * pd - span) // st + 1
    ow = (w + 2 * pd - (dl * (kw - 1) + 1)) // st + 1
    attrs["output_size"] = (h, w)
    return g.op(entry, attrs, [g.var((int(rng.integers(1, 3)), c * kh * kw, oh * ow))])


def _sequence(g, rng, entry, attrs, data):
    """SequenceMask/Last/Reverse of (T, N, ...) data (SequenceMask and
    SequenceLast also (N, T, ...) with axis 1), lengths in [1, T].
    SequenceLast without lengths gets a fresh input and no gradient: MXNet
    1.9.1's backward then reads its positions from uninitialized scratch
    memory and writes outside the gradient (docs/numerics.md, erratum 28),
    which corrupts the heap of the fuzzer's process."""
    if entry["op"] == "SequenceLast" and not attrs["use_sequence_length"]:
        data = lambda pred, make: g.var(make(), "any", "index")  # noqa: E731
    a = data(lambda s: len(s) >= 2, lambda: _shape(rng, int(rng.integers(2, 5))))
    s = g.shapes[a]
    if entry["op"] == "SequenceReverse":
        attrs["axis"] = 0
    t, n = (s[0], s[1]) if attrs.get("axis", 0) == 0 else (s[1], s[0])
    ins = [a]
    if attrs["use_sequence_length"]:
        ins.append(g.var((n,), "index:1:%d" % (t + 1), "index"))
    return g.op(entry, attrs, ins)


def _attention(g, rng, entry, attrs, data):
    """The interleaved multi-head matmuls of (T, N, heads * k * D) projections."""
    op = entry["op"]
    h = attrs["heads"]
    d = int(rng.integers(1, 4))
    n = int(rng.integers(1, 3))
    tq, tk = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    if op.endswith("selfatt_qk"):
        return g.op(entry, attrs, [g.var((tq, n, 3 * h * d))])
    if op.endswith("selfatt_valatt"):
        return g.op(entry, attrs, [g.var((tq, n, 3 * h * d)), g.var((n * h, tq, tq))])
    if op.endswith("encdec_qk"):
        return g.op(entry, attrs, [g.var((tq, n, h * d)), g.var((tk, n, 2 * h * d))])
    return g.op(entry, attrs, [g.var((tk, n, 2 * h * d)), g.var((n * h, tq, tk))])


def _detection(g, rng, entry, attrs, data):
    """box_encode (matched anchors and references), box_decode (offsets and
    anchors), bipartite_matching (a score matrix without ties)."""
    op = entry["op"]
    b, n = int(rng.integers(1, 3)), int(rng.integers(1, 6))
    if op == "_contrib_box_encode":
        m = int(rng.integers(1, 4))
        return g.op(entry, attrs, [
            g.var((b, n), "index:-1:2", "index"), g.var((b, n), "index:0:%d" % m, "index"),
            g.var((b, n, 4), "boxes:corner", "index"), g.var((b, m, 4), "boxes:corner", "index"),
            g.var((4,), "range:-0.2:0.2", "index"), g.var((4,), "range:0.1:1", "index")],
            output=int(rng.integers(2)))
    if op == "_contrib_box_decode":
        return g.op(entry, attrs, [g.var((b, n, 4), "loc", "index"),
                                   g.var((1, n, 4), "boxes:" + attrs["format"], "index")])
    return g.op(entry, attrs, [g.var((b, n, int(rng.integers(1, 6))), "any", "index")],
                output=int(rng.integers(2)))


def _linalg(g, rng, entry, attrs, data):
    """linalg on (..., m, n) matrices, one batch axis or none: gemm/gemm2/syrk
    on any matrices (from the graph), the factorizations and solves on
    matrices made well-conditioned for them."""
    op = entry["op"][len("_linalg_"):]
    batch = (int(rng.integers(1, 3)),) if rng.random() < 0.5 else ()
    nd = len(batch) + 2
    if op in ("gemm", "gemm2"):
        a = data(lambda s: len(s) in (2, 3), lambda: _shape(rng, nd))
        sa = g.shapes[a]
        m, k = (sa[-1], sa[-2]) if attrs["transpose_a"] else (sa[-2], sa[-1])
        p = int(rng.integers(1, 5))
        sb = sa[:-2] + ((p, k) if attrs["transpose_b"] else (k, p))
        ins = [a, g.var(sb)]
        if op == "gemm":
            ins.append(g.var(sa[:-2] + (m, p)))
        return g.op(entry, attrs, ins)
    if op == "syrk":
        return g.op(entry, attrs, [data(lambda s: len(s) in (2, 3), lambda: _shape(rng, nd))])
    if op in ("extractdiag", "extracttrian"):
        a = data(lambda s: len(s) in (2, 3) and s[-1] == s[-2],
                 lambda: batch + (lambda k: (k, k))(int(rng.integers(1, 5))))
        k = g.shapes[a][-1]
        attrs["offset"] = int(rng.integers(-k + 1, k)) if rng.random() < 0.5 else 0
        return g.op(entry, attrs, [a])
    if op == "makediag":
        return g.op(entry, attrs, [data(lambda s: len(s) in (1, 2),
                                        lambda: batch[:1] + (int(rng.integers(1, 5)),))])
    if op == "maketrian":
        # (..., m (m + 1) / 2) packed elements: any triangular number fits
        # any offset
        size = int(rng.choice([1, 3, 6, 10]))
        return g.op(entry, attrs, [g.var(batch + (size,))])
    n = int(rng.integers(1, 5))
    if op == "gelqf":
        m = int(rng.integers(1, n + 1))
        return g.op(entry, attrs, [g.var(batch + (m, n))], output=int(rng.integers(2)))
    if op in ("trsm", "trmm"):
        p = int(rng.integers(1, 5))
        tri = g.var(batch + (n, n), "tri:" + ("lower" if attrs["lower"] else "upper"))
        b = g.var(batch + ((p, n) if attrs["rightside"] else (n, p)))
        return g.op(entry, attrs, [tri, b])
    dom = {"potrf": "spd", "potri": "tri:lower", "sumlogdiag": "tri:lower", "syevd": "symeig",
           "det": "wellcond", "slogdet": "wellcond", "inverse": "wellcond"}[op]
    outputs = {"syevd": 2, "slogdet": 2}.get(op)
    return g.op(entry, attrs, [g.var(batch + (n, n), dom)],
                output=int(rng.integers(outputs)) if outputs else None)


# A density's parameters (each an input of the parameter shape) and its
# samples (the parameter shape and m more along a new last axis); discrete
# samples are counts, inputs without a gradient.
_PDF = {
    "normal": ("any", ["any", "range:0.3:3"]),
    "uniform": ("range:-0.9:0.9", ["range:-2:-1", "range:1:2"]),
    "gamma": ("range:0.1:5", ["range:0.5:3", "range:0.5:3"]),
    "exponential": ("range:0.1:5", ["range:0.5:3"]),
    "poisson": ("index:0:8", ["range:0.5:5"]),
    "negative_binomial": ("index:0:8", ["range:1:5", "range:0.1:0.9"]),
    "generalized_negative_binomial": ("index:0:8", ["range:0.5:4", "range:0.2:2"]),
    "dirichlet": ("simplex", ["range:0.5:3"]),
}


def _pdf(g, rng, entry, attrs, data):
    dist = entry["op"][len("_random_pdf_"):]
    sample_dom, param_doms = _PDF[dist]
    pshape = _shape(rng, int(rng.integers(1, 3)), high=4)
    m = int(rng.integers(1, 4))
    if dist == "dirichlet":
        k = int(rng.integers(2, 4))
        sample = g.var(pshape + (m, k), sample_dom)
        return g.op(entry, attrs, [sample, g.var(pshape + (k,), param_doms[0])])
    role = "index" if sample_dom.startswith("index") else "data"
    sample = g.var(pshape + (m,), sample_dom, role)
    return g.op(entry, attrs, [sample] + [g.var(pshape, d) for d in param_doms])


def _hwc(g, rng, entry, attrs, data):
    """mx.nd.image's transforms of (H, W, C) or (N, H, W, C) images
    (normalize: (C, H, W) or (N, C, H, W)); pixel values in [0, 255] for
    to_tensor. The flips get even sizes: MXNet leaves an odd one's middle
    unwritten (docs/numerics.md, erratum 23)."""
    op = entry["op"][len("_image_"):]
    batch = (int(rng.integers(1, 3)),) if rng.random() < 0.5 else ()
    c = 3 if op in ("adjust_lighting", "normalize") or rng.random() < 0.5 else 1
    if op == "normalize":
        c = int(rng.choice([1, 3]))
    h, w = int(rng.integers(1, 6)), int(rng.integers(1, 6))
    if op.startswith("flip"):
        h, w = 2 * int(rng.integers(1, 3)), 2 * int(rng.integers(1, 3))
    if op == "normalize":
        return g.op(entry, attrs, [data(lambda s: len(s) in (3, 4) and s[-3] in (1, 3),
                                        lambda: batch + (c, h, w))])
    if op == "to_tensor":
        return g.op(entry, attrs, [g.var(batch + (h, w, c), "range:0:255")])
    if op == "crop":
        a = data(lambda s: len(s) in (3, 4) and s[-1] in (1, 3), lambda: batch + (h, w, c))
        s = g.shapes[a]
        hh, ww = s[-3], s[-2]
        attrs["x"], attrs["y"] = int(rng.integers(ww)), int(rng.integers(hh))
        attrs["width"] = int(rng.integers(1, ww - attrs["x"] + 1))
        attrs["height"] = int(rng.integers(1, hh - attrs["y"] + 1))
        return g.op(entry, attrs, [a])
    if op.startswith("flip"):
        even = 2 if op == "flip_left_right" else 3
        return g.op(entry, attrs, [data(lambda s: len(s) in (3, 4) and s[-even] % 2 == 0,
                                        lambda: batch + (h, w, c))])
    # adjust_lighting: MXNet takes (H, W, 3) only
    return g.op(entry, attrs, [data(lambda s: len(s) == 3 and s[-1] == 3, lambda: (h, w, 3))])


def _index2(g, rng, entry, attrs, data):
    """Index ops beyond difftest.py's `index` kind: ravel/unravel, scatter_nd
    (points without repeats: a repeated one is undefined in MXNet), index_copy
    (rows without repeats), _slice_assign and _slice_assign_scalar."""
    op = entry["op"]
    if op in ("_ravel_multi_index", "_unravel_index"):
        dims = _shape(rng, int(rng.integers(1, 4)))
        attrs["shape"] = dims
        k = int(rng.integers(1, 5))
        if op == "_unravel_index":
            return g.op(entry, attrs, [g.var((k,), "index:%d" % int(np.prod(dims)), "index")])
        rows = [g.var((1, k), "index:%d" % d, "index") for d in dims]
        idx = g.op({"op": "Concat"}, {"dim": 0, "num_args": len(rows)}, rows) if len(rows) > 1 \
            else rows[0]
        return g.op(entry, attrs, [idx])
    if op == "scatter_nd":
        dims = _shape(rng, int(rng.integers(1, 4)))
        m = int(rng.integers(1, len(dims) + 1))
        k = int(rng.integers(1, min(4, int(np.prod(dims[:m]))) + 1))
        attrs["shape"] = dims
        idx = g.var((m, k), "distinct:" + ",".join(str(d) for d in dims[:m]), "index")
        return g.op(entry, attrs, [g.var((k,) + dims[m:]), idx])
    if op == "_contrib_index_copy":
        old = data(lambda s: len(s) >= 1, lambda: _shape(rng, int(rng.integers(1, 4))))
        s = g.shapes[old]
        k = int(rng.integers(1, s[0] + 1))
        return g.op(entry, attrs, [old, g.var((k,), "perm:%d" % s[0], "index"),
                                   g.var((k,) + s[1:])])
    a = data(lambda s: True, lambda: _shape(rng, int(rng.integers(1, 5))))
    s = g.shapes[a]
    begin, end = [], []
    for d in s[:int(rng.integers(1, len(s) + 1))]:
        b = int(rng.integers(0, d))
        begin.append(b)
        end.append(int(rng.integers(b + 1, d + 1)))
    attrs["begin"], attrs["end"] = tuple(begin), tuple(end)
    if op == "_slice_assign_scalar":
        return g.op(entry, attrs, [a])
    sub = tuple(e - b for b, e in zip(begin, end)) + s[len(begin):]
    return g.op(entry, attrs, [a, g.var(sub)])


def _correlation(g, rng, entry, attrs, data):
    a = data(lambda s: len(s) == 4, lambda: _shape(rng, 4, low=2, high=7))
    return g.op(entry, attrs, [a, g.var(g.shapes[a])])


def _psroi(g, rng, entry, attrs, data):
    """PSROIPooling and DeformablePSROIPooling: output_dim * group_size^2
    channels (group_size = pooled_size), rois inside the map, small part
    offsets (trans) for the deformable one."""
    p = attrs["pooled_size"]
    attrs["group_size"] = p
    c = attrs["output_dim"] * p * p
    a = data(lambda s: len(s) == 4 and s[1] == c and min(s[2:]) >= 2,
             lambda: (int(rng.integers(1, 3)), c, int(rng.integers(2, 7)), int(rng.integers(2, 7))))
    n, _, h, w = g.shapes[a]
    r = int(rng.integers(1, 4))
    rois = g.var((r, 5), "rois:%d:%g:%g" % (n, h / attrs["spatial_scale"],
                                           w / attrs["spatial_scale"]), "index")
    if entry["op"] == "_contrib_PSROIPooling":
        return g.op(entry, attrs, [a, rois])
    ins = [a, rois]
    if not attrs["no_trans"]:
        ins.append(g.var((r, 2, p, p), "range:-1:1"))
    return g.op(entry, attrs, ins)


def _deformable(g, rng, entry, attrs, data):
    """DeformableConvolution: offsets for every output position of a 4-D map."""
    kh, kw = attrs["kernel"]
    st, pd = attrs["stride"][0], attrs["pad"][0]
    a = data(lambda s: len(s) == 4 and min(s[2:]) + 2 * pd >= kh,
             lambda: (int(rng.integers(1, 3)), int(rng.integers(1, 4)),
                      int(rng.integers(kh, 6)), int(rng.integers(kh, 6))))
    n, c, h, w = g.shapes[a]
    oh, ow = (h + 2 * pd - kh) // st + 1, (w + 2 * pd - kw) // st + 1
    ins = [a, g.var((n, 2 * kh * kw, oh, ow), "range:-1.5:1.5")]
    ins.append(g.var((attrs["num_filter"], c, kh, kw), "any", "weight"))
    if not attrs["no_bias"]:
        ins.append(g.var((attrs["num_filter"],), "any", "weight"))
    return g.op(entry, attrs, ins)


def _losses(g, rng, entry, attrs, data):
    """softmax_cross_entropy and SVMOutput of (N, C) scores and class labels."""
    a = data(lambda s: len(s) == 2, lambda: _shape(rng, 2))
    n, c = g.shapes[a]
    return g.op(entry, attrs, [a, g.var((n,), "index:%d" % c, "index")])


_KINDS = {
    "reduce2": _reduce2, "broadcast_shape": _broadcast_shape, "block": _block,
    "split_v2": _split_v2, "columns": _columns, "sequence": _sequence,
    "attention": _attention, "detection": _detection, "linalg": _linalg, "pdf": _pdf,
    "hwc": _hwc, "index2": _index2, "correlation": _correlation, "psroi": _psroi,
    "deformable": _deformable, "losses": _losses,
}
KINDS = set(_KINDS)
