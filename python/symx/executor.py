"""Executor: a Symbol bound to devices and arrays (MXNet 1.x's executor API).

The arrays (arg_arrays, grad_arrays, aux_arrays, outputs) are the engine
executor's own memory, fixed at bind: writing into them (``exe.arg_dict['x'][:]
= 1``, ``+=``) is what the next forward reads.
"""
import numpy as np

from .base import _core, MXNetError
from . import ndarray as nd

__all__ = ["Executor"]



class Executor:
    """Made by Symbol.bind / Symbol.simple_bind; not constructed directly."""

    # No reference to a shared_exec is kept: the engine keeps only its memory
    # pools (shared), so a chain of reshapes does not keep every old executor.
    def __init__(self, handle, symbol, ctx, group2ctx=None):
        self._handle = handle
        self._symbol = symbol
        self._ctx = ctx
        self._group2ctx = group2ctx
        self.arg_arrays = nd._wrap_all(handle.arg_arrays)
        self.grad_arrays = nd._wrap_all(handle.grad_arrays)
        self.aux_arrays = nd._wrap_all(handle.aux_arrays)
        self.outputs = nd._wrap_all(handle.outputs)
        self._monitor_callback = None
        self._arg_dict = self._grad_dict = self._aux_dict = self._output_dict = None

    # --- running ------------------------------------------------------------
    def forward(self, is_train=False, **kwargs):
        """Copies ``kwargs`` (NDArrays or numpy arrays) into the arguments, runs forward,
        returns ``outputs``."""
        inputs = {}
        arg_dict = self.arg_dict
        for name, value in kwargs.items():
            if not isinstance(value, (nd.NDArray, np.ndarray)):
                raise ValueError("only accept keyword argument of NDArrays and numpy.ndarray")
            if name not in arg_dict:
                raise TypeError("Unknown argument %s" % name)
            dst = arg_dict[name]
            # Checked here for NDArrays too: MXNet raises ValueError, the engine MXNetError.
            if dst is not None and tuple(value.shape) != dst.shape:
                raise ValueError("Shape not match! Argument %s, need: %s, received: %s"
                                 % (name, dst.shape, tuple(value.shape)))
            if isinstance(value, nd.NDArray):
                inputs[name] = value._t
            elif dst is not None:  # None: another rank's argument (a cross-rank bind)
                dst[:] = value
        self._handle.forward(bool(is_train), inputs)
        return self.outputs

    def backward(self, out_grads=None, is_train=True):
        """Runs backward; ``out_grads`` (an NDArray, list, or dict by output name) are the
        head gradients, needed unless the outputs are losses."""
        if out_grads is None:
            heads = []
        elif isinstance(out_grads, nd.NDArray):
            heads = [out_grads._t]
        elif isinstance(out_grads, dict):
            heads = {}
            for k, v in out_grads.items():
                if not isinstance(k, str) or not isinstance(v, nd.NDArray):
                    raise TypeError("out_grads must map output names (str) to NDArrays, got "
                                    "%r: %s" % (k, type(v).__name__))
                heads[k] = v._t
        elif isinstance(out_grads, (list, tuple)):
            heads = []
            for v in out_grads:
                if not isinstance(v, nd.NDArray):
                    raise TypeError("inputs must be NDArray")
                heads.append(v._t)
        else:
            raise TypeError("must be NDArray or list of NDArray or dict of str to NDArray")
        self._handle.backward(heads)

    # --- arrays by name -----------------------------------------------------
    @staticmethod
    def _dict(names, arrays, skip_none=False):
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})
            raise ValueError("Duplicate names detected, %s" % str(dup))
        return {n: a for n, a in zip(names, arrays) if not (skip_none and a is None)}

    @property
    def arg_dict(self):
        if self._arg_dict is None:
            self._arg_dict = self._dict(self._symbol.list_arguments(), self.arg_arrays)
        return self._arg_dict

    @property
    def grad_dict(self):
        if self._grad_dict is None:
            self._grad_dict = self._dict(self._symbol.list_arguments(), self.grad_arrays, True)
        return self._grad_dict

    @property
    def aux_dict(self):
        if self._aux_dict is None:
            self._aux_dict = self._dict(self._symbol.list_auxiliary_states(), self.aux_arrays)
        return self._aux_dict

    @property
    def output_dict(self):
        if self._output_dict is None:
            self._output_dict = self._dict(self._symbol.list_outputs(), self.outputs)
        return self._output_dict

    # --- parameters, reshaping, inspection -----------------------------------
    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copies values (cast to each array's dtype) into the bound arguments and aux states."""
        def tensors(params, what):
            if params is None:
                return {}
            if not isinstance(params, dict):
                raise TypeError("copy_params_from: %s must be a dict of str to NDArray, got %s"
                                % (what, type(params).__name__))
            out = {}
            for k, v in params.items():
                if not isinstance(k, str):
                    raise TypeError("copy_params_from: %s keys must be str, got %r" % (what, k))
                if isinstance(v, np.ndarray):
                    v = nd.array(v, dtype=v.dtype)
                if not isinstance(v, nd.NDArray):
                    raise TypeError("copy_params_from: %s[%r] must be an NDArray or numpy array, "
                                    "got %s" % (what, k, type(v).__name__))
                out[k] = v._t
            return out
        args, aux = tensors(arg_params, "arg_params"), tensors(aux_params, "aux_params")
        if not allow_extra_params:  # MXNet's ValueErrors (the engine's would be MXNetErrors)
            for name in arg_params or {}:
                if name not in self.arg_dict:
                    raise ValueError('Find name "%s" that is not in the arguments' % name)
            for name in aux_params or {}:
                if name not in self.aux_dict:
                    raise ValueError("Find name %s that is not in the auxiliary states" % name)
        self._handle.copy_params_from(args, aux, bool(allow_extra_params))

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new input shapes sharing this one's parameters and memory."""
        shapes = {}
        for k, v in kwargs.items():
            if not isinstance(v, tuple):
                raise TypeError("reshape: the shape of %s must be a tuple, got %r" % (k, v))
            shapes[k] = list(v)
        handle = self._handle.reshape(shapes, bool(partial_shaping), bool(allow_up_sizing))
        exe = Executor(handle, self._symbol, self._ctx, self._group2ctx)
        if self._monitor_callback is not None:
            exe.set_monitor_callback(*self._monitor_callback)
        return exe

    def get_optimized_symbol(self):
        from .symbol import Symbol
        return Symbol(self._handle.optimized_symbol())

    def set_monitor_callback(self, callback, monitor_all=False):
        """``callback(name, array)`` after every op: its outputs ("fc1_output"), and with
        monitor_all its inputs too. The array is only valid during the call."""
        self._monitor_callback = None if callback is None else (callback, monitor_all)
        if callback is None:
            self._handle.set_monitor_callback(None, bool(monitor_all))
            return
        self._handle.set_monitor_callback(lambda name, t: callback(name, nd.NDArray(t)),
                                          bool(monitor_all))

    def debug_str(self):
        return self._handle.debug_str()

    def memory_stats(self):
        """Bytes per device: planned, allocated, bound arrays (symx's addition)."""
        return self._handle.memory_stats()
