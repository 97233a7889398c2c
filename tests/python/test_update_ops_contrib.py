"""The contributed optimizer ops from Python (graph/ops/optimizer_contrib.cc):
mx.nd.multi_sum_sq, multi_lars, all_finite, multi_all_finite, reset_arrays,
mx.nd.contrib.group_adagrad_update and MXNet's wrappers mx.nd.contrib.adamw_update,
mp_adamw_update, multi_adamw_update, multi_mp_adamw_update, multi_lamb_update
and multi_mp_lamb_update, against MXNet 1.9.1's numbers on the same inputs."""
import numpy as np
import pytest

import symx as mx

nd = mx.nd


def _close(got, want, rtol=1e-6):
    np.testing.assert_allclose(got.asnumpy(), np.array(want), rtol=rtol, atol=1e-7)


def test_ops_are_where_mxnet_files_them():
    assert mx.nd.contrib.group_adagrad_update is mx.nd._contrib_group_adagrad_update
    for name in ("multi_sum_sq", "multi_lars", "all_finite", "multi_all_finite", "reset_arrays"):
        assert callable(getattr(mx.nd, name)), name
    for name in ("_adamw_update", "_mp_adamw_update", "_multi_adamw_update",
                 "_multi_mp_adamw_update", "_multi_lamb_update", "_multi_mp_lamb_update"):
        assert callable(getattr(mx.nd._internal, name)), name
    for name in ("adamw_update", "mp_adamw_update", "multi_adamw_update",
                 "multi_mp_adamw_update", "multi_lamb_update", "multi_mp_lamb_update"):
        assert callable(getattr(mx.nd.contrib, name)), name


def test_lars_helpers():
    a, b = nd.array([1, 2, 3]), nd.array([[0.5, -1.5], [2, 0.25]])
    sums = nd.multi_sum_sq(a, b, num_arrays=2)
    assert sums.dtype == np.float32 and sums.shape == (2,)
    assert sums.asnumpy().tolist() == [14.0, 6.5625]
    # float16 squares overflow past 256, as MXNet's CPU kernel.
    half = nd.multi_sum_sq(nd.array([1.5, 2.5], dtype="float16"),
                           nd.array([300], dtype="float16"), num_arrays=2)
    assert half.asnumpy().tolist() == [8.5, np.inf]
    lrs = nd.array([0.1, 0.2, 0.3, 0.4])
    out = nd.multi_lars(lrs, nd.array([4, 0, 9, 2.25]), nd.array([1, 1, np.nan, 0.16]),
                        nd.array([0.01, 0.01, 0.01, 0.5]), eta=0.5, eps=0.001, rescale_grad=2,
                        out=lrs)
    assert out is lrs
    _close(lrs, [0.04948045685887337, 0.20000000298023224, 0.30000001192092896,
                 0.19342359900474548])


def test_finite_flags_and_reset():
    assert nd.all_finite(nd.array([1, 1e300], dtype="float64")).asnumpy().tolist() == [0.0]
    assert nd.all_finite(nd.array([1, 2])).asnumpy().tolist() == [1.0]
    # AMP's use: one flag ANDed over chunks, never set back to 1.
    flag = nd.array([5.0])
    nd.multi_all_finite(nd.array([1, 2]), nd.array([3]), num_arrays=2, init_output=False,
                        out=flag)
    assert flag.asnumpy().tolist() == [5.0]
    nd.multi_all_finite(nd.array([1, 2]), nd.array([np.inf]), num_arrays=2, init_output=False,
                        out=flag)
    assert flag.asnumpy().tolist() == [0.0]
    a, b = nd.array([1, -2, 3]), nd.array([[4, 5]], dtype="float16")
    assert nd.reset_arrays(a, b, num_arrays=2) == []
    assert a.asnumpy().tolist() == [0, 0, 0] and b.asnumpy().tolist() == [[0, 0]]


def _adamw_state(dtype="float32", state="float32"):
    w = nd.array([1, -2, 0.5, 3], dtype=dtype)
    g = nd.array([0.5, 1, -3, 0.25], dtype=dtype)
    m = nd.array([0.1, 0, 0.2, -0.1], dtype=state)
    v = nd.array([0.01, 0.04, 0, 0.5], dtype=state)
    return w, g, m, v


def test_adamw_update_with_a_python_rescale():
    w, g, m, v = _adamw_state()
    nd.contrib.adamw_update(w, g, m, v, 2.0, lr=0.1, eta=0.5, wd=0.1, clip_gradient=1.0, out=w)
    _close(w, [0.859379768371582, -1.9247052669525146, 0.34850817918777466, 2.8528292179107666])
    _close(m, [0.1900000274181366, 0.10000002384185791, 0.07999996840953827,
               -0.039999984204769135])
    # MXNet also writes the rescaled gradient into grad; symx leaves it.
    assert g.asnumpy().tolist() == [0.5, 1, -3, 0.25]
    # An overflowed step (rescale 0, NaN, inf) changes nothing.
    for bad in (0.0, float("nan"), float("inf")):
        w, g, m, v = _adamw_state()
        nd.contrib.adamw_update(w, g, m, v, nd.array([bad]), lr=0.1, eta=0.5, out=w)
        assert w.asnumpy().tolist() == [1, -2, 0.5, 3]
        assert m.asnumpy().tolist() == pytest.approx([0.1, 0, 0.2, -0.1])


