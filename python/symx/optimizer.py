"""mx.optimizer: SGD (momentum, weight decay) and Adam, updated by the engine.

A learning-rate schedule (``lr_scheduler=``, mx.lr_scheduler) sets the
engine's rate before each update from the update count, as MXNet's
optimizers read it.

The update rules and their state are the engine's (train/optimizer.h);
this module keeps MXNet's constructor arguments and its per-parameter
multipliers: lr_mult/wd_mult from set_lr_mult/set_wd_mult and from the
symbol's ``__lr_mult__``/``__wd_mult__`` attributes, and weight decay only on
*_weight and *_gamma unless a multiplier says otherwise.
"""
import warnings

from .base import _core, MXNetError

__all__ = ["Optimizer", "SGD", "Adam", "create", "register", "get_updater", "Updater"]


class Optimizer:
    """Base class; subclasses build their engine optimizer in ``_make``."""

    opt_registry = {}

    def __init__(self, rescale_grad=1.0, param_idx2name=None, wd=0.0, clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
        if multi_precision:
            raise MXNetError("multi_precision is not supported: symx's optimizers update float32 "
                             "and float64 weights")
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        # As MXNet: the optimizer's rate, when given, is the schedule's base.
        if lr_scheduler is not None and learning_rate is not None \
                and lr_scheduler.base_lr != learning_rate:
            warnings.warn("learning rate from ``lr_scheduler`` has been overwritten by "
                          "``learning_rate`` in optimizer.", stacklevel=2)
            lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.clip_gradient = clip_gradient
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._index_update_count = {}
        self.idx2name = dict(param_idx2name or {})
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.lr_mult = {}
        self.wd_mult = {}
        self._engine = None
        self._pushed = set()  # indices whose multipliers the engine holds
        self.set_lr_mult({})
        self.set_wd_mult({})

    # The engine object is made on first use, so attributes set after
    # construction (rescale_grad by Module.init_optimizer) are honoured.
    def _handle(self):
        if self._engine is None:
            clip = -1.0 if self.clip_gradient is None else float(self.clip_gradient)
            self._engine = self._make(float(self.learning_rate), float(self.wd),
                                      float(self.rescale_grad), clip)
            self._engine.set_begin_num_update(int(self.begin_num_update))
            self._push_multipliers()
        return self._engine

    def _make(self, lr, wd, rescale_grad, clip_gradient):
        raise NotImplementedError

    @property
    def learning_rate(self):
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined: "
                              "set_learning_rate changes the rate only of an optimizer "
                              "without one")
        self.lr = lr

    # MXNet reads lr, wd, clip_gradient and rescale_grad on every update, so
    # assigning them (opt.lr = ..., as Module.init_optimizer does for
    # rescale_grad) must reach an engine that already exists.
    def __setattr__(self, key, value):
        super().__setattr__(key, value)
        engine = self.__dict__.get("_engine")
        if engine is None:
            return
        if key == "lr" and value is not None:
            engine.lr = float(value)
        elif key == "rescale_grad":
            engine.set_rescale_grad(float(value))
        elif key == "wd":
            engine.set_wd(float(value))
        elif key == "clip_gradient":
            engine.set_clip_gradient(-1.0 if value is None else float(value))

    def set_lr_mult(self, args_lr_mult):
        """lr multipliers by parameter name, over the symbol's __lr_mult__ attributes."""
        self.lr_mult = self._attr_mults("__lr_mult__")
        self.lr_mult.update(args_lr_mult)
        self._push_multipliers()

    def set_wd_mult(self, args_wd_mult):
        """wd multipliers by name; names not ending in _weight or _gamma get 0, as in MXNet."""
        self.wd_mult = {}
        for name in self.idx2name.values():
            if not (name.endswith("_weight") or name.endswith("_gamma")):
                self.wd_mult[name] = 0.0
        self.wd_mult.update(self._attr_mults("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)
        self._push_multipliers()

    def set_idx2name(self, idx2name, sym=None):
        """Names the indices (Module does this for an optimizer given as an instance)."""
        self.idx2name = dict(idx2name)
        if sym is not None:
            self.sym_info = (sym.attr_dict(), sym.list_arguments())
        self.set_lr_mult({})
        self.set_wd_mult({})

    def _attr_mults(self, key):
        out = {}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and key in attr[name]:
                    out[name] = float(attr[name][key])
        return out

    def _mult(self, mults, index):
        # MXNet's lookup order: the index itself, then its name.
        if index in mults:
            return float(mults[index])
        if index in self.idx2name:
            return float(mults.get(self.idx2name[index], 1.0))
        return 1.0

    def _push_multipliers(self):
        if self._engine is None:
            return
        # Indices pushed before are pushed again, so a multiplier dropped by a
        # later set_lr_mult goes back to 1.
        indices = set(self.idx2name) | self._pushed
        indices |= {k for k in list(self.lr_mult) + list(self.wd_mult) if isinstance(k, int)}
        for index in indices:
            self._engine.set_lr_mult(index, self._mult(self.lr_mult, index))
            self._engine.set_wd_mult(index, self._mult(self.wd_mult, index))
        self._pushed = indices

    def create_state(self, index, weight):
        """None: the engine creates and keeps each index's state on its first update."""
        return None

    def _update_count(self, index):
        """Counts an update of ``index``; returns its count. num_update is the
        largest per-index count, as in MXNet."""
        count = self._index_update_count.get(index, self.begin_num_update) + 1
        self._index_update_count[index] = count
        self.num_update = max(self.num_update, count)
        return count

    def _get_lr(self, index):
        """This update's rate for ``index``: the schedule's (or lr) times its lr_mult."""
        return float(self.learning_rate) * self._mult(self.lr_mult, index)

    def _get_wd(self, index):
        return float(self.wd) * self._mult(self.wd_mult, index)

    def update(self, index, weight, grad, state):
        """Updates NDArray ``weight`` in place from ``grad``."""
        self._update_count(index)
        engine = self._handle()
        if self.lr_scheduler is not None:
            engine.lr = float(self.lr_scheduler(self.num_update))
        engine.update(int(index), weight._t, grad._t)

    @staticmethod
    def register(klass):
        Optimizer.opt_registry[klass.__name__.lower()] = klass
        return klass

    @staticmethod
    def create_optimizer(name, **kwargs):
        if name.lower() not in Optimizer.opt_registry:
            raise ValueError("Cannot find optimizer %s (symx has %s)"
                             % (name, ", ".join(sorted(Optimizer.opt_registry))))
        return Optimizer.opt_registry[name.lower()](**kwargs)


register = Optimizer.register


@register
class SGD(Optimizer):
    """SGD with momentum and weight decay (MXNet's sgd_update / sgd_mom_update)."""

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def _make(self, lr, wd, rescale_grad, clip_gradient):
        return _core.SGD(lr, wd, rescale_grad, clip_gradient, float(self.momentum))


@register
class Adam(Optimizer):
    """Adam (MXNet's adam_update with bias-corrected learning rate)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon

    def _make(self, lr, wd, rescale_grad, clip_gradient):
        return _core.Adam(lr, wd, rescale_grad, clip_gradient, float(self.beta1),
                          float(self.beta2), float(self.epsilon))


# The optimizers written on the engine's imperative ops (NAG, RMSProp, ...).
from ._nd_optimizers import (NAG, RMSProp, AdaGrad, AdaDelta, Adamax, Nadam,  # noqa: E402
                             Signum, Ftrl, FTML, DCASGD, SGLD)

__all__ += ["NAG", "RMSProp", "AdaGrad", "AdaDelta", "Adamax", "Nadam", "Signum", "Ftrl", "FTML",
            "DCASGD", "SGLD"]


def create(name, **kwargs):
    """An optimizer by name ('sgd', 'adam', 'rmsprop', ...) with MXNet's keyword arguments."""
    return Optimizer.create_optimizer(name, **kwargs)


class Updater:
    """MXNet's updater: ``updater(index, grad, weight)``."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}

    def __call__(self, index, grad, weight):
        if index not in self.states:
            self.states[index] = self.optimizer.create_state(index, weight)
        self.optimizer.update(index, weight, grad, self.states[index])


def get_updater(optimizer):
    return Updater(optimizer)
