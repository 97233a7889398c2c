"""The operators the differential fuzzer draws, with each parameter's domain.

An entry says how many tensor inputs the op takes, what shapes it accepts
(`kind`), the domain of each attribute (a list of choices), and where its
inputs must lie (`domain`: "any", "positive", "unit" for [-1, 1], ...).
MXNet's registry declares parameter types and defaults but not the ranges
where an op is defined, so the domains are written here, one line per op,
from MXNet 1.9.1's documentation; `python tools/difftest/difftest.py --ops`
prints the table.

kinds:
  unary     any shape in, the same shape out
  binary    two inputs of one shape
  bcast     two inputs, the second with some axes of the first set to 1
  reduce    any shape; `axis` drawn from the input's axes
  softmax   any shape of 1+ dims; `axis` drawn from the input's axes
  fc        flattened to (N, K)
  conv      4-D (N, C, H, W)
  pool      4-D (N, C, H, W)
  batchnorm 2-D or 4-D, with gamma/beta/moving stats made by the fuzzer
  layout    one input; axes, permutations, repeats and slices drawn from its shape
  join      two or three inputs of one shape joined along a drawn axis
  dot       dot (2-D, with transposes) and batch_dot (3-D)
  layernorm LayerNorm over a drawn axis, gamma/beta made by the fuzzer
  groupnorm 4-D GroupNorm (num_groups dividing C) and InstanceNorm, gamma/beta made
  l2norm    L2Normalization, the input's rank chosen for the mode
"""

UNARY_ANY = ["exp", "sigmoid", "tanh", "negative", "square", "abs", "relu", "sin", "cos",
             "arctan", "sinh", "cosh", "arcsinh", "erf", "expm1", "softsign", "cbrt",
             "degrees", "radians", "log_softmax", "softmax",
             # piecewise constant: zero gradients, exact forward
             "sign", "round", "rint", "ceil", "floor", "trunc", "fix", "logical_not",
             # identities and gradient stops
             "identity", "BlockGrad", "stop_gradient", "zeros_like", "ones_like"]
UNARY_POSITIVE = ["log", "log2", "log10", "sqrt", "rsqrt", "gamma", "gammaln", "rcbrt",
                  "reciprocal"]
UNARY_ABOVE_MINUS_ONE = ["log1p"]
UNARY_UNIT = ["arcsin", "arccos", "arctanh", "erfinv", "tan"]

OPS = []

for name in UNARY_ANY:
    if name in ("softmax", "log_softmax"):
        continue
    OPS.append({"op": name, "kind": "unary", "domain": "any", "attrs": {}})
for name in UNARY_POSITIVE:
    OPS.append({"op": name, "kind": "unary", "domain": "positive", "attrs": {}})
for name in UNARY_ABOVE_MINUS_ONE:
    OPS.append({"op": name, "kind": "unary", "domain": "above_minus_one", "attrs": {}})
for name in UNARY_UNIT:
    OPS.append({"op": name, "kind": "unary", "domain": "open_unit", "attrs": {}})

