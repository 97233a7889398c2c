"""PythonModule and PythonLossModule: modules whose computation is written in
Python (on NDArrays or numpy) rather than bound from a symbol, mostly to sit in
a SequentialModule next to symbolic Modules (a loss whose gradient is a Python
function, say).

They have no parameters: init_params, init_optimizer and update have nothing
to do. Where MXNet's versions assert, these raise ModuleUsageError, which is
both an MXNetError and an AssertionError, so scripts catching either still
work; what a subclass has to provide and does not raises
ModuleNotImplementedError (an MXNetError and a NotImplementedError).
"""
import logging

import numpy as np

from ..base import MXNetError
from .. import ndarray as nd
from ..initializer import Uniform
from ..io import DataDesc
from .base_module import BaseModule

__all__ = ["PythonModule", "PythonLossModule", "ModuleUsageError", "ModuleNotImplementedError"]


class ModuleUsageError(MXNetError, AssertionError):
    """A call MXNet's modules refuse with an assert (symx says why)."""


class ModuleNotImplementedError(MXNetError, NotImplementedError):
    """A method a module written in Python does not (or cannot) provide."""


def _names(names):
    if names is None:
        return None
    return list(names) if isinstance(names, (list, tuple)) else [names]


def _descs(shapes):
    return [s if isinstance(s, DataDesc) else DataDesc(*s) for s in shapes]


class PythonModule(BaseModule):
    """A module without parameters computed in Python. A subclass provides
    ``_compute_output_shapes`` (called at bind, once the input shapes are
    known) and forward, backward, get_outputs and get_input_grads."""

    def __init__(self, data_names, label_names, output_names, logger=logging):
        super().__init__(logger=logger)
        self._data_names = _names(data_names) or []
        self._label_names = _names(label_names)
        self._output_names = _names(output_names) or []
        self._data_shapes = None
        self._label_shapes = None
        self._output_shapes = None

    # --- names and shapes ---------------------------------------------------
    @property
    def data_names(self):
        return self._data_names

    @property
    def label_names(self):
        return self._label_names if self._label_names is not None else []

    @property
    def output_names(self):
        return self._output_names

    @property
    def data_shapes(self):
        return self._data_shapes

    @property
    def label_shapes(self):
        """None when bound without labels (not a loss, or not for training)."""
        return self._label_shapes

    @property
    def output_shapes(self):
        return self._output_shapes

    # --- parameters: there are none -----------------------------------------
    def get_params(self):
        return ({}, {})

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        # Nothing to initialize; the flag is set so that score and predict,
        # which require initialized parameters, run on a bound PythonModule.
        # Given dicts are not checked for extra names: in a SequentialModule
        # they hold the other modules' parameters.
        self.params_initialized = True

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        self.optimizer_initialized = True

    def update(self):
        """No parameters, so nothing to update (a subclass with some overrides this)."""

    # --- binding ------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if shared_module is not None:
            raise MXNetError("shared_module is not supported by %s: it has no parameters "
                             "or executors to share" % type(self).__name__)
        if grad_req != "write":
            raise ModuleUsageError("%s supports grad_req='write' only, got %r"
                                   % (type(self).__name__, grad_req))
        data_shapes = _descs(data_shapes)
        got = [d.name for d in data_shapes]
        if got != self._data_names:
            raise ModuleUsageError("%s expects data %s (in this order), bind got %s"
                                   % (type(self).__name__, self._data_names, got))
        if label_shapes is not None:
            label_shapes = _descs(label_shapes)
            got = [d.name for d in label_shapes]
            if self._label_names is None:
                raise ModuleUsageError("%s was made without label_names but bind got labels %s"
                                       % (type(self).__name__, got))
            if got != self._label_names:
                raise ModuleUsageError("%s expects labels %s (in this order), bind got %s"
                                       % (type(self).__name__, self._label_names, got))
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._data_shapes = data_shapes
        self._label_shapes = label_shapes
        self._output_shapes = self._compute_output_shapes()
        # MXNet's PythonModule never marks itself bound; symx does, so that a
        # second bind is ignored (or forced) as for every other module.
        self.binded = True

    def _compute_output_shapes(self):
        """[(name, shape)] of the outputs, from self._data_shapes and self._label_shapes."""
        raise ModuleNotImplementedError("%s must implement _compute_output_shapes"
                                        % type(self).__name__)

    # --- computation: the subclass's ---------------------------------------
    def _missing(self, method):
        return ModuleNotImplementedError("%s must implement %s" % (type(self).__name__, method))

    def forward(self, data_batch, is_train=None):
        raise self._missing("forward")

    def backward(self, out_grads=None):
        raise self._missing("backward")

    def get_outputs(self, merge_multi_context=True):
        raise self._missing("get_outputs")

    def get_input_grads(self, merge_multi_context=True):
        raise self._missing("get_input_grads")

    def install_monitor(self, mon):
        raise ModuleNotImplementedError("install_monitor: %s runs no executor to monitor"
                                        % type(self).__name__)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """The outputs scored against ``labels``; nothing when bound without
        labels (the module is then no loss or prediction to score)."""
        if self._label_shapes is None:
            return
        if pre_sliced:
            raise MXNetError("update_metric(pre_sliced=True) is not supported by %s: it "
                             "computes on one context" % type(self).__name__)
        eval_metric.update(labels, self.get_outputs())


