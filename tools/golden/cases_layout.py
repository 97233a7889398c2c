"""Golden cases of the layout family (graph/ops/layout.cc): reshape_like,
shape_array, size_array, depth_to_space, space_to_depth, _split_v2, im2col and
col2im (see golden_lib.py for what a Case holds). MXNet 1.9.1's bound im2col
and col2im fail outside 2-D images (shape checks in its kernels: 1-D im2col,
3-D col2im, and each as the other's gradient), so their cases are 2-D;
tests/ops/layout_test checks 1-D to 3-D."""
import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _layout_cases():
    d, r = V("data"), V("like")
    out = [
        Case("layout_reshape_like", mx.sym.reshape_like(d, r), {"data": (2, 6), "like": (3, 4)}),
        Case("layout_reshape_like_ranges",
             mx.sym.reshape_like(d, r, lhs_begin=0, lhs_end=1, rhs_begin=0, rhs_end=2),
             {"data": (6, 5), "like": (3, 2, 4)}),
        Case("layout_reshape_like_negative",
             mx.sym.reshape_like(d, r, lhs_begin=-1, lhs_end=None, rhs_begin=1, rhs_end=None),
             {"data": (3, 12), "like": (4, 2, 2, 3)}),
        Case("layout_shape_array", mx.sym.shape_array(d), {"data": (2, 3, 4)}, grad=False),
        Case("layout_size_array", mx.sym.size_array(d), {"data": (2, 3, 4)}, grad=False),
        Case("layout_depth_to_space", mx.sym.depth_to_space(d, block_size=2),
             {"data": (2, 8, 2, 3)}),
        Case("layout_space_to_depth", mx.sym.space_to_depth(d, block_size=3),
             {"data": (1, 2, 3, 6)}),
        Case("layout_split_v2_indices", mx.sym.split_v2(d, (2, 3), axis=1),
             {"data": (2, 5, 3)}),
        Case("layout_split_v2_sections", mx.sym.split_v2(d, 3, axis=0), {"data": (7, 2)}),
        Case("layout_split_v2_squeeze",
             mx.sym.split_v2(d, 3, axis=-1, squeeze_axis=True), {"data": (2, 3)}),
        Case("layout_im2col_2d", mx.sym.im2col(d, kernel=(2, 3), stride=(2, 1), pad=(1, 1)),
             {"data": (2, 2, 4, 5)}),
        Case("layout_im2col_2d_dilate", mx.sym.im2col(d, kernel=(2, 2), dilate=(2, 1)),
             {"data": (1, 2, 5, 4)}),
        Case("layout_col2im_2d",
             mx.sym.col2im(d, output_size=(4, 5), kernel=(2, 3), stride=(2, 1), pad=(1, 1)),
             {"data": (2, 12, 15)}),
        Case("layout_col2im_2d_dilate",
             mx.sym.col2im(d, output_size=(5, 4), kernel=(2, 2), dilate=(2, 1)),
             {"data": (1, 8, 9)}),
    ]
    return out


def cases():
    return _layout_cases()
