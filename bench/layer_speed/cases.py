"""The one case list of bench/layer_speed: a typical shape and config per layer
class, read by the Keras worker (which builds the layer and serializes the
config that Kiln's worker builds from, as the layers oracle does) and by the
PyTorch worker (torch_modules.py maps each row to its equivalent module).

A row: (row name, Keras class, kwargs, inputs, options). Inputs carry the
batch: ("float", shape) or ("int", shape, high) for integers in [0, high).
Options:
  list_input  - the layer takes a list of inputs (merges, attention)
  train_fwd   - the forward pass is timed in training mode: an augmentation
                or noise layer is the identity at inference, so its work is
                only in training
  module      - the Python module of a class keras.layers does not export
  config      - a hand-written Keras config, for classes whose Keras 3.15
                constructor needs TensorFlow (Kiln builds from it; Keras skips)
  kwargs_fn   - kwargs that hold Keras objects (wrapped layers, cells), made
                after keras is imported

Row names are Keras's class names. The catalogue is Kiln's registry
(layer_speed --list); every registered class is either a row, an alias of a
row's class (ALIASES), or in NOT_COVERED with the reason, and the table lists
a registered class that is none of these as "no speed case"."""

F = "float"
IMG = (16, 64, 64, 3)       # an image batch for preprocessing and augmentation
FMAP = (16, 32, 32, 32)     # a convolution feature map
FMAP3D = (8, 16, 16, 16, 8)
SEQ = (32, 64, 128)         # a sequence batch: 32 x 64 steps x 128 features
RNN_SEQ = (32, 50, 64)
VEC = (64, 512)
CONVNEXT = "keras.src.applications.convnext"


def fl(*shape):
    return [(F, tuple(shape))]


def two(shape):
    return [(F, shape), (F, shape)]


def _aug(name, kwargs, shape=IMG):
    return (name, name, kwargs, [(F, shape)], {"train_fwd": True})


