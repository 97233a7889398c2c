"""Bad input from Python gets a clear error naming what is wrong (a TypeError,
ValueError or MXNetError), never a crash or pybind11's generic cast message."""
import numpy as np
import pytest

import symx as mx


@pytest.fixture
def fc():
    return mx.sym.FullyConnected(mx.sym.Variable("x"), num_hidden=2, name="fc")


@pytest.mark.parametrize("grad_req", [{1: "write"}, [1, 1, 1], 3, {"x": 1}])
def test_grad_req_of_wrong_types(fc, grad_req):
    with pytest.raises(TypeError, match="grad_req"):
        fc.simple_bind(mx.cpu(), grad_req=grad_req, x=(1, 3))


def test_bad_grad_req_text_names_the_valid_ones(fc):
    with pytest.raises(mx.base.MXNetError, match="write"):
        fc.simple_bind(mx.cpu(), grad_req="sometimes", x=(1, 3))


@pytest.mark.parametrize("shape", [(2, "x"), (2.0, 3), [2, 3], (True, 3)])
def test_shapes_must_be_tuples_of_ints(fc, shape):
    with pytest.raises(TypeError, match="x"):
        fc.simple_bind(mx.cpu(), x=shape)
    with pytest.raises(TypeError, match="x"):
        fc.infer_shape(x=shape)


def test_type_dict_and_shared_buffer_and_shared_exec_types(fc):
    with pytest.raises(TypeError, match="type_dict"):
        fc.simple_bind(mx.cpu(), type_dict={1: np.float32}, x=(1, 3))
    with pytest.raises(TypeError, match="shared_buffer"):
        fc.simple_bind(mx.cpu(), shared_buffer={"x": np.zeros((1, 3))}, x=(1, 3))
    with pytest.raises(TypeError, match="shared_exec"):
        fc.simple_bind(mx.cpu(), shared_exec="exe", x=(1, 3))


def test_backward_head_gradient_keys_and_values(fc):
    exe = fc.simple_bind(mx.cpu(), x=(1, 3))
    exe.forward(is_train=True)
    with pytest.raises(TypeError, match="out_grads"):
        exe.backward({1: mx.nd.ones((1, 2))})
    with pytest.raises(TypeError):
        exe.backward([np.ones((1, 2))])


def test_copy_params_from_wants_dicts_of_arrays(fc):
    exe = fc.simple_bind(mx.cpu(), x=(1, 3))
    with pytest.raises(TypeError, match="arg_params"):
        exe.copy_params_from([mx.nd.ones((2, 3))])
    with pytest.raises(TypeError, match="fc_weight"):
        exe.copy_params_from({"fc_weight": None})
    with pytest.raises(mx.base.MXNetError, match="fc_weight"):
        exe.copy_params_from({"fc_weight": mx.nd.ones((3, 3))})  # wrong shape


def test_variable_init_must_be_an_initializer_or_text():
    with pytest.raises(TypeError, match="init"):
        mx.sym.Variable("w", init=3)


def test_unknown_op_attribute_names_the_op_and_key():
    with pytest.raises(mx.base.MXNetError, match="bogus"):
        mx.sym.Convolution(mx.sym.Variable("x"), kernel=(3, 3), num_filter=2, bogus="x")


def test_missing_params_file_names_the_file(tmp_path):
    with pytest.raises(mx.base.MXNetError, match="nothing.params"):
        mx.nd.load(str(tmp_path / "nothing.params"))


def test_bfloat16_arrays_read_back_as_float32():
    # numpy has no bfloat16: host reads convert instead of failing (or ending
    # the process, as an error inside a buffer export would).
    y = mx.sym.Cast(mx.sym.Variable("x"), dtype="bfloat16")
    out = y.eval(x=mx.nd.array([1.5, -2.0]))[0]
    assert out.dtype == "bfloat16"
    values = out.asnumpy()
    assert values.dtype == np.float32
    np.testing.assert_array_equal(values, [1.5, -2.0])
    out[:] = 3
    np.testing.assert_array_equal(out.asnumpy(), [3, 3])
    assert "NDArray 2 @cpu(0)" in repr(out)


def test_copyto_of_another_shape_is_an_error():
    with pytest.raises(mx.base.MXNetError, match="shape"):
        mx.nd.zeros((2, 3)).copyto(mx.nd.zeros((3, 2)))


@pytest.mark.parametrize("var,value,says", [
    ("SYMX_FUSION", "maybe", "SYMX_FUSION='maybe' is not a switch"),
    ("SYMX_CPU_THREADS", "0", "SYMX_CPU_THREADS='0' is not a positive integer"),
])
def test_a_malformed_environment_variable_fails_the_import_naming_it(var, value, says):
    # The SYMX_* variables are read once, when the extension is imported.
    import os
    import subprocess
    import sys
    env = dict(os.environ, **{var: value})
    p = subprocess.run([sys.executable, "-c", "import symx"], env=env,
                       capture_output=True, text=True)
    assert p.returncode != 0
    assert says in p.stderr


def test_environment_switches_reach_the_binds():
    # SYMX_NUM_CPU_DEVICES=2 leaves cpu(2) undefined in that process.
    import os
    import subprocess
    import sys
    code = ("import symx as mx\n"
            "x = mx.sym.Variable('x')\n"
            "try:\n"
            "    (x * 2).simple_bind(mx.cpu(2), x=(1, 2))\n"
            "except mx.base.MXNetError as e:\n"
            "    print(e)\n")
    env = dict(os.environ, SYMX_NUM_CPU_DEVICES="2")
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "cpu(0) to cpu(1)" in p.stdout
