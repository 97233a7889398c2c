"""mx.metric: evaluation metrics over (labels, predictions) batches.

The family of MXNet 1.9.1's ``mxnet.metric`` with its numbers: every metric
keeps a local and a global running statistic (``num_inst``/``sum_metric`` and
``global_num_inst``/``global_sum_metric``); ``reset_local()`` clears only the
local one, ``reset()`` both. Metrics work on host copies (numpy) of symx
NDArrays or on numpy arrays directly, once per batch, in the arrays' own
precision (float32 for NDArrays), as MXNet's Python metrics do.

Metrics are found by name through a registry: ``create('acc')``,
``create('top_k_acc', top_k=5)``, ``create(['acc', 'ce'])``,
``create(my_function)`` (a CustomMetric), ``create(**metric.get_config())``.
"""
import json
import math
import numbers
import warnings
from collections import OrderedDict

import numpy as _np

from . import ndarray as nd

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC",
           "Perplexity", "MAE", "MSE", "RMSE", "CrossEntropy", "NegativeLogLikelihood",
           "PearsonCorrelation", "PCC", "Loss", "Torch", "Caffe", "CustomMetric", "np",
           "create", "register", "alias", "check_label_shapes"]


# ------------------------------------------------------------------ helpers

def _is_array(x):
    return isinstance(x, (nd.NDArray, _np.ndarray))


def _host(x, what):
    """A numpy copy of an NDArray, or a numeric numpy view of anything array-like."""
    if isinstance(x, nd.NDArray):
        return x.asnumpy()
    try:
        out = _np.asarray(x)
    except Exception as err:  # ragged lists and the like
        raise TypeError("%s must be an NDArray or a numpy array, got %s (%s)"
                        % (what, type(x).__name__, err))
    if out.dtype.kind not in "biuf":
        raise TypeError("%s must be an NDArray or a numeric numpy array, got %s of dtype %s"
                        % (what, type(x).__name__, out.dtype))
    return out


