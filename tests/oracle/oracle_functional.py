"""Functional patterns that real Keras programs use, each built by Keras and
sent both ways through .keras, legacy .h5 and .weights.h5 (model_roundtrip.py):
an RNN whose states feed a decoder (seq2seq), nested models used as layers
(an autoencoder's encoder and decoder), a sub-model shared by two branches,
residual blocks whose shortcut is created after the main branch, attention
scores as a second output, a multi-output model used as a layer, merge layers
over inputs of different rank, Keras activations applied as raw ops, and
inputs and outputs given as a dict or nested lists.
Predictions and 5 SGD steps must match Keras."""
import keras
from keras import layers, ops

from model_roundtrip import Roundtrips


def seq2seq():
    enc_in = keras.Input((6, 4), name="encoder_inputs")
    _, h, c = layers.LSTM(5, return_state=True, name="encoder")(enc_in)
    dec_in = keras.Input((7, 3), name="decoder_inputs")
    seq = layers.LSTM(5, return_sequences=True, name="decoder")(dec_in, initial_state=[h, c])
    return keras.Model([enc_in, dec_in], layers.Dense(3, activation="softmax")(seq))


def gru_states():
    x = keras.Input((5, 3))
    seq, state = layers.GRU(4, return_sequences=True, return_state=True)(x)
    pooled = layers.GlobalAveragePooling1D()(seq)
    return keras.Model(x, layers.Concatenate()([pooled, state]))


def autoencoder():
    i = keras.Input((8,))
    encoder = keras.Model(i, layers.Dense(3, activation="relu")(layers.Dense(5, activation="tanh")(i)),
                          name="encoder")
    j = keras.Input((3,))
    decoder = keras.Model(j, layers.Dense(8)(layers.Dense(5, activation="relu")(j)), name="decoder")
    x = keras.Input((8,))
    return keras.Model(x, decoder(encoder(x)), name="autoencoder")


def shared_submodel():
    i = keras.Input((6,))
    tower = keras.Model(i, layers.BatchNormalization()(layers.Dense(4, activation="relu")(i)), name="tower")
    a, b = keras.Input((6,), name="left"), keras.Input((6,), name="right")
    ta, tb = tower(a), tower(b)
    diff = layers.Subtract()([ta, tb])
    return keras.Model([a, b], layers.Dense(1, activation="sigmoid")(layers.Concatenate()([diff, ta])))


def residual():
    x = keras.Input((6, 6, 3))
    y = layers.Conv2D(4, 3, padding="same", name="stem")(x)
    for k in range(2):
        shortcut = layers.Conv2D(8, 1, name="block%d_0_conv" % k)(y)
        shortcut = layers.BatchNormalization(name="block%d_0_bn" % k)(shortcut)
        z = layers.Conv2D(8, 1, name="block%d_1_conv" % k)(y)
        z = layers.BatchNormalization(name="block%d_1_bn" % k)(z)
        z = layers.Activation("relu")(z)
        z = layers.Conv2D(8, 3, padding="same", name="block%d_2_conv" % k)(z)
        y = layers.Activation("relu")(layers.Add()([shortcut, z]))
    return keras.Model(x, layers.Dense(2)(layers.GlobalAveragePooling2D()(y)))


def attention_scores():
    q = keras.Input((4, 6))
    v = keras.Input((5, 6))
    out, scores = layers.MultiHeadAttention(2, 3)(q, v, return_attention_scores=True)
    return keras.Model([q, v], [layers.Dense(2)(out), scores])


def multi_output_submodel():
    i = keras.Input((5,))
    inner = keras.Model(i, [layers.Dense(3)(i), layers.Dense(2, activation="tanh")(i)], name="two_heads")
    x = keras.Input((5,))
    a, b = inner(x)
    return keras.Model(x, [layers.Concatenate()([a, b]), layers.Dense(1)(b)])


