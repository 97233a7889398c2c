"""Golden cases of the linalg family (graph/ops/linalg.cc): _linalg_gemm2 and
_linalg_gemm under both names, transposes, alpha/beta and a row axis other than
-2; _linalg_syrk; _linalg_sumlogdiag; _linalg_extractdiag, _linalg_makediag,
_linalg_extracttrian and _linalg_maketrian with offsets and both triangles;
_linalg_potrf, _linalg_potri, _linalg_trmm, _linalg_trsm, _linalg_inverse,
_linalg_det, _linalg_slogdet, _linalg_syevd and _linalg_gelqf on well-conditioned inputs (symmetric positive
definite for potrf, triangular factors for potri), batched and not, both
triangles, transpose and rightside (see golden_lib.py for what a Case holds)."""
import mxnet as mx
import numpy as np
from golden_lib import Case

V = mx.sym.Variable


def _gemm_cases():
    a, b, c = V("A"), V("B"), V("C")
    return [
        Case("linalg_gemm2_plain", mx.sym.linalg.gemm2(a, b), {"A": (2, 3), "B": (3, 4)}),
        Case("linalg_gemm2_batched_trans", mx.sym.linalg.gemm2(a, b, transpose_a=True,
                                                                transpose_b=True, alpha=-0.75),
             {"A": (2, 3, 4, 3), "B": (2, 3, 5, 4)}),
        Case("linalg_gemm2_axis1", mx.sym.linalg_gemm2(a, b, axis=1, transpose_b=True),
             {"A": (2, 3, 2, 4), "B": (2, 5, 2, 4)}),
        Case("linalg_gemm_alpha_beta", mx.sym.linalg.gemm(a, b, c, alpha=2.0, beta=-0.5),
             {"A": (2, 3, 4), "B": (2, 4, 5), "C": (2, 3, 5)}),
        Case("linalg_gemm_trans_a_axis0",
             mx.sym.linalg_gemm(a, b, c, transpose_a=True, axis=0, beta=1.5),
             {"A": (4, 2, 3), "B": (4, 2, 5), "C": (3, 2, 5)}),
        Case("linalg_syrk_plain", mx.sym.linalg.syrk(a), {"A": (3, 4)}),
        Case("linalg_syrk_batched_transpose", mx.sym.linalg_syrk(a, transpose=True, alpha=0.5),
             {"A": (2, 3, 2)}),
    ]


def _diag_cases():
    a = V("A")
    return [
        Case("linalg_extractdiag_batched", mx.sym.linalg.extractdiag(a), {"A": (2, 3, 3)}),
        Case("linalg_extractdiag_offset_neg", mx.sym.linalg_extractdiag(a, offset=-1),
             {"A": (4, 4)}),
        Case("linalg_makediag_offset", mx.sym.linalg.makediag(a, offset=2), {"A": (2, 3)}),
        Case("linalg_makediag_plain", mx.sym.linalg_makediag(a), {"A": (3,)}),
        # Positive diagonals: A A^T + 3 I inside the symbol.
        Case("linalg_sumlogdiag_spd",
             mx.sym.linalg.sumlogdiag(mx.sym.linalg.syrk(a) + 3 * mx.sym.eye(3)), {"A": (3, 3)}),
        Case("linalg_sumlogdiag_batched",
             mx.sym.linalg_sumlogdiag(mx.sym.broadcast_add(mx.sym.linalg.syrk(a),
                                                           3 * mx.sym.eye(3).reshape((1, 3, 3)))),
             {"A": (2, 3, 3)}),
    ]


def _trian_cases():
    a = V("A")
    return [
        Case("linalg_extracttrian_lower", mx.sym.linalg.extracttrian(a), {"A": (2, 3, 3)}),
        Case("linalg_extracttrian_upper_offset", mx.sym.linalg_extracttrian(a, offset=1),
             {"A": (4, 4)}),
        Case("linalg_extracttrian_upper0", mx.sym.linalg.extracttrian(a, lower=False),
             {"A": (3, 3)}),
        Case("linalg_maketrian_offset_neg", mx.sym.linalg.maketrian(a, offset=-1), {"A": (2, 6)}),
        Case("linalg_maketrian_upper", mx.sym.linalg_maketrian(a, lower=False), {"A": (3,)}),
    ]


def _matrices(seed, shape, kind="general", diag=2.5):
    """Well-conditioned (..., n, n) float32 matrices: noise plus `diag` on the
    diagonal; "lower"/"upper" zero the other triangle, "spd" is M M^T + n I."""
    rng = np.random.RandomState(seed)
    n = shape[-1]
    m = rng.uniform(-0.5, 0.5, size=shape) + diag * np.eye(n)
    if kind == "lower":
        m = np.tril(m)
    elif kind == "upper":
        m = np.triu(m)
    elif kind == "spd":
        m = np.matmul(m, np.swapaxes(m, -1, -2)) + n * np.eye(n)
    return m.astype(np.float32)


