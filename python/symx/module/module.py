"""Module: a symbol bound for training or inference on one or several contexts."""
import logging
import os
import warnings

from ..base import MXNetError
from .. import context as ctx
from .. import initializer as _init
from .. import model as _model
from .. import ndarray as nd
from .. import optimizer as opt
from ..io import DataDesc
from .base_module import BaseModule
from .executor_group import DataParallelExecutorGroup, merge_on_first_context


def _descs(shapes):
    if shapes is None:
        return []
    return [s if isinstance(s, DataDesc) else DataDesc(*s) for s in shapes]


def _module_kvstore(kvstore):
    """The KVStore a Module was given: None for a one-process type's name or
    None (the module sums its contexts' gradients itself, as MXNet's local
    and device stores do), the store itself, or a distributed store made
    from its name (its ranks sum the gradients with the engine's reducer)."""
    from .. import kvstore as kvs
    if kvstore is None:
        return None
    if isinstance(kvstore, kvs.KVStore):
        return kvstore
    if isinstance(kvstore, str):
        kv = kvs.create(kvstore)  # refuses dist_async and unknown names
        return kv if isinstance(kv, kvs.DistKVStore) else None
    raise MXNetError("kvstore must be a type name or a KVStore, got %s" % type(kvstore).__name__)


class Module(BaseModule):
    """MXNet's Module. ``context`` may be a list: then every batch is split over the
    contexts and their gradients summed by the engine (data parallelism)."""

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=logging, context=None, work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        if context is None:
            context = ctx.cpu()
        self._context = list(context) if isinstance(context, (list, tuple)) else [context]
        if work_load_list is not None and len(set(work_load_list)) > 1:
            raise MXNetError("work_load_list with unequal loads is not supported; the batch is "
                             "split evenly over the contexts")
        # Model parallelism: nodes with attribute ctx_group run on the group's
        # context (per replica; see prepare_group2ctxs for the forms).
        self._group2ctxs = group2ctxs
        self._symbol = symbol
        self._data_names = list(data_names or [])
        self._label_names = list(label_names or [])
        self._state_names = list(state_names or [])
        self._fixed_param_names = list(fixed_param_names or [])
        args = symbol.list_arguments()
        for kind, names, fatal in (("data", self._data_names, True),
                                   ("label", self._label_names, False),
                                   ("state", self._state_names, True)):
            for n in names:
                if n not in args:
                    msg = ("You created Module with Module(..., %s_names=%s) but input with name "
                           "'%s' is not found in symbol.list_arguments(). Did you mean one of:\n\t%s"
                           % (kind, names, n, "\n\t".join(args)))
                    if fatal:
                        raise ValueError(msg)
                    warnings.warn(msg, stacklevel=2)  # MXNet only warns for labels
        inputs = set(self._data_names + self._label_names + self._state_names)
        self._param_names = [n for n in args if n not in inputs]
        self._aux_names = symbol.list_auxiliary_states()
        self._output_names = symbol.list_outputs()
        self._arg_params = None
        self._aux_params = None
        self._exec_group = None
        self._optimizer = None
        self._updater = None
        self._index_of = None
        self._data_shapes = self._label_shapes = None
        self._grad_req = "write"
        self._preload_opt_states = None

    # --- checkpoints --------------------------------------------------------
    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A Module from a checkpoint (parameters set at bind); with
        load_optimizer_states, init_optimizer loads prefix-%04d.states."""
        sym, args, auxs = _model.load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._arg_params = args
        mod._aux_params = auxs
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = "%s-%04d.states" % (prefix, epoch)
        return mod

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        """prefix-symbol.json, prefix-%04d.params and, with
        save_optimizer_states, prefix-%04d.states (MXNet's three files)."""
        self._symbol.save("%s-symbol.json" % prefix)
        arg_params, aux_params = self.get_params()
        _model.save_checkpoint(prefix, epoch, None, arg_params, aux_params)
        logging.info('Saved checkpoint to "%s-%04d.params"', prefix, epoch)
        if save_optimizer_states:
            state_name = "%s-%04d.states" % (prefix, epoch)
            self.save_optimizer_states(state_name)
            logging.info('Saved optimizer state to "%s"', state_name)

    def save_optimizer_states(self, fname):
        """Writes the updater's states in MXNet's .states format (whole or not at all)."""
        if not self.optimizer_initialized:
            raise RuntimeError("save_optimizer_states needs init_optimizer first")
        data = self._updater.get_states()
        tmp = "%s.tmp%d" % (fname, os.getpid())
        try:
            with open(tmp, "wb") as fout:
                fout.write(data)
                fout.flush()
                os.fsync(fout.fileno())
            os.replace(tmp, fname)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)

    def load_optimizer_states(self, fname):
        """Loads states saved by save_optimizer_states (MXNet's or symx's);
        on any error the module keeps the states it had."""
        if not self.optimizer_initialized:
            raise RuntimeError("load_optimizer_states needs init_optimizer first")
        try:
            with open(fname, "rb") as fin:
                data = fin.read()
        except OSError as e:
            raise MXNetError("cannot read optimizer states %s: %s" % (fname, e.strerror)) from None
        # Into a fresh updater, swapped in only once every state checks.
        updater = opt.get_updater(self._optimizer)
        try:
            updater.set_states(data)
        except MXNetError as e:
            raise MXNetError("%s: %s" % (fname, e)) from None
        names = updater.optimizer.idx2name or dict(enumerate(self._param_names))
        self._rekey_by_index(updater, names, fname)
        self._check_loaded_states(updater, names, fname)
        # The updater object stays (BucketingModule's buckets share it).
        self._updater.__dict__.update(updater.__dict__)
        self._optimizer = updater.optimizer

    @staticmethod
    def _rekey_by_index(updater, names, fname):
        """MXNet's Module over several contexts updates on its kvstore, whose
        states are keyed by parameter name: key them by index as here."""
        index_of = {n: i for i, n in names.items()}
        rekeyed = {}
        for key, state in updater.states.items():
            if isinstance(key, bytes):
                key = key.decode()
            if isinstance(key, str):
                if key not in index_of:
                    raise MXNetError("%s: state for parameter '%s', which this module does not "
                                     "have" % (fname, key))
                key = index_of[key]
            rekeyed[key] = state
        updater.states = rekeyed
        updater.states_synced = dict.fromkeys(rekeyed, False)

    def _check_loaded_states(self, updater, names, fname):
        """A state file for another net or optimizer fails here, naming the
        parameter, rather than at some later update: each loaded state must
        have the layout (arrays' shapes, None where no array) of a fresh one."""
        from ..ndarray import NDArray

        def layout(state):
            if isinstance(state, NDArray):
                return state.shape
            if isinstance(state, (tuple, list)):
                return tuple(layout(s) for s in state)
            return None if state is None else type(state).__name__

        optimizer = updater.optimizer
        first = self._exec_group.execs[0]
        for index, state in updater.states.items():
            name = names.get(index)
            if name is None or name not in first.arg_dict:
                raise MXNetError("%s: state for index %r, which is no parameter of this module"
                                 % (fname, index))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fresh = optimizer.create_state_multi_precision(index, first.arg_dict[name])
            if layout(state) != layout(fresh):
                raise MXNetError("%s: the state of %s is %s; %s with this parameter keeps %s"
                                 % (fname, name, layout(state), type(optimizer).__name__,
                                    layout(fresh)))

    # --- names and shapes ---------------------------------------------------
    @property
    def data_names(self):
        return self._data_names

    @property
    def label_names(self):
        return self._label_names

    @property
    def output_names(self):
        return self._output_names

    @property
    def data_shapes(self):
        return self._data_shapes

    @property
    def label_shapes(self):
        return self._label_shapes

    @property
    def output_shapes(self):
        outs = self._exec_group.get_outputs()
        return list(zip(self._output_names, [o.shape for o in outs]))

    # --- parameters ---------------------------------------------------------
    def get_params(self):
        if not (self.binded and self.params_initialized):
            raise RuntimeError("get_params needs a bound module with initialized parameters")
        self._exec_group.get_params(self._arg_params, self._aux_params)
        return (self._arg_params, self._aux_params)

    def init_params(self, initializer=_init.Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. init_params call "
                          "ignored.", stacklevel=2)
            return
        if not self.binded:
            raise RuntimeError("call bind before initializing the parameters")
        attrs = self._symbol.attr_dict()

        def fill(name, arr, given):
            if given is not None and name in given:
                src = given[name]
                if src.shape != arr.shape:
                    raise MXNetError("parameter %s: the given array has shape %s, the module "
                                     "needs %s" % (name, src.shape, arr.shape))
                arr[:] = src
            elif given is not None and not allow_missing:
                raise RuntimeError("%s is not presented" % name)
            elif initializer is not None:
                initializer(_init.InitDesc(name, attrs.get(name, {})), arr)

        for name in self._param_names:
            fill(name, self._arg_params[name], arg_params)
        for name in self._aux_names:
            fill(name, self._aux_params[name], aux_params)
        # Names the module does not have are ignored here, as MXNet's
        # init_params ignores them (set_params with allow_missing refuses them).
        self.params_initialized = True
        self._exec_group.set_params(self._arg_params, self._aux_params)

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        if allow_missing and not allow_extra:
            # MXNet copies straight into the executors then, which refuse
            # names they do not have.
            for given, known in ((arg_params, self._param_names), (aux_params, self._aux_names)):
                for name in (given or {}):
                    if name not in known:
                        raise ValueError('Find name "%s" that is not in the arguments' % name)
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init,
                         allow_extra=allow_extra)

    # --- binding ------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        if force_rebind:
            self.binded = False
            self._exec_group = None
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        self._data_shapes = _descs(data_shapes)
        self._label_shapes = _descs(label_shapes) if label_shapes else []
        names = [d.name for d in self._data_shapes]
        if sorted(names) != sorted(self._data_names):
            raise ValueError("Data provided by data_shapes don't match names specified by "
                             "data_names (%s vs. %s)" % (names, self._data_names))
        shared_group = None
        if shared_module is not None:
            if not (shared_module.binded and shared_module.params_initialized):
                raise MXNetError("shared_module must be bound with initialized parameters")
            shared_group = shared_module._exec_group
        self._exec_group = DataParallelExecutorGroup(
            self._symbol, self._context, self._data_shapes, self._label_shapes,
            self._param_names, for_training, inputs_need_grad, shared_group, grad_req,
            self._fixed_param_names, self._group2ctxs)
        self.binded = True
        if shared_module is not None:
            self.params_initialized = True
            self._arg_params = shared_module._arg_params
            self._aux_params = shared_module._aux_params
        elif self.params_initialized:
            # Loaded (Module.load): the checkpoint's values go into the executors.
            self._exec_group.set_params(self._arg_params, self._aux_params)
        else:
            spec = self._exec_group.array_spec  # (shape, dtype), held here or not
            self._arg_params = {n: nd.zeros(spec(n)[0], dtype=spec(n)[1])
                                for n in self._param_names}
            self._aux_params = {n: nd.zeros(spec(n)[0], dtype=spec(n)[1])
                                for n in self._aux_names}
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)

    def reshape(self, data_shapes, label_shapes=None):
        """Rebinds for new input shapes, sharing parameters and memory with the old binding."""
        if not self.binded:
            raise RuntimeError("reshape needs a bound module")
        self._data_shapes = _descs(data_shapes)
        self._label_shapes = _descs(label_shapes) if label_shapes else []
        self._exec_group = DataParallelExecutorGroup(
            self._symbol, self._context, self._data_shapes, self._label_shapes,
            self._param_names, self.for_training, self.inputs_need_grad, self._exec_group,
            self._grad_req, self._fixed_param_names, self._group2ctxs)

    # --- optimizer ----------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        if not (self.binded and self.params_initialized):
            raise RuntimeError("init_optimizer needs a bound module with initialized parameters")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring...")
            return
        kv = _module_kvstore(kvstore)
        batch_size = self._exec_group.batch_size
        if kv is not None and "dist" in kv.type and "_sync" in kv.type:
            # MXNet's rule: the optimizer averages over the global batch.
            batch_size *= kv.num_workers
        idx2name = dict(enumerate(self._param_names))
        if isinstance(optimizer, str):
            params = dict(optimizer_params)
            params.setdefault("rescale_grad", 1.0 / batch_size)
            optimizer = opt.create(optimizer, sym=self._symbol, param_idx2name=idx2name, **params)
        else:
            if optimizer.rescale_grad != 1.0 / batch_size:
                warnings.warn("Optimizer created manually outside Module but rescale_grad is not "
                              "normalized to 1.0/batch_size/num_workers (%s vs. %s). Is this "
                              "intended?" % (optimizer.rescale_grad, 1.0 / batch_size), stacklevel=2)
            if not optimizer.idx2name:
                # MXNet names the indices and nothing else: the multipliers
                # stay as the optimizer made them (a bias keeps its weight
                # decay when the optimizer was built without names).
                optimizer.idx2name = dict(idx2name)
        self._optimizer = optimizer
        self._updater = opt.get_updater(optimizer)
        if kv is not None:
            # MXNet updates on the kvstore: its updater is the module's, so
            # kv.save_optimizer_states saves what the module steps.
            kv._set_updater(self._updater)
        ranks = getattr(kv, "ranks", None)
        if ranks is not None and ranks.size > 1 and self._exec_group.bind_ranks is not None:
            raise MXNetError("kvstore '%s' with group2ctxs across ranks (data x model parallel "
                             "over ranks) is not supported: a cross-rank Module trains its "
                             "stages on their ranks without a kvstore" % kv.type)
        if ranks is not None and ranks.size > 1:
            # Every rank starts from rank 0's parameters and sums gradients
            # over the job (MXNet: kvstore init + pull, then push/pull per
            # step); each rank then takes the same update step.
            self._exec_group.set_ranks(ranks)
        self._kvstore = kv
        self._index_of = {n: i for i, n in optimizer.idx2name.items()}
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def borrow_optimizer(self, shared_module):
        """Uses ``shared_module``'s optimizer (BucketingModule's buckets share one)."""
        self._optimizer = shared_module._optimizer
        self._updater = shared_module._updater
        self._index_of = shared_module._index_of
        self.optimizer_initialized = True

    # --- computation --------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        if not (self.binded and self.params_initialized):
            raise RuntimeError("forward needs a bound module with initialized parameters")
        if is_train is None:
            is_train = self.for_training
        shapes = [d.shape for d in data_batch.data]
        if shapes != [d.shape for d in self._data_shapes]:
            new_data = [DataDesc(d.name, s, d.dtype) for d, s in zip(self._data_shapes, shapes)]
            new_label = None
            if data_batch.label and self._label_shapes:
                new_label = [DataDesc(d.name, l.shape, d.dtype)
                             for d, l in zip(self._label_shapes, data_batch.label)]
            self.reshape(new_data, new_label)
        self._exec_group.forward(data_batch, is_train)

    def backward(self, out_grads=None):
        self._exec_group.backward(out_grads=out_grads)

    def update(self):
        if not self.optimizer_initialized:
            raise RuntimeError("call init_optimizer before update")
        self._exec_group.update(self._updater, self._index_of)

    def get_outputs(self, merge_multi_context=True):
        return self._exec_group.get_outputs(merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        if not self.inputs_need_grad:
            raise RuntimeError("bind with inputs_need_grad=True to get input gradients")
        return self._exec_group.get_input_grads(merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._exec_group.update_metric(eval_metric, labels)

    def get_states(self, merge_multi_context=True):
        """The state inputs (``state_names``): per state, the replicas' arrays
        joined along the batch axis on the first context, or (merge off) a
        list of them per state."""
        if not (self.binded and self.params_initialized):
            raise RuntimeError("get_states needs a bound module with initialized parameters")
        states = [[exe.arg_dict[name] for exe in self._exec_group.execs]
                  for name in self._state_names]
        if not merge_multi_context:
            return states
        return [s[0] if len(s) == 1 else merge_on_first_context(s) for s in states]

    def set_states(self, states=None, value=None):
        """Sets the state inputs from ``states`` (as get_states(False) gives
        them: per state, one array per replica) or all to the number ``value``."""
        if not (self.binded and self.params_initialized):
            raise RuntimeError("set_states needs a bound module with initialized parameters")
        if (states is None) == (value is None):
            raise ValueError("set_states takes exactly one of states and value")
        execs = self._exec_group.execs
        if value is not None:
            for name in self._state_names:
                for exe in execs:
                    exe.arg_dict[name][:] = value
            return
        if len(states) != len(self._state_names):
            raise ValueError("set_states: %d states given for %d state names (%s)"
                             % (len(states), len(self._state_names), self._state_names))
        for name, per_replica in zip(self._state_names, states):
            if not isinstance(per_replica, (list, tuple)):
                per_replica = [per_replica]
            if len(per_replica) != len(execs):
                raise ValueError("set_states: state %s has %d arrays for %d contexts"
                                 % (name, len(per_replica), len(execs)))
            for exe, arr in zip(execs, per_replica):
                dst = exe.arg_dict[name]
                if tuple(arr.shape) != dst.shape:
                    raise ValueError("set_states: state %s has shape %s, the module binds %s"
                                     % (name, tuple(arr.shape), dst.shape))
                dst[:] = arr

    def install_monitor(self, mon):
        """Installs mx.mon.Monitor ``mon`` on every replica's executor."""
        if not self.binded:
            raise RuntimeError("install_monitor needs a bound module")
        for exe in self._exec_group.execs:
            mon.install(exe)
