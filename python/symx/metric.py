"""mx.metric: evaluation metrics over (labels, predictions) batches.

Metrics run on host copies of the outputs (numpy), once per batch, as MXNet's
Python metrics do.
"""
import numpy as np

from . import ndarray as nd

__all__ = ["EvalMetric", "Accuracy", "CrossEntropy", "MSE", "CompositeEvalMetric", "create",
]


def _host(x):
    return x.asnumpy() if isinstance(x, nd.NDArray) else np.asarray(x)


def _check_lengths(labels, preds, wrap=False):
    """MXNet's check_label_shapes: equal lengths; with wrap, a bare array
    (not in a list) becomes a list of one, so update(label, pred) works."""
    if len(labels) != len(preds):
        raise ValueError("Shape of labels {} does not match shape of predictions {}"
                         .format(len(labels), len(preds)))
    if wrap:
        if isinstance(labels, (nd.NDArray, np.ndarray)):
            labels = [labels]
        if isinstance(preds, (nd.NDArray, np.ndarray)):
            preds = [preds]
    return labels, preds


class EvalMetric:
    """Base class: sum_metric / num_inst accumulated by update()."""

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self.reset()

    def update_dict(self, label, pred):
        """update() from {name: array} dicts, filtered by output_names/label_names."""
        preds = [pred[n] for n in self.output_names] if self.output_names else list(pred.values())
        labels = [label[n] for n in self.label_names] if self.label_names else list(label.values())
        self.update(labels, preds)

    def update(self, labels, preds):
        raise NotImplementedError()

    def reset(self):
        self.num_inst = 0
        self.sum_metric = 0.0

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self.sum_metric / self.num_inst)

    def get_name_value(self):
        name, value = self.get()
        if not isinstance(name, list):
            name, value = [name], [value]
        return list(zip(name, value))

    def __str__(self):
        return "EvalMetric: {}".format(dict(self.get_name_value()))


class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together."""

    def __init__(self, metrics=None, name="composite", **kwargs):
        self.metrics = [create(m) for m in (metrics or [])]
        super().__init__(name, **kwargs)

    def add(self, metric):
        self.metrics.append(create(metric))

    def update(self, labels, preds):
        for m in self.metrics:
            m.update(labels, preds)

    def reset(self):
        for m in getattr(self, "metrics", []):
            m.reset()

    def get(self):
        names, values = [], []
        for m in self.metrics:
            name, value = m.get()
            names += name if isinstance(name, list) else [name]
            values += value if isinstance(value, list) else [value]
        return (names, values)


class Accuracy(EvalMetric):
    """Fraction of rows whose argmax (along ``axis``) equals the label."""

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        self.axis = axis
        super().__init__(name, output_names, label_names)

    def update(self, labels, preds):
        labels, preds = _check_lengths(labels, preds, wrap=True)
        for label, pred in zip(labels, preds):
            pred = _host(pred)
            label = _host(label)
            if pred.shape != label.shape:
                pred = np.argmax(pred, axis=self.axis)
            pred = pred.astype("int64").ravel()
            label = label.astype("int64").ravel()
            _check_lengths(label, pred)
            self.sum_metric += int((pred == label).sum())
            self.num_inst += len(pred)


class CrossEntropy(EvalMetric):
    """Mean of -log(p[label]) over rows of a probability output."""

    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None, label_names=None):
        self.eps = eps
        super().__init__(name, output_names, label_names)

    def update(self, labels, preds):
        labels, preds = _check_lengths(labels, preds, wrap=True)
        for label, pred in zip(labels, preds):
            label = _host(label).ravel()
            pred = _host(pred)
            if label.shape[0] != pred.shape[0]:
                raise ValueError("CrossEntropy: %d labels for %d rows" % (label.shape[0], pred.shape[0]))
            prob = pred[np.arange(label.shape[0]), np.int64(label)]
            self.sum_metric += float((-np.log(prob + self.eps)).sum())
            self.num_inst += label.shape[0]


class MSE(EvalMetric):
    """Mean squared error, averaged per batch as MXNet does."""

    def __init__(self, name="mse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    def update(self, labels, preds):
        labels, preds = _check_lengths(labels, preds, wrap=True)
        for label, pred in zip(labels, preds):
            label = _host(label)
            pred = _host(pred)
            if label.ndim == 1:
                label = label.reshape(label.shape[0], 1)
            if pred.ndim == 1:
                pred = pred.reshape(pred.shape[0], 1)
            self.sum_metric += float(((label - pred) ** 2.0).mean())
            self.num_inst += 1


_ALIASES = {"acc": Accuracy, "accuracy": Accuracy, "ce": CrossEntropy,
            "cross-entropy": CrossEntropy, "mse": MSE}


def create(metric, *args, **kwargs):
    """A metric from an instance, a name ('acc', 'ce', 'mse') or a list of those."""
    if isinstance(metric, EvalMetric):
        return metric
    if isinstance(metric, (list, tuple)):
        return CompositeEvalMetric([create(m) for m in metric])
    if isinstance(metric, str) and metric.lower() in _ALIASES:
        return _ALIASES[metric.lower()](*args, **kwargs)
    raise ValueError("Metric must be either callable or in %s, got %r" % (sorted(_ALIASES), metric))
