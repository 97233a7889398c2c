"""The executors of one Module: a replica per context, data parallel.

Each context binds the whole symbol for its rows of the batch (shares differ
by at most one row). After backward the engine's GradientReducer
(data_parallel/gradient_reducer.h) has summed every parameter's gradient over
the replicas, overlapped with backward; the optimizer then updates replica 0
and the other replicas take copies, so several devices train exactly as one
does on the whole batch.
"""
import threading

import numpy as np

from ..base import _core, MXNetError
from .. import kvstore
from .. import ndarray as nd
from ..io import DataDesc
from ..symbol import _job_ranks_for


def split_batch(batch_size, num_parts):
    """[(begin, end)] rows of each part, sizes differing by at most one."""
    if batch_size < num_parts:
        raise MXNetError("batch size %d is smaller than the %d contexts it is split over"
                         % (batch_size, num_parts))
    base, extra = divmod(batch_size, num_parts)
    slices, begin = [], 0
    for i in range(num_parts):
        end = begin + base + (1 if i < extra else 0)
        slices.append((begin, end))
        begin = end
    return slices



def prepare_group2ctxs(group2ctxs, num_replicas):
    """One ctx_group -> Context map per replica from MXNet's forms: None; a
    list of maps, one per replica; or one map whose values are a Context
    (every replica) or a list of one Context per replica."""
    if group2ctxs is None:
        return [None] * num_replicas
    if isinstance(group2ctxs, (list, tuple)):
        if len(group2ctxs) != num_replicas:
            raise MXNetError("group2ctxs has %d maps for %d contexts: give one per context"
                             % (len(group2ctxs), num_replicas))
        return [dict(g) if g is not None else None for g in group2ctxs]
    if not isinstance(group2ctxs, dict):
        raise TypeError("group2ctxs must be a dict or a list of dicts, got %s"
                        % type(group2ctxs).__name__)
    maps = [{} for _ in range(num_replicas)]
    for group, value in group2ctxs.items():
        if isinstance(value, (list, tuple)):
            if len(value) != num_replicas:
                raise MXNetError("group2ctxs['%s'] has %d contexts for %d replicas"
                                 % (group, len(value), num_replicas))
            for m, c in zip(maps, value):
                m[group] = c
        else:
            for m in maps:
                m[group] = value
    return maps


def merge_on_first_context(arrays, axis=0):
    """The arrays of several devices joined along the batch axis on the
    first one's context, as MXNet merges per-device outputs; an array
    without a batch axis (axis -1) is the same on every device: the first."""
    if axis < 0 or len(arrays) == 1:
        return arrays[0]
    ctx = arrays[0].context
    return nd.concat(*[a.as_in_context(ctx) for a in arrays], dim=axis)


def slice_batch(arr, axis, begin, end):
    """Rows [begin, end) of ``arr`` along its batch axis (a view on axis 0);
    the whole array when it has none (axis -1)."""
    if axis < 0:
        return arr
    if axis == 0:
        return arr[begin:end]
    return nd.slice_axis(arr, axis=axis, begin=begin, end=end)


def _axis(desc):
    return DataDesc.get_batch_axis(getattr(desc, "layout", None))

