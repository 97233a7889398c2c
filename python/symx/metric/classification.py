"""mx.metric's classification metrics: Accuracy, TopKAccuracy, F1, MCC,
Perplexity, CrossEntropy, NegativeLogLikelihood and PCC."""
import math
import numbers

import numpy as _np

from ._base import EvalMetric, register, alias, _pairs, _check_choice


# ----------------------------------------------------------- classification

@register
@alias("acc")
class Accuracy(EvalMetric):
    """Fraction of samples whose predicted class equals the label. Predictions
    shaped like the labels are class indices; otherwise the class is the
    argmax along ``axis``."""

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        if not isinstance(axis, numbers.Integral):
            raise TypeError("Accuracy: axis must be an int, got %r" % (axis,))
        super().__init__(name, axis=axis, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds):
        for label, pred in _pairs(self, labels, preds):
            if pred.shape != label.shape:
                if not -pred.ndim <= self.axis < pred.ndim:
                    raise ValueError("%s: axis %d is out of range for predictions of shape %s"
                                     % (self.name, self.axis, pred.shape))
                pred = _np.argmax(pred, axis=self.axis)
            pred = pred.astype(_np.int32).ravel()
            label = label.astype(_np.int32).ravel()
            if pred.size != label.size:
                raise ValueError("%s: %d predicted classes for %d labels"
                                 % (self.name, pred.size, label.size))
            self._add(int((pred == label).sum()), label.size)


