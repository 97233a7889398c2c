"""The adaptive optimizers of mx.optimizer, written on the engine's imperative
ops (symx/_nd_ops.py): NAG, RMSProp (plain and centered), AdaGrad, AdaDelta,
Adam, Adamax, Nadam, Signum (SignSGD without momentum), Ftrl, FTML,
DCASGD, SGLD. (The SGD family is in symx/_sgd_optimizers.py.)

Where MXNet runs a fused update operator (nag_mom_update, adam_update,
rmsprop_update, rmspropalex_update, signum_update, signsgd_update,
ftrl_update, ftml_update, lamb_update_phase1/2) so does symx, the engine's
operator of the same name and arithmetic (graph/ops/optimizer.cc); the others
are MXNet's own Python arithmetic on the imperative ops
(tests/python/golden/train_golden.json holds MXNet's weights after each
step). The state lives in NDArrays on the weight's context, so these run
wherever the weight is.
"""
import math

import numpy as np

from . import ndarray as nd
from .optimizer import Optimizer, register
from ._sgd_optimizers import update_kwargs


class _NDArrayOptimizer(Optimizer):
    """Base: state from create_state, the rule in _step."""

    def _momentum_kwarg(self):
        # MXNet passes momentum only when it is > 0 (else the op's default, 0).
        return self.momentum if self.momentum > 0 else None

    def update(self, index, weight, grad, state):
        t = self._update_count(index)
        self._step(index, weight, grad, state, self._get_lr(index), self._get_wd(index), t)

    def _step(self, index, weight, grad, state, lr, wd, t):
        raise NotImplementedError


def _zeros_like(weight):
    return nd.zeros(weight.shape, ctx=weight.context, dtype=weight.dtype)


@register
class NAG(_NDArrayOptimizer):
    """Nesterov momentum (MXNet's nag_mom_update; plain SGD without momentum)."""

    _master_copy_last = True  # (momentum, float32 copy), as mp_nag_mom_update takes them

    def __init__(self, momentum=0.0, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _step(self, index, weight, grad, mom, lr, wd, t):
        if mom is None:
            nd.sgd_update(weight, grad, out=weight, **update_kwargs(self, lr, wd))
        else:
            # MXNet's nag_mom_update writes the weight before it updates the
            # momentum, whose weight decay so reads the new weight: kept.
            nd.nag_mom_update(weight, grad, mom, out=weight,
                              **update_kwargs(self, lr, wd, self._momentum_kwarg()))

    def update_multi_precision(self, index, weight, grad, state):
        if self.multi_precision and weight.dtype == np.float16 \
                and isinstance(state, (tuple, list)):
            self._update_count(index)
            lr, wd = self._get_lr(index), self._get_wd(index)
            mom, master = state
            if mom is None:
                nd.mp_sgd_update(weight, grad, master, out=weight, **update_kwargs(self, lr, wd))
            else:
                nd.mp_nag_mom_update(weight, grad, mom, master, out=weight,
                                     **update_kwargs(self, lr, wd, self._momentum_kwarg()))
        else:
            self.update(index, weight, grad, state)


@register
class RMSProp(_NDArrayOptimizer):
    """Tieleman & Hinton's RMSProp, or Graves' centered form (rmspropalex)."""

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
                 centered=False, clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1, self.gamma2, self.epsilon = gamma1, gamma2, epsilon
        self.centered = centered
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        if self.centered:
            return (_zeros_like(weight), _zeros_like(weight), _zeros_like(weight))
        return (_zeros_like(weight),)

    def _step(self, index, weight, grad, state, lr, wd, t):
        kwargs = update_kwargs(self, lr, wd)
        kwargs.update(gamma1=self.gamma1, epsilon=self.epsilon)
        if self.clip_weights:
            kwargs["clip_weights"] = self.clip_weights
        if not self.centered:
            nd.rmsprop_update(weight, grad, state[0], out=weight, **kwargs)
        else:
            n, g, delta = state
            nd.rmspropalex_update(weight, grad, n, g, delta, out=weight, gamma2=self.gamma2,
                                  **kwargs)


@register
class AdaGrad(_NDArrayOptimizer):
    """Duchi et al.'s AdaGrad: steps scaled by the root of the summed squares."""

    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        return _zeros_like(weight)

    def _step(self, index, weight, grad, history, lr, wd, t):
        g = grad * self.rescale_grad
        if self.clip_gradient is not None:
            g = nd.clip(g, -self.clip_gradient, self.clip_gradient)
        history += nd.square(g)
        div = g / nd.sqrt(history + self.float_stable_eps)
        weight += (div + weight * wd) * -lr


@register
class AdaDelta(_NDArrayOptimizer):
    """Zeiler's AdaDelta (no learning rate: the steps set their own scale)."""

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho, self.epsilon = rho, epsilon

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

    def _step(self, index, weight, grad, state, lr, wd, t):
        g = grad * self.rescale_grad
        if self.clip_gradient is not None:
            g = nd.clip(g, -self.clip_gradient, self.clip_gradient)
        acc_g, acc_delta = state
        acc_g *= self.rho
        acc_g += (1.0 - self.rho) * g * g
        delta = nd.sqrt(acc_delta + self.epsilon) / nd.sqrt(acc_g + self.epsilon) * g
        acc_delta *= self.rho
        acc_delta += (1.0 - self.rho) * delta * delta
        weight -= delta + wd * weight


@register
class Adam(_NDArrayOptimizer):
    """Kingma & Ba's Adam: MXNet's adam_update with the bias corrections
    folded into the rate (lr * sqrt(1 - beta2^t) / (1 - beta1^t))."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))  # mean, variance

    def _step(self, index, weight, grad, state, lr, wd, t):
        lr *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        mean, var = state
        nd.adam_update(weight, grad, mean, var, out=weight, beta1=self.beta1, beta2=self.beta2,
                       epsilon=self.epsilon, **update_kwargs(self, lr, wd))


@register
class Adamax(_NDArrayOptimizer):
    """Adam with the infinity norm (Kingma & Ba, section 7)."""

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2 = beta1, beta2

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

    def _step(self, index, weight, grad, state, lr, wd, t):
        lr /= (1.0 - self.beta1 ** t)
        g = grad * self.rescale_grad + wd * weight
        if self.clip_gradient is not None:
            g = nd.clip(g, -self.clip_gradient, self.clip_gradient)
        m, u = state
        m *= self.beta1
        m += (1.0 - self.beta1) * g
        u[:] = nd.maximum(self.beta2 * u, abs(g))
        weight -= lr * m / u


@register
class Nadam(_NDArrayOptimizer):
    """Adam with Nesterov momentum (Dozat), with its momentum schedule."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.0  # shared by every index, as MXNet's

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

    def _step(self, index, weight, grad, state, lr, wd, t):
        g = grad * self.rescale_grad + wd * weight
        if self.clip_gradient is not None:
            g = nd.clip(g, -self.clip_gradient, self.clip_gradient)
        mom_t = self.beta1 * (1.0 - 0.5 * pow(0.96, t * self.schedule_decay))
        mom_next = self.beta1 * (1.0 - 0.5 * pow(0.96, (t + 1) * self.schedule_decay))
        self.m_schedule = self.m_schedule * mom_t
        m_schedule_next = self.m_schedule * mom_next
        m, v = state
        m *= self.beta1
        m += (1.0 - self.beta1) * g
        v *= self.beta2
        v += (1.0 - self.beta2) * g * g
        g_prime = g / (1.0 - self.m_schedule)
        m_prime = m / (1.0 - m_schedule_next)
        v_prime = v / (1.0 - pow(self.beta2, t))
        m_bar = (1.0 - mom_t) * g_prime + mom_next * m_prime
        weight -= lr * m_bar / (nd.sqrt(v_prime) + self.epsilon)


@register
class Signum(_NDArrayOptimizer):
    """Steps of the sign of a momentum (signum_update), or of the gradient
    when momentum is 0 (signsgd_update); wd_lh: decoupled weight decay."""

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum, self.wd_lh = momentum, wd_lh

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _step(self, index, weight, grad, mom, lr, wd, t):
        if mom is None:
            # signsgd_update: only the gradient's sign counts.
            nd.signsgd_update(weight, grad, out=weight, **update_kwargs(self, lr, wd))
        else:
            nd.signum_update(weight, grad, mom, out=weight, wd_lh=self.wd_lh,
                             **update_kwargs(self, lr, wd, self._momentum_kwarg()))


@register
class Ftrl(_NDArrayOptimizer):
    """McMahan et al.'s FTRL-Proximal (ftrl_update)."""

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(**kwargs)
        self.lamda1, self.beta = lamda1, beta
        self.lr = learning_rate

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))  # z, n

    def _step(self, index, weight, grad, state, lr, wd, t):
        z, n = state
        nd.ftrl_update(weight, grad, z, n, out=weight, lamda1=self.lamda1, beta=self.beta,
                       **update_kwargs(self, lr, wd))


