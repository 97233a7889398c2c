"""LAMB (You et al.): an Adam direction scaled per layer by |w| / |direction|,
the weight norm bounded by lower_bound/upper_bound when given; MXNet 1.9.1's
two paths, each on its operators:

- one index (not a list, or aggregate_num <= 1): lamb_update_phase1 then
  lamb_update_phase2 with the norms of the weight and the direction (with
  multi_precision, of the float32 copy, stepped as the base class does);
- a list, as MXNet's Updater gives every update (aggregate_num:
  MXNET_OPTIMIZER_AGGREGATION_SIZE, default 45, at most 45): counts, rates
  and decays per index in order, then one _multi_lamb_update (or
  _multi_mp_lamb_update for float16 weights with multi_precision, whose
  weight norm is the float16 weights', as MXNet's) per aggregate_num weights.

A float16 weight's multi_precision state is (float32 copy, (mean, var)),
MXNet's order.
"""
import os

import numpy as np

from . import _nd_ops
from . import ndarray as nd
from .optimizer import Optimizer, register


@register
class LAMB(Optimizer):
    """You et al.'s LAMB (see the module)."""

    _takes_lists = True

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 lower_bound=None, upper_bound=None, bias_correction=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        self.bias_correction = bias_correction
        self.aggregate_num = max(1, min(45, int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE",
                                                          "45"))))

    def create_state(self, index, weight):
        zeros = lambda: nd.zeros(weight.shape, ctx=weight.context, dtype=weight.dtype)  # noqa
        return (zeros(), zeros())  # mean, variance

    def _bounds(self):
        bounds = {}
        if self.lower_bound:
            bounds["lower_bound"] = self.lower_bound
        if self.upper_bound:
            bounds["upper_bound"] = self.upper_bound
        return bounds

    def _one(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        kwargs = {"beta1": self.beta1, "beta2": self.beta2, "epsilon": self.epsilon,
                  "bias_correction": self.bias_correction, "rescale_grad": self.rescale_grad,
                  "t": self._index_update_count[index], "wd": wd}
        if self.clip_gradient:
            kwargs["clip_gradient"] = self.clip_gradient
        mean, var = state
        g = nd.lamb_update_phase1(weight, grad, mean, var, **kwargs)
        nd.lamb_update_phase2(weight, g, weight.norm(), g.norm(), lr=lr, out=weight,
                              **self._bounds())

    def _many(self, indices, weights, grads, states, multi_precision):
        kwargs = {"beta1": self.beta1, "beta2": self.beta2, "epsilon": self.epsilon,
                  "bias_correction": self.bias_correction, "rescale_grad": self.rescale_grad}
        if self.clip_gradient:
            kwargs["clip_gradient"] = self.clip_gradient
        kwargs.update(self._bounds())
        steps, lrs, wds = [], [], []
        for i in indices:  # as MXNet: each index counted, then its rate read
            self._update_count(i)
            steps.append(self._index_update_count[i])
            lrs.append(self._get_lr(i))
            wds.append(self._get_wd(i))
        for start in range(0, len(weights), self.aggregate_num):
            end = min(start + self.aggregate_num, len(weights))
            inputs = []
            for k in range(start, end):
                if multi_precision:
                    master, (mean, var) = states[k]
                    inputs += [weights[k], grads[k], mean, var, master]
                else:
                    mean, var = states[k]
                    inputs += [weights[k], grads[k], mean, var]
            name = "_multi_mp_lamb_update" if multi_precision else "_multi_lamb_update"
            _nd_ops.invoke(name, *inputs, out=list(weights[start:end]),
                           learning_rates=lrs[start:end], wds=wds[start:end],
                           step_count=steps[start:end], num_tensors=end - start, **kwargs)

    def update(self, index, weight, grad, state):
        if isinstance(index, (tuple, list)) and self.aggregate_num > 1:
            self._many(list(index), list(weight), list(grad), list(state), False)
            return
        if isinstance(index, (tuple, list)):
            for i, w, g, s in zip(index, weight, grad, state):
                self._one(i, w, g, s)
            return
        self._one(index, weight, grad, state)

    def update_multi_precision(self, index, weight, grad, state):
        first = weight[0] if isinstance(index, (tuple, list)) else weight
        multi_precision = self.multi_precision and first.dtype == np.float16
        if isinstance(index, (tuple, list)) and self.aggregate_num > 1:
            self._many(list(index), list(weight), list(grad), list(state), multi_precision)
            return
        indices = list(index) if isinstance(index, (tuple, list)) else [index]
        weights = list(weight) if isinstance(index, (tuple, list)) else [weight]
        grads = list(grad) if isinstance(index, (tuple, list)) else [grad]
        states = list(state) if isinstance(index, (tuple, list)) else [state]
        for i, w, g, s in zip(indices, weights, grads, states):
            Optimizer.update_multi_precision(self, i, w, g, s)