@register
@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    """Fraction of samples whose label is among the ``top_k`` highest scores
    (top_k > 1; the name gets a '_<top_k>' suffix)."""

    def __init__(self, top_k=1, name="top_k_accuracy", output_names=None, label_names=None):
        if isinstance(top_k, bool) or not isinstance(top_k, numbers.Integral):
            raise TypeError("TopKAccuracy: top_k must be an int, got %r" % (top_k,))
        super().__init__(name, top_k=top_k, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.top_k = int(top_k)
        if self.top_k <= 1:
            raise ValueError("TopKAccuracy: top_k must be more than 1 (got %d); use Accuracy "
                             "for top_k=1" % self.top_k)
        self.name += "_%d" % self.top_k

    def update(self, labels, preds):
        for label, pred in _pairs(self, labels, preds):
            if pred.ndim > 2:
                raise ValueError("%s: predictions must have at most 2 dims, got shape %s"
                                 % (self.name, pred.shape))
            if pred.ndim == 0:
                raise ValueError("%s: predictions must have 1 or 2 dims, got a scalar" % self.name)
            width = pred.shape[-1]
            if self.top_k > width:
                raise ValueError("%s: top_k=%d is more than the %d scores per sample"
                                 % (self.name, self.top_k, width))
            # The top_k largest scores end up in the last top_k columns (in no
            # particular order; ties resolved as numpy's partition does).
            order = _np.argpartition(pred.astype(_np.float32), -self.top_k)
            label = label.astype(_np.int32).ravel()
            if order.shape[0] != label.size:
                raise ValueError("%s: %d labels for %d predictions"
                                 % (self.name, label.size, order.shape[0]))
            if order.ndim == 1:
                # A 1-d prediction: MXNet compares the partition's index order
                # with the labels, and adds it to the local statistic only.
                self.sum_metric += int((order == label).sum())
            else:
                top = order[:, width - self.top_k:]
                hits = int((top == label[:, None]).sum())
                self.sum_metric += hits
                self.global_sum_metric += hits
            self.num_inst += order.shape[0]
            self.global_num_inst += order.shape[0]


class _ConfusionCounts:
    """Running true/false positive/negative counts of a binary classifier,
    local and global, from (label, two-column score) batches."""

    FIELDS = ("tp", "fp", "fn", "tn")

    def __init__(self, owner):
        self.owner = owner
        self.local = dict.fromkeys(self.FIELDS, 0)
        self.total = dict.fromkeys(self.FIELDS, 0)

    def add_batch(self, label, pred):
        owner = type(self.owner).__name__
        if pred.ndim != 2:
            raise ValueError("%s: predictions must be (samples, classes) scores, got shape %s"
                             % (owner, pred.shape))
        label = label.astype(_np.int32).ravel()
        if label.size != pred.shape[0]:
            raise ValueError("Shape of labels {} does not match shape of predictions {}"
                             .format(label.size, pred.shape[0]))
        if len(_np.unique(label)) > 2:
            raise ValueError("%s currently only supports binary classification (labels %s)"
                             % (owner, _np.unique(label).tolist()))
        said_pos = _np.argmax(pred, axis=1) == 1
        is_pos = label == 1
        batch = {"tp": int((said_pos & is_pos).sum()), "fp": int((said_pos & ~is_pos).sum()),
                 "fn": int((~said_pos & is_pos).sum()), "tn": int((~said_pos & ~is_pos).sum())}
        for k, v in batch.items():
            self.local[k] += v
            self.total[k] += v

    def clear_local(self):
        self.local = dict.fromkeys(self.FIELDS, 0)

    def clear(self):
        self.clear_local()
        self.total = dict.fromkeys(self.FIELDS, 0)

    @staticmethod
    def examples(c):
        return c["tp"] + c["fp"] + c["fn"] + c["tn"]

    @staticmethod
    def fscore(c):
        def ratio(a, b):
            return float(a) / (a + b) if a + b > 0 else 0.0
        precision = ratio(c["tp"], c["fp"])
        recall = ratio(c["tp"], c["fn"])
        if precision + recall <= 0:
            return 0.0
        return 2 * precision * recall / (precision + recall)

    @staticmethod
    def mcc(c):
        if not _ConfusionCounts.examples(c):
            return 0.0
        tp, fp, fn, tn = (float(c[k]) for k in ("tp", "fp", "fn", "tn"))
        # Margins that are zero count as 1 in the denominator.
        denom = 1.0
        for margin in (tp + fp, tp + fn, tn + fp, tn + fn):
            if margin != 0.0:
                denom *= margin
        return (tp * tn - fp * fn) / math.sqrt(denom)


class _BinaryScore(EvalMetric):
    """F1 / MCC: 'macro' averages each update's score (one per update call);
    'micro' scores all samples since the reset, weighted by their count."""

    _score = None  # staticmethod(counts -> float)

    def __init__(self, name, output_names, label_names, average):
        self.average = _check_choice(average, "%s: average" % type(self).__name__,
                                     ("macro", "micro"))
        self._counts = _ConfusionCounts(self)
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def update(self, labels, preds):
        for label, pred in _pairs(self, labels, preds):
            self._counts.add_batch(label, pred)
        score, counts = type(self)._score, self._counts
        if self.average == "macro":
            # Each update is scored alone: the global counts are cleared too.
            self.sum_metric += score(counts.local)
            self.global_sum_metric += score(counts.total)
            self.num_inst += 1
            self.global_num_inst += 1
            counts.clear()
        else:
            n_local = counts.examples(counts.local)
            n_total = counts.examples(counts.total)
            self.sum_metric = score(counts.local) * n_local
            self.num_inst = n_local
            self.global_sum_metric = score(counts.total) * n_total
            self.global_num_inst = n_total

    def reset(self):
        super().reset()
        self._counts.clear()

    def reset_local(self):
        super().reset_local()
        self._counts.clear_local()


@register
class F1(_BinaryScore):
    """F1 score (harmonic mean of precision and recall) of a binary
    classifier: labels 0/1, predictions (samples, 2) scores whose argmax is
    the predicted class. average='macro' or 'micro'."""

    _score = staticmethod(_ConfusionCounts.fscore)

    def __init__(self, name="f1", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)


@register
class MCC(_BinaryScore):
    """Matthews correlation coefficient of a binary classifier (inputs as
    F1's); zero margins count as 1 in the denominator, no samples give 0."""

    _score = staticmethod(_ConfusionCounts.mcc)

    def __init__(self, name="mcc", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)


@register
class Perplexity(EvalMetric):
    """exp of the mean negative log-probability given to the labels.

    ``pred`` holds probabilities with the classes along ``axis``; labels equal
    to ``ignore_label`` (None: none) are left out of the mean. Probabilities
    are floored at 1e-10; labels outside the class range are clipped to it.
    """

    def __init__(self, ignore_label, axis=-1, name="perplexity", output_names=None,
                 label_names=None):
        if ignore_label is not None and not isinstance(ignore_label, numbers.Real):
            raise TypeError("Perplexity: ignore_label must be a number or None, got %r"
                            % (ignore_label,))
        if not isinstance(axis, numbers.Integral):
            raise TypeError("Perplexity: axis must be an int, got %r" % (axis,))
        super().__init__(name, ignore_label=ignore_label, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        loss, num = 0.0, 0
        for label, pred in _pairs(self, labels, preds):
            if pred.ndim < 1 or not -pred.ndim <= self.axis < pred.ndim:
                raise ValueError("%s: axis %d is out of range for predictions of shape %s"
                                 % (self.name, self.axis, pred.shape))
            axis = self.axis % pred.ndim
            rest = pred.shape[:axis] + pred.shape[axis + 1:]
            if label.size != int(_np.prod(rest)):
                raise ValueError("shape mismatch: %s vs. %s (one label per prediction row)"
                                 % (label.shape, pred.shape))
            if not _np.issubdtype(pred.dtype, _np.floating):
                pred = pred.astype(_np.float32)
            label = label.reshape(rest)
            index = _np.clip(label.astype(_np.int32), 0, pred.shape[axis] - 1)
            prob = _np.take_along_axis(pred, _np.expand_dims(index, axis), axis)
            prob = _np.squeeze(prob, axis)
            if self.ignore_label is not None:
                ignored = label == self.ignore_label
                num -= float(ignored.sum())
                prob = _np.where(ignored, _np.ones((), prob.dtype), prob)
            floor = _np.asarray(1e-10, dtype=prob.dtype)
            loss -= float(_np.log(_np.maximum(floor, prob)).sum())
            num += prob.size
        self._add(loss, num)

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.sum_metric / self.num_inst))

    def get_global(self):
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.global_sum_metric / self.global_num_inst))