@register
class FTML(_NDArrayOptimizer):
    """Zheng & Kwok's Follow the Moving Leader (ftml_update)."""

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(**kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight), _zeros_like(weight))  # d, v, z

    def _step(self, index, weight, grad, state, lr, wd, t):
        d, v, z = state
        kwargs = {"lr": lr, "wd": wd, "rescale_grad": self.rescale_grad, "t": t,
                  "beta1": self.beta1, "beta2": self.beta2, "epsilon": self.epsilon}
        if self.clip_gradient:
            kwargs["clip_grad"] = self.clip_gradient  # FTML's operator calls it clip_grad
        nd.ftml_update(weight, grad, d, v, z, out=weight, **kwargs)


@register
class DCASGD(_NDArrayOptimizer):
    """Delay-compensated asynchronous SGD (Zheng et al.)."""

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(**kwargs)
        self.momentum, self.lamda = momentum, lamda

    def create_state(self, index, weight):
        mom = _zeros_like(weight) if self.momentum != 0.0 else None
        return (mom, weight.copy())  # momentum, previous weight

    def _step(self, index, weight, grad, state, lr, wd, t):
        g = grad * self.rescale_grad
        if self.clip_gradient is not None:
            g = nd.clip(g, -self.clip_gradient, self.clip_gradient)
        mom, previous = state
        step = -lr * (g + wd * weight + self.lamda * g * g * (weight - previous))
        if mom is not None:
            mom *= self.momentum
            mom += step
            step = mom
        previous[:] = weight
        weight += step


@register
class SGLD(_NDArrayOptimizer):
    """Stochastic gradient Langevin dynamics: half a gradient step plus
    N(0, lr) noise (drawn on the host from a generator mx.random.seed seeds;
    not MXNet's stream)."""

    def create_state(self, index, weight):
        return None

    def _step(self, index, weight, grad, state, lr, wd, t):
        from . import random as _random
        g = grad * self.rescale_grad
        if self.clip_gradient is not None:
            g = nd.clip(g, -self.clip_gradient, self.clip_gradient)
        weight += -lr / 2 * (g + wd * weight)
        noise = _random._host_generator().normal(0.0, math.sqrt(lr), weight.shape)
        weight += nd.array(noise, ctx=weight.context, dtype=weight.dtype)
