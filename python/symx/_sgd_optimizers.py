"""The SGD family of mx.optimizer: SGD (and its old name ccSGD), LARS, LBSGD,
and MXNet's Test optimizer.

Each step is one of the engine's update operators, as MXNet's optimizers
call them (graph/ops/optimizer.cc): SGD the aggregated multi_sgd_update /
multi_sgd_mom_update (multi_mp_* for float16 weights with a float32 master
copy, multi_precision), which MXNet 1.9.1's SGD runs for every dense update,
one weight or several; LARS multi_sum_sq, multi_lars and the
preloaded_multi_* forms; LBSGD sgd_update / sgd_mom_update and their mp_
forms.
"""
import logging
import math
import os
import warnings

import numpy as np

from . import _nd_ops
from . import ndarray as nd
from .optimizer import Optimizer, register


def update_kwargs(opt, lr, wd, momentum=None, **rates):
    """The keyword arguments MXNet's optimizers give an update operator:
    lr and wd (or, given as ``rates``, the multi_ forms' lrs and wds),
    momentum when given, clip_gradient only when it is truthy (the
    operator's default, -1, is off)."""
    kwargs = dict(rates) if rates else {"lr": lr, "wd": wd}
    kwargs["rescale_grad"] = opt.rescale_grad
    if momentum is not None:
        kwargs["momentum"] = momentum
    if opt.clip_gradient:
        kwargs["clip_gradient"] = opt.clip_gradient
    return kwargs


def sgd_step(weight, grad, state, lr, wd, momentum, opt, multi_precision=False):
    """sgd_update / sgd_mom_update (state: the momentum, or None), or their
    mp_ forms (state: (momentum or None, float32 master copy)), on ``weight``
    in place; ``opt`` gives rescale_grad and clip_gradient."""
    if multi_precision:
        mom, master = state
        if mom is not None:
            nd.mp_sgd_mom_update(weight, grad, mom, master, out=weight,
                                 **update_kwargs(opt, lr, wd, momentum))
        else:
            nd.mp_sgd_update(weight, grad, master, out=weight, **update_kwargs(opt, lr, wd))
    elif state is not None:
        nd.sgd_mom_update(weight, grad, state, out=weight, **update_kwargs(opt, lr, wd, momentum))
    else:
        nd.sgd_update(weight, grad, out=weight, **update_kwargs(opt, lr, wd))


def aggregation_size(default):
    """MXNet's MXNET_OPTIMIZER_AGGREGATION_SIZE: how many weights one
    aggregated update takes (SGD and LARS default to 4)."""
    return int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", str(default)))


def multi_sgd_step(weights, grads, states, lrs, wds, momentum, opt, multi_precision=False):
    """One multi_(mp_)sgd_(mom_)update over the weights (lists), in place;
    states as sgd_step's, one per weight."""
    inputs = []
    for w, g, state in zip(weights, grads, states):
        inputs += [w, g]
        mom, master = state if multi_precision else (state, None)
        if momentum is not None:
            inputs.append(mom)
        if multi_precision:
            inputs.append(master)
    name = "multi_%ssgd_%supdate" % ("mp_" if multi_precision else "",
                                     "mom_" if momentum is not None else "")
    kwargs = update_kwargs(opt, None, None, momentum, lrs=list(lrs), wds=list(wds))
    getattr(nd, name)(*inputs, out=list(weights), num_weights=len(weights), **kwargs)