def merge_ranks():
    a = keras.Input((3,))
    b = keras.Input((1, 1, 1, 1, 3))
    c = keras.Input((4, 3))
    prod = layers.Multiply()([a, b])
    total = layers.Add()([a, c])
    avg = layers.Average()([c, a])
    mx = layers.Maximum()([a, c])
    return keras.Model([a, b, c], [prod, layers.Subtract()([total, avg]), mx, layers.Minimum()([c, a])])


def activation_ops():
    x = keras.Input((6,))
    h = layers.Dense(6)(x)
    outs = [keras.activations.celu(h), keras.activations.elu(h), keras.activations.gelu(h),
            keras.activations.hard_shrink(h), ops.threshold(h, 0.2, -1.0), keras.activations.selu(h),
            keras.activations.relu(h, negative_slope=0.1, max_value=1.5, threshold=0.2), keras.activations.relu6(h),
            keras.activations.leaky_relu(h, 0.3), keras.activations.soft_shrink(h), keras.activations.squareplus(h),
            keras.activations.log_softmax(h), keras.activations.softmax(h), keras.activations.tanh_shrink(h),
            keras.activations.hard_tanh(h), keras.activations.sparse_plus(h), keras.activations.log_sigmoid(h),
            ops.hard_silu(h), keras.activations.silu(h), keras.activations.softsign(h), keras.activations.softplus(h),
            keras.activations.sigmoid(h), keras.activations.hard_sigmoid(h), keras.activations.exponential(h),
            keras.activations.tanh(h), keras.activations.glu(layers.Dense(4)(h)), ops.sqrt(ops.abs(h)),
            ops.square(h), ops.log1p(ops.abs(h))]
    return keras.Model(x, layers.Concatenate()(outs))


def numpy_ops():
    """keras.ops array, reduction and comparison calls recorded as operation nodes."""
    x, y = keras.Input((3, 4)), keras.Input((4,))
    h = layers.Dense(4)(x)
    v = layers.Dense(4)(y)
    as_float = lambda t: ops.cast(t, "float32")
    outs = [ops.clip(h, -0.5, 0.5), ops.prod(h, axis=1), as_float(ops.argmax(h, axis=-1)),
            as_float(ops.argmin(h, axis=1, keepdims=True))[:, 0, :], h[:, :, 1:3], h[:, None, ::2, -1], ops.tile(v, (1, 2)),
            ops.reshape(ops.stack([h, h], axis=1), (-1, 24)), ops.where(ops.greater(h, 0.0), h, ops.expand_dims(v, 1)),
            ops.einsum("bij,bj->bi", h, v), ops.round(h), ops.round(h, 1), ops.matmul(h, ops.expand_dims(v, -1))[:, :, 0],
            ops.logsumexp(h, axis=1), ops.one_hot(ops.argmax(v, -1), 4), ops.normalize(v), ops.var(h, axis=1),
            ops.std(h, axis=-1), ops.arctan2(h, ops.expand_dims(v, 1)), ops.floor_divide(h, 0.3), ops.mod(h, 0.7),
            ops.power(ops.abs(h), 1.5), as_float(ops.less(h, 0.1)), as_float(ops.less_equal(h, 0.1)),
            as_float(ops.greater_equal(v, 0.0)), as_float(ops.logical_not(ops.greater(v, 0.0))),
            as_float(ops.isnan(v)), as_float(ops.isfinite(v)), ops.zeros_like(v), ops.ones_like(v, dtype="float32"),
            ops.stop_gradient(v)]
    flat = [o if len(o.shape) == 2 else layers.Flatten()(o) for o in outs]
    return keras.Model([x, y], layers.Concatenate()(flat))


