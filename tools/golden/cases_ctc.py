"""Golden cases of the ctc family (graph/ops/ctc.cc): CTCLoss (see golden_lib.py for what a Case holds).

MXNet 1.9.1 quirks these cases steer around:
- CTCLoss with an empty label (every entry padding) returns uninitialized memory in
  MXNet; symx returns -log of the all-blank path. No case has an empty label.
- CTCLoss with a label that cannot fit (length + repeats > sequence length) gives loss
  0 in MXNet and in symx; MXNet leaves that sample's gradient uninitialized (it reads
  0 only by chance), symx writes 0 (the true derivative of the constant 0). The case
  is forward only (fd=True cannot work: MXNet's CTCLoss has no float64 kernel); the
  conformance test checks symx's zero gradient there.
- CTCLoss runs in float32 only in MXNet (symx also takes float64)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _ctc_cases():
    d, l = V("data"), V("label")
    dl, ll = V("data_lengths"), V("label_lengths")
    f32 = "float32"
    return [
        Case("CTCLoss_first", mx.sym.CTCLoss(d, l),
             {"data": (5, 2, 4), "label": (2, 3)},
             values={"label": np.array([[1, 2, 2], [3, 1, 0]], f32)}, no_grad=["label"]),
        Case("CTCLoss_first_alias_ctc_loss", mx.sym.ctc_loss(d, l),
             {"data": (4, 3, 3), "label": (3, 2)},
             values={"label": np.array([[1, 0], [2, 1], [1, 1]], f32)}, no_grad=["label"]),
        Case("CTCLoss_first_padding_inside", mx.sym.contrib.CTCLoss(d, l),
             {"data": (4, 1, 3), "label": (1, 3)},
             values={"label": np.array([[1, 0, 2]], f32)}, no_grad=["label"],
             note="a row ends at its first padding value"),
        Case("CTCLoss_last", mx.sym.CTCLoss(d, l, blank_label="last"),
             {"data": (5, 2, 4), "label": (2, 3)},
             values={"label": np.array([[0, 2, 1], [1, 1, -1]], f32)}, no_grad=["label"]),
        Case("CTCLoss_last_int_label", mx.sym.CTCLoss(d, l, blank_label="last"),
             {"data": (4, 2, 3), "label": (2, 2)},
             values={"label": np.array([[0, 1], [1, -1]], np.int32)},
             dtypes={"label": "int32"}, no_grad=["label"]),
        Case("CTCLoss_data_lengths",
             mx.sym.CTCLoss(d, l, dl, use_data_lengths=True),
             {"data": (5, 2, 3), "label": (2, 2), "data_lengths": (2,)},
             values={"label": np.array([[1, 2], [2, 0]], f32),
                     "data_lengths": np.array([3, 5], f32)},
             no_grad=["label", "data_lengths"]),
        Case("CTCLoss_label_lengths",
             mx.sym.CTCLoss(d, l, label_lengths=ll, use_label_lengths=True),
             {"data": (4, 2, 4), "label": (2, 3), "label_lengths": (2,)},
             values={"label": np.array([[1, 2, 3], [3, 1, 2]], f32),
                     "label_lengths": np.array([2, 1], f32)},
             no_grad=["label", "label_lengths"]),
        Case("CTCLoss_both_lengths_last",
             mx.sym.CTCLoss(d, l, dl, ll, use_data_lengths=True, use_label_lengths=True,
                            blank_label="last"),
             {"data": (6, 2, 4), "label": (2, 3), "data_lengths": (2,), "label_lengths": (2,)},
             values={"label": np.array([[0, 1, 2], [2, 2, 1]], f32),
                     "data_lengths": np.array([4, 6], f32),
                     "label_lengths": np.array([3, 2], f32)},
             no_grad=["label", "data_lengths", "label_lengths"]),
        Case("CTCLoss_infeasible", mx.sym.CTCLoss(d, l),
             {"data": (3, 2, 3), "label": (2, 3)},
             values={"label": np.array([[1, 1, 1], [1, 2, 0]], f32)}, no_grad=["label"],
             grad=False,
             note="row 0 needs 5 steps but has 3: loss 0; MXNet leaves that row's gradient "
                  "uninitialized (garbage), and its CTCLoss has no float64 forward for finite "
                  "differences, so this case is forward only"),
    ]


def cases():
    return _ctc_cases()
