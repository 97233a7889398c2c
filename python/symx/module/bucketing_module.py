"""BucketingModule: one Module per bucket key sharing parameters and memory.

The default bucket binds first; every other bucket binds with the default
bucket's executors as shared_exec and their shared_buffer (MXNet's layout):
parameters, gradients and aux states are the same arrays in every bucket,
inputs are views of the default bucket's, and intermediates come from its
memory pools. The default bucket should be the largest.
"""
import logging

from ..base import MXNetError
from .. import context as ctx
from .. import initializer as _init
from .base_module import BaseModule
from .module import Module


class BucketingModule(BaseModule):
    def __init__(self, sym_gen, default_bucket_key=None, logger=logging, context=None,
                 work_load_list=None, fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None):
        super().__init__(logger=logger)
        if default_bucket_key is None:
            raise ValueError("default_bucket_key is required")
        self._sym_gen = sym_gen
        self._default_bucket_key = default_bucket_key
        self._context = context if context is not None else ctx.cpu()
        self._fixed_param_names = fixed_param_names
        self._state_names = state_names
        self._group2ctxs = group2ctxs
        self._buckets = {}
        self._monitor = None
        self._curr_module = None
        self._curr_bucket_key = None

    def _module(self, key):
        symbol, data_names, label_names = self._sym_gen(key)
        return Module(symbol, data_names, label_names, logger=self.logger, context=self._context,
                      fixed_param_names=self._fixed_param_names, state_names=self._state_names,
                      group2ctxs=self._group2ctxs)

    @property
    def symbol(self):
        return self._curr_module.symbol

    @property
    def data_names(self):
        return self._curr_module.data_names

    @property
    def output_names(self):
        return self._curr_module.output_names

    @property
    def data_shapes(self):
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        return self._curr_module.label_shapes

    @property
    def buckets(self):
        return dict(self._buckets)

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        if shared_module is not None:
            raise MXNetError("shared_module for BucketingModule is not supported")
        saved = None
        if force_rebind:
            if self.params_initialized:  # MXNet keeps the parameters across a rebind
                saved = tuple({k: v.copy() for k, v in d.items()} for d in self.get_params())
            self.binded = False
            self._buckets = {}
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        module = self._module(self._default_bucket_key)
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad, grad_req=grad_req)
        self._buckets = {self._default_bucket_key: module}
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self.binded = True
        if saved is not None:
            module.init_params(None, saved[0], saved[1], force_init=True)
            self.optimizer_initialized = False

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        if not self.binded:
            raise RuntimeError("call bind before switching bucket")
        if bucket_key not in self._buckets:
            default = self._buckets[self._default_bucket_key]
            module = self._module(bucket_key)
            module.bind(data_shapes, label_shapes, self.for_training, self.inputs_need_grad,
                        shared_module=default, grad_req=self._grad_req)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
            self._buckets[bucket_key] = module
        self._curr_module = self._buckets[bucket_key]
        self._curr_bucket_key = bucket_key

    def init_params(self, initializer=_init.Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        if self.params_initialized and not force_init:
            return
        self._buckets[self._default_bucket_key].init_params(
            initializer, arg_params, aux_params, allow_missing, force_init, allow_extra)
        self.params_initialized = True

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        self._buckets[self._default_bucket_key].set_params(
            arg_params, aux_params, allow_missing, force_init, allow_extra)
        self.params_initialized = True

    def get_params(self):
        return self._buckets[self._default_bucket_key].get_params()

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        default = self._buckets[self._default_bucket_key]
        default.init_optimizer(kvstore, optimizer, optimizer_params, force_init)
        ranks = default._exec_group.ranks if default._exec_group is not None else None
        if ranks is not None and len(self._buckets) > 1:
            # Buckets bound later take the default's ranks (their reducers sum
            # over the job); these were bound before there were ranks.
            raise MXNetError("BucketingModule over ranks: buckets %s were bound before "
                             "init_optimizer made the distributed kvstore's reducer; bind them "
                             "after it (fit does)" % sorted(k for k in self._buckets
                                                            if k != self._default_bucket_key))
        for module in self._buckets.values():
            if module is not default:
                module.borrow_optimizer(default)
        self.optimizer_initialized = True

    def forward(self, data_batch, is_train=None):
        key = data_batch.bucket_key if data_batch.bucket_key is not None else self._default_bucket_key
        self.switch_bucket(key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.forward(data_batch, is_train)

    def backward(self, out_grads=None):
        self._curr_module.backward(out_grads)

    def update(self):
        self._curr_module.update()

    def get_outputs(self, merge_multi_context=True):
        return self._curr_module.get_outputs(merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        return self._curr_module.get_input_grads(merge_multi_context)

    def install_monitor(self, mon):
        """Installs ``mon`` on every bucket's executors, present and future."""
        if not self.binded:
            raise RuntimeError("install_monitor needs a bound module")
        self._monitor = mon
        for module in self._buckets.values():
            module.install_monitor(mon)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._curr_module.update_metric(eval_metric, labels)

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        self._buckets[self._default_bucket_key].save_checkpoint(prefix, epoch,
                                                               save_optimizer_states)

    def save_optimizer_states(self, fname):
        """The buckets share one updater: the default bucket's writes its states."""
        self._buckets[self._default_bucket_key].save_optimizer_states(fname)

    def load_optimizer_states(self, fname):
        self._buckets[self._default_bucket_key].load_optimizer_states(fname)
