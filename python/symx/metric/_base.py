"""mx.metric's base: the input helpers, the registry and create(), EvalMetric
with its local and global statistics, and CompositeEvalMetric."""
import json
import numbers
import warnings
from collections import OrderedDict

import numpy as _np

from .. import ndarray as nd


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
        from .custom import CustomMetric  # defined over this module's EvalMetric
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