def table_ops():
    """keras.ops calls whose nodes Kiln runs through its keras.ops table (two of
    them, top_k and rfft, with two outputs). Keras's legacy .h5 reader cannot find these
    operation classes, so the model goes through .keras and .weights.h5 only."""
    x, y = keras.Input((3, 4)), keras.Input((4,))
    h = layers.Dense(4)(x)
    v = layers.Dense(4)(y)
    as_float = lambda t: ops.cast(t, "float32")
    values, indices = ops.top_k(v, 2)
    spectrum_real, spectrum_imag = ops.rfft(h)
    outs = [spectrum_real, spectrum_imag, ops.cumsum(h, axis=1), ops.cumprod(h, axis=2), ops.sort(h, axis=-1), ops.flip(h, axis=1),
            ops.roll(h, 1, axis=2), ops.tril(h), ops.triu(h, k=1), ops.repeat(v, 2, axis=1), ops.cbrt(h),
            ops.log2(ops.abs(h) + 1.0), ops.logaddexp(h, ops.expand_dims(v, 1)), ops.arcsinh(h),
            ops.moveaxis(h, 1, 2), ops.swapaxes(h, 1, 2), ops.median(h, axis=1), values, as_float(indices),
            ops.diff(h, axis=1), ops.diagonal(h, axis1=1, axis2=2), ops.nan_to_num(h), ops.amax(h, axis=1),
            as_float(ops.argsort(h, axis=-1)), as_float(ops.logical_xor(ops.greater(h, 0.0), ops.less(h, 0.5))),
            ops.hypot(h, ops.expand_dims(v, 1)), ops.sinh(h)]
    flat = [o if len(o.shape) == 2 else layers.Flatten()(o) for o in outs]
    return keras.Model([x, y], layers.Concatenate()(flat))


def table_ops_more():
    """More table nodes: pools, normalizations, linear algebra, bitwise ops, multi_hot."""
    x = keras.Input((3, 4))
    h = layers.Dense(4)(x)
    sq = layers.Dense(3)(x)
    as_float = lambda t: ops.cast(t, "float32")
    as_int = lambda t: ops.cast(t * 10.0, "int32")
    img = ops.expand_dims(h, -1)
    outs = [ops.max_pool(img, 2, strides=1, padding="same"), ops.average_pool(img, 2, strides=2, padding="same"),
            ops.rms_normalization(h), ops.layer_normalization(h), ops.sparsemax(h), ops.det(sq),
            ops.slogdet(sq + 3.0)[1], as_float(ops.bitwise_and(as_int(h), as_int(sq[:, :, :1]))),
            as_float(ops.right_shift(as_int(h), as_int(ops.abs(sq[:, :, 1:2])))),
            ops.multi_hot(ops.argmax(h, axis=-1), 4)]
    flat = [o if len(o.shape) == 2 else layers.Flatten()(o) for o in outs]
    return keras.Model(x, layers.Concatenate()(flat))


def dict_io():
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    h = layers.Dense(4, activation="relu")(layers.Concatenate()([b, a]))
    return keras.Model({"text": a, "extra": b},
                       {"score": layers.Dense(1)(h), "class": layers.Dense(3, activation="softmax")(h)})


def nested_outputs():
    x = keras.Input((4,))
    h = layers.Dense(5, activation="tanh")(x)
    return keras.Model(x, [layers.Dense(2)(h), [layers.Dense(3)(h), layers.Dense(1)(h)]])


def run(o):
    r = Roundtrips(o)
    r.add("seq2seq", seq2seq)
    r.add("gru_states", gru_states)
    r.add("autoencoder", autoencoder)
    r.add("shared_submodel", shared_submodel, batch=3)
    r.add("residual", residual)
    r.add("attention_scores", attention_scores)
    r.add("multi_output_submodel", multi_output_submodel)
    r.add("merge_ranks", merge_ranks)
    r.add("activation_ops", activation_ops)
    r.add("numpy_ops", numpy_ops)
    r.add("table_ops", table_ops, formats=("keras", "weights"))
    r.add("table_ops_more", table_ops_more, formats=("keras", "weights"))
    r.add("dict_io", dict_io)
    r.add("nested_outputs", nested_outputs)
    r.check()
