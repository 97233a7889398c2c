"""Whole networks from MXNet's gluon model zoo (random weights, small inputs).

Parameters are not stored: they come from golden_lib's hash formula
(fill="hash"), so each case is its symbol plus a few kilobytes of outputs.
ResNet-18 v1 also runs a training pass (BatchNorm on batch statistics) and
checks every parameter gradient (large ones by summary). Two networks of
MXNet's examples and GluonCV are built here from their layers: ESPCN super
resolution, whose sub-pixel step is depth_to_space, and an SSD with its
training targets (box_encode) and its detection path (box_decode, box_nms).
"""
import mxnet as mx
import numpy as np
from mxnet.gluon.model_zoo import vision

from golden_lib import Case


def _symbol(name, **kwargs):
    net = vision.get_model(name, pretrained=False, classes=10, **kwargs)
    net.initialize()
    return net(mx.sym.Variable("data"))


def _gluon_lstm():
    # A hybridized Gluon LSTM as HybridBlock.export writes it: its weights are
    # flattened and joined by _rnn_param_concat into the RNN op's parameters,
    # and its begin states are _zeros with a legacy 0 batch dim. Without
    # input_size the first layer's weights are (24, 0) until the data settles
    # them through the RNN op's parameter count (two unknown concat inputs).
    net = mx.gluon.rnn.LSTM(6, num_layers=2, layout="NTC", bidirectional=True)
    net.initialize()
    net.hybridize()
    return net(mx.sym.Variable("data"))


