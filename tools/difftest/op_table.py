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
  softmax_act  SoftmaxActivation: 2-D data for mode=instance, 3-4-D for channel
  image     one 4-D (N, C, H, W) input, spatial attributes from the list
  index     data plus an integer input drawn inside the data's extent (take,
            pick, one_hot, Embedding, gather_nd)
  like      slice_like: a second input no larger than the first on each axis
  where     where(condition of 0s and 1s, x, y)
  pad       Pad of a 4-D input, the widths drawn below the spatial sizes
  loss      regression outputs, MakeLoss and SoftmaxOutput with their labels
  split     SliceChannel along a drawn axis; one of its outputs is used
  create    no inputs: _zeros, _ones, _full, _arange
  rnn       RNN over (T, N, I) with its flat parameters and initial states
  ctc       CTCLoss of (T, N, C) activations and labels in [1, C)
  roi       ROIPooling / ROIAlign of a 4-D map and rois inside it
  boxes     box_iou, box_nms, MultiBoxPrior/Detection/Target and (Multi)Proposal
            over well-formed boxes, probabilities and image sizes
  sampler   GridGenerator, BilinearSampler, SpatialTransformer
and, in structured.py (inputs with structure; its docstring lists the value
domains they draw: spd, tri:lower/upper, wellcond, symeig, simplex, ...):
  reduce2   norm (ord 1/2 over an axis or all) and moments (its mean: erratum 27)
  broadcast_shape  broadcast_to/axis/like of an input with axes of length 1,
            reshape_like to a shape of the same size
  block     depth_to_space / space_to_depth with sizes divisible by the block
  split_v2  _split_v2 by sections or by indices; one of its outputs is used
  columns   im2col, col2im (columns sized for output_size), khatri_rao
  sequence  SequenceMask/Last/Reverse with lengths in [1, T] (or none)
  attention the four interleaved multi-head matmuls of (T, N, heads * k * D)
  detection box_encode, box_decode, bipartite_matching
  linalg    gemm/gemm2/syrk of any matrices, potrf of SPD ones, potri and
            sumlogdiag of Cholesky factors, trsm/trmm of well-conditioned
            triangular ones, det/slogdet/inverse of well-conditioned ones,
            syevd of symmetric ones with separated eigenvalues, gelqf,
            extract/make diag and trian (one batch axis or none)
  pdf       the _random_pdf_* densities: samples in the support, valid parameters
  hwc       mx.nd.image's to_tensor, normalize, crop, adjust_lighting and flips
  index2    ravel/unravel, scatter_nd (points without repeats), index_copy,
            _slice_assign(_scalar)
  correlation  Correlation of two maps of one shape
  psroi     PSROIPooling / DeformablePSROIPooling (output_dim * group^2 channels)
  deformable   DeformableConvolution with offsets for every output position
  losses    softmax_cross_entropy and SVMOutput with class labels
An entry marked "nograd" (MXNet registers no gradient for it: khatri_rao,
_slice_assign; or the gradient is a known difference: _image_to_tensor, which
symx leaves without one, and the image flips, erratum 23) gets fresh inputs
that ask for no gradient.

Domains of integer inputs ("index") are made by the kind from the data's
shape, never cut into the graph's own values.

