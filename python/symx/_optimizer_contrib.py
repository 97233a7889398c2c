"""mx.optimizer.contrib: GroupAdaGrad, MXNet 1.9.1's one contributed optimizer."""
from . import ndarray as nd
from .base import MXNetError
from .optimizer import Optimizer, register

__all__ = ["GroupAdaGrad"]


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one history value per row of a 2-d weight (the mean of
    the row's squared gradients accumulates), for embeddings. Weight decay is
    not part of the rule: a nonzero wd is an error, as in MXNet."""

    def __init__(self, eps=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        if len(weight.shape) != 2:
            raise MXNetError("GroupAdaGrad updates 2-d weights; index %s has shape %s"
                             % (index, weight.shape))
        return nd.zeros((weight.shape[0], 1), ctx=weight.context)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr = self._get_lr(index)
        if self._get_wd(index) != 0:
            raise MXNetError("Weight decay is not supported for GroupAdaGrad (index %s has wd %s)"
                             % (index, self._get_wd(index)))
        grad = grad * self.rescale_grad
        if self.clip_gradient is not None:
            grad = nd.clip(grad, -self.clip_gradient, self.clip_gradient)
        state += nd.mean(nd.square(grad), axis=1, keepdims=True)
        weight -= lr * grad / nd.sqrt(state + self.float_stable_eps)