def _factor_cases():
    a, b = V("A"), V("B")
    spd1 = _matrices(1, (4, 4), "spd")
    spd2 = _matrices(2, (2, 3, 3), "spd")
    low = _matrices(3, (2, 3, 3), "lower")
    up = _matrices(4, (3, 3), "upper")
    gen = _matrices(5, (2, 3, 3))
    neg = _matrices(6, (3, 4, 4), diag=-2.5)
    cases = [
        Case("linalg_potrf_plain", mx.sym.linalg.potrf(a), {"A": (4, 4)}, values={"A": spd1}),
        Case("linalg_potrf_batched_upper", mx.sym.linalg_potrf(a, lower=False), {"A": (2, 3, 3)},
             values={"A": spd2}),
        Case("linalg_potri_batched", mx.sym.linalg.potri(a), {"A": (2, 3, 3)}, values={"A": low}),
        Case("linalg_potri_upper", mx.sym.linalg_potri(a, lower=False), {"A": (3, 3)},
             values={"A": up}),
        # The factor of an SPD matrix fed to potri: its inverse.
        Case("linalg_potri_of_potrf", mx.sym.linalg.potri(mx.sym.linalg.potrf(a)),
             {"A": (2, 3, 3)}, values={"A": spd2}),
        Case("linalg_inverse_batched", mx.sym.linalg.inverse(a), {"A": (2, 3, 3)},
             values={"A": gen}),
        Case("linalg_inverse_plain", mx.sym.linalg_inverse(a), {"A": (4, 4)},
             values={"A": _matrices(7, (4, 4))}),
        Case("linalg_det_batched", mx.sym.linalg.det(a), {"A": (3, 4, 4)}, values={"A": neg}),
        Case("linalg_det_plain", mx.sym.linalg_det(a), {"A": (3, 3)},
             values={"A": _matrices(8, (3, 3))}),
        Case("linalg_slogdet_batched", mx.sym.linalg.slogdet(a)[1], {"A": (3, 4, 4)},
             values={"A": neg}),
        Case("linalg_slogdet_both", mx.sym.linalg_slogdet(a), {"A": (2, 3, 3)},
             values={"A": gen}),
    ]
    # Larger matrices, where float32 rounding accumulates.
    spd32 = _matrices(30, (32, 32), "spd")
    cases += [
        Case("linalg_potrf_n32", mx.sym.linalg.potrf(a), {"A": (32, 32)}, values={"A": spd32}),
        Case("linalg_trsm_n32_right", mx.sym.linalg.trsm(a, b, rightside=True, transpose=True),
             {"A": (32, 32), "B": (8, 32)}, values={"A": _matrices(31, (32, 32), "lower")}),
        Case("linalg_inverse_n16", mx.sym.linalg.inverse(a), {"A": (16, 16)},
             values={"A": _matrices(32, (16, 16))}),
        Case("linalg_slogdet_n16", mx.sym.linalg.slogdet(a)[1], {"A": (2, 16, 16)},
             values={"A": _matrices(33, (2, 16, 16))}),
        Case("linalg_syevd_n12", mx.sym.linalg.syevd(a), {"A": (12, 12)},
             values={"A": _matrices(34, (12, 12), "spd")}),
        Case("linalg_gelqf_n12", mx.sym.linalg.gelqf(a), {"A": (8, 12)}),
    ]
    # syevd: symmetric with well-separated eigenvalues (Q diag(1, 3, ...) Q^T);
    # gelqf: m <= n.
    rng = np.random.RandomState(20)
    q, _ = np.linalg.qr(rng.uniform(-1, 1, size=(2, 4, 4)))
    sym = np.matmul(q * (1.0 + 2.0 * np.arange(4)), np.swapaxes(q, -1, -2)).astype(np.float32)
    cases += [
        Case("linalg_syevd_batched", mx.sym.linalg.syevd(a), {"A": (2, 4, 4)}, values={"A": sym}),
        Case("linalg_syevd_plain", mx.sym.linalg.syevd(a), {"A": (4, 4)}, values={"A": sym[1]}),
        Case("linalg_gelqf_wide", mx.sym.linalg.gelqf(a), {"A": (3, 5)}),
        Case("linalg_gelqf_batched_square", mx.sym.linalg_gelqf(a), {"A": (2, 3, 3)},
             values={"A": _matrices(21, (2, 3, 3))}),
    ]
    # trmm and trsm: every transpose/rightside combination over the cases,
    # both triangles; the other triangle of A holds noise neither op reads.
    variants = [(False, False, True, 1.0), (True, False, False, -0.5), (False, True, False, 2.0),
                (True, True, True, 0.75)]
    for op in ("trmm", "trsm"):
        fn = getattr(mx.sym.linalg, op)
        for i, (transpose, rightside, lower, alpha) in enumerate(variants):
            batch = (2,) if i % 2 else ()
            bshape = batch + ((4, 3) if rightside else (3, 4))
            name = "linalg_%s_t%d_r%d_%s" % (op, transpose, rightside, "lower" if lower else "upper")
            sym = fn(a, b, transpose=transpose, rightside=rightside, lower=lower, alpha=alpha)
            cases.append(Case(name, sym, {"A": batch + (3, 3), "B": bshape},
                              values={"A": _matrices(10 + i, batch + (3, 3))}))
    return cases


def cases():
    return _gemm_cases() + _diag_cases() + _trian_cases() + _factor_cases()