OPS += [
    {"op": "Activation", "kind": "unary", "domain": "any",
     "attrs": {"act_type": ["relu", "sigmoid", "tanh", "softrelu", "softsign", "log_sigmoid",
                            "mish"]}},
    {"op": "LeakyReLU", "kind": "unary", "domain": "any",
     "attrs": {"act_type": ["leaky", "elu", "selu", "gelu"], "slope": [0.01, 0.25, 0.7]}},
    {"op": "clip", "kind": "unary", "domain": "any",
     "attrs": {"a_min": [-1.0, 0.0], "a_max": [0.5, 6.0]}},
    {"op": "_plus_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [-2.0, 0.5, 3.0]}},
    {"op": "_mul_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [-2.0, 0.5, 3.0]}},
    {"op": "_rdiv_scalar", "kind": "unary", "domain": "nonzero", "attrs": {"scalar": [1.0, -3.0]}},
    {"op": "_power_scalar", "kind": "unary", "domain": "positive", "attrs": {"scalar": [0.5, 2.0, 3.0]}},
    {"op": "_rpower_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [0.5, 2.0]}},
    {"op": "smooth_l1", "kind": "unary", "domain": "any", "attrs": {"scalar": [1.0, 3.0]}},
    {"op": "_minus_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [-1.5, 2.0]}},
    {"op": "_rminus_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [-1.5, 2.0]}},
    {"op": "_div_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [-4.0, 0.3]}},
    {"op": "_maximum_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [-0.5, 1.0]}},
    {"op": "_minimum_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [-0.5, 1.0]}},
    {"op": "_greater_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [0.0, 1.0]}},
    {"op": "_lesser_equal_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [0.0]}},
    {"op": "_equal_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [0.0]}},
    {"op": "_logical_and_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [0.0, 1.0]}},
    {"op": "Cast", "kind": "unary", "domain": "any", "attrs": {"dtype": ["float32", "float64"]}},
    {"op": "elemwise_add", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "elemwise_sub", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "elemwise_mul", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "elemwise_div", "kind": "binary", "domain": "any", "domain2": "nonzero", "attrs": {}},
    {"op": "_maximum", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "_minimum", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "_power", "kind": "binary", "domain": "positive", "attrs": {}},
    {"op": "_greater", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "_not_equal", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "_logical_or", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "add_n", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "broadcast_add", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "broadcast_sub", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "broadcast_mul", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "broadcast_div", "kind": "bcast", "domain": "any", "domain2": "nonzero", "attrs": {}},
    {"op": "broadcast_maximum", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "broadcast_power", "kind": "bcast", "domain": "positive", "attrs": {}},
    {"op": "broadcast_minimum", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "broadcast_plus", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "broadcast_minus", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "broadcast_greater_equal", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "broadcast_lesser", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "broadcast_equal", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "broadcast_logical_xor", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "sum", "kind": "reduce", "domain": "any", "attrs": {"keepdims": [False, True]}},
    {"op": "mean", "kind": "reduce", "domain": "any", "attrs": {"keepdims": [False, True]}},
    {"op": "max", "kind": "reduce", "domain": "any", "attrs": {"keepdims": [False, True]}},
    {"op": "sum_axis", "kind": "reduce", "domain": "any", "attrs": {"keepdims": [False, True]}},
    {"op": "max_axis", "kind": "reduce", "domain": "any", "attrs": {"keepdims": [False, True]}},
    {"op": "argmax", "kind": "reduce", "domain": "any", "attrs": {"keepdims": [False, True]}},
    {"op": "argmin", "kind": "reduce", "domain": "any", "attrs": {"keepdims": [False, True]}},
    {"op": "softmax", "kind": "softmax", "domain": "any", "attrs": {"temperature": [None, 0.5, 2.0]}},
    {"op": "log_softmax", "kind": "softmax", "domain": "any", "attrs": {}},
    {"op": "softmin", "kind": "softmax", "domain": "any", "attrs": {"temperature": [None, 2.0]}},
    {"op": "cumsum", "kind": "softmax", "domain": "any", "attrs": {}},
    {"op": "FullyConnected", "kind": "fc", "domain": "any",
     "attrs": {"num_hidden": [1, 3, 8], "no_bias": [False, True], "flatten": [True]}},
    {"op": "Convolution", "kind": "conv", "domain": "any",
     "attrs": {"num_filter": [2, 4], "kernel": [(1, 1), (3, 3)], "stride": [(1, 1), (2, 2)],
               "pad": [(0, 0), (1, 1)], "no_bias": [False, True]}},
    {"op": "Pooling", "kind": "pool", "domain": "any",
     "attrs": {"pool_type": ["max", "avg", "sum"], "kernel": [(2, 2), (3, 3)],
               "stride": [(1, 1), (2, 2)], "pooling_convention": ["valid", "full"],
               "global_pool": [False, False, True]}},
    {"op": "BatchNorm", "kind": "batchnorm", "domain": "any",
     "attrs": {"fix_gamma": [False, True], "use_global_stats": [True], "eps": [1e-3, 1e-5]}},
    # layout: the attributes marked "*" are drawn from the input's shape.
    {"op": "transpose", "kind": "layout", "domain": "any", "attrs": {"axes": "*"}},
    {"op": "flip", "kind": "layout", "domain": "any", "attrs": {"axis": "*"}},
    {"op": "expand_dims", "kind": "layout", "domain": "any", "attrs": {"axis": "*"}},
    {"op": "swapaxes", "kind": "layout", "domain": "any", "attrs": {"dim1": "*", "dim2": "*"}},
    {"op": "tile", "kind": "layout", "domain": "any", "attrs": {"reps": "*"}},
    {"op": "repeat", "kind": "layout", "domain": "any", "attrs": {"repeats": [1, 2, 3], "axis": "*"}},
    {"op": "slice_axis", "kind": "layout", "domain": "any", "attrs": {"axis": "*", "begin": "*",
                                                                      "end": "*"}},
    {"op": "Flatten", "kind": "layout", "domain": "any", "attrs": {}},
    {"op": "Reshape", "kind": "layout", "domain": "any", "attrs": {"shape": "*"}},
    {"op": "stack", "kind": "join", "domain": "any", "attrs": {"axis": "*"}},
    {"op": "Concat", "kind": "join", "domain": "any", "attrs": {"dim": "*"}},
    {"op": "dot", "kind": "dot", "domain": "any",
     "attrs": {"transpose_a": [False, True], "transpose_b": [False, True]}},
    {"op": "batch_dot", "kind": "dot", "domain": "any",
     "attrs": {"transpose_a": [False, True], "transpose_b": [False, True]}},
    {"op": "LayerNorm", "kind": "layernorm", "domain": "any",
     "attrs": {"axis": "*", "eps": [1e-5, 1e-3]}},
    {"op": "GroupNorm", "kind": "groupnorm", "domain": "any",
     "attrs": {"num_groups": "*", "eps": [1e-5, 1e-3]}},
    {"op": "InstanceNorm", "kind": "groupnorm", "domain": "any", "attrs": {"eps": [1e-5, 1e-3]}},
    {"op": "L2Normalization", "kind": "l2norm", "domain": "any",
     "attrs": {"mode": ["instance", "channel", "spatial"]}},
]