ROWS = [
    # Core and activations.
    ("Dense", "Dense", {"units": 512}, fl(*VEC), {}),
    ("EinsumDense", "EinsumDense", {"equation": "abc,cd->abd", "output_shape": [64, 256], "bias_axes": "d"},
     fl(*SEQ), {}),
    ("Activation", "Activation", {"activation": "gelu"}, fl(*FMAP), {}),
    ("ReLU", "ReLU", {}, fl(*FMAP), {}),
    ("LeakyReLU", "LeakyReLU", {"negative_slope": 0.2}, fl(*FMAP), {}),
    ("ELU", "ELU", {}, fl(*FMAP), {}),
    ("PReLU", "PReLU", {"shared_axes": [1, 2]}, fl(*FMAP), {}),
    ("Softmax", "Softmax", {}, fl(32, 128, 128), {}),
    ("Embedding", "Embedding", {"input_dim": 10000, "output_dim": 128}, [("int", (32, 64), 10000)], {}),
    ("Masking", "Masking", {"mask_value": 0.0}, fl(*SEQ), {}),
    ("Identity", "Identity", {}, fl(*SEQ), {}),
    # Merging.
    ("Add", "Add", {}, two(FMAP), {"list_input": True}),
    ("Subtract", "Subtract", {}, two(FMAP), {"list_input": True}),
    ("Multiply", "Multiply", {}, two(FMAP), {"list_input": True}),
    ("Average", "Average", {}, two(FMAP), {"list_input": True}),
    ("Maximum", "Maximum", {}, two(FMAP), {"list_input": True}),
    ("Minimum", "Minimum", {}, two(FMAP), {"list_input": True}),
    ("Concatenate", "Concatenate", {}, two(FMAP), {"list_input": True}),
    ("Dot", "Dot", {"axes": 2}, two((32, 64, 128)), {"list_input": True}),
    # Convolution.
    ("Conv1D", "Conv1D", {"filters": 128, "kernel_size": 3, "padding": "same"}, fl(*SEQ), {}),
    ("Conv2D", "Conv2D", {"filters": 32, "kernel_size": 3, "padding": "same"}, fl(*FMAP), {}),
    ("Conv3D", "Conv3D", {"filters": 8, "kernel_size": 3, "padding": "same"}, fl(*FMAP3D), {}),
    ("Conv1DTranspose", "Conv1DTranspose", {"filters": 64, "kernel_size": 3, "strides": 2, "padding": "same"},
     fl(32, 64, 64), {}),
    ("Conv2DTranspose", "Conv2DTranspose", {"filters": 32, "kernel_size": 3, "strides": 2, "padding": "same"},
     fl(16, 16, 16, 32), {}),
    ("Conv3DTranspose", "Conv3DTranspose", {"filters": 8, "kernel_size": 3, "strides": 2, "padding": "same"},
     fl(8, 8, 8, 8, 8), {}),
    ("DepthwiseConv1D", "DepthwiseConv1D", {"kernel_size": 3, "padding": "same"}, fl(*SEQ), {}),
    ("DepthwiseConv2D", "DepthwiseConv2D", {"kernel_size": 3, "padding": "same"}, fl(16, 32, 32, 64), {}),
    ("SeparableConv1D", "SeparableConv1D", {"filters": 128, "kernel_size": 3, "padding": "same"}, fl(*SEQ), {}),
    ("SeparableConv2D", "SeparableConv2D", {"filters": 64, "kernel_size": 3, "padding": "same"}, fl(*FMAP), {}),
    # Pooling.
    ("MaxPooling1D", "MaxPooling1D", {"pool_size": 2}, fl(*SEQ), {}),
    ("MaxPooling2D", "MaxPooling2D", {"pool_size": 2}, fl(*FMAP), {}),
    ("MaxPooling3D", "MaxPooling3D", {"pool_size": 2}, fl(*FMAP3D), {}),
    ("AveragePooling1D", "AveragePooling1D", {"pool_size": 2}, fl(*SEQ), {}),
    ("AveragePooling2D", "AveragePooling2D", {"pool_size": 2}, fl(*FMAP), {}),
    ("AveragePooling3D", "AveragePooling3D", {"pool_size": 2}, fl(*FMAP3D), {}),
    ("GlobalAveragePooling1D", "GlobalAveragePooling1D", {}, fl(*SEQ), {}),
    ("GlobalAveragePooling2D", "GlobalAveragePooling2D", {}, fl(*FMAP), {}),
    ("GlobalAveragePooling3D", "GlobalAveragePooling3D", {}, fl(*FMAP3D), {}),
    ("GlobalMaxPooling1D", "GlobalMaxPooling1D", {}, fl(*SEQ), {}),
    ("GlobalMaxPooling2D", "GlobalMaxPooling2D", {}, fl(*FMAP), {}),
    ("GlobalMaxPooling3D", "GlobalMaxPooling3D", {}, fl(*FMAP3D), {}),
    ("AdaptiveAveragePooling1D", "AdaptiveAveragePooling1D", {"output_size": 16}, fl(*SEQ), {}),
    ("AdaptiveAveragePooling2D", "AdaptiveAveragePooling2D", {"output_size": 4}, fl(*FMAP), {}),
    ("AdaptiveAveragePooling3D", "AdaptiveAveragePooling3D", {"output_size": 4}, fl(*FMAP3D), {}),
    ("AdaptiveMaxPooling1D", "AdaptiveMaxPooling1D", {"output_size": 16}, fl(*SEQ), {}),
    ("AdaptiveMaxPooling2D", "AdaptiveMaxPooling2D", {"output_size": 4}, fl(*FMAP), {}),
    ("AdaptiveMaxPooling3D", "AdaptiveMaxPooling3D", {"output_size": 4}, fl(*FMAP3D), {}),
    # Normalization.
    ("BatchNormalization", "BatchNormalization", {}, fl(*FMAP), {}),
    ("LayerNormalization", "LayerNormalization", {}, fl(*SEQ), {}),
    ("GroupNormalization", "GroupNormalization", {"groups": 8}, fl(*FMAP), {}),
    ("RMSNormalization", "RMSNormalization", {}, fl(*SEQ), {}),
    ("UnitNormalization", "UnitNormalization", {}, fl(*SEQ), {}),
    ("Normalization", "Normalization", {"mean": [0.5] * 128, "variance": [2.0] * 128}, fl(*SEQ), {}),
    ("SpectralNormalization", "SpectralNormalization", {}, fl(*VEC),
     {"kwargs_fn": lambda keras: {"layer": keras.layers.Dense(512)}}),
    # Regularization (random in training: timed there).
    ("Dropout", "Dropout", {"rate": 0.5}, fl(*SEQ), {"train_fwd": True}),
    ("SpatialDropout1D", "SpatialDropout1D", {"rate": 0.5}, fl(*SEQ), {"train_fwd": True}),
    ("SpatialDropout2D", "SpatialDropout2D", {"rate": 0.5}, fl(*FMAP), {"train_fwd": True}),
    ("SpatialDropout3D", "SpatialDropout3D", {"rate": 0.5}, fl(*FMAP3D), {"train_fwd": True}),
    ("GaussianDropout", "GaussianDropout", {"rate": 0.5}, fl(*SEQ), {"train_fwd": True}),
    ("GaussianNoise", "GaussianNoise", {"stddev": 0.1}, fl(*SEQ), {"train_fwd": True}),
    ("AlphaDropout", "AlphaDropout", {"rate": 0.2}, fl(*SEQ), {"train_fwd": True}),
    ("ActivityRegularization", "ActivityRegularization", {"l1": 0.01, "l2": 0.01}, fl(*SEQ), {"train_fwd": True}),
    ("StochasticDepth", "StochasticDepth", {"drop_path_rate": 0.2}, fl(*SEQ), {"train_fwd": True, "module": CONVNEXT}),
    ("LayerScale", "LayerScale", {"init_values": 1e-6, "projection_dim": 128}, fl(*SEQ), {"module": CONVNEXT}),
    ("CustomScaleLayer", "CustomScaleLayer", {"scale": 0.17}, two(FMAP),
     {"list_input": True, "module": "keras.src.applications.inception_resnet_v2"}),
    # Reshaping.
    ("Flatten", "Flatten", {}, fl(*FMAP), {}),
    ("Reshape", "Reshape", {"target_shape": [64, 512]}, fl(*FMAP), {}),
    ("Permute", "Permute", {"dims": [2, 1]}, fl(*SEQ), {}),
    ("RepeatVector", "RepeatVector", {"n": 32}, fl(*VEC), {}),
    ("Cropping1D", "Cropping1D", {"cropping": [4, 4]}, fl(*SEQ), {}),
    ("Cropping2D", "Cropping2D", {"cropping": 2}, fl(*FMAP), {}),
    ("Cropping3D", "Cropping3D", {"cropping": 2}, fl(*FMAP3D), {}),
    ("ZeroPadding1D", "ZeroPadding1D", {"padding": 2}, fl(*SEQ), {}),
    ("ZeroPadding2D", "ZeroPadding2D", {"padding": 2}, fl(*FMAP), {}),
    ("ZeroPadding3D", "ZeroPadding3D", {"padding": 2}, fl(*FMAP3D), {}),
    ("UpSampling1D", "UpSampling1D", {"size": 2}, fl(*SEQ), {}),
    ("UpSampling2D", "UpSampling2D", {"size": 2}, fl(16, 16, 16, 32), {}),
    ("UpSampling3D", "UpSampling3D", {"size": 2}, fl(8, 8, 8, 8, 8), {}),
    # Recurrent.
    ("SimpleRNN", "SimpleRNN", {"units": 128}, fl(*RNN_SEQ), {}),
    ("LSTM", "LSTM", {"units": 128}, fl(*RNN_SEQ), {}),
    ("GRU", "GRU", {"units": 128}, fl(*RNN_SEQ), {}),
    ("RNN", "RNN", {"return_sequences": True}, fl(*RNN_SEQ),
     {"kwargs_fn": lambda keras: {"cell": keras.layers.LSTMCell(128)}}),
    ("SimpleRNNCell", "RNN", {}, fl(*RNN_SEQ), {"kwargs_fn": lambda keras: {"cell": keras.layers.SimpleRNNCell(128)}}),
    ("LSTMCell", "RNN", {}, fl(*RNN_SEQ), {"kwargs_fn": lambda keras: {"cell": keras.layers.LSTMCell(128)}}),
    ("GRUCell", "RNN", {}, fl(*RNN_SEQ), {"kwargs_fn": lambda keras: {"cell": keras.layers.GRUCell(128)}}),
    ("StackedRNNCells", "RNN", {}, fl(*RNN_SEQ), {"kwargs_fn": lambda keras: {
        "cell": keras.layers.StackedRNNCells([keras.layers.LSTMCell(128), keras.layers.LSTMCell(128)])}}),
    ("Bidirectional", "Bidirectional", {}, fl(*RNN_SEQ), {"kwargs_fn": lambda keras: {"layer": keras.layers.LSTM(64)}}),
    ("TimeDistributed", "TimeDistributed", {}, fl(*RNN_SEQ),
     {"kwargs_fn": lambda keras: {"layer": keras.layers.Dense(128)}}),
    ("ConvLSTM1D", "ConvLSTM1D", {"filters": 16, "kernel_size": 3, "padding": "same"}, fl(8, 10, 32, 8), {}),
    ("ConvLSTM2D", "ConvLSTM2D", {"filters": 16, "kernel_size": 3, "padding": "same"}, fl(8, 10, 16, 16, 4), {}),
    ("ConvLSTM3D", "ConvLSTM3D", {"filters": 8, "kernel_size": 3, "padding": "same"}, fl(4, 4, 8, 8, 8, 4), {}),
    # Attention.
    ("Attention", "Attention", {}, two(SEQ), {"list_input": True}),
    ("AdditiveAttention", "AdditiveAttention", {}, two((32, 32, 64)), {"list_input": True}),
    ("MultiHeadAttention", "MultiHeadAttention", {"num_heads": 8, "key_dim": 32}, two((32, 64, 256)),
     {"list_input": True}),
    ("GroupQueryAttention", "GroupQueryAttention", {"head_dim": 32, "num_query_heads": 8, "num_key_value_heads": 2},
     two((32, 64, 256)), {"list_input": True}),
    # Preprocessing.
    ("CategoryEncoding", "CategoryEncoding", {"num_tokens": 1000, "output_mode": "multi_hot"},
     [("int", (256, 32), 1000)], {}),
    ("Discretization", "Discretization", {"bin_boundaries": [-1.0, -0.5, 0.0, 0.5, 1.0]}, fl(*SEQ), {}),
    ("Hashing", "Hashing", {"num_bins": 1000}, [("int", (256, 32), 100000)],
     {"config": {"name": "hashing", "num_bins": 1000, "mask_value": None, "salt": None, "output_mode": "int",
                 "sparse": False}}),
    ("IntegerLookup", "IntegerLookup", {}, [("int", (256, 32), 1000)],
     {"config": {"name": "integer_lookup", "vocabulary": list(range(1, 500)), "max_tokens": None,
                 "num_oov_indices": 1, "mask_token": None, "oov_token": -1, "output_mode": "int",
                 "vocabulary_dtype": "int64"}}),
    ("HashedCrossing", "HashedCrossing", {"num_bins": 1000}, [("int", (8192,), 100), ("int", (8192,), 100)],
     {"list_input": True, "config": {"name": "hashed_crossing", "num_bins": 1000, "output_mode": "int",
                                     "sparse": False}}),
    ("Rescaling", "Rescaling", {"scale": 1.0 / 255}, fl(*IMG), {}),
    ("Resizing", "Resizing", {"height": 32, "width": 32}, fl(*IMG), {}),
    ("CenterCrop", "CenterCrop", {"height": 48, "width": 48}, fl(*IMG), {}),
    ("STFTSpectrogram", "STFTSpectrogram", {"frame_length": 256, "frame_step": 128}, fl(16, 16000, 1), {}),
    ("MelSpectrogram", "MelSpectrogram", {"fft_length": 512, "sequence_stride": 256, "num_mel_bins": 64},
     fl(16, 16000), {}),
    ("ReversibleEmbedding", "ReversibleEmbedding", {"input_dim": 10000, "output_dim": 128},
     [("int", (32, 64), 10000)], {}),
    ("Pipeline", "Pipeline", {}, fl(*IMG), {"train_fwd": True, "kwargs_fn": lambda keras: {
        "layers": [keras.layers.Rescaling(1.0 / 255), keras.layers.RandomFlip()]}}),
    # Image augmentation (the identity at inference: timed in training).
    _aug("RandomFlip", {}),
    _aug("RandomRotation", {"factor": 0.2}),
    _aug("RandomZoom", {"height_factor": 0.2}),
    _aug("RandomTranslation", {"height_factor": 0.1, "width_factor": 0.1}),
    _aug("RandomShear", {"x_factor": 0.2, "y_factor": 0.2}),
    _aug("RandomPerspective", {"scale": 0.5}),
    _aug("RandomElasticTransform", {"scale": 0.5}),
    _aug("RandomCrop", {"height": 48, "width": 48}),
    _aug("RandomContrast", {"factor": 0.5}),
    _aug("RandomBrightness", {"factor": 0.3}),
    _aug("RandomHue", {"factor": 0.3}),
    _aug("RandomSaturation", {"factor": 0.3}),
    _aug("RandomSharpness", {"factor": 0.3}),
    _aug("RandomColorDegeneration", {"factor": 0.5}),
    _aug("RandomColorJitter", {"brightness_factor": 0.2, "contrast_factor": 0.2, "saturation_factor": 0.2}),
    _aug("RandomGrayscale", {"factor": 0.5}),
    _aug("RandomInvert", {}),
    _aug("RandomPosterization", {"factor": 4}),
    _aug("RandomErasing", {}),
    _aug("RandomGaussianBlur", {"factor": 0.5}),
    _aug("Solarization", {"addition_factor": 0.2, "threshold_factor": 0.2}),
    _aug("AutoContrast", {}),
    _aug("Equalization", {}),
    _aug("ContrastLimitedAdaptiveHistogramEqualization", {}),
    _aug("MixUp", {}),
    _aug("CutMix", {}),
    _aug("RandAugment", {}),
    _aug("AugMix", {}),
    _aug("MaxNumBoundingBoxes", {"max_number": 8}),
]