def _count(x):
    """len() of a list of arrays, or of a single array's first axis."""
    try:
        return len(x)
    except TypeError:
        raise TypeError("labels and predictions must be arrays or lists of arrays, got %s"
                        % type(x).__name__)


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Checks that labels and preds agree in length (or, with shape=True, in
    shape); with wrap=True a bare array becomes a list of one array. Returns
    the (possibly wrapped) labels and preds."""
    if shape:
        got_l, got_p = tuple(_np.shape(_host(labels, "labels"))), \
            tuple(_np.shape(_host(preds, "preds")))
    else:
        got_l, got_p = _count(labels), _count(preds)
    if got_l != got_p:
        raise ValueError("Shape of labels {} does not match shape of predictions {}"
                         .format(got_l, got_p))
    if wrap:
        if _is_array(labels):
            labels = [labels]
        if _is_array(preds):
            preds = [preds]
    return labels, preds


def _pairs(metric, labels, preds):
    """(label, pred) numpy pairs of one update(): a bare array counts as a list of one."""
    if _is_array(labels):
        labels = [labels]
    if _is_array(preds):
        preds = [preds]
    if _count(labels) != _count(preds):
        raise ValueError("%s: shape of labels %d does not match shape of predictions %d "
                         "(one label array per output)" % (metric.name, len(labels), len(preds)))
    return [(_host(l, "%s: labels[%d]" % (metric.name, i)),
             _host(p, "%s: preds[%d]" % (metric.name, i)))
            for i, (l, p) in enumerate(zip(labels, preds))]


def _check_choice(value, what, choices):
    if value not in choices:
        raise ValueError("%s must be one of %s, got %r" % (what, ", ".join(map(repr, choices)),
                                                         value))
    return value


# ----------------------------------------------------------------- registry

_REGISTRY = {}


def register(klass, name=None):
    """Files an EvalMetric subclass under ``name`` (default: its class name),
    lower-cased, for create(). Usable as a class decorator."""
    if not (isinstance(klass, type) and issubclass(klass, EvalMetric)):
        raise TypeError("register() takes a subclass of EvalMetric, got %r" % (klass,))
    key = (klass.__name__ if name is None else str(name)).lower()
    old = _REGISTRY.get(key)
    if old is not None and old is not klass:
        warnings.warn("metric %s.%s registered as %r replaces %s.%s"
                      % (klass.__module__, klass.__name__, key, old.__module__, old.__name__),
                      UserWarning, stacklevel=2)
    _REGISTRY[key] = klass
    return klass


def alias(*aliases):
    """Class decorator filing a metric under extra names too."""
    def decorate(klass):
        for a in aliases:
            register(klass, a)
        return klass
    return decorate


def create(metric, *args, **kwargs):
    """A metric from
      - an EvalMetric instance (returned as it is, with no further arguments);
      - a callable feval(label, pred): a CustomMetric around it;
      - a list: a CompositeEvalMetric of create(item, *args, **kwargs);
      - a registered name or alias (any case), built with *args, **kwargs;
      - a config dict (what get_config() returns: its 'metric' names the class),
        or its JSON text: '{"metric": ..., ...}' or '["name", {kwargs}]'.
    """
    if isinstance(metric, EvalMetric):
        if args or kwargs:
            raise ValueError("create(): %r is already a metric instance; it takes no further "
                             "arguments, got %r %r" % (metric.name, args, kwargs))
        return metric
    if isinstance(metric, type):
        raise TypeError("create(): pass a metric instance or name, not the class %s"
                        % metric.__name__)
    if callable(metric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, (list, tuple)):
        comp = CompositeEvalMetric()
        for child in metric:
            comp.add(create(child, *args, **kwargs))
        return comp
    if isinstance(metric, dict):
        if args or kwargs:
            raise ValueError("create(): a config dict takes no further arguments")
        config = dict(metric)
        if "metric" not in config:
            raise ValueError("create(): a metric config needs a 'metric' key, got keys %s"
                             % sorted(config))
        return create(**config)
    if not isinstance(metric, str):
        raise TypeError("create(): metric must be a name, a list, a callable or an EvalMetric, "
                        "got %s" % type(metric).__name__)
    text = metric.strip()
    if text.startswith("[") or text.startswith("{"):
        if args or kwargs:
            raise ValueError("create(): a JSON metric config takes no further arguments")
        try:
            parsed = json.loads(text)
        except ValueError as err:
            raise ValueError("create(): bad JSON metric config %r: %s" % (metric, err))
        if isinstance(parsed, list):
            if len(parsed) != 2 or not isinstance(parsed[1], dict):
                raise ValueError("create(): a JSON list config is [name, {kwargs}], got %r"
                                 % metric)
            return create(parsed[0], **parsed[1])
        return create(parsed)
    key = metric.lower()
    if key not in _REGISTRY:
        raise ValueError("Metric must be either callable or in %s, got %r"
                         % (sorted(_REGISTRY), metric))
    return _REGISTRY[key](*args, **kwargs)


# --------------------------------------------------------------------- base

class EvalMetric:
    """Base class: a running statistic fed by update(labels, preds).

    ``get()`` is ``sum_metric / num_inst`` over the batches since the last
    reset or reset_local; ``get_global()`` is the same over the batches since
    the last reset, for metrics built with ``has_global_stats=True`` (all of
    this module's), and ``get()`` otherwise. Extra keyword arguments are kept
    for ``get_config()``.
    """

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop("has_global_stats", False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return "EvalMetric: {}".format(dict(self.get_name_value()))

    def get_config(self):
        """The constructor's arguments: create(**config) builds the metric again."""
        config = dict(self._kwargs)
        config.update(metric=type(self).__name__, name=self.name,
                      output_names=self.output_names, label_names=self.label_names)
        return config

    @staticmethod
    def _select(arrays, names, what):
        if names is None:
            return list(arrays.values())
        missing = [n for n in names if n not in arrays]
        if missing:
            raise KeyError("update_dict: %s %s not among %s" % (what, missing, list(arrays)))
        return [arrays[n] for n in names]

    def update_dict(self, label, pred):
        """update() from {name: array} dicts, picking label_names / output_names
        (every entry, in dict order, when those are None)."""
        self.update(self._select(label, self.label_names, "labels"),
                    self._select(pred, self.output_names, "outputs"))

    def update(self, labels, preds):
        raise NotImplementedError("%s does not implement update()" % type(self).__name__)

    def _add(self, value, count):
        """Adds one contribution to the local and the global statistic."""
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += count
        self.global_num_inst += count

    def reset(self):
        """Clears the local and the global statistic."""
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        """Clears the local statistic only (get() starts over, get_global() goes on)."""
        self.num_inst = 0
        self.sum_metric = 0.0

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self.sum_metric / self.num_inst)

    def get_global(self):
        if not self._has_global_stats:
            return self.get()
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self.global_sum_metric / self.global_num_inst)

    @staticmethod
    def _zip(name, value):
        names = name if isinstance(name, list) else [name]
        values = value if isinstance(value, list) else [value]
        return list(zip(names, values))

    def get_name_value(self):
        return self._zip(*self.get())

    def get_global_name_value(self):
        if not self._has_global_stats:
            return self.get_name_value()
        return self._zip(*self.get_global())


