"""Golden cases of the attention family (graph/ops/attention.cc): the
interleaved multi-head attention products of MXNet's contrib (float32, the
only dtype MXNet's CPU kernels take), _contrib_div_sqrt_dim, and a one-layer
transformer encoder block built with them as GluonNLP's BERT exports it
(interleaved q/k/v projection -> selfatt_qk -> softmax -> selfatt_valatt ->
projection, residual + LayerNorm, GELU feed-forward, residual + LayerNorm),
every weight's gradient checked (see golden_lib.py for what a Case holds)."""
import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable
C = mx.sym.contrib


def _product_cases():
    qkv, att, q, kv = V("queries_keys_values"), V("attention"), V("queries"), V("keys_values")
    return [
        Case("attention_selfatt_qk", C.interleaved_matmul_selfatt_qk(qkv, heads=2),
             {"queries_keys_values": (4, 3, 2 * 3 * 5)}, note="scale 1/sqrt(5) in float32"),
        Case("attention_selfatt_qk_one_head", C.interleaved_matmul_selfatt_qk(qkv, heads=1),
             {"queries_keys_values": (3, 2, 12)}),
        Case("attention_selfatt_valatt", C.interleaved_matmul_selfatt_valatt(qkv, att, heads=2),
             {"queries_keys_values": (4, 3, 2 * 3 * 5), "attention": (6, 4, 4)}),
        Case("attention_encdec_qk", C.interleaved_matmul_encdec_qk(q, kv, heads=3),
             {"queries": (4, 2, 3 * 4), "keys_values": (5, 2, 3 * 2 * 4)}),
        Case("attention_encdec_valatt", C.interleaved_matmul_encdec_valatt(kv, att, heads=3),
             {"keys_values": (5, 2, 3 * 2 * 4), "attention": (6, 4, 5)}),
        Case("attention_div_sqrt_dim", C.div_sqrt_dim(V("data")), {"data": (2, 3, 5)}),
    ]


def _encoder_block(units=8, heads=2, hidden=16):
    x = V("data")  # (length, batch, units), GluonNLP's interleaved layout
    qkv = mx.sym.FullyConnected(x, num_hidden=3 * units, flatten=False, name="qkv")
    score = C.interleaved_matmul_selfatt_qk(qkv, heads=heads, name="att_score")
    weights = mx.sym.softmax(score, axis=-1, name="att_weights")
    context = C.interleaved_matmul_selfatt_valatt(qkv, weights, heads=heads, name="context")
    proj = mx.sym.FullyConnected(context, num_hidden=units, flatten=False, name="proj")
    h = mx.sym.LayerNorm(x + proj, axis=-1, eps=1e-12, name="ln1")
    ffn = mx.sym.FullyConnected(h, num_hidden=hidden, flatten=False, name="ffn1")
    ffn = mx.sym.LeakyReLU(ffn, act_type="gelu", name="gelu")
    ffn = mx.sym.FullyConnected(ffn, num_hidden=units, flatten=False, name="ffn2")
    return mx.sym.LayerNorm(h + ffn, axis=-1, eps=1e-12, name="ln2")


def cases():
    return _product_cases() + [
        Case("attention_encoder_block", _encoder_block(), {"data": (5, 2, 8)}, rtol=1e-3,
             atol=1e-5, note="one BERT encoder layer through the interleaved contrib ops"),
    ]