def test_mp_adamw_update():
    w, g, m, v = _adamw_state("float16")
    w32 = nd.array([1.0001, -2, 0.5, 3])
    nd.contrib.mp_adamw_update(w, g, m, v, w32, 2.0, lr=0.1, eta=0.5, wd=0.1,
                               clip_gradient=1.0, out=w)
    _close(w32, [0.859474778175354, -1.9247052669525146, 0.34850817918777466,
                 2.8528292179107666])
    assert w.asnumpy().tolist() == [0.859375, -1.9248046875, 0.348388671875, 2.853515625]


def _multi_state(dtype="float32", state="float32"):
    def pair(first, second, t):
        return [nd.array(first, dtype=t), nd.array(second, dtype=t)]
    ws = pair([1, -2, 0.5, 3], [[0.25, -0.75], [1.5, 2]], dtype)
    gs = pair([0.5, 1, -3, 0.25], [[1, -0.5], [0.125, 4]], dtype)
    ms = pair([0.1, 0, 0.2, -0.1], [[0, 0.1], [0.2, 0.3]], state)
    vs = pair([0.01, 0.04, 0, 0.5], [[0.1, 0.2], [0, 0.01]], state)
    w32 = [nd.array([1.0001, -2, 0.5, 3]), nd.array([[0.25, -0.75], [1.5, 2.0002]])]
    return ws, gs, ms, vs, w32


def test_multi_adamw_update():
    ws, gs, ms, vs, _ = _multi_state()
    nd.contrib.multi_adamw_update(ws, gs, ms, vs, 2.0, lrs=[0.1, 0.05], wds=[0.1, 0.2],
                                  etas=[0.5, 1.0], clip_gradient=1.0, out=ws)
    _close(ws[0], [0.8593796491622925, -1.9247052669525146, 0.3485080599784851,
                   2.8528292179107666])
    _close(ws[1], [[0.18425928056240082, -0.5988842248916626],
                   [-0.09654068946838379, 1.4235289096832275]])
    ws, gs, ms, vs, w32 = _multi_state("float16")
    nd.contrib.multi_mp_adamw_update(ws, gs, ms, vs, w32, 2.0, lrs=[0.1, 0.05], wds=[0.1, 0.2],
                                     etas=[0.5, 1.0], out=ws)
    _close(w32[1], [[0.16897638142108917, -0.5988842248916626],
                    [-0.09654068946838379, 1.40347158908844]])
    assert ws[1].asnumpy().tolist() == [[0.1689453125, -0.59912109375],
                                        [-0.0965576171875, 1.4033203125]]


def test_multi_lamb_update():
    ws, gs, ms, vs, _ = _multi_state()
    nd.contrib.multi_lamb_update(ws, gs, ms, vs, step_count=[1, 3], lrs=[0.1, 0.05],
                                 wds=[0.01, 0.2], out=ws)
    _close(ws[0], [0.7240866422653198, -2.0840070247650146, 0.7435452938079834,
                   2.9994335174560547])
    _close(ws[1], [[0.24854204058647156, -0.7483066916465759],
                   [1.3698869943618774, 1.984090805053711]])
    ws, gs, ms, vs, _ = _multi_state()
    nd.contrib.multi_lamb_update(ws, gs, ms, vs, step_count=[1, 3], lrs=[0.1, 0.05],
                                 wds=[0.01, 0.2], out=ws, upper_bound=0.0)
    _close(ws[1], [[0.24432021379470825, -0.7434033155441284],
                   [0.993118941783905, 1.9380226135253906]])
    ws, gs, ms, vs, w32 = _multi_state("float16")
    nd.contrib.multi_mp_lamb_update(ws, gs, ms, vs, w32, step_count=[1, 3], lrs=[0.1, 0.05],
                                    wds=[0.01, 0.2], out=ws)
    _close(w32[0], [0.724186360836029, -2.0840070247650146, 0.7435449361801147,
                    2.9994335174560547])
    assert ws[0].asnumpy().tolist() == [0.72412109375, -2.083984375, 0.74365234375, 3.0]
    with pytest.raises(mx.base.MXNetError, match="num_tensors"):
        n = 46
        nd.contrib.multi_lamb_update([nd.ones((1,))] * n, [nd.ones((1,))] * n,
                                     [nd.zeros((1,))] * n, [nd.zeros((1,))] * n,
                                     step_count=[1] * n, lrs=[0.1] * n, wds=[0] * n)