# ---------------------------------------------------------------- composite

@register
@alias("composite")
class CompositeEvalMetric(EvalMetric):
    """Several metrics fed the same batches; get() lists all their values."""

    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.metrics = [create(m) for m in (metrics or [])]

    def add(self, metric):
        self.metrics.append(create(metric))

    def get_metric(self, index):
        if not isinstance(index, numbers.Integral):
            raise TypeError("get_metric: index must be an int, got %s" % type(index).__name__)
        if not -len(self.metrics) <= index < len(self.metrics):
            raise ValueError("Metric index {} is out of range 0 and {}"
                             .format(index, len(self.metrics)))
        return self.metrics[index]

    def update_dict(self, labels, preds):
        if self.label_names is not None:
            labels = OrderedDict((k, v) for k, v in labels.items() if k in self.label_names)
        if self.output_names is not None:
            preds = OrderedDict((k, v) for k, v in preds.items() if k in self.output_names)
        for m in self.metrics:
            m.update_dict(labels, preds)

    def update(self, labels, preds):
        for m in self.metrics:
            m.update(labels, preds)

    def reset(self):
        # Also called by EvalMetric.__init__, before the children exist.
        for m in getattr(self, "metrics", []):
            m.reset()

    def reset_local(self):
        for m in getattr(self, "metrics", []):
            m.reset_local()

    @staticmethod
    def _gather(results):
        names, values = [], []
        for name, value in results:
            names += name if isinstance(name, list) else [name]
            values += value if isinstance(value, list) else [value]
        return (names, values)

    def get(self):
        return self._gather(m.get() for m in self.metrics)

    def get_global(self):
        return self._gather(m.get_global() for m in self.metrics)

    def get_config(self):
        config = super().get_config()
        config["metrics"] = [m.get_config() for m in self.metrics]
        return config


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


# --------------------------------------------------------------- regression

class _Regression(EvalMetric):
    """A per-batch error averaged over update() pairs (each pair weighs one,
    whatever its size). 1-d labels/predictions are taken as one column."""

    def __init__(self, name, output_names, label_names):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    @staticmethod
    def _error(diff):
        raise NotImplementedError()

    def update(self, labels, preds):
        for label, pred in _pairs(self, labels, preds):
            if label.ndim == 1:
                label = label.reshape(label.shape[0], 1)
            if pred.ndim == 1:
                pred = pred.reshape(pred.shape[0], 1)
            try:
                diff = label - pred
            except ValueError:
                raise ValueError("%s: labels of shape %s and predictions of shape %s do not "
                                 "broadcast" % (self.name, label.shape, pred.shape))
            self._add(float(self._error(diff)), 1)