class DataParallelExecutorGroup:
    def __init__(self, symbol, contexts, data_shapes, label_shapes, param_names, for_training,
                 inputs_need_grad, shared_group=None, grad_req="write", fixed_param_names=(),
                 group2ctxs=None):
        self.symbol = symbol
        self.contexts = contexts
        self.group2ctxs = prepare_group2ctxs(group2ctxs, len(contexts))
        self.param_names = list(param_names)
        self.data_shapes = list(data_shapes)
        # Labels the symbol does not read (Module warned) are not bound.
        arg_names = set(symbol.list_arguments())
        self.label_shapes = [d for d in label_shapes or [] if d.name in arg_names]
        self.for_training = for_training
        # Each input is split along its layout's batch axis ('N': axis 1 of a
        # "TNC" sequence), as MXNet does; inputs without one go whole to
        # every replica.
        self.axes = {d.name: _axis(d) for d in self.data_shapes + self.label_shapes}
        batched = [d for d in self.data_shapes + self.label_shapes if self.axes[d.name] >= 0]
        if not batched:
            raise MXNetError("no input has a batch axis (N) in its layout: %s"
                             % [(d.name, getattr(d, "layout", None)) for d in self.data_shapes])
        first = batched[0]
        self.batch_size = first.shape[self.axes[first.name]]
        for desc in batched:
            size = desc.shape[self.axes[desc.name]]
            if size != self.batch_size:
                raise MXNetError("all inputs need the same batch size: %s has %d, %s has %d"
                                 % (first.name, self.batch_size, desc.name, size))
        self.output_axes = [DataDesc.get_batch_axis(symbol[name].attr("__layout__"))
                            for name in symbol.list_outputs()]
        self.slices = split_batch(self.batch_size, len(contexts))
        self.shared_data_arrays = (shared_group.shared_data_arrays if shared_group is not None
                                   else [{} for _ in contexts])
        data_names = [d.name for d in self.data_shapes]
        label_names = [d.name for d in self.label_shapes]
        req = {}
        for name in symbol.list_arguments():
            if name in self.param_names:
                req[name] = grad_req if for_training and name not in fixed_param_names else "null"
            elif name in data_names:
                req[name] = grad_req if inputs_need_grad else "null"
            else:
                req[name] = "null"
        self.grad_params = [n for n in self.param_names if req.get(n, "null") != "null"]
        # grad_req='add': each replica accumulates its own gradients, and the
        # sum over replicas is taken at update (as MXNet's kvstore does), not
        # by the reducer during backward, which writes each backward's sum
        # into every replica (adding the next one on top would count the
        # earlier ones again).
        self.has_add = any(req.get(n) == "add" for n in self.grad_params)
        # The job's ranks (a distributed kvstore's; set_ranks), kept by the
        # groups a reshape makes from this one.
        self.ranks = shared_group.ranks if shared_group is not None else None
        types = {d.name: d.dtype for d in self.data_shapes + self.label_shapes}
        # A cross-rank bind (group2ctxs naming another rank's device): every
        # rank binds the same symbol and holds its own stages' arrays.
        self.bind_ranks = None
        for ctx, g2c in zip(contexts, self.group2ctxs):
            self.bind_ranks = self.bind_ranks or _job_ranks_for(ctx, g2c)
        if self.bind_ranks is not None and len(contexts) > 1:
            raise MXNetError("Module over %d contexts whose group2ctxs name other ranks' devices "
                             "(data x model parallel across ranks) is not supported; bind one "
                             "context per rank" % len(contexts))
        self.execs = []
        for i, ctx in enumerate(contexts):
            begin, end = self.slices[i]
            shapes = {}
            for d in self.data_shapes + self.label_shapes:
                shape = list(d.shape)
                if self.axes[d.name] >= 0:
                    shape[self.axes[d.name]] = end - begin
                shapes[d.name] = tuple(shape)
            if i == 0:
                first_shapes = dict(shapes)
            shared_exec = shared_group.execs[i] if shared_group is not None else None
            self.execs.append(symbol.simple_bind(
                ctx, grad_req=req, type_dict=types, group2ctx=self.group2ctxs[i],
                shared_arg_names=self.param_names, shared_exec=shared_exec,
                shared_buffer=self.shared_data_arrays[i], **shapes))
        # Inferred when Module first asks (array_spec), not on every bind: a
        # reshape or a new bucket binds again and never asks.
        self._spec_inputs = (first_shapes, types)
        self._specs = None
        self.owner = {}
        self.output_rank = 0
        if self.bind_ranks is not None:
            self._find_owners()
        else:
            kvstore._log_rank[0] = 0  # the latest Module decides who logs
        self.reducer = None
        self._broken = None  # why a backward over ranks failed (then no more)
        self._make_reducer()

    @staticmethod
    def _array_specs(symbol, shapes, types):
        """(shape, dtype) of every argument and aux state of replica 0 (its
        input ``shapes``), inferred: in a cross-rank bind this rank holds
        only some of them."""
        arg_shapes, _, aux_shapes = symbol.infer_shape(**shapes)
        arg_types, _, aux_types = symbol.infer_type(**{k: v for k, v in types.items()
                                                       if v is not None})
        if arg_shapes is None or arg_types is None:  # the bind inferred them: not expected
            raise MXNetError("cannot infer the parameters' shapes and dtypes from %s" % shapes)
        specs = {}
        for names, shps, dts in ((symbol.list_arguments(), arg_shapes, arg_types),
                                 (symbol.list_auxiliary_states(), aux_shapes, aux_types)):
            for n, shp, dt in zip(names, shps, dts):
                specs[n] = (tuple(shp), dt)
        return specs

    def array_spec(self, name):
        """(shape, dtype) of argument or aux state ``name`` in one replica."""
        if self._specs is None:
            self._specs = self._array_specs(self.symbol, *self._spec_inputs)
        return self._specs[name]

    def _find_owners(self):
        """Which rank holds each parameter and aux state, and which rank
        holds the outputs (it logs the metric): one allreduce of flags."""
        ranks, first = self.bind_ranks, self.execs[0]
        aux_names = self.symbol.list_auxiliary_states()
        names = list(self.param_names) + aux_names
        holds = [first.arg_dict.get(n) if n in first.arg_dict else first.aux_dict.get(n)
                 for n in names]
        has_outputs = all(o is not None for o in first.outputs)
        flags = np.array([ranks.rank + 1 if h is not None else 0 for h in holds]
                         + [ranks.rank + 1 if has_outputs else 0], dtype=np.int32)
        flags = nd.array(flags, dtype="int32")
        ranks.allreduce([flags._t], "max")
        owners = flags.asnumpy().astype(int) - 1
        self.owner = dict(zip(names, owners[:-1]))
        self.output_rank = int(owners[-1])
        if self.output_rank < 0:  # every rank decides alike: the flags are the job's
            raise MXNetError("a Module split across ranks needs all its outputs on one rank; "
                             "group2ctxs places them on several")
        kvstore._log_rank[0] = self.output_rank
    @property
    def sum_at_update(self):
        return self.has_add and (len(self.execs) > 1 or self.ranks is not None)

    def _make_reducer(self):
        self.reducer = None  # the old one (if any) goes first: it clears its callbacks
        if ((len(self.execs) > 1 or self.ranks is not None) and self.grad_params
                and not self.sum_at_update):
            # Collective over the ranks: every rank makes its reducer here,
            # in the same order (the same model and bucket layout, else the
            # error names the ranks and the first difference).
            self.reducer = _core.GradientReducer([e._handle for e in self.execs],
                                                 self.grad_params, self.ranks)

    def set_ranks(self, ranks):
        """Trains over the ranks of a distributed kvstore's job: rank 0's
        parameters go to every rank (MXNet's kvstore init and pull), and the
        reducer sums each backward's gradients over every replica of every
        rank. ``ranks``: the store's, or None for this process alone."""
        self.ranks = ranks
        # The reducer first: making it compares the ranks' models and names
        # the first difference, which a broadcast of mismatched parameters
        # could only report as a size.
        self._make_reducer()
        if ranks is not None:
            first = self.execs[0]
            names = [n for n in self.param_names if n in first.arg_dict]
            kvstore.broadcast_from_rank0(ranks, [first.arg_dict[n] for n in names])
            for exe in self.execs[1:]:
                for n in names:
                    exe.arg_dict[n]._t.copy_from(first.arg_dict[n]._t)

    # --- running ------------------------------------------------------------
    def _load(self, names, arrays):
        for name, arr in zip(names, arrays):
            if isinstance(arr, np.ndarray):
                arr = nd.array(arr, dtype=arr.dtype)
            for exe, (begin, end) in zip(self.execs, self.slices):
                dst = exe.arg_dict[name]
                if dst is None:  # another rank's input (a cross-rank bind)
                    continue
                part = arr if len(self.execs) == 1 else slice_batch(arr, self.axes[name],
                                                                    begin, end)
                if part.shape != dst.shape:
                    raise MXNetError("input %s has shape %s, the module is bound for %s"
                                     % (name, part.shape, dst.shape))
                dst._t.copy_from(part._t)

    def forward(self, data_batch, is_train):
        self._load([d.name for d in self.data_shapes], data_batch.data)
        if self.label_shapes and data_batch.label:
            self._load([d.name for d in self.label_shapes], data_batch.label)
        if len(self.execs) == 1:
            self.execs[0].forward(is_train=is_train)
        else:  # the replicas at once, on their devices' threads
            _core.run_replicas([e._handle for e in self.execs], bool(is_train), True, False)

    def backward(self, out_grads=None):
        if not self.for_training:
            raise MXNetError("backward needs a module bound with for_training=True")
        if self._broken is not None:
            raise MXNetError("a backward on this rank failed (%s), so its gradient sums are out "
                             "of step with the other ranks: the job cannot train on"
                             % self._broken)
        if self.reducer is not None:
            self.reducer.start()
        try:
            if out_grads is None and len(self.execs) > 1:
                _core.run_replicas([e._handle for e in self.execs], True, False, True)
            else:
                jobs = []
                for exe, (begin, end) in zip(self.execs, self.slices):
                    grads = None
                    if out_grads is not None:
                        grads = [g if len(self.execs) == 1 else
                                 slice_batch(g, self.output_axes[j], begin, end)
                                 for j, g in enumerate(out_grads)]
                    jobs.append((exe, grads))
                self._backward_each(jobs)
        except BaseException as e:
            # This round's buckets will never all be ready (finish would wait
            # for its timeout); a fresh reducer starts the next one clean.
            # Not over ranks: making a reducer is collective, and the other
            # ranks are in this round's sums, so this rank is out of step
            # with the job for good (its script's end aborts the job).
            if self.reducer is not None and self.ranks is None:
                self._make_reducer()
            elif self.reducer is not None:
                self._broken = "%s: %s" % (type(e).__name__, e)
            raise
        if self.reducer is not None:
            self.reducer.finish()

    @staticmethod
    def _backward_each(jobs):
        """exe.backward(grads) for each (exe, grads); several replicas at once,
        on threads of their own (backward releases the GIL), since a
        SyncBatchNorm replica waits in its backward for the others."""
        if len(jobs) == 1:
            jobs[0][0].backward(out_grads=jobs[0][1])
            return
        errors = [None] * len(jobs)

        def run(k):
            try:
                jobs[k][0].backward(out_grads=jobs[k][1])
            except BaseException as e:  # re-raised on the calling thread
                errors[k] = e
        threads = [threading.Thread(target=run, args=(k,)) for k in range(len(jobs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for e in errors:
            if e is not None:
                raise e

    def update(self, updater, index_of):
        """One optimizer step on replica 0's parameters; the others take copies."""
        first = self.execs[0]
        indices, grads, weights = [], [], []
        for name in self.grad_params:
            if first.arg_dict[name] is None:  # another rank's stage updates it
                continue
            grad = first.grad_dict[name]
            if self.sum_at_update:
                grad = grad.copy()  # the replicas keep their own accumulated gradients
                for exe in self.execs[1:]:
                    grad += exe.grad_dict[name].as_in_context(grad.context)
                if self.ranks is not None:
                    kvstore.sum_over_ranks(self.ranks, [grad])
            indices.append(index_of[name])
            grads.append(grad)
            weights.append(first.arg_dict[name])
        if len(self.execs) == 1:
            # MXNet's one-device Module hands the updater every parameter at
            # once (its aggregated optimizers update them in groups) ...
            if indices:
                updater(indices, grads, weights)
        else:
            # ... and its kvstore one key at a time.
            for index, grad, weight in zip(indices, grads, weights):
                updater(index, grad, weight)
        for exe in self.execs[1:]:
            for name in self.grad_params:
                exe.arg_dict[name]._t.copy_from(first.arg_dict[name]._t)

    def _gather_params(self, arg_params, aux_params):
        first, me = self.execs[0], self.bind_ranks.rank
        by_owner = {}
        for names, held, out in ((self.param_names, first.arg_dict, arg_params),
                                 (self.symbol.list_auxiliary_states(), first.aux_dict,
                                  aux_params)):
            for name in names:
                owner = self.owner[name]
                if owner < 0:
                    raise MXNetError("parameter %s is held by no rank of the job" % name)
                if owner == me:
                    out[name][:] = held[name]
                by_owner.setdefault(owner, []).append(out[name]._t)
        for owner in sorted(by_owner):
            self.bind_ranks.broadcast(by_owner[owner], int(owner))

    def update_metric(self, eval_metric, labels):
        label_axes = [self.axes.get(d.name, 0) for d in self.label_shapes]
        label_axes += [0] * (len(labels) - len(label_axes))
        for exe, (begin, end) in zip(self.execs, self.slices):
            if any(o is None for o in exe.outputs):
                continue  # the outputs are another rank's (a cross-rank bind)
            part = [l if len(self.execs) == 1 else slice_batch(l, axis, begin, end)
                    for l, axis in zip(labels, label_axes)]
            eval_metric.update(part, exe.outputs)

    def get_outputs(self, merge_multi_context=True):
        per_exec = [exe.outputs for exe in self.execs]
        if not merge_multi_context:
            return [[outs[i] for outs in per_exec] for i in range(len(per_exec[0]))]
        if len(self.execs) == 1:
            return list(per_exec[0])
        return [merge_on_first_context([outs[i] for outs in per_exec], self.output_axes[i])
                for i in range(len(per_exec[0]))]

    def get_input_grads(self, merge_multi_context=True):
        names = [d.name for d in self.data_shapes]
        grads = [[exe.grad_dict[n] for exe in self.execs] for n in names]
        if merge_multi_context:
            return [merge_on_first_context(g, self.axes[n]) for g, n in zip(grads, names)]
        return grads

    # --- parameters ---------------------------------------------------------
    def set_params(self, arg_params, aux_params, allow_extra=False):
        for exe in self.execs:
            exe.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params, aux_params):
        """Copies the parameters (replica 0's) and aux states (the replicas' mean) out.
        Collective in a cross-rank bind: each value comes from the rank holding it."""
        if self.bind_ranks is not None:
            self._gather_params(arg_params, aux_params)
            return
        first = self.execs[0]
        for name in self.param_names:
            arg_params[name][:] = first.arg_dict[name]
        for name in self.symbol.list_auxiliary_states():
            values = [exe.aux_dict[name].asnumpy() for exe in self.execs]
            aux_params[name][:] = sum(values) / len(values)
