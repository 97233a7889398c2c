"""SequentialModule: modules run one after another, each one's outputs the
next one's data, gradients flowing back the same way.

Every module binds for the shapes the one before it outputs; from the second
on, a module bound for training also computes its input gradients, which
become the head gradients of the module before it in backward. The batch's
labels go to the modules added with take_labels=True (any of them, not only
the last), and only those update the metric. With auto_wiring=True a module
takes the previous outputs under its own data names; otherwise those outputs'
names must be its data names.

Chaining modules is less efficient than one symbol (every hand-over is a
copy), so this is a convenience, as in MXNet.
"""
import copy
import logging

from ..base import MXNetError
from ..initializer import Uniform
from ..io import DataDesc
from .base_module import BaseModule
from .python_module import ModuleUsageError

__all__ = ["SequentialModule"]


class SequentialModule(BaseModule):
    META_TAKE_LABELS = "take_labels"
    META_AUTO_WIRING = "auto_wiring"
    _META_KEYS = (META_TAKE_LABELS, META_AUTO_WIRING)

    def __init__(self, logger=logging):
        super().__init__(logger=logger)
        self._modules = []
        self._metas = []
        self._label_shapes = None
        # The data names each module was bound with (its own when auto-wired),
        # for the provide_data of the batch forward hands it.
        self._bound_data_names = []

    def add(self, module, **kwargs):
        """Appends ``module`` (keywords take_labels, auto_wiring) and returns
        self, so adds chain. Adding after bind leaves the whole chain to be
        bound, initialized and given an optimizer again (modules already bound
        keep their binding and parameters)."""
        if not isinstance(module, BaseModule):
            raise MXNetError("SequentialModule.add takes a module (a BaseModule), got %s"
                             % type(module).__name__)
        for key in kwargs:
            if key not in self._META_KEYS:
                raise ModuleUsageError('Unknown meta "%s" for SequentialModule.add (known: %s)'
                                       % (key, ", ".join(self._META_KEYS)))
        self._modules.append(module)
        self._metas.append(dict(kwargs))
        self.binded = False
        self.params_initialized = False
        self.optimizer_initialized = False
        return self

    def _takes_labels(self, i):
        return bool(self._metas[i].get(self.META_TAKE_LABELS, False))

    def _require(self, what, bound=True, params=True, optimizer=False):
        if bound and not self.binded:
            raise ModuleUsageError("%s needs a bound SequentialModule (bind again after add)"
                                   % what)
        if params and not self.params_initialized:
            raise ModuleUsageError("%s needs the SequentialModule's parameters initialized "
                                   "(init_params)" % what)
        if optimizer and not self.optimizer_initialized:
            raise ModuleUsageError("%s needs init_optimizer first" % what)

    # --- names and shapes ---------------------------------------------------
    @property
    def data_names(self):
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self):
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        self._require("data_shapes", params=False)
        return self._modules[0].data_shapes

    @property
    def label_shapes(self):
        """The batch's label shapes, or None when no module takes labels."""
        self._require("label_shapes", params=False)
        return self._label_shapes

    @property
    def output_shapes(self):
        self._require("output_shapes", params=False)
        return self._modules[-1].output_shapes

    # --- binding ------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if inputs_need_grad and not for_training:
            raise ModuleUsageError("inputs_need_grad=True needs for_training=True")
        if shared_module is not None:
            raise MXNetError("shared_module is not supported by SequentialModule")
        if not self._modules:
            raise ModuleUsageError("Attempting to bind an empty SequentialModule")
        if len(self._modules) > 1 and grad_req != "write":
            # Every module's data gradient would follow grad_req too, and an
            # accumulated input gradient handed back as the previous module's
            # head gradient would count the earlier batches again.
            raise MXNetError("grad_req=%r is not supported by a SequentialModule of several "
                             "modules (only 'write')" % (grad_req,))
        label_names = [d[0] for d in label_shapes] if label_shapes else []
        for i, module in enumerate(self._modules):
            if label_shapes and self._takes_labels(i):
                # Checked here because a Module does not feed a label it was
                # not given: it would train against an unset label input.
                wanted = list(getattr(module, "label_names", None) or [])
                missing = [n for n in wanted if n not in label_names]
                if missing:
                    raise MXNetError("module %d (%s) takes labels %s, but the labels given are "
                                     "%s" % (i, type(module).__name__, wanted, label_names))

        self.binded = False
        any_takes_labels = False
        my_data_shapes = data_shapes
        bound_names = []
        for i, module in enumerate(self._modules):
            if self._takes_labels(i):
                my_label_shapes = label_shapes
                any_takes_labels = True
            else:
                my_label_shapes = None
            # Every module after the first hands its input gradient back.
            my_inputs_need_grad = bool(inputs_need_grad or (for_training and i > 0))
            if self._metas[i].get(self.META_AUTO_WIRING, False):
                names = list(module.data_names)
                if len(names) != len(my_data_shapes):
                    raise ModuleUsageError(
                        "auto_wiring: module %d (%s) has %d data names %s for %d inputs %s"
                        % (i, type(module).__name__, len(names), names, len(my_data_shapes),
                           [d[0] for d in my_data_shapes]))
                my_data_shapes = [self._renamed(d, name) for d, name in zip(my_data_shapes, names)]
            module.bind(data_shapes=my_data_shapes, label_shapes=my_label_shapes,
                        for_training=for_training, inputs_need_grad=my_inputs_need_grad,
                        force_rebind=force_rebind, shared_module=None, grad_req=grad_req)
            bound_names.append([d[0] for d in my_data_shapes])
            my_data_shapes = module.output_shapes
        self._bound_data_names = bound_names
        self._label_shapes = label_shapes if any_takes_labels else None
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.binded = True

    @staticmethod
    def _renamed(desc, name):
        if isinstance(desc, DataDesc):
            return DataDesc(name, desc.shape, desc.dtype, desc.layout)
        return (name, tuple(desc[1]))

    # --- parameters ---------------------------------------------------------
    def get_params(self):
        """All modules' parameters merged into one (arg_params, aux_params)."""
        self._require("get_params")
        arg_params, aux_params = {}, {}
        for module in self._modules:
            arg, aux = module.get_params()
            arg_params.update(arg)
            aux_params.update(aux)
        return (arg_params, aux_params)

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        if self.params_initialized and not force_init:
            return
        self._require("init_params", params=False)
        # The given dicts hold every module's parameters; each module takes
        # its own and, as MXNet's Module.init_params, passes over the rest
        # (names no module has are ignored, as in MXNet).
        for module in self._modules:
            module.init_params(initializer=initializer, arg_params=arg_params,
                               aux_params=aux_params, allow_missing=allow_missing,
                               force_init=force_init, allow_extra=True)
        arg_owner, aux_owner = {}, {}
        for i, module in enumerate(self._modules):
            arg, aux = module.get_params()
            self._claim(arg_owner, arg, i)
            self._claim(aux_owner, aux, i)
        self.params_initialized = True

    def _claim(self, owner, names, i):
        """Records module ``i`` as the owner of ``names``; a name two modules
        use would make get_params ambiguous."""
        for name in names:
            if name in owner:
                j = owner[name]
                raise ModuleUsageError(
                    'Duplicated parameter names: name "%s" in layer %d (%s) is already used in '
                    'layer %d (%s).' % (name, i, type(self._modules[i]).__name__, j,
                                        type(self._modules[j]).__name__))
            owner[name] = i

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        self._require("init_optimizer")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        if not isinstance(optimizer, str):
            with_params = [i for i, m in enumerate(self._modules) if m.get_params()[0]]
            if len(with_params) > 1:
                # Each module numbers its parameters from 0 and names those
                # indices on the optimizer it is given: one instance cannot
                # serve two modules (their indices, lr_mult and wd_mult would
                # mix). By name, each module creates its own.
                raise MXNetError("an Optimizer instance is not supported by a SequentialModule "
                                 "whose modules %s all have parameters: pass the optimizer's "
                                 "name and optimizer_params" % with_params)
        for module in self._modules:
            module.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                                  optimizer_params=optimizer_params, force_init=force_init)
        self.optimizer_initialized = True

    # --- computation --------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        self._require("forward")
        # A shallow copy: the caller's batch keeps its data, while pad,
        # index, bucket_key and the labels travel along the chain.
        batch = copy.copy(data_batch)
        last = len(self._modules) - 1
        for i, module in enumerate(self._modules):
            module.forward(batch, is_train=is_train)
            if i == last:
                break
            batch.data = module.get_outputs()
            names = self._bound_data_names[i + 1]
            if len(names) != len(batch.data):
                raise MXNetError("module %d (%s) gave %d outputs, module %d takes %d inputs %s"
                                 % (i, type(module).__name__, len(batch.data), i + 1,
                                    len(names), names))
            # Modules that look at provide_data (BucketingModule) see the
            # shapes of this batch's hand-over, under their own names.
            batch.provide_data = [DataDesc(n, arr.shape, arr.dtype)
                                  for n, arr in zip(names, batch.data)]

    def backward(self, out_grads=None):
        self._require("backward")
        for i in range(len(self._modules) - 1, -1, -1):
            module = self._modules[i]
            module.backward(out_grads=out_grads)
            if i == 0:
                break
            out_grads = module.get_input_grads()

    def update(self):
        self._require("update", optimizer=True)
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context=True):
        self._require("get_outputs")
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._require("get_input_grads")
        if not self.inputs_need_grad:
            raise ModuleUsageError("bind the SequentialModule with inputs_need_grad=True to get "
                                   "input gradients")
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Updates ``eval_metric`` from every module added with take_labels."""
        self._require("update_metric")
        for i, module in enumerate(self._modules):
            if self._takes_labels(i):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        self._require("install_monitor", params=False)
        for module in self._modules:
            module.install_monitor(mon)