class PythonLossModule(PythonModule):
    """A loss written in Python: forward hands its one input (the scores)
    through as its output ``name + '_output'``; backward calls
    ``grad_func(scores, labels)`` for the gradient with respect to the scores
    (an NDArray or anything numpy takes), which get_input_grads returns. A
    subclass may override ``_backward_impl`` instead of passing grad_func."""

    def __init__(self, name="pyloss", data_names=("data",), label_names=("softmax_label",),
                 logger=logging, grad_func=None):
        data_names = _names(data_names)
        label_names = _names(label_names)
        if data_names is None or len(data_names) != 1:
            raise ModuleUsageError("PythonLossModule takes exactly one data name, got %s"
                                   % (data_names,))
        if label_names is None or len(label_names) != 1:
            raise ModuleUsageError("PythonLossModule takes exactly one label name, got %s"
                                   % (label_names,))
        if grad_func is not None and not callable(grad_func):
            raise ModuleUsageError("grad_func must be callable, got %s"
                                   % type(grad_func).__name__)
        super().__init__(data_names, label_names, [name + "_output"], logger=logger)
        self._name = name
        self._grad_func = grad_func
        self._scores = None
        self._labels = None
        self._scores_grad = None

    def _compute_output_shapes(self):
        # The scores pass through unchanged.
        return [(self._name + "_output", tuple(self._data_shapes[0].shape))]

    def forward(self, data_batch, is_train=None):
        """Keeps the scores (and, for training, the labels) for backward."""
        if not self.binded:
            raise ModuleUsageError("forward needs a bound %s" % type(self).__name__)
        if is_train is None:
            is_train = self.for_training
        if not data_batch.data:
            raise MXNetError("%s: the batch has no data" % type(self).__name__)
        self._scores = data_batch.data[0]
        if is_train:
            if not data_batch.label:
                raise MXNetError("%s: a training forward needs the batch's label %s"
                                 % (type(self).__name__, self._label_names[0]))
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context=True):
        if not merge_multi_context:
            raise MXNetError("get_outputs(merge_multi_context=False) is not supported by "
                             "PythonLossModule: it computes on one context")
        return [self._scores]

    def backward(self, out_grads=None):
        if out_grads is not None:
            raise ModuleUsageError("PythonLossModule is a loss: backward takes no out_grads")
        if not self.for_training:
            raise ModuleUsageError("backward needs a PythonLossModule bound with "
                                   "for_training=True")
        if self._scores is None or self._labels is None:
            raise MXNetError("backward needs a training forward of the PythonLossModule first")
        self._backward_impl()

    def _backward_impl(self):
        """Sets self._scores_grad from self._scores and self._labels."""
        if self._grad_func is None:
            raise ModuleNotImplementedError("PythonLossModule without grad_func: pass "
                                            "grad_func or override _backward_impl")
        grad = self._grad_func(self._scores, self._labels)
        scores = self._scores
        # The gradient goes back as the head gradient of the module before,
        # whose executor takes it only in the scores' dtype and context.
        if isinstance(grad, nd.NDArray):
            if grad.dtype != scores.dtype:
                grad = grad.astype(scores.dtype)
            if grad.context != scores.context:
                grad = grad.as_in_context(scores.context)
        else:
            grad = nd.array(np.asarray(grad), ctx=scores.context, dtype=scores.dtype)
        if tuple(grad.shape) != tuple(scores.shape):
            raise MXNetError("grad_func returned a gradient of shape %s for scores of shape %s"
                             % (tuple(grad.shape), tuple(scores.shape)))
        self._scores_grad = grad

    def get_input_grads(self, merge_multi_context=True):
        if not merge_multi_context:
            raise MXNetError("get_input_grads(merge_multi_context=False) is not supported by "
                             "PythonLossModule: it computes on one context")
        if self._scores_grad is None:
            raise MXNetError("get_input_grads needs a backward of the PythonLossModule first")
        return [self._scores_grad]
