"""mx.metric's Loss (and its Torch and Caffe names), CustomMetric and np()."""
import numbers

import numpy as _np

from ._base import EvalMetric, register, _is_array, _host, _count


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
