"""AdamW (Loshchilov & Hutter's decoupled weight decay) on MXNet's
_adamw_update / _multi_adamw_update operators, as MXNet 2.0's optimizer of
the name runs them (MXNet 1.9.1 registers the operators, which gluon-nlp's
BERT recipes call, but has no optimizer class for them):

    lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)    (correct_bias)
    w -= lr_t * (mean / (sqrt(var) + epsilon) + wd * w)

rescale_grad goes to the operator as an array, and a step whose rescale is 0
or not finite is skipped (the dynamic loss scaling contract). Given lists by
the Updater, the weights update aggregate_num at a time
(MXNET_OPTIMIZER_AGGREGATION_SIZE, default 4, at most 50) with one
_multi_adamw_update; with multi_precision a float16 weight's state is
((mean, var), float32 copy), MXNet 2.0's order, stepped by the _mp_ forms.
"""
import math
import os

import numpy as np

from . import _nd_ops
from . import ndarray as nd
from .optimizer import Optimizer, register


@register
class AdamW(Optimizer):
    """Adam with weight decay decoupled from the gradient (see the module)."""

    _master_copy_last = True
    _takes_lists = True

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 correct_bias=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.correct_bias = correct_bias
        self.aggregate_num = max(1, min(50, int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE",
                                                          "4"))))

    def create_state(self, index, weight):
        zeros = lambda: nd.zeros(weight.shape, ctx=weight.context, dtype=weight.dtype)  # noqa
        return (zeros(), zeros())  # mean, variance

    def _etas(self, indices):
        lrs = self._get_lrs(indices)
        if not self.correct_bias:
            return lrs
        etas = []
        for idx, lr in zip(indices, lrs):
            t = self._index_update_count[idx]
            etas.append(lr * math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t))
        return etas

    def _kwargs(self):
        kwargs = {"beta1": self.beta1, "beta2": self.beta2, "epsilon": self.epsilon}
        if self.clip_gradient:
            kwargs["clip_gradient"] = self.clip_gradient
        return kwargs

    def _step(self, indices, weights, grads, states, multi_precision):
        if not isinstance(indices, (tuple, list)):
            indices, weights, grads, states = [indices], [weights], [grads], [states]
        self._update_count(list(indices))
        etas = self._etas(list(indices))
        wds = self._get_wds(list(indices))
        rescale = nd.array([self.rescale_grad], ctx=weights[0].context, dtype=np.float32)
        if len(weights) == 1:
            w, g, s = weights[0], grads[0], states[0]
            if multi_precision:
                (mean, var), master = s
                _nd_ops.invoke("_mp_adamw_update", w, g, mean, var, master, rescale, out=w,
                               lr=1.0, wd=wds[0], eta=etas[0], **self._kwargs())
            else:
                mean, var = s
                _nd_ops.invoke("_adamw_update", w, g, mean, var, rescale, out=w, lr=1.0,
                               wd=wds[0], eta=etas[0], **self._kwargs())
            return
        inputs = []
        for w, g, s in zip(weights, grads, states):
            if multi_precision:
                (mean, var), master = s
                inputs += [w, g, mean, var, master]
            else:
                mean, var = s
                inputs += [w, g, mean, var]
        inputs.append(rescale)
        name = "_multi_mp_adamw_update" if multi_precision else "_multi_adamw_update"
        _nd_ops.invoke(name, *inputs, out=list(weights), num_weights=len(weights),
                       lrs=[1.0] * len(weights), wds=wds, etas=etas, **self._kwargs())

    def update(self, index, weight, grad, state):
        self._step(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        first = weight[0] if isinstance(index, (tuple, list)) else weight
        self._step(index, weight, grad, state,
                   multi_precision=self.multi_precision and first.dtype == np.float16)