Not drawn, of the forward operators symx shares with MXNet 1.9.1:
  random: the samplers (_random_*, _random_*_like, _sample_*, _shuffle,
    _random_randint) and the _image_random_* augmenters: draws differ between
    engines (their densities, _random_pdf_*, are drawn)
  GPU-only in MXNet: _contrib_fft, _contrib_ifft, _contrib_count_sketch and
    _contrib_ModulatedDeformableConvolution (its CPU forward says "only
    implemented in GPU")
  control flow: _cond, _foreach, _while_loop (subgraph attributes)
  value-dependent shapes: _contrib_boolean_mask
  optimizer steps, which update weights and states in place rather than
    compute a forward: sgd/nag/adam/adamw/lamb/ftml/ftrl/rmsprop(alex)/
    signsgd/signum updates, their mp_, multi_ and preloaded_ forms,
    _contrib_group_adagrad_update, and their helpers all_finite,
    multi_all_finite, multi_sum_sq, multi_lars, reset_arrays
  not callable this way in MXNet: _scatter_set_nd (its kernel checks that it
    runs in place), fill_element_0index and _onehot_encode (NDArray functions:
    the symbol API refuses them), _copyto (NDArray only), batch_take (int32
    indices only; the fuzzer binds every input in one float dtype)
  internal: _CrossDeviceCopy (the partitioner's), _rnn_param_concat (Gluon's),
    _contrib_backward_quadratic (a backward op)
  integer outputs describing the input: shape_array, size_array,
    _contrib_index_array
  known differences every graph would find again: _contrib_hawkesll
    (erratum 22); IdentityAttachKLSparseReg (its moving average, an aux state
    in (0, 1), moves with each training forward; golden cases cover it)
  not yet: _contrib_RROIAlign (rotated rois; no gradient in MXNet),
    _contrib_allclose (one 0/1 without a gradient), _histogram, _linspace
"""

UNARY_ANY = ["exp", "sigmoid", "tanh", "negative", "square", "abs", "relu", "sin", "cos",
             "arctan", "sinh", "cosh", "arcsinh", "erf", "expm1", "softsign", "cbrt",
             "degrees", "radians", "log_softmax", "softmax",
             # piecewise constant: zero gradients, exact forward
             "sign", "round", "rint", "ceil", "floor", "trunc", "fix", "logical_not",
             # identities and gradient stops
             "identity", "BlockGrad", "stop_gradient", "zeros_like", "ones_like", "_copy",
             "argmax_channel"]
UNARY_POSITIVE = ["log", "log2", "log10", "sqrt", "rsqrt", "gamma", "gammaln", "rcbrt",
                  "reciprocal"]
UNARY_ABOVE_MINUS_ONE = ["log1p"]
UNARY_AT_LEAST_ONE = ["arccosh"]
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
for name in UNARY_AT_LEAST_ONE:
    OPS.append({"op": name, "kind": "unary", "domain": "at_least_one", "attrs": {}})
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
    # comparisons and logic: exact 0/1 forward, zero gradients
    {"op": "_equal", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "_greater_equal", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "_lesser", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "_lesser_equal", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "_logical_and", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "_logical_xor", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "ElementWiseSum", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "_greater_equal_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [0.0, 0.5]}},
    {"op": "_lesser_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [0.0, -1.0]}},
    {"op": "_not_equal_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [0.0]}},
    {"op": "_logical_or_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [0.0, 2.0]}},
    {"op": "_logical_xor_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [0.0, 1.0]}},
    {"op": "broadcast_greater", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "broadcast_lesser_equal", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "broadcast_not_equal", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "broadcast_logical_and", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "broadcast_logical_or", "kind": "bcast", "domain": "any", "attrs": {}},
    # softmax over a 2-D view (instance) or the channel axis (channel)
    {"op": "SoftmaxActivation", "kind": "softmax_act", "domain": "any",
     "attrs": {"mode": ["instance", "channel"]}},
    # p = 0 only: a drawn mask differs between engines; p = 0 still runs the
    # training-mode kernel and its gradient
    {"op": "Dropout", "kind": "unary", "domain": "any",
     "attrs": {"p": [0.0], "mode": ["training", "always"]}},
    {"op": "sort", "kind": "softmax", "domain": "any", "attrs": {"is_ascend": [True, False]}},
    {"op": "argsort", "kind": "softmax", "domain": "any", "attrs": {"is_ascend": [True, False]}},
    {"op": "topk", "kind": "softmax", "domain": "any",
     "attrs": {"k": [1, 2], "ret_typ": ["value", "indices", "mask"], "is_ascend": [False, True]}},
    {"op": "reverse", "kind": "layout", "domain": "any", "attrs": {"axis": "*"}},
    {"op": "SwapAxis", "kind": "layout", "domain": "any", "attrs": {"dim1": "*", "dim2": "*"}},
    {"op": "squeeze", "kind": "layout", "domain": "any", "attrs": {"axis": "*"}},
    {"op": "slice", "kind": "layout", "domain": "any", "attrs": {"begin": "*", "end": "*",
                                                                 "step": "*"}},
    {"op": "diag", "kind": "layout", "domain": "any", "attrs": {"k": [0, 1, -1]}},
    {"op": "slice_like", "kind": "like", "domain": "any", "attrs": {"axes": "*"}},
    {"op": "where", "kind": "where", "domain": "any", "attrs": {}},
    {"op": "take", "kind": "index", "domain": "any",
     "attrs": {"axis": "*", "mode": ["clip", "wrap"]}},
    {"op": "pick", "kind": "index", "domain": "any",
     "attrs": {"axis": "*", "keepdims": [False, True], "mode": ["clip", "wrap"]}},
    {"op": "one_hot", "kind": "index", "domain": "any",
     "attrs": {"depth": [3, 5], "on_value": [1.0, 2.5], "off_value": [0.0, -1.0]}},
    {"op": "Embedding", "kind": "index", "domain": "any",
     "attrs": {"input_dim": [4, 7], "output_dim": [1, 3]}},
    {"op": "gather_nd", "kind": "index", "domain": "any", "attrs": {}},
    {"op": "Deconvolution", "kind": "conv", "domain": "any",
     "attrs": {"num_filter": [2, 3], "kernel": [(1, 1), (2, 2), (3, 3)], "stride": [(1, 1), (2, 2)],
               "pad": [(0, 0), (1, 1)], "no_bias": [False, True]}},
    {"op": "Pad", "kind": "pad", "domain": "any",
     "attrs": {"mode": ["constant", "edge", "reflect"], "constant_value": [0.0, 1.5]}},
    {"op": "UpSampling", "kind": "image", "domain": "any",
     "attrs": {"sample_type": ["nearest"], "scale": [1, 2, 3], "num_args": [1]}},
    {"op": "_contrib_BilinearResize2D", "kind": "image", "domain": "any",
     "attrs": {"height": [1, 3, 8], "width": [2, 5]}},
    {"op": "_contrib_AdaptiveAvgPooling2D", "kind": "image", "domain": "any",
     "attrs": {"output_size": [1, 2, (2, 3)]}},
    {"op": "LRN", "kind": "image", "domain": "any",
     "attrs": {"nsize": [1, 3, 5], "alpha": [1e-4, 0.01], "beta": [0.75, 0.5], "knorm": [1.0, 2.0]}},
    {"op": "Crop", "kind": "image", "domain": "any",
     "attrs": {"num_args": [1], "h_w": [(1, 1), (2, 2), (2, 3)], "offset": [(0, 0), (1, 0)],
               "center_crop": [False, True]}},
    {"op": "LinearRegressionOutput", "kind": "loss", "domain": "any",
     "attrs": {"grad_scale": [1.0, 0.5]}},
    {"op": "MAERegressionOutput", "kind": "loss", "domain": "any",
     "attrs": {"grad_scale": [1.0, 2.0]}},
    {"op": "LogisticRegressionOutput", "kind": "loss", "domain": "any",
     "attrs": {"grad_scale": [1.0, 0.5]}},
    {"op": "SoftmaxOutput", "kind": "loss", "domain": "any",
     "attrs": {"grad_scale": [1.0, 0.5], "multi_output": [False, True],
               "normalization": ["null", "batch", "valid"], "use_ignore": [False, True],
               "ignore_label": [1.0]}},
    {"op": "MakeLoss", "kind": "unary", "domain": "any",
     "attrs": {"grad_scale": [1.0, 0.5], "normalization": ["null", "batch"]}},
    {"op": "SliceChannel", "kind": "split", "domain": "any", "attrs": {"squeeze_axis": [False, True]}},
    {"op": "_zeros", "kind": "create", "domain": "any", "attrs": {}},
    {"op": "_ones", "kind": "create", "domain": "any", "attrs": {}},
    {"op": "_full", "kind": "create", "domain": "any", "attrs": {"value": [-1.5, 3.0]}},
    {"op": "_arange", "kind": "create", "domain": "any",
     "attrs": {"start": [0.0, -2.0], "step": [1.0, 0.5], "repeat": [1, 2]}},
    {"op": "RNN", "kind": "rnn", "domain": "any",
     "attrs": {"mode": ["lstm", "gru", "rnn_tanh", "rnn_relu"], "state_size": [1, 3],
               "num_layers": [1, 2], "bidirectional": [False, True],
               "state_outputs": [False, True]}},
    {"op": "CTCLoss", "kind": "ctc", "domain": "any", "attrs": {"blank_label": ["first"]}},
    {"op": "ROIPooling", "kind": "roi", "domain": "any",
     "attrs": {"pooled_size": [(1, 1), (2, 2), (2, 3)], "spatial_scale": [1.0, 0.5]}},
    {"op": "_contrib_ROIAlign", "kind": "roi", "domain": "any",
     "attrs": {"pooled_size": [(1, 1), (2, 2)], "spatial_scale": [1.0, 0.5],
               "sample_ratio": [-1, 2], "aligned": [False, True]}},
    {"op": "_contrib_box_iou", "kind": "boxes", "domain": "any",
     "attrs": {"format": ["corner", "center"]}},
    {"op": "_contrib_box_nms", "kind": "boxes", "domain": "any",
     "attrs": {"overlap_thresh": [0.3, 0.7], "topk": [-1, 2], "valid_thresh": [0.0, 0.25],
               "force_suppress": [False, True], "id_index": [0, -1], "score_index": [1],
               "coord_start": [2]}},
    {"op": "_contrib_MultiBoxPrior", "kind": "boxes", "domain": "any",
     "attrs": {"sizes": [(0.5,), (0.3, 0.6)], "ratios": [(1.0,), (1.0, 2.0, 0.5)],
               "clip": [False, True]}},
    {"op": "GridGenerator", "kind": "sampler", "domain": "any",
     "attrs": {"transform_type": ["affine", "warp"]}},
    {"op": "BilinearSampler", "kind": "sampler", "domain": "any", "attrs": {}},
    {"op": "SpatialTransformer", "kind": "sampler", "domain": "any",
     "attrs": {"transform_type": ["affine"], "sampler_type": ["bilinear"]}},
    {"op": "_contrib_MultiBoxDetection", "kind": "boxes", "domain": "any",
     "attrs": {"clip": [True, False], "threshold": [0.01, 0.3], "nms_threshold": [0.5, 0.3],
               "force_suppress": [False, True], "nms_topk": [-1, 3]}},
    {"op": "_contrib_MultiBoxTarget", "kind": "boxes", "domain": "any",
     "attrs": {"overlap_threshold": [0.5, 0.3], "negative_mining_ratio": [-1.0],
               "variances": [(0.1, 0.1, 0.2, 0.2), (1.0, 1.0, 1.0, 1.0)]}},
    {"op": "_contrib_Proposal", "kind": "boxes", "domain": "any",
     "attrs": {"rpn_pre_nms_top_n": [20], "rpn_post_nms_top_n": [5], "threshold": [0.7],
               "rpn_min_size": [1, 4], "scales": [(2.0,), (1.0, 2.0)], "ratios": [(1.0,), (0.5, 1.0)],
               "feature_stride": [4, 8]}},
    {"op": "_contrib_MultiProposal", "kind": "boxes", "domain": "any",
     "attrs": {"rpn_pre_nms_top_n": [20], "rpn_post_nms_top_n": [5], "threshold": [0.7],
               "rpn_min_size": [1], "scales": [(2.0,)], "ratios": [(1.0,), (0.5, 1.0)],
               "feature_stride": [4]}},
]

# ---------------------------------------------------------------------------- since the table
# The forward operators symx implemented after the entries above were written
# (kinds from structured.py where the inputs need structure).
OPS += [
    {"op": "hard_sigmoid", "kind": "unary", "domain": "any",
     "attrs": {"alpha": [0.2, 0.5], "beta": [0.5, 0.1]}},
    {"op": "_mod_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [1.5, -2.0, 3.0]}},
    {"op": "_rmod_scalar", "kind": "unary", "domain": "nonzero", "attrs": {"scalar": [2.5, -1.0]}},
    {"op": "_hypot_scalar", "kind": "unary", "domain": "any", "attrs": {"scalar": [0.5, 3.0]}},
    {"op": "_contrib_gradientmultiplier", "kind": "unary", "domain": "any",
     "attrs": {"scalar": [0.5, -1.0, 0.0]}},
    {"op": "_contrib_quadratic", "kind": "unary", "domain": "any",
     "attrs": {"a": [0.0, 0.5, -1.0], "b": [0.0, 2.0], "c": [0.0, -3.0]}},
    {"op": "_contrib_round_ste", "kind": "unary", "domain": "any", "attrs": {}},
    {"op": "_contrib_sign_ste", "kind": "unary", "domain": "any", "attrs": {}},
    {"op": "_contrib_div_sqrt_dim", "kind": "unary", "domain": "any", "attrs": {}},
    {"op": "make_loss", "kind": "unary", "domain": "any", "attrs": {}},
    {"op": "amp_cast", "kind": "unary", "domain": "any", "attrs": {"dtype": ["float32"]}},
    {"op": "_mod", "kind": "binary", "domain": "any", "domain2": "nonzero", "attrs": {}},
    {"op": "_hypot", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "_identity_with_attr_like_rhs", "kind": "binary", "domain": "any", "attrs": {}},
    {"op": "broadcast_mod", "kind": "bcast", "domain": "any", "domain2": "nonzero", "attrs": {}},
    {"op": "broadcast_hypot", "kind": "bcast", "domain": "any", "attrs": {}},
    {"op": "min", "kind": "reduce", "domain": "any",
     "attrs": {"keepdims": [False, True], "exclude": [False, True]}},
    {"op": "prod", "kind": "reduce", "domain": "any", "attrs": {"keepdims": [False, True]}},
    {"op": "nansum", "kind": "reduce", "domain": "any", "attrs": {"keepdims": [False, True]}},
    {"op": "nanprod", "kind": "reduce", "domain": "any", "attrs": {"keepdims": [False, True]}},
    {"op": "norm", "kind": "reduce2", "domain": "any",
     "attrs": {"ord": [1, 2], "keepdims": [False, True]}},
    {"op": "moments", "kind": "reduce2", "domain": "any", "attrs": {"keepdims": [False, True]}},
    {"op": "broadcast_to", "kind": "broadcast_shape", "domain": "any", "attrs": {"shape": "*"}},
    {"op": "broadcast_axis", "kind": "broadcast_shape", "domain": "any",
     "attrs": {"axis": "*", "size": "*"}},
    {"op": "broadcast_like", "kind": "broadcast_shape", "domain": "any", "attrs": {}},
    {"op": "reshape_like", "kind": "broadcast_shape", "domain": "any", "attrs": {}},
    {"op": "depth_to_space", "kind": "block", "domain": "any", "attrs": {"block_size": [1, 2]}},
    {"op": "space_to_depth", "kind": "block", "domain": "any", "attrs": {"block_size": [1, 2]}},
    {"op": "_split_v2", "kind": "split_v2", "domain": "any",
     "attrs": {"squeeze_axis": [False, True], "axis": "*", "indices": "*", "sections": "*"}},
    {"op": "im2col", "kind": "columns", "domain": "any",
     "attrs": {"kernel": [(1, 1), (2, 2), (3, 3)], "stride": [(1, 1), (2, 2)],
               "pad": [(0, 0), (1, 1)], "dilate": [(1, 1), (2, 2)]}},
    {"op": "col2im", "kind": "columns", "domain": "any",
     "attrs": {"kernel": [(1, 1), (2, 2), (3, 3)], "stride": [(1, 1), (2, 2)],
               "pad": [(0, 0), (1, 1)], "dilate": [(1, 1), (2, 2)], "output_size": "*"}},
    {"op": "khatri_rao", "nograd": True, "kind": "columns", "domain": "any", "attrs": {}},
    {"op": "_contrib_arange_like", "kind": "reduce", "domain": "any",
     "attrs": {"start": [0.0, -1.5], "step": [1.0, 0.5], "repeat": [1, 2]}},
    {"op": "_eye", "kind": "create", "domain": "any",
     "attrs": {"N": [1, 3, 4], "M": [0, 2, 5], "k": [0, 1, -1]}},
    {"op": "_zeros_without_dtype", "kind": "create", "domain": "any", "attrs": {}},
    {"op": "softmax_cross_entropy", "kind": "losses", "domain": "any", "attrs": {}},
    {"op": "SVMOutput", "kind": "losses", "domain": "any",
     "attrs": {"margin": [1.0, 0.5], "regularization_coefficient": [1.0, 2.0],
               "use_linear": [False, True]}},
    {"op": "SequenceMask", "kind": "sequence", "domain": "any",
     "attrs": {"use_sequence_length": [True, True, False], "value": [0.0, -2.0], "axis": [0, 1]}},
    {"op": "SequenceLast", "kind": "sequence", "domain": "any",
     "attrs": {"use_sequence_length": [True, True, False], "axis": [0, 1]}},
    {"op": "SequenceReverse", "kind": "sequence", "domain": "any",
     "attrs": {"use_sequence_length": [True, True, False]}},
    {"op": "_contrib_interleaved_matmul_selfatt_qk", "kind": "attention", "domain": "any",
     "attrs": {"heads": [1, 2, 3]}},
    {"op": "_contrib_interleaved_matmul_selfatt_valatt", "kind": "attention", "domain": "any",
     "attrs": {"heads": [1, 2, 3]}},
    {"op": "_contrib_interleaved_matmul_encdec_qk", "kind": "attention", "domain": "any",
     "attrs": {"heads": [1, 2, 3]}},
    {"op": "_contrib_interleaved_matmul_encdec_valatt", "kind": "attention", "domain": "any",
     "attrs": {"heads": [1, 2, 3]}},
    {"op": "_contrib_box_encode", "kind": "detection", "domain": "any", "attrs": {}},
    {"op": "_contrib_box_decode", "kind": "detection", "domain": "any",
     "attrs": {"std0": [1.0, 0.1], "std1": [1.0, 0.1], "std2": [1.0, 0.2], "std3": [1.0, 0.2],
               "clip": [-1.0, 1.0], "format": ["center", "corner"]}},
    {"op": "_contrib_bipartite_matching", "kind": "detection", "domain": "any",
     "attrs": {"is_ascend": [False, True], "threshold": [0.0, 0.5, -1e9], "topk": [-1, 2]}},
    {"op": "_linalg_gemm", "kind": "linalg", "domain": "any",
     "attrs": {"transpose_a": [False, True], "transpose_b": [False, True], "alpha": [1.0, -0.5],
               "beta": [1.0, 2.0]}},
    {"op": "_linalg_gemm2", "kind": "linalg", "domain": "any",
     "attrs": {"transpose_a": [False, True], "transpose_b": [False, True], "alpha": [1.0, 0.3]}},
    {"op": "_linalg_syrk", "kind": "linalg", "domain": "any",
     "attrs": {"transpose": [False, True], "alpha": [1.0, -2.0]}},
    {"op": "_linalg_potrf", "kind": "linalg", "domain": "any", "attrs": {}},
    {"op": "_linalg_potri", "kind": "linalg", "domain": "any", "attrs": {}},
    {"op": "_linalg_trsm", "kind": "linalg", "domain": "any",
     "attrs": {"transpose": [False, True], "rightside": [False, True], "lower": [True, False],
               "alpha": [1.0, 0.5]}},
    {"op": "_linalg_trmm", "kind": "linalg", "domain": "any",
     "attrs": {"transpose": [False, True], "rightside": [False, True], "lower": [True, False],
               "alpha": [1.0, -1.5]}},
    {"op": "_linalg_det", "kind": "linalg", "domain": "any", "attrs": {}},
    {"op": "_linalg_slogdet", "kind": "linalg", "domain": "any", "attrs": {}},
    {"op": "_linalg_inverse", "kind": "linalg", "domain": "any", "attrs": {}},
    {"op": "_linalg_sumlogdiag", "kind": "linalg", "domain": "any", "attrs": {}},
    {"op": "_linalg_syevd", "kind": "linalg", "domain": "any", "attrs": {}},
    {"op": "_linalg_gelqf", "kind": "linalg", "domain": "any", "attrs": {}},
    {"op": "_linalg_extractdiag", "kind": "linalg", "domain": "any", "attrs": {"offset": "*"}},
    {"op": "_linalg_extracttrian", "kind": "linalg", "domain": "any",
     "attrs": {"offset": "*", "lower": [True, False]}},
    {"op": "_linalg_makediag", "kind": "linalg", "domain": "any", "attrs": {"offset": [0, 1, -2]}},
    {"op": "_linalg_maketrian", "kind": "linalg", "domain": "any",
     "attrs": {"offset": [0, 1, -1], "lower": [True, False]}},
    {"op": "BatchNorm_v1", "kind": "batchnorm", "domain": "any",
     "attrs": {"fix_gamma": [False, True], "use_global_stats": [True], "eps": [1e-3, 1e-5]}},
    {"op": "_contrib_BatchNormWithReLU", "kind": "batchnorm", "domain": "any",
     "attrs": {"fix_gamma": [False, True], "use_global_stats": [True], "eps": [1e-3, 1e-5]}},
    {"op": "_contrib_SyncBatchNorm", "kind": "batchnorm", "domain": "any",
     "attrs": {"fix_gamma": [False, True], "use_global_stats": [True], "eps": [1e-3, 1e-5],
               "key": ["difftest"]}},
    {"op": "Convolution_v1", "kind": "conv", "domain": "any",
     "attrs": {"num_filter": [2, 4], "kernel": [(1, 1), (3, 3)], "stride": [(1, 1), (2, 2)],
               "pad": [(0, 0), (1, 1)], "no_bias": [False, True]}},
    {"op": "Pooling_v1", "kind": "pool", "domain": "any",
     "attrs": {"pool_type": ["max", "avg", "sum"], "kernel": [(2, 2), (3, 3)],
               "stride": [(1, 1), (2, 2)], "pooling_convention": ["valid", "full"],
               "global_pool": [False, False, True]}},
    {"op": "_image_to_tensor", "nograd": True, "kind": "hwc", "domain": "any", "attrs": {}},
    {"op": "_image_normalize", "kind": "hwc", "domain": "any",
     "attrs": {"mean": [(0.0,), (0.5, 0.2, -0.1)], "std": [(1.0,), (0.3, 1.0, 2.0)]}},
    {"op": "_image_crop", "kind": "hwc", "domain": "any",
     "attrs": {"x": "*", "y": "*", "width": "*", "height": "*"}},
    {"op": "_image_adjust_lighting", "kind": "hwc", "domain": "any",
     "attrs": {"alpha": [(0.1, -0.2, 0.05), (0.0, 0.0, 0.0)]}},
    # forward only: MXNet's flip gradient is unflipped (docs/numerics.md, erratum 23)
    {"op": "_image_flip_left_right", "nograd": True, "kind": "hwc", "domain": "any",
     "attrs": {}},
    {"op": "_image_flip_top_bottom", "nograd": True, "kind": "hwc", "domain": "any",
     "attrs": {}},
    {"op": "_ravel_multi_index", "kind": "index2", "domain": "any", "attrs": {"shape": "*"}},
    {"op": "_unravel_index", "kind": "index2", "domain": "any", "attrs": {"shape": "*"}},
    {"op": "scatter_nd", "kind": "index2", "domain": "any", "attrs": {"shape": "*"}},
    {"op": "_contrib_index_copy", "kind": "index2", "domain": "any", "attrs": {}},
    {"op": "_slice_assign", "nograd": True, "kind": "index2", "domain": "any",
     "attrs": {"begin": "*", "end": "*"}},
    {"op": "_slice_assign_scalar", "nograd": True, "kind": "index2", "domain": "any",
     "attrs": {"scalar": [0.0, 2.5], "begin": "*", "end": "*"}},
    {"op": "Correlation", "kind": "correlation", "domain": "any",
     "attrs": {"kernel_size": [1, 3], "max_displacement": [0, 1, 2], "stride1": [1, 2],
               "stride2": [1, 2], "pad_size": [0, 1, 2], "is_multiply": [True, False]}},
    {"op": "_contrib_PSROIPooling", "kind": "psroi", "domain": "any",
     "attrs": {"spatial_scale": [1.0, 0.5], "output_dim": [1, 2], "pooled_size": [1, 2, 3],
               "group_size": "*"}},
    {"op": "_contrib_DeformablePSROIPooling", "kind": "psroi", "domain": "any",
     "attrs": {"spatial_scale": [1.0, 0.5], "output_dim": [1, 2], "pooled_size": [1, 2],
               "group_size": "*", "sample_per_part": [1, 2], "trans_std": [0.0, 0.1],
               "no_trans": [False, True]}},
    {"op": "_contrib_DeformableConvolution", "kind": "deformable", "domain": "any",
     "attrs": {"num_filter": [1, 3], "kernel": [(1, 1), (3, 3)], "stride": [(1, 1), (2, 2)],
               "pad": [(0, 0), (1, 1)], "no_bias": [False, True]}},
]

# The densities: samples inside each distribution's support and valid
# parameters (structured.py's _PDF), in both outputs (is_log).
for _dist in ["normal", "uniform", "gamma", "exponential", "poisson", "negative_binomial",
              "generalized_negative_binomial", "dirichlet"]:
    OPS.append({"op": "_random_pdf_" + _dist, "kind": "pdf", "domain": "any",
                "attrs": {"is_log": [False, True]}})
