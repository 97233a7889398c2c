"""MXNet 1.9.1's Python wrappers of the contrib update ops in mx.nd.contrib
(python/mxnet/ndarray/contrib.py): adamw_update, mp_adamw_update,
multi_adamw_update, multi_mp_adamw_update, multi_lamb_update and
multi_mp_lamb_update, with MXNet's signatures. They call the registered
_adamw_update, ... ops (mx.nd._internal): the AdamW ones turn a Python
rescale_grad into a float32 (1,) array on the weight's context, and the
multi-tensor ones interleave their lists per tensor."""
from . import _nd_ops


def _rescale_array(rescale_grad, ctx):
    from .ndarray import NDArray, full
    if isinstance(rescale_grad, NDArray):
        return rescale_grad.as_in_context(ctx)
    return full((1,), rescale_grad, ctx=ctx, dtype="float32")


def _tuple(v):
    """MXNet's tuple attributes take one value for one tensor too."""
    return tuple(v) if isinstance(v, (list, tuple)) else (v,)


def _interleave(*lists):
    return [a for group in zip(*lists) for a in group]


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """AdamW's step (decoupled weight decay, no bias correction); nothing
    happens when rescale_grad is 0, NaN or infinite."""
    rescale = _rescale_array(rescale_grad, weight.context)
    return _nd_ops.invoke("_adamw_update", weight, grad, mean, var, rescale, lr=lr, eta=eta,
                          beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
                          clip_gradient=clip_gradient, out=out, name=name, **kwargs)


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9,
                    beta2=0.999, epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None,
                    **kwargs):
    """adamw_update on the float32 master copy weight32."""
    rescale = _rescale_array(rescale_grad, weight.context)
    return _nd_ops.invoke("_mp_adamw_update", weight, grad, mean, var, weight32, rescale, lr=lr,
                          eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
                          clip_gradient=clip_gradient, out=out, name=name, **kwargs)


def multi_adamw_update(weights, grads, mean, var, rescale_grad, lrs, wds, etas, out=None,
                       name=None, size=0, **kwargs):
    """adamw_update on up to 50 weights at once (lrs, wds, etas: one each)."""
    rescale = _rescale_array(rescale_grad, weights[0].context)
    inputs = _interleave(weights, grads, mean, var) + [rescale]
    return _nd_ops.invoke("_multi_adamw_update", *inputs, out=out,
                          num_weights=size or len(weights), lrs=_tuple(lrs), wds=_tuple(wds),
                          etas=_tuple(etas), name=name, **kwargs)


def multi_mp_adamw_update(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas,
                          out=None, name=None, size=0, **kwargs):
    """multi_adamw_update on the float32 master copies weights32."""
    rescale = _rescale_array(rescale_grad, weights[0].context)
    inputs = _interleave(weights, grads, mean, var, weights32) + [rescale]
    return _nd_ops.invoke("_multi_mp_adamw_update", *inputs, out=out,
                          num_weights=size or len(weights), lrs=_tuple(lrs), wds=_tuple(wds),
                          etas=_tuple(etas), name=name, **kwargs)


def multi_lamb_update(weights, grads, mean, var, step_count, lrs, wds, out=None, num_tensors=0,
                      **kwargs):
    """LAMB on up to 45 tensors at once (step_count, lrs, wds: one each)."""
    inputs = _interleave(weights, grads, mean, var)
    return _nd_ops.invoke("_multi_lamb_update", *inputs, out=out,
                          num_tensors=num_tensors or len(weights),
                          step_count=_tuple(step_count),
                          learning_rates=_tuple(lrs), wds=_tuple(wds), **kwargs)


def multi_mp_lamb_update(weights, grads, mean, var, weights32, step_count, lrs, wds, out=None,
                         num_tensors=0, **kwargs):
    """multi_lamb_update on the float32 master copies weights32 (the trust
    ratio's weight norm from the float16 weights, as MXNet)."""
    inputs = _interleave(weights, grads, mean, var, weights32)
    return _nd_ops.invoke("_multi_mp_lamb_update", *inputs, out=out,
                          num_tensors=num_tensors or len(weights),
                          step_count=_tuple(step_count),
                          learning_rates=_tuple(lrs), wds=_tuple(wds), **kwargs)


WRAPPERS = (adamw_update, mp_adamw_update, multi_adamw_update, multi_mp_adamw_update,
            multi_lamb_update, multi_mp_lamb_update)


# mx.sym.contrib's two (MXNet has no symbol forms of the multi_ ones): a
# Python rescale_grad becomes a full((1,)) node, as MXNet's do.
def _rescale_symbol(rescale_grad):
    from .symbol import Symbol, full
    return rescale_grad if isinstance(rescale_grad, Symbol) else full(shape=(1,),
                                                                      val=rescale_grad)


def sym_adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                     epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """The symbol of adamw_update (mean and var are its auxiliary states)."""
    from .symbol import _internal
    return _internal._adamw_update(weight=weight, grad=grad, mean=mean, var=var,
                                   rescale_grad=_rescale_symbol(rescale_grad), lr=lr, eta=eta,
                                   beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
                                   clip_gradient=clip_gradient, name=name, **kwargs)


def sym_mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9,
                        beta2=0.999, epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None,
                        **kwargs):
    """The symbol of mp_adamw_update."""
    from .symbol import _internal
    return _internal._mp_adamw_update(weight=weight, grad=grad, mean=mean, var=var,
                                      weight32=weight32,
                                      rescale_grad=_rescale_symbol(rescale_grad), lr=lr,
                                      eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
                                      clip_gradient=clip_gradient, name=name, **kwargs)


SYMBOL_WRAPPERS = {"adamw_update": sym_adamw_update, "mp_adamw_update": sym_mp_adamw_update}