class _LabelLogLoss(EvalMetric):
    """Mean over samples of -log(p[label] + eps): predictions are
    (samples, classes) probabilities, labels class indices."""

    def __init__(self, eps, name, output_names, label_names):
        if not isinstance(eps, numbers.Real):
            raise TypeError("%s: eps must be a number, got %r" % (type(self).__name__, eps))
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        for label, pred in _pairs(self, labels, preds):
            label = label.ravel()
            if pred.ndim != 2:
                raise ValueError("%s: predictions must be (samples, classes), got shape %s"
                                 % (self.name, pred.shape))
            rows, classes = pred.shape
            if label.shape[0] != rows:
                raise ValueError("%s: %d labels for %d prediction rows"
                                 % (self.name, label.shape[0], rows))
            index = label.astype(_np.int64)
            if rows and (index.min() < -classes or index.max() >= classes):
                raise ValueError("%s: labels must be class indices below %d, got %s"
                                 % (self.name, classes, label.tolist()))
            prob = pred[_np.arange(rows), index]
            self._add(float((-_np.log(prob + self.eps)).sum()), rows)


@register
@alias("ce")
class CrossEntropy(_LabelLogLoss):
    """Cross entropy of probability predictions against class labels."""

    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias("nll_loss")
class NegativeLogLikelihood(_LabelLogLoss):
    """Negative log-likelihood of the labels under probability predictions."""

    def __init__(self, eps=1e-12, name="nll-loss", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
class PCC(EvalMetric):
    """Multiclass Matthews correlation (the Pearson correlation of one-hot
    predictions and labels) over a confusion matrix that grows with the
    largest class seen. Predictions shaped like the labels are class indices,
    otherwise scores whose argmax along axis 1 is the class. num_inst counts
    update() calls; the value is nan while a margin of the matrix is all zero.
    """

    def __init__(self, name="pcc", output_names=None, label_names=None, has_global_stats=True):
        self.k = 2
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=has_global_stats)

    def _grow(self, k):
        pad = ((0, k - self.k), (0, k - self.k))
        self.lcm = _np.pad(self.lcm, pad)
        self.gcm = _np.pad(self.gcm, pad)
        self.k = k

    @staticmethod
    def _calc_mcc(cmat):
        n = cmat.sum()
        said = cmat.sum(axis=1)
        truth = cmat.sum(axis=0)
        var_said = _np.sum(said * (n - said))
        var_truth = _np.sum(truth * (n - truth))
        if var_said == 0 or var_truth == 0:
            return float("nan")
        cov = _np.sum(cmat.diagonal() * n - said * truth)
        return cov / (var_said * var_truth) ** 0.5

    def update(self, labels, preds):
        for label, pred in _pairs(self, labels, preds):
            label = label.astype(_np.int32)
            if pred.shape != label.shape:
                if pred.ndim < 2:
                    raise ValueError("%s: predictions of shape %s are neither class indices "
                                     "shaped like the labels %s nor (samples, classes) scores"
                                     % (self.name, pred.shape, label.shape))
                pred = pred.argmax(axis=1)
            else:
                pred = pred.astype(_np.int32)
            pred, label = pred.ravel(), label.ravel()
            if pred.size != label.size:
                raise ValueError("%s: %d predicted classes for %d labels"
                                 % (self.name, pred.size, label.size))
            if pred.size == 0:
                continue
            if min(pred.min(), label.min()) < 0:
                raise ValueError("%s: class indices must not be negative" % self.name)
            top = int(max(pred.max(), label.max()))
            if top >= self.k:
                self._grow(top + 1)
            batch = _np.zeros((self.k, self.k))
            _np.add.at(batch, (pred, label), 1)
            self.lcm += batch
            self.gcm += batch
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        return self._calc_mcc(self.lcm) * self.num_inst

    @property
    def global_sum_metric(self):
        return self._calc_mcc(self.gcm) * self.global_num_inst

    def reset(self):
        self.global_num_inst = 0.0
        self.gcm = _np.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0.0
        self.lcm = _np.zeros((self.k, self.k))