class _SGDBase(Optimizer):
    """What SGD, LARS and LBSGD share: a momentum state, and (SGD and LARS;
    LBSGD keeps the base class's order) for float16 weights with
    multi_precision a float32 master copy kept as (momentum, copy), MXNet's
    order for its mp_sgd_* operators."""

    _master_copy_last = True
    _takes_lists = True

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return None
        return nd.zeros(weight.shape, ctx=weight.context, dtype=weight.dtype)

    def _momentum(self):
        return self.momentum

    def _lr_wd(self, indices, weights, grads):
        return self._get_lrs(indices), self._get_wds(indices)

    def _update_impl(self, indices, weights, grads, states, multi_precision):
        # As MXNet's SGD: one aggregated operator over the weights given
        # (a list from the Updater, in chunks of aggregate_num, or one).
        if not isinstance(indices, (tuple, list)):
            indices, weights, grads, states = [indices], [weights], [grads], [states]
        self._update_count(list(indices))
        lrs, wds = self._lr_wd(list(indices), weights, grads)
        momentum = self._momentum() if self.momentum > 0 else None
        multi_sgd_step(weights, grads, states, lrs, wds, momentum, self, multi_precision)

    def update(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        first = weight[0] if isinstance(index, (tuple, list)) else weight
        self._update_impl(index, weight, grad, state,
                          multi_precision=self.multi_precision and first.dtype == np.float16)


@register
class SGD(_SGDBase):
    """SGD with momentum and weight decay (MXNet's multi_sgd_update /
    multi_sgd_mom_update, multi_mp_* with multi_precision)."""

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update  # only row_sparse arrays update lazily: none here
        self.aggregate_num = aggregation_size(4)


@register
class ccSGD(SGD):  # noqa: N801 (MXNet's name)
    """The name MXNet keeps for SGD from its C++ optimizer days."""


@register
class LARS(_SGDBase):
    """You et al.'s layer-wise adaptive rate scaling: each weight's rate is
    lr * eta * |w| / (|g| + wd * |w| + eps), but for biases, gammas and
    betas; with momentum_correction the momentum scales by the schedule's
    rate change."""

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0,
                 momentum_correction=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.eta = eta
        self.eps = eps
        self.skip = 0
        self.last_lr = None
        self.cur_lr = None
        self.aggregate_num = aggregation_size(4)

    def _get_lrs(self, indices):
        # The previous and current base rates, for the momentum correction.
        if self.cur_lr is not None:
            self.last_lr = self.cur_lr
        lr = self.learning_rate
        if self.cur_lr is None:
            self.last_lr = lr
        self.cur_lr = lr
        return [lr * self._mult(self.lr_mult, i, "lr_mult") for i in indices]

    def set_wd_mult(self, args_wd_mult):
        # LARS decays only *_weight (not *_gamma), as MXNet's.
        self.wd_mult = {}
        for name in self.idx2name.values():
            if not name.endswith("_weight"):
                self.wd_mult[name] = 0.0
        self.wd_mult.update(self._attr_mults("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)

    def _momentum(self):
        if self.momentum_correction and self.last_lr != 0:
            return self.momentum * (self.cur_lr / self.last_lr)
        return self.momentum

    def _update_impl(self, indices, weights, grads, states, multi_precision):
        # MXNet's aggregated LARS (every dense update): the layers that get
        # their own rate first, their rates from multi_sum_sq and
        # multi_lars, then preloaded_multi_(mp_)sgd_(mom_)update over
        # aggregate_num weights at a time with the rates as arrays.
        if not isinstance(indices, (tuple, list)):
            indices, weights, grads, states = [indices], [weights], [grads], [states]
        indices = list(indices)
        self._update_count(indices)
        lrs, wds = self._get_lrs(indices), self._get_wds(indices)
        kwargs = {"rescale_grad": self.rescale_grad}
        if self.momentum > 0:
            kwargs["momentum"] = self._momentum()
        if self.clip_gradient:
            kwargs["clip_gradient"] = self.clip_gradient
        names = [self.idx2name.get(i, str(i)) for i in indices]
        fixed = [n.endswith("gamma") or n.endswith("beta") or n.endswith("bias") for n in names]
        order = [k for k in range(len(indices)) if not fixed[k]] + \
                [k for k in range(len(indices)) if fixed[k]]
        nb_lars = fixed.count(False)
        ctx = weights[0].context
        new_lrs = np.array([lrs[k] for k in order], dtype=np.float32)
        new_wds = np.array([wds[k] for k in order], dtype=np.float32)
        ws = [weights[k] for k in order]
        gs = [grads[k] for k in order]
        sts = [states[k] for k in order]
        if nb_lars > 0:
            w_sum_sq = _nd_ops.invoke("multi_sum_sq", *ws[:nb_lars], num_arrays=nb_lars)
            g_sum_sq = _nd_ops.invoke("multi_sum_sq", *gs[:nb_lars], num_arrays=nb_lars)
            scaled = _nd_ops.invoke("multi_lars", nd.array(new_lrs[:nb_lars], ctx=ctx),
                                    w_sum_sq, g_sum_sq, nd.array(new_wds[:nb_lars], ctx=ctx),
                                    eta=self.eta, eps=self.eps, rescale_grad=self.rescale_grad)
            new_lrs[:nb_lars] = scaled.asnumpy()
        for start in range(0, len(ws), max(1, self.aggregate_num)):
            end = min(start + max(1, self.aggregate_num), len(ws))
            inputs = []
            for k in range(start, end):
                mom, master = sts[k] if multi_precision else (sts[k], None)
                inputs += [ws[k], gs[k]]
                if self.momentum > 0:
                    inputs.append(mom)
                if multi_precision:
                    inputs.append(master)
            inputs += [nd.array(new_lrs[start:end], ctx=ctx), nd.array(new_wds[start:end], ctx=ctx)]
            name = "preloaded_multi_%ssgd_%supdate" % ("mp_" if multi_precision else "",
                                                       "mom_" if self.momentum > 0 else "")
            _nd_ops.invoke(name, *inputs, out=ws[start:end], num_weights=end - start, **kwargs)


@register
class LBSGD(_SGDBase):
    """Large-batch SGD: gradients summed over batch_scale updates before one
    step, its rate raised during warmup_epochs (linear, power2, sqrt) or by a
    LARS ratio ('lars')."""

    def __init__(self, momentum=0.0, multi_precision=False, warmup_strategy="linear",
                 warmup_epochs=5, batch_scale=1, updates_per_epoch=32, begin_epoch=0,
                 num_epochs=60, **kwargs):
        super().__init__(multi_precision=multi_precision, **kwargs)
        logging.info("Running Large-Batch SGD Algorithm")
        logging.info("(Batch_scale=%f, warmup_epochs=%d, warmup_strategy=%s, "
                     "updates_per_epoch=%d)", batch_scale, warmup_epochs, warmup_strategy,
                     updates_per_epoch)
        self.momentum = momentum
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        self.lbmult = 1
        self.cumgrads = {}
        self.adaptive = False
        self.admult = 1

    # MXNet's LBSGD overrides neither multi-precision method: through the
    # Updater its state is the base class's (float32 copy, state of the copy)
    # and each step runs on the copy with a float32 gradient (so a summed
    # gradient is a float32 copy, never the executor's own buffer).
    _master_copy_last = False
    _takes_lists = False
    create_state_multi_precision = Optimizer.create_state_multi_precision
    update_multi_precision = Optimizer.update_multi_precision

    def create_state(self, index, weight):
        # A float16 weight given directly (not through the Updater) takes
        # its copy here, as MXNet's create_state does.
        if self.multi_precision and weight.dtype == np.float16:
            mom = None
            if self.momentum != 0.0:
                mom = nd.zeros(weight.shape, ctx=weight.context, dtype=np.float32)
            return (mom, weight.astype(np.float32))
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy "
                          "or slow convergence. Consider using multi_precision=True option "
                          "of the SGD optimizer", stacklevel=2)
        return super().create_state(index, weight)

    def _get_lbmult(self, nup):
        warmup = self.warmup_epochs * self.updates_per_epoch
        top = float(self.batch_scale)
        if nup >= warmup:
            return top
        if warmup <= 1:
            return 1.0
        if self.warmup_strategy == "linear":
            return 1.0 + (top - 1) * nup / warmup
        if self.warmup_strategy == "power2":
            return 1.0 + (top - 1) * (nup * nup) / (warmup * warmup)
        if self.warmup_strategy == "sqrt":
            return 1.0 + (top - 1) * math.sqrt(float(nup) / warmup)
        return 1.0

    def _get_lars(self, weight, grad, wd):
        w2 = float(np.sum((weight * weight).asnumpy()))
        g2 = float(np.sum((grad * grad).asnumpy()))
        return min(max(math.sqrt(w2 / (g2 + wd * w2 + 1e-18)), 0.01), 100)

    def _cumulate_gradient(self, grad, index):
        entry = self.cumgrads.get(index)
        if entry and entry["num_cums"] > 0:
            entry = {"cum_grad": entry["cum_grad"] + grad, "num_cums": entry["num_cums"] + 1}
        else:
            entry = {"cum_grad": grad, "num_cums": self.init_updates + 1}
        self.cumgrads[index] = entry
        return entry

    def update(self, index, weight, grad, state):
        lr, wd = self._get_lr(index), self._get_wd(index)
        self._update_count(index)
        entry = self._cumulate_gradient(grad, index)
        if entry["num_cums"] % self.batch_scale == 0:
            grad = entry["cum_grad"] / self.batch_scale
            if self.warmup_strategy == "lars":
                mult = self._get_lars(weight, grad, wd)
            else:
                mult = self._get_lbmult(entry["num_cums"])
            momentum = self.momentum if self.momentum > 0 else None
            sgd_step(weight, grad, state, lr * mult, wd, momentum, self,
                     isinstance(state, (list, tuple)))
            entry["cum_grad"] = 0
        else:
            # MXNet still runs sgd_update with lr 0: the weight keeps its value.
            nd.sgd_update(weight, grad, out=weight, lr=0.0, wd=wd)

    def update_multi_precision(self, index, weight, grad, state):
        self.update(index, weight, grad, state)


@register
class Test(Optimizer):
    """MXNet's test optimizer: adds the rescaled gradient; the state copies the weight."""

    def create_state(self, index, weight):
        return nd.zeros(weight.shape, ctx=weight.context)

    def update(self, index, weight, grad, state):
        weight += grad * self.rescale_grad
        state[:] = weight
