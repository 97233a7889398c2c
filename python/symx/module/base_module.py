"""BaseModule: the training loop (fit), score and predict over any module."""
import logging
import time
from collections import namedtuple

import numpy as np

from .. import metric as _metric
from .. import ndarray as nd
from ..initializer import Uniform
from ..kvstore import logs_here
from .executor_group import merge_on_first_context

BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


def _as_list(obj):
    if obj is None:
        return []
    return list(obj) if isinstance(obj, (list, tuple)) else [obj]


class BaseModule:
    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None

    @property
    def symbol(self):
        return self._symbol

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Sets parameter values: init_params without an initializer, so every
        parameter comes from the dicts (fit calls this at each epoch's end)."""
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init,
                         allow_extra=allow_extra)

    def forward_backward(self, data_batch):
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None,
              score_end_callback=None, reset=True, epoch=0, sparse_row_id_fn=None):
        """The metric over ``eval_data`` (inference): [(name, value)]."""
        if not (self.binded and self.params_initialized):
            raise RuntimeError("score needs a bound module with initialized parameters")
        if reset:
            eval_data.reset()
        eval_metric = _metric.create(eval_metric)
        eval_metric.reset()
        nbatch = 0
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.forward(eval_batch, is_train=False)
            self.update_metric(eval_metric, eval_batch.label)
            for callback in _as_list(batch_end_callback):
                callback(BatchEndParam(epoch, nbatch, eval_metric, locals()))
        for callback in _as_list(score_end_callback):
            callback(BatchEndParam(epoch, nbatch, eval_metric, locals()))
        return eval_metric.get_name_value()

    def iter_predict(self, eval_data, num_batch=None, reset=True):
        if reset:
            eval_data.reset()
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.forward(eval_batch, is_train=False)
            pad = eval_batch.pad or 0
            # None: an output another rank holds (a Module split across ranks).
            outputs = [out if out is None else out[0:out.shape[0] - pad]
                       for out in self.get_outputs()]
            yield (outputs, nbatch, eval_batch)

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True,
                always_output_list=False, sparse_row_id_fn=None):
        """Outputs over ``eval_data`` with the padding rows removed."""
        if isinstance(eval_data, (nd.NDArray, np.ndarray)):
            from ..io import NDArrayIter
            eval_data = NDArrayIter(eval_data, batch_size=self.data_shapes[0].shape[0])
        outputs = [[None if o is None else o.copy() for o in outs]
                   for outs, _, _ in self.iter_predict(eval_data, num_batch, reset)]
        if not outputs:
            return []
        if not merge_batches:
            return outputs
        merged = [None if outputs[0][i] is None else
                  merge_on_first_context([outs[i] for outs in outputs])
                  for i in range(len(outputs[0]))]
        if len(merged) == 1 and not always_output_list:
            return merged[0]
        return merged

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", optimizer="sgd",
            optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=Uniform(0.01), arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False,
            begin_epoch=0, num_epoch=None, validation_metric=None, monitor=None,
            sparse_row_id_fn=None):
        """Trains for epochs [begin_epoch, num_epoch), logging one line per epoch for the
        training metric, its time and the validation metric."""
        if num_epoch is None:
            raise ValueError("please specify number of epochs")
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        self.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                            optimizer_params=optimizer_params)
        if monitor is not None:
            self.install_monitor(monitor)
        if validation_metric is None:
            validation_metric = eval_metric
        eval_metric = _metric.create(eval_metric)
        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            for nbatch, data_batch in enumerate(train_data):
                if monitor is not None:
                    monitor.tic()
                self.forward_backward(data_batch)
                self.update()
                self.update_metric(eval_metric, data_batch.label)
                if monitor is not None:
                    monitor.toc_print()
                for callback in _as_list(batch_end_callback):
                    callback(BatchEndParam(epoch, nbatch, eval_metric, locals()))
            # The epoch's whole metric, whatever callbacks reset locally;
            # in an mpirun job, logged by one rank (kvstore.logs_here).
            log = logs_here()
            for name, val in eval_metric.get_global_name_value():
                if log:
                    self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, val)
            if log:
                self.logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
            # As MXNet's fit: the replicas' averaged aux states (BatchNorm's
            # moving statistics) go back into every replica.
            arg_params, aux_params = self.get_params()
            self.set_params(arg_params, aux_params)
            for callback in _as_list(epoch_end_callback):
                callback(epoch, self.symbol, arg_params, aux_params)
            if eval_data is not None:
                res = self.score(eval_data, validation_metric,
                                 score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    if log:
                        self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, val)
            train_data.reset()
