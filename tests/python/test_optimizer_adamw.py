"""mx.optimizer.AdamW (MXNet 2.0's optimizer on 1.9.1's _adamw_update and
_multi_adamw_update operators) against a numpy reference of its rule."""
import math

import numpy as np
import pytest

import symx as mx


def _reference(w, grads, lr=0.001, b1=0.9, b2=0.999, eps=1e-6, wd=0.0, rescale=1.0,
               correct_bias=True):
    w = w.astype(np.float64).copy()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        g = g * rescale
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        eta = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t) if correct_bias else lr
        w = w - eta * (m / (np.sqrt(v) + eps) + wd * w)
    return w


@pytest.mark.parametrize("correct_bias", [True, False])
def test_one_weight_follows_the_rule(correct_bias):
    rng = np.random.RandomState(0)
    w0 = rng.randn(3, 4).astype(np.float32)
    grads = [rng.randn(3, 4).astype(np.float32) for _ in range(3)]
    opt = mx.optimizer.create("adamw", learning_rate=0.01, wd=0.1, rescale_grad=0.5,
                              correct_bias=correct_bias)
    updater = mx.optimizer.get_updater(opt)
    w = mx.nd.array(w0)
    for g in grads:
        updater(0, mx.nd.array(g), w)
    want = _reference(w0, grads, lr=0.01, wd=0.1, rescale=0.5, correct_bias=correct_bias)
    np.testing.assert_allclose(w.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_lists_update_in_aggregated_calls_with_the_same_numbers():
    rng = np.random.RandomState(1)
    w0 = [rng.randn(2, 3).astype(np.float32) for _ in range(6)]
    grads = [[rng.randn(2, 3).astype(np.float32) for _ in range(6)] for _ in range(2)]
    opt = mx.optimizer.AdamW(learning_rate=0.02, wd=0.01)
    assert opt.aggregate_num == 4
    updater = mx.optimizer.get_updater(opt)
    ws = [mx.nd.array(w) for w in w0]
    for step in grads:
        updater(list(range(6)), [mx.nd.array(g) for g in step], ws)
    for k in range(6):
        want = _reference(w0[k], [grads[0][k], grads[1][k]], lr=0.02, wd=0.01)
        np.testing.assert_allclose(ws[k].asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert opt.num_update == 2


def test_multi_precision_keeps_mxnet_2s_state_order():
    opt = mx.optimizer.AdamW(learning_rate=1e-3, multi_precision=True)
    w = mx.nd.ones((4,), dtype="float16")
    state = opt.create_state_multi_precision(0, w)
    (mean, var), master = state
    assert master.dtype == np.float32 and mean.dtype == np.float32
    for _ in range(3):
        opt.update_multi_precision(0, w, mx.nd.ones((4,), dtype="float16"), state)
    np.testing.assert_allclose(master.asnumpy(), _reference(np.ones(4), [np.ones(4)] * 3,
                                                            lr=1e-3), rtol=1e-6)
    np.testing.assert_array_equal(w.asnumpy(), master.asnumpy().astype(np.float16))


def test_a_step_with_a_non_finite_rescale_is_skipped():
    opt = mx.optimizer.AdamW(learning_rate=0.1, rescale_grad=float("inf"))
    w = mx.nd.ones((3,))
    updater = mx.optimizer.get_updater(opt)
    updater(0, mx.nd.ones((3,)), w)
    np.testing.assert_array_equal(w.asnumpy(), np.ones(3))


def test_lamb_one_weight_given_as_a_list_takes_the_aggregated_operator():
    # As MXNet's Updater: LAMB is handed lists (aggregate_num 45), also of
    # one weight, and runs _multi_lamb_update; a bare index runs the phase
    # operators. Both follow LAMB's rule.
    rng = np.random.RandomState(2)
    w0 = rng.randn(3, 3).astype(np.float32)
    g = rng.randn(3, 3).astype(np.float32)
    a, b = mx.nd.array(w0), mx.nd.array(w0)
    mx.optimizer.get_updater(mx.optimizer.LAMB(learning_rate=0.01))(0, mx.nd.array(g), a)
    lamb = mx.optimizer.LAMB(learning_rate=0.01)
    lamb.update(0, b, mx.nd.array(g), lamb.create_state(0, b))
    np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-7)
    assert not np.array_equal(a.asnumpy(), w0)