def test_group_adagrad_update_dense():
    w = nd.array([[1, 2], [3, 4], [0.5, -1]])
    h = nd.array([[0.5], [0], [1]])
    g = nd.array([[1, 2], [0.5, -0.5], [3, 0]])
    nd.contrib.group_adagrad_update(w, g, h, out=w, lr=0.1, rescale_grad=0.5,
                                    clip_gradient=1.2, epsilon=1e-5)
    # MXNet 1.9.1's numbers for the same gradient as row_sparse (every row).
    _close(w, [[0.9528597593307495, 1.905719518661499], [2.900007963180542, 4.099991798400879],
               [0.40850111842155457, -1.0]])
    _close(h, [[1.125], [0.0625], [1.7200000286102295]])


def test_symbol_adamw_update_runs_as_the_imperative_one():
    w, g, m, v = [mx.sym.Variable(n) for n in ("w", "g", "m", "v")]
    sym = mx.sym.contrib.adamw_update(w, g, m, v, 0.5, lr=0.1, eta=1.0, wd=0.01)
    assert sym.list_arguments() == ["w", "g"]
    assert sym.list_auxiliary_states() == ["m", "v"]  # written, as MXNet's FMutateInputs
    ex = sym.simple_bind(mx.cpu(), w=(3,), g=(3,), m=(3,), v=(3,))
    ex.arg_dict["w"][:] = np.array([1.0, -2.0, 0.5])
    ex.arg_dict["g"][:] = np.array([2.0, 1.0, -4.0])
    got = ex.forward()[0].asnumpy()
    ref = mx.nd.array([1.0, -2.0, 0.5])
    mean, var = mx.nd.zeros((3,)), mx.nd.zeros((3,))
    mx.nd.contrib.adamw_update(ref, mx.nd.array([2.0, 1.0, -4.0]), mean, var, 0.5, lr=0.1,
                               eta=1.0, wd=0.01, out=ref)
    np.testing.assert_array_equal(got, ref.asnumpy())
    np.testing.assert_array_equal(ex.aux_dict["m"].asnumpy(), mean.asnumpy())
    assert not np.array_equal(got, [1.0, -2.0, 0.5])
    mp = mx.sym.contrib.mp_adamw_update(w, g, m, v, mx.sym.Variable("w32"), 1.0, lr=0.1, eta=1.0)
    assert mp.list_auxiliary_states() == ["m", "v", "w32"]


def test_a_cached_plan_does_not_hide_a_changed_count():
    # The multi_ updates' plans key on num_tensors/num_weights: the same
    # inputs with a larger count are the error a first call gives.
    arrs = [mx.nd.ones((3,)) for _ in range(4)]
    mx.nd.contrib.multi_lamb_update([arrs[0]], [arrs[1]], [arrs[2]], [arrs[3]], [1], [0.1],
                                    [0.0], out=[arrs[0]])
    with pytest.raises(mx.base.MXNetError, match="weight_1"):
        mx.nd._internal._multi_lamb_update(*arrs, num_tensors=2, learning_rates=(0.1, 0.1),
                                           wds=(0, 0), step_count=(1, 1), out=[arrs[0]])


def test_a_skipped_adamw_step_returns_the_weight():
    w = mx.nd.array([1.0, 2.0])
    out = mx.nd.contrib.adamw_update(w, mx.nd.ones((2,)), mx.nd.zeros((2,)), mx.nd.zeros((2,)),
                                     0.0, lr=0.1, eta=1.0)
    np.testing.assert_array_equal(out.asnumpy(), [1.0, 2.0])


def test_clip_gradient_zero_clips_to_zero_as_mxnet():
    w, mean = mx.nd.array([1.0, 2.0]), mx.nd.zeros((2,))
    mx.nd.contrib.adamw_update(w, mx.nd.ones((2,)), mean, mx.nd.zeros((2,)), 1.0, lr=0.1, eta=1.0,
                               clip_gradient=0, out=w)
    np.testing.assert_array_equal(mean.asnumpy(), [0.0, 0.0])


def test_multi_updates_infer_one_dtype_for_every_weight():
    a, b, c, d, e, f, g, h = [mx.sym.Variable(n) for n in "abcdefgh"]
    sym = mx.sym._internal._multi_lamb_update(a, b, c, d, e, f, g, h, num_tensors=2,
                                              learning_rates=(0.1, 0.1), wds=(0, 0),
                                              step_count=(1, 1))
    args, outs, aux = sym.infer_type(a="float32")
    assert set(args) | set(outs) | set(aux) == {np.float32}
    with pytest.raises(mx.base.MXNetError):
        sym.infer_type(a="float32", e="float16")


def test_one_tensor_takes_scalar_rates():
    w = mx.nd.ones((2,))
    mx.nd.contrib.multi_lamb_update([w], [mx.nd.ones((2,))], [mx.nd.zeros((2,))],
                                    [mx.nd.zeros((2,))], step_count=1, lrs=0.1, wds=0.0, out=[w])
    assert not np.array_equal(w.asnumpy(), [1.0, 1.0])