def _espcn(upscale=3):
    # MXNet's example/gluon/super_resolution (ESPCN): four convolutions, the
    # last with upscale^2 channels, then the sub-pixel shuffle to (H*r, W*r).
    x = mx.sym.Variable("data")
    for i, (channels, kernel) in enumerate([(64, 5), (64, 3), (32, 3)]):
        x = mx.sym.Convolution(x, num_filter=channels, kernel=(kernel, kernel),
                               pad=(kernel // 2, kernel // 2), name="conv%d" % i)
        x = mx.sym.Activation(x, act_type="relu", name="relu%d" % i)
    x = mx.sym.Convolution(x, num_filter=upscale * upscale, kernel=(3, 3), pad=(1, 1),
                           name="conv3")
    return mx.sym.depth_to_space(x, block_size=upscale, name="shuffle")


_SSD_SIZES = [(0.2, 0.272), (0.37, 0.447)]
_SSD_RATIOS = (1, 2, 0.5)


def _ssd_heads(batch):
    # GluonCV's SSD: a backbone, two feature scales, per scale a class and a
    # box predictor (3x3 convolutions) and MultiBoxPrior anchors; predictions
    # flattened channel-last and joined across scales.
    x = mx.sym.Variable("data")
    feats = []
    for i, channels in enumerate([8, 16]):
        x = mx.sym.Convolution(x, num_filter=channels, kernel=(3, 3), pad=(1, 1),
                               stride=(2, 2), name="body%d" % i)
        x = mx.sym.Activation(x, act_type="relu", name="body%d_relu" % i)
        feats.append(x)
    anchors_per_cell = len(_SSD_SIZES[0]) + len(_SSD_RATIOS) - 1
    cls, loc, anchors = [], [], []
    for i, f in enumerate(feats):
        c = mx.sym.Convolution(f, num_filter=anchors_per_cell * 3, kernel=(3, 3), pad=(1, 1),
                               name="cls%d" % i)
        b = mx.sym.Convolution(f, num_filter=anchors_per_cell * 4, kernel=(3, 3), pad=(1, 1),
                               name="box%d" % i)
        cls.append(mx.sym.flatten(mx.sym.transpose(c, axes=(0, 2, 3, 1))))
        loc.append(mx.sym.flatten(mx.sym.transpose(b, axes=(0, 2, 3, 1))))
        anchors.append(mx.sym.contrib.MultiBoxPrior(f, sizes=_SSD_SIZES[i], ratios=_SSD_RATIOS,
                                                    clip=False).reshape((1, -1)))
    cls = mx.sym.concat(*cls, dim=1).reshape((0, -1, 3))
    loc = mx.sym.concat(*loc, dim=1).reshape((0, -1, 4))
    anchors = mx.sym.concat(*anchors, dim=1).reshape((1, -1, 4))
    return cls, loc, anchors


def _ssd_train(batch, num_anchors, num_refs):
    # The training loss with GluonCV's targets: box_encode of the matched
    # ground truth against the anchors (means 0, stds 0.1/0.2), a smooth-L1
    # box loss under the positive-sample mask, softmax cross-entropy on the
    # class targets.
    cls, loc, anchors = _ssd_heads(batch)
    # box_encode takes an anchor set per image; box_decode one for all.
    anchors = mx.sym.broadcast_like(anchors, loc, lhs_axes=(0,), rhs_axes=(0,))
    targets, masks = mx.sym.contrib.box_encode(
        mx.sym.Variable("samples"), mx.sym.Variable("matches"), anchors,
        mx.sym.Variable("refs"), mx.sym.Variable("means"), mx.sym.Variable("stds"))
    box_loss = mx.sym.sum(mx.sym.smooth_l1((loc - targets) * masks, scalar=1.0))
    cls_loss = mx.sym.sum(mx.sym.pick(-mx.sym.log_softmax(cls, axis=-1),
                                      mx.sym.Variable("cls_target"), axis=-1))
    return mx.sym.Group([box_loss + cls_loss, targets])


def _ssd_detect(batch):
    # The detection path: box_decode of the predictions against the anchors,
    # the best foreground class and its score, box_nms per image.
    cls, loc, anchors = _ssd_heads(batch)
    boxes = mx.sym.contrib.box_decode(loc, anchors, std0=0.1, std1=0.1, std2=0.2, std3=0.2)
    prob = mx.sym.softmax(cls, axis=-1)
    fg = mx.sym.slice_axis(prob, axis=-1, begin=1, end=None)
    ids = mx.sym.argmax(fg, axis=-1, keepdims=True)
    score = mx.sym.max(fg, axis=-1, keepdims=True)
    det = mx.sym.concat(ids, score, boxes, dim=-1)
    return mx.sym.contrib.box_nms(det, overlap_thresh=0.45, valid_thresh=0.01, topk=20,
                                  coord_start=2, score_index=1, id_index=0)


def _ssd_cases():
    batch, size = 2, 16
    # 8x8 and 4x4 cells with 4 anchors each.
    num_anchors, num_refs = (64 + 16) * 4, 3
    rng = np.random.RandomState(29)
    samples = rng.choice([-1.0, 0.0, 1.0], size=(batch, num_anchors), p=[0.5, 0.3, 0.2])
    matches = rng.randint(0, num_refs, size=(batch, num_anchors)).astype(np.float32)
    corners = np.sort(rng.uniform(0, 1, size=(batch, num_refs, 2, 2)), axis=2)
    refs = corners.transpose(0, 1, 3, 2).reshape(batch, num_refs, 4)[:, :, [0, 2, 1, 3]]
    cls_target = np.where(samples > 0, 1 + matches % 2, 0)
    values = {"samples": samples, "matches": matches, "refs": refs,
              "means": np.zeros(4), "stds": np.array([0.1, 0.1, 0.2, 0.2]),
              "cls_target": cls_target}
    shapes = {"data": (batch, 3, size, size), "samples": (batch, num_anchors),
              "matches": (batch, num_anchors), "refs": (batch, num_refs, 4), "means": (4,),
              "stds": (4,), "cls_target": (batch, num_anchors)}
    targets = ("samples", "matches", "refs", "means", "stds", "cls_target")
    return [
        Case("model_ssd_train", _ssd_train(batch, num_anchors, num_refs), shapes, values=values,
             fill="hash", no_grad=targets, rtol=2e-3, atol=1e-5, compare="scaled",
             note="GluonCV SSD heads, box_encode targets, smooth-L1 + cross-entropy"),
        Case("model_ssd_detect", _ssd_detect(batch), {"data": (batch, 3, size, size)},
             fill="hash", grad=False, rtol=1e-4, atol=1e-5,
             note="GluonCV SSD heads, box_decode and box_nms"),
    ]


def cases():
    out = [Case("model_gluon_lstm", _gluon_lstm(), {"data": (2, 5, 4)}, fill="hash",
                rtol=1e-3, atol=1e-5),
           Case("model_espcn_superres", _espcn(), {"data": (2, 1, 8, 8)}, fill="hash",
                rtol=1e-3, atol=1e-5, compare="scaled",
                note="ESPCN super resolution (x3) with depth_to_space")]
    out += _ssd_cases()
    for name, shape, train in [
            ("resnet18_v1", (4, 3, 32, 32), True),
            ("resnet18_v2", (2, 3, 32, 32), False),
            # Training MobileNetV2 this small is ill-conditioned: MXNet's own
            # float32 and float64 gradients differ by half their size.
            ("mobilenetv2_0.25", (4, 3, 32, 32), False),
            ("mobilenet0.25", (2, 3, 32, 32), False),
            ("squeezenet1.1", (1, 3, 224, 224), False),
            ("vgg11_bn", (2, 3, 32, 32), False),
            ("densenet121", (1, 3, 224, 224), False),
            ("inceptionv3", (1, 3, 299, 299), False)]:
        label = "model_" + name.replace(".", "_")
        out.append(Case(label, _symbol(name), {"data": shape}, fill="hash", is_train=train,
                        grad=train, rtol=2e-3, atol=1e-5, compare="scaled"))
    return out
