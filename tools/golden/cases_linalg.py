"""Golden cases of the linalg family (graph/ops/linalg.cc): _linalg_gemm2 and
_linalg_gemm under both names, transposes, alpha/beta and a row axis other than
-2; _linalg_syrk; _linalg_sumlogdiag; _linalg_extractdiag, _linalg_makediag,
_linalg_extracttrian and _linalg_maketrian with offsets and both triangles (see
golden_lib.py for what a Case holds)."""
import mxnet as mx
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


def cases():
    return _gemm_cases() + _diag_cases() + _trian_cases()
