"""Cases of EinsumDense and the attention layers for the layers oracle
(oracle_layers.py adds them to its VARIANTS; same tuple format). Keras calls
the classes in POSITIONAL as layer(query, value[, key]); Kiln takes the list."""
F = "float"

POSITIONAL = {"MultiHeadAttention"}

VARIANTS = [
    ("EinsumDense", {"equation": "ab,bc->ac", "output_shape": 4, "bias_axes": "c"}, [(F, (5,))], False),
    ("EinsumDense", {"equation": "abc,cde->abde", "output_shape": [None, 2, 3], "bias_axes": "de"},
     [(F, (4, 5))], False),
    ("EinsumDense", {"equation": "...b,bc->...c", "output_shape": 3, "activation": "tanh"}, [(F, (3, 4))], False),
    ("EinsumDense", {"equation": "abc,cd->abd", "output_shape": [4, 2], "bias_axes": "bd"}, [(F, (4, 5))], False),
    ("Attention", {}, [(F, (3, 4)), (F, (5, 4))], True),
    ("Attention", {"use_scale": True}, [(F, (3, 4)), (F, (5, 6)), (F, (5, 4))], True),
    ("Attention", {"use_scale": True, "score_mode": "concat"}, [(F, (3, 4)), (F, (5, 4))], True),
    ("AdditiveAttention", {}, [(F, (3, 4)), (F, (5, 4))], True),
    ("AdditiveAttention", {"use_scale": False}, [(F, (3, 4)), (F, (5, 3)), (F, (5, 4))], True),
    ("MultiHeadAttention", {"num_heads": 2, "key_dim": 3}, [(F, (4, 5)), (F, (3, 5))], True),
    # Keras's fused dot_product_attention path (no dropout, no scores) needs
    # value_dim == key_dim; a dropout rate sends it down the einsum path, so
    # this case compares in inference only.
    ("MultiHeadAttention", {"num_heads": 2, "key_dim": 3, "value_dim": 2, "output_shape": [3], "dropout": 0.25},
     [(F, (4, 5)), (F, (3, 6)), (F, (3, 4))], True),
    ("MultiHeadAttention", {"num_heads": 2, "key_dim": 2, "attention_axes": [1, 2]},
     [(F, (3, 2, 4)), (F, (3, 2, 4))], True),
    ("MultiHeadAttention", {"num_heads": 2, "key_dim": 3, "use_bias": False, "use_gate": True},
     [(F, (3, 4)), (F, (3, 4))], True),
    ("MultiHeadAttention", {"num_heads": 1, "key_dim": 4, "sliding_window": 2}, [(F, (5, 4)), (F, (5, 4))], True),
]

# keras.layers exports the class GroupedQueryAttention as GroupQueryAttention;
# its configs carry the class name.
POSITIONAL.add("GroupedQueryAttention")
VARIANTS += [
    ("GroupQueryAttention", {"head_dim": 3, "num_query_heads": 4, "num_key_value_heads": 2},
     [(F, (3, 5)), (F, (4, 5))], True),
    ("GroupQueryAttention", {"head_dim": 2, "num_query_heads": 2, "num_key_value_heads": 1, "sliding_window": 2},
     [(F, (3, 4)), (F, (3, 4)), (F, (3, 6))], True),
    ("GroupQueryAttention", {"head_dim": 2, "num_query_heads": 2, "num_key_value_heads": 2, "use_bias": False,
                               "use_gate": True}, [(F, (3, 4)), (F, (3, 4))], True),
]


def inference_only(cls, kwargs):
    """A case with attention dropout: its training output is random."""
    attention = {"Attention", "AdditiveAttention", "MultiHeadAttention", "GroupQueryAttention"}
    return cls in attention and kwargs.get("dropout", 0) > 0