# Classes with no speed case, and why.
NOT_COVERED = {
    "Functional": "a model container, not a layer",
    "Model": "a model container, not a layer",
    "Sequential": "a model container, not a layer",
    "InputLayer": "declares the model input; no computation",
    "Lambda": "wraps a user function; no config carries it",
}

# Kiln's registered aliases, timed by their Keras class's row.
ALIASES = {
    "AvgPool1D": "AveragePooling1D", "AvgPool2D": "AveragePooling2D", "AvgPool3D": "AveragePooling3D",
    "MaxPool1D": "MaxPooling1D", "MaxPool2D": "MaxPooling2D", "MaxPool3D": "MaxPooling3D",
    "GlobalAvgPool1D": "GlobalAveragePooling1D", "GlobalAvgPool2D": "GlobalAveragePooling2D",
    "GlobalAvgPool3D": "GlobalAveragePooling3D", "GlobalMaxPool1D": "GlobalMaxPooling1D",
    "GlobalMaxPool2D": "GlobalMaxPooling2D", "GlobalMaxPool3D": "GlobalMaxPooling3D",
    "Convolution1D": "Conv1D", "Convolution2D": "Conv2D", "Convolution3D": "Conv3D",
    "Convolution1DTranspose": "Conv1DTranspose", "Convolution2DTranspose": "Conv2DTranspose",
    "Convolution3DTranspose": "Conv3DTranspose",
    "SeparableConvolution1D": "SeparableConv1D", "SeparableConvolution2D": "SeparableConv2D",
    "GroupedQueryAttention": "GroupQueryAttention",
}

