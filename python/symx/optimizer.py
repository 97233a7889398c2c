"""mx.optimizer: MXNet 1.9.1's optimizers, updating NDArrays where they live.

Every optimizer keeps its state in NDArrays on the weight's context (from
create_state) and applies MXNet's update rule with the engine's imperative
ops, operand for operand as MXNet's fused update kernels compute it, so the
numbers are MXNet's (tests/python/golden/train_golden.json) on any device.
A learning-rate schedule (``lr_scheduler=``, mx.lr_scheduler) gives the rate
from the update count, as MXNet's optimizers read it.

As MXNet's: lr_mult/wd_mult from set_lr_mult/set_wd_mult and from the
symbol's ``__lr_mult__``/``__wd_mult__`` attributes, weight decay only on
*_weight and *_gamma unless a multiplier says otherwise, multi_precision
(a float32 master copy of float16 weights), and the Updater's states pickled
in MXNet's .states format (symx/_states_pickle.py).
"""
import warnings

import numpy as np

from .base import MXNetError
from . import _states_pickle

__all__ = ["Optimizer", "create", "register", "get_updater", "Updater"]


class Optimizer:
    """The base class: subclasses give create_state and update (MXNet's
    contract, which custom optimizers written for MXNet follow too)."""

    opt_registry = {}

    def __init__(self, rescale_grad=1.0, param_idx2name=None, wd=0.0, clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
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
        self.multi_precision = multi_precision
        self.aggregate_num = 0
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        # Update counts per device, as MXNet keeps them (its pickles hold both).
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        if param_idx2name is None:
            param_idx2name = {}
        if not isinstance(param_idx2name, dict):
            raise MXNetError("param_idx2name should be a dict of param indexes to names.")
        self.idx2name = dict(param_idx2name)
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.lr_mult = {}
        self.wd_mult = {}
        self.set_lr_mult({})
        self.set_wd_mult({})

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

    def set_lr_scale(self, args_lrscale):
        raise DeprecationWarning("set_lr_scale is deprecated: use set_lr_mult")

    def set_lr_mult(self, args_lr_mult):
        """lr multipliers by parameter name, over the symbol's __lr_mult__ attributes."""
        self.lr_mult = self._attr_mults("__lr_mult__")
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        """wd multipliers by name; names not ending in _weight or _gamma get 0, as in MXNet."""
        self.wd_mult = {}
        for name in self.idx2name.values():
            if not (name.endswith("_weight") or name.endswith("_gamma")):
                self.wd_mult[name] = 0.0
        self.wd_mult.update(self._attr_mults("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)

    def _attr_mults(self, key):
        out = {}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and key in attr[name]:
                    out[name] = float(attr[name][key])
        return out

    def _mult(self, mults, index, attr):
        # MXNet's lookup order: a gluon-style param_dict entry, the index
        # itself, then its name.
        if index in self.param_dict:
            return float(getattr(self.param_dict[index], attr))
        if index in mults:
            return float(mults[index])
        if index in self.idx2name:
            return float(mults.get(self.idx2name[index], 1.0))
        return 1.0

    def create_state(self, index, weight):
        """The state ``update`` keeps for ``weight`` (None: no state)."""
        return None

    # Where a multi_precision state keeps the float32 master copy: MXNet's
    # base class puts it first, (copy, state); its SGD, LARS and NAG, whose
    # fused mp_* operators take it last, (state, copy). .states files hold
    # these tuples, so the order is MXNet's per optimizer.
    _master_copy_last = False
    # Whether update takes lists of indices (MXNet's aggregated updates,
    # aggregate_num > 0): the SGD family's does.
    _takes_lists = False

    def create_state_multi_precision(self, index, weight):
        """With multi_precision, a float16 weight's state holds a float32
        copy and the state of that copy; update_multi_precision steps the copy."""
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            inner = self.create_state(index, master)
            return (inner, master) if self._master_copy_last else (master, inner)
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy "
                          "or slow convergence. Consider using multi_precision=True option "
                          "of the %s optimizer" % type(self).__name__, stacklevel=2)
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        """Updates NDArray ``weight`` in place from ``grad`` and ``state``."""
        raise NotImplementedError("%s does not define update" % type(self).__name__)

    def update_multi_precision(self, index, weight, grad, state):
        """update, on the float32 copy for a float16 weight with multi_precision
        (the gradient cast to float32), the weight then the copy's cast."""
        if self.multi_precision and weight.dtype == np.float16 \
                and isinstance(state, (tuple, list)):
            inner, master = (state[0], state[1]) if self._master_copy_last \
                else (state[1], state[0])
            self.update(index, master, grad.astype(np.float32), inner)
            master.astype(weight.dtype).copyto(weight)
        else:
            self.update(index, weight, grad, state)

    def _set_current_context(self, device_id):
        """Keeps update counts per device, as MXNet does for per-device updaters."""
        if device_id not in self._all_index_update_counts:
            self._all_index_update_counts[device_id] = {}
        self._index_update_count = self._all_index_update_counts[device_id]

    def _update_count(self, index):
        """Counts an update of ``index`` (or of each index of a list);
        num_update is the largest count, as in MXNet. Returns the count."""
        indices = index if isinstance(index, (list, tuple)) else [index]
        for idx in indices:
            count = self._index_update_count.get(idx, self.begin_num_update) + 1
            self._index_update_count[idx] = count
            self.num_update = max(self.num_update, count)
        return self._index_update_count[indices[-1]] if indices else None

    def _get_lrs(self, indices):
        lr = self.learning_rate
        return [lr * self._mult(self.lr_mult, i, "lr_mult") for i in indices]

    def _get_lr(self, index):
        """This update's rate for ``index``: the schedule's (or lr) times its lr_mult."""
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        return [self.wd * self._mult(self.wd_mult, i, "wd_mult") for i in indices]

    def _get_wd(self, index):
        return self._get_wds([index])[0]

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("param_dict", None)  # not pickled, as MXNet's
        return state

    def __setstate__(self, state):
        # An MXNet optimizer's pickle has MXNet's attribute names, which are
        # these; what it lacks keeps the constructor's default.
        self.__dict__.update(state)
        self.param_dict = {}
        if not self._takes_lists:
            # An optimizer that updates one weight at a time keeps doing so
            # whatever aggregate_num the pickle holds.
            self.aggregate_num = 0
        if "_all_index_update_counts" not in state:
            self._all_index_update_counts = {0: dict(state.get("_index_update_count", {}))}
        if "_index_update_count" not in state:
            self._index_update_count = self._all_index_update_counts[0]

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


# The optimizers themselves, by family.
from ._sgd_optimizers import SGD, ccSGD, LARS, LBSGD, Test  # noqa: E402
from ._nd_optimizers import (NAG, RMSProp, AdaGrad, AdaDelta, Adam, Adamax,  # noqa: E402
                             Nadam, Signum, Ftrl, FTML, DCASGD, SGLD)
from ._lamb_optimizer import LAMB  # noqa: E402
from ._adamw_optimizer import AdamW  # noqa: E402
from . import _optimizer_contrib as contrib  # noqa: E402  (mx.optimizer.contrib.GroupAdaGrad)

__all__ += ["SGD", "ccSGD", "LARS", "LBSGD", "Test", "NAG", "RMSProp", "AdaGrad", "AdaDelta",
            "Adam", "Adamax", "Nadam", "LAMB", "Signum", "Ftrl", "FTML", "DCASGD", "SGLD",
            "AdamW", "contrib"]


def create(name, **kwargs):
    """An optimizer by name ('sgd', 'adam', 'rmsprop', ...) with MXNet's keyword arguments."""
    return Optimizer.create_optimizer(name, **kwargs)


class Updater:
    """MXNet's updater: ``updater(index, grad, weight)`` makes each index's
    state on its first call and steps it; get_states/set_states pickle the
    states (and the optimizer) in MXNet's .states format."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        # States loaded by set_states move to their weight's context on first use.
        self.states_synced = {}

    @property
    def aggregate_updates(self):
        """Whether updates go in lists (the optimizer's aggregate_num > 0),
        as the optimizer held now decides (set_states may bring another)."""
        return self.optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight):
        indices = list(index) if isinstance(index, (list, tuple)) else [index]
        grads = list(grad) if isinstance(index, (list, tuple)) else [grad]
        weights = list(weight) if isinstance(index, (list, tuple)) else [weight]
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        for i, idx in enumerate(indices):
            if isinstance(idx, bytes):
                indices[i] = idx = idx.decode()
            if grads[i].shape != weights[i].shape:
                raise MXNetError("optimizer update of index %s: gradient shape %s differs from "
                                 "the weight's %s" % (idx, grads[i].shape, weights[i].shape))
            if idx not in self.states:
                self.states[idx] = self.optimizer.create_state_multi_precision(idx, weights[i])
                self.states_synced[idx] = True
            elif not self.states_synced.get(idx, True):
                self.states[idx] = self.sync_state_context(self.states[idx], weights[i].context)
                self.states_synced[idx] = True
        if not self.aggregate_updates:
            for idx, w, g in zip(indices, weights, grads):
                self.optimizer.update_multi_precision(idx, w, g, self.states[idx])
            return
        # As MXNet's Updater: weights of one dtype in lists of aggregate_num
        # (one weight too), each list one aggregated update (SGD's
        # multi_sgd_update, LAMB's _multi_lamb_update); and of one context (a
        # model split by group2ctxs has weights on several).
        groups = {}
        for idx, w, g in zip(indices, weights, grads):
            groups.setdefault((str(w.dtype), str(w.context)), []).append((idx, w, g))
        size = max(1, self.optimizer.aggregate_num)
        for group in groups.values():
            for start in range(0, len(group), size):
                idx, w, g = (list(x) for x in zip(*group[start:start + size]))
                self.optimizer.update_multi_precision(idx, w, g, [self.states[i] for i in idx])

    def sync_state_context(self, state, context):
        """``state`` (an NDArray, or tuples/lists of them) on ``context``."""
        from .ndarray import NDArray
        if isinstance(state, NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(s, context) for s in state]
            return tuple(synced) if isinstance(state, tuple) else synced
        return state

    def set_states(self, states):
        """Loads what get_states (MXNet's or symx's) returned."""
        states = _states_pickle.loads(states)
        if isinstance(states, tuple) and len(states) == 2:
            # (aggregate_updates then follows the loaded optimizer: MXNet keeps
            # the old one's choice and loops forever on an SGD's states
            # loaded into another optimizer's updater.)
            self.states, self.optimizer = states
        else:
            self.states = states
        if not isinstance(self.states, dict):
            raise MXNetError("optimizer states: expected a dict of index to state, got %s"
                             % type(self.states).__name__)
        self.states_synced = dict.fromkeys(self.states.keys(), False)

    def get_states(self, dump_optimizer=False):
        """The states pickled (with the optimizer when dump_optimizer), as MXNet's."""
        return _states_pickle.dumps((self.states, self.optimizer) if dump_optimizer
                                    else self.states)


def get_updater(optimizer):
    return Updater(optimizer)