@register
class MAE(_Regression):
    """Mean absolute error, averaged over batches."""

    def __init__(self, name="mae", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(diff):
        return _np.abs(diff).mean()


@register
class MSE(_Regression):
    """Mean squared error, averaged over batches."""

    def __init__(self, name="mse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(diff):
        return (diff ** 2.0).mean()


@register
class RMSE(_Regression):
    """Root of each batch's mean squared error, averaged over batches."""

    def __init__(self, name="rmse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(diff):
        return _np.sqrt((diff ** 2.0).mean())


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
@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of predictions with labels (same shapes, flattened).

    'macro': the mean of each label/prediction pair's correlation;
    'micro': one correlation over every value since the reset, kept with
    running means and sums of squares (reset_local does not clear those, and,
    as in MXNet, get_global() is 0.0 in this mode: its global sum never grows).
    """

    def __init__(self, name="pearsonr", output_names=None, label_names=None, average="macro"):
        self.average = _check_choice(average, "PearsonCorrelation: average", ("macro", "micro"))
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def _clear_running(self):
        self._label_nums = self._pred_nums = 0
        self._mean_l = self._mean_p = 0.0
        self._sse_l = self._sse_p = 0.0
        self._conv = 0.0

    def reset(self):
        super().reset()
        if self.average == "micro":
            self._clear_running()

    @staticmethod
    def _moments(values, count, mean, sse):
        """Folds a batch into a running (count, mean, sum of squared deviations)."""
        count += values.size
        shift = values - mean
        mean = mean + _np.sum(shift / count)
        sse = sse + _np.sum(shift * (values - mean))
        return count, mean, sse

    def update(self, labels, preds):
        for label, pred in _pairs(self, labels, preds):
            if label.shape != pred.shape:
                raise ValueError("Shape of labels {} does not match shape of predictions {}"
                                 .format(label.shape, pred.shape))
            label = label.ravel().astype(_np.float64)
            pred = pred.ravel().astype(_np.float64)
            if self.average == "macro":
                with _np.errstate(divide="ignore", invalid="ignore"):
                    self._add(float(_np.corrcoef(pred, label)[0, 1]), 1)
                continue
            self.num_inst += 1
            self.global_num_inst += 1
            self._label_nums, self._mean_l, self._sse_l = self._moments(
                label, self._label_nums, self._mean_l, self._sse_l)
            # The co-moment pairs the labels' updated mean with the
            # predictions' previous one: that keeps it exact batch by batch.
            self._conv = self._conv + _np.sum((label - self._mean_l) * (pred - self._mean_p))
            self._pred_nums, self._mean_p, self._sse_p = self._moments(
                pred, self._pred_nums, self._mean_p, self._sse_p)

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        if self.average == "macro":
            return (self.name, self.sum_metric / self.num_inst)
        dof = self._label_nums - 1
        with _np.errstate(divide="ignore", invalid="ignore"):
            value = self._conv / (dof * _np.sqrt(self._sse_p / dof) * _np.sqrt(self._sse_l / dof))
        return (self.name, float(value))


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


# ------------------------------------------------------------ loss and custom

@register
class Loss(EvalMetric):
    """Mean of the output values themselves (a loss the network computes);
    the labels are not used."""

    def __init__(self, name="loss", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def update(self, _, preds):
        if _is_array(preds):
            preds = [preds]
        for i, pred in enumerate(preds):
            pred = _host(pred, "%s: preds[%d]" % (self.name, i))
            self._add(float(pred.sum()), pred.size)


@register
class Torch(Loss):
    """Loss under the name 'torch' (for torch criterions)."""

    def __init__(self, name="torch", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class Caffe(Loss):
    """Loss under the name 'caffe' (for caffe criterions)."""

    def __init__(self, name="caffe", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class CustomMetric(EvalMetric):
    """A metric from feval(label, pred) on numpy arrays, called per
    label/prediction pair: it returns a value (counted as one instance) or a
    (sum_metric, num_inst) tuple. The name defaults to feval's ('custom(...)'
    for a lambda). With allow_extra_outputs, outputs beyond the labels are
    ignored instead of rejected. It has no config: get_config() raises."""

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None,
                 label_names=None):
        if not callable(feval):
            raise TypeError("CustomMetric: feval must be callable, got %r" % (feval,))
        if name is None:
            name = getattr(feval, "__name__", None) or type(feval).__name__
            if "<" in name:
                name = "custom(%s)" % name
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs,
                         output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if _is_array(labels):
            labels = [labels]
        if _is_array(preds):
            preds = [preds]
        if not self._allow_extra_outputs and _count(labels) != _count(preds):
            raise ValueError("%s: shape of labels %d does not match shape of predictions %d"
                             % (self.name, len(labels), len(preds)))
        for i, (label, pred) in enumerate(zip(labels, preds)):
            result = self._feval(_host(label, "%s: labels[%d]" % (self.name, i)),
                                 _host(pred, "%s: preds[%d]" % (self.name, i)))
            if isinstance(result, tuple):
                if len(result) != 2:
                    raise ValueError("%s: feval returned a tuple of %d; a tuple must be "
                                     "(sum_metric, num_inst)" % (self.name, len(result)))
                value, count = result
            else:
                value, count = result, 1
            for what, x in (("value", value), ("num_inst", count)):
                if isinstance(x, (str, bytes)) or not isinstance(
                        x, (numbers.Number, _np.ndarray, _np.generic)):
                    raise TypeError("%s: feval must return a number or a (sum_metric, "
                                    "num_inst) tuple, got %s %r" % (self.name, what, x))
            self._add(value, count)

    def get_config(self):
        raise NotImplementedError("CustomMetric cannot be serialized")


def np(numpy_feval, name=None, allow_extra_outputs=False):  # pylint: disable=invalid-name
    """A CustomMetric from numpy_feval(label, pred) -> float on numpy arrays,
    named after the function unless ``name`` is given."""
    if not callable(numpy_feval):
        raise TypeError("metric.np: numpy_feval must be callable, got %r" % (numpy_feval,))

    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = getattr(numpy_feval, "__name__", type(numpy_feval).__name__)
    return CustomMetric(feval, name, allow_extra_outputs)