# Keras calls these as layer(query, value), not with a list.
POSITIONAL = {"MultiHeadAttention", "GroupQueryAttention"}


def rows(only=None):
    """The rows as dicts; `only` (a set of row names) limits them."""
    out = []
    for name, cls, kwargs, inputs, opts in ROWS:
        if only and name not in only:
            continue
        out.append(dict(name=name, cls=cls, kwargs=kwargs, inputs=inputs, **opts))
    return out


def describe(row):
    """A short text of the case: the config and the input shapes."""
    kw = ", ".join("%s=%s" % (k, _short(v)) for k, v in row["kwargs"].items())
    if "kwargs_fn" in row:
        kw = (kw + ", " if kw else "") + _LAYER_ARGS.get(row["name"], "...")
    shapes = " + ".join("x".join(str(d) for d in spec[1]) + (" int" if spec[0] == "int" else "")
                        for spec in row["inputs"])
    return "%s(%s) on %s%s" % (row["cls"], kw, shapes, ", training" if row.get("train_fwd") else "")


def _short(v):
    if isinstance(v, list) and len(v) > 6:
        return "[%d values]" % len(v)
    return v


_LAYER_ARGS = {
    "SpectralNormalization": "Dense(512)", "RNN": "LSTMCell(128), return_sequences", "SimpleRNNCell":
    "SimpleRNNCell(128)", "LSTMCell": "LSTMCell(128)", "GRUCell": "GRUCell(128)",
    "StackedRNNCells": "[LSTMCell(128)] x 2", "Bidirectional": "LSTM(64)", "TimeDistributed": "Dense(128)",
    "Pipeline": "[Rescaling, RandomFlip]",
}
