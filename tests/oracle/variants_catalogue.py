"""Cases of the normalization, noise, shape and image layers for the layers
oracle (oracle_layers.py adds them to its VARIANTS; same tuple format:
class name, kwargs, inputs as [(dtype, shape without batch)], list_input).

The random layers with a nonzero rate or stddev compare in inference only
(inference_only below); their training-mode statistics are checked in
tests/layers/test_catalogue_values.cpp."""
import keras

F = "float"

VARIANTS = [
    ("GroupNormalization", {"groups": 2}, [(F, (5, 4))], False),
    ("GroupNormalization", {"groups": -1, "axis": 1, "epsilon": 0.01}, [(F, (3, 4, 2))], False),
    ("GroupNormalization", {"groups": 1, "center": False}, [(F, (3, 2))], False),
    ("RMSNormalization", {}, [(F, (5,))], False),
    ("RMSNormalization", {"axis": [1, 2], "epsilon": 1e-3}, [(F, (3, 4))], False),
    ("UnitNormalization", {}, [(F, (5,))], False),
    ("UnitNormalization", {"axis": [1, 2]}, [(F, (3, 4))], False),
    ("Normalization", {"mean": [1.0, -2.0, 0.5], "variance": [4.0, 0.25, 9.0]}, [(F, (3,))], False),
    ("Normalization", {"axis": None, "mean": 0.5, "variance": 2.0, "invert": True}, [(F, (2, 3))], False),
    ("SpatialDropout1D", {"rate": 0.3}, [(F, (5, 3))], False),
    ("SpatialDropout1D", {"rate": 0.0}, [(F, (5, 3))], False),
    ("SpatialDropout2D", {"rate": 0.3, "data_format": "channels_first"}, [(F, (3, 4, 2))], False),
    ("SpatialDropout3D", {"rate": 0.3}, [(F, (2, 3, 2, 2))], False),
    ("GaussianDropout", {"rate": 0.3}, [(F, (5,))], False),
    ("GaussianNoise", {"stddev": 0.3}, [(F, (5,))], False),
    ("GaussianNoise", {"stddev": 0.0}, [(F, (5,))], False),
    ("AlphaDropout", {"rate": 0.2}, [(F, (5,))], False),
    ("ActivityRegularization", {"l1": 0.01, "l2": 0.02}, [(F, (4,))], False),
    ("Identity", {}, [(F, (2, 3))], False),
    ("Cropping1D", {}, [(F, (6, 2))], False),
    ("Cropping1D", {"cropping": [2, 1]}, [(F, (6, 2))], False),
    ("Cropping2D", {"cropping": [[1, 0], [2, 1]]}, [(F, (5, 6, 2))], False),
    ("Cropping2D", {"cropping": 1, "data_format": "channels_first"}, [(F, (2, 5, 4))], False),
    ("Cropping3D", {}, [(F, (4, 3, 5, 2))], False),
    ("Cropping3D", {"cropping": [[0, 1], [1, 0], [1, 1]], "data_format": "channels_first"}, [(F, (2, 4, 3, 5))], False),
    ("ZeroPadding1D", {}, [(F, (3, 2))], False),
    ("ZeroPadding1D", {"padding": [2, 1]}, [(F, (3, 2))], False),
    ("ZeroPadding3D", {}, [(F, (2, 2, 3, 1))], False),
    ("ZeroPadding3D", {"padding": [[1, 0], [0, 2], [1, 1]]}, [(F, (2, 2, 3, 1))], False),
    ("UpSampling2D", {}, [(F, (3, 2, 2))], False),
    ("UpSampling2D", {"size": [2, 3], "interpolation": "bilinear"}, [(F, (3, 4, 2))], False),
    ("UpSampling2D", {"size": 2, "data_format": "channels_first"}, [(F, (2, 3, 2))], False),
    ("UpSampling3D", {}, [(F, (2, 2, 2, 1))], False),
    ("UpSampling3D", {"size": [1, 2, 3]}, [(F, (2, 2, 2, 2))], False),
    ("Rescaling", {"scale": 0.5, "offset": -1.0}, [(F, (4,))], False),
    ("Resizing", {"height": 3, "width": 5}, [(F, (7, 4, 2))], False),
    ("Resizing", {"height": 9, "width": 7}, [(F, (4, 3, 1))], False),
    ("Resizing", {"height": 4, "width": 4, "interpolation": "nearest", "crop_to_aspect_ratio": True},
     [(F, (6, 5, 1))], False),
    ("Resizing", {"height": 5, "width": 3, "pad_to_aspect_ratio": True, "fill_value": 0.5}, [(F, (4, 4, 2))], False),
    ("CenterCrop", {"height": 3, "width": 2}, [(F, (6, 5, 2))], False),
    ("CenterCrop", {"height": 6, "width": 4}, [(F, (3, 5, 2))], False),
    ("MaxPooling3D", {}, [(F, (4, 5, 3, 2))], False),
    ("MaxPooling3D", {"pool_size": [3, 2, 2], "strides": [2, 1, 2], "padding": "same"}, [(F, (5, 4, 3, 2))], False),
    ("AveragePooling3D", {"pool_size": 2}, [(F, (4, 5, 3, 2))], False),
    ("AveragePooling3D", {"pool_size": [2, 3, 2], "strides": 1, "padding": "same", "data_format": "channels_first"},
     [(F, (2, 3, 4, 3))], False),
    ("GlobalAveragePooling3D", {}, [(F, (2, 3, 2, 2))], False),
    ("GlobalMaxPooling3D", {"keepdims": True}, [(F, (2, 3, 2, 2))], False),
    ("AdaptiveAveragePooling1D", {"output_size": 3}, [(F, (7, 2))], False),
    ("AdaptiveMaxPooling1D", {"output_size": 4}, [(F, (9, 2))], False),
    ("AdaptiveAveragePooling2D", {"output_size": [2, 3]}, [(F, (5, 7, 2))], False),
    ("AdaptiveMaxPooling2D", {"output_size": 3, "data_format": "channels_first"}, [(F, (2, 7, 5))], False),
    ("AdaptiveAveragePooling3D", {"output_size": [2, 2, 1]}, [(F, (3, 5, 2, 2))], False),
    ("AdaptiveMaxPooling3D", {"output_size": 2}, [(F, (4, 3, 5, 1))], False),
    ("DepthwiseConv2D", {"kernel_size": 3}, [(F, (5, 4, 2))], False),
    ("DepthwiseConv2D", {"kernel_size": [2, 3], "strides": 2, "padding": "same", "depth_multiplier": 2,
                         "activation": "relu"}, [(F, (5, 6, 3))], False),
    ("DepthwiseConv2D", {"kernel_size": 2, "dilation_rate": 2, "use_bias": False, "data_format": "channels_first"},
     [(F, (2, 5, 5))], False),
    ("DepthwiseConv1D", {"kernel_size": 3, "depth_multiplier": 2}, [(F, (7, 2))], False),
    ("SeparableConv2D", {"filters": 3, "kernel_size": 3}, [(F, (5, 4, 2))], False),
    ("SeparableConv2D", {"filters": 2, "kernel_size": 2, "strides": 2, "padding": "same", "depth_multiplier": 2},
     [(F, (5, 5, 3))], False),
    ("SeparableConv1D", {"filters": 4, "kernel_size": 3, "dilation_rate": 2, "activation": "tanh"}, [(F, (9, 2))],
     False),
    ("Conv2DTranspose", {"filters": 3, "kernel_size": 3}, [(F, (4, 5, 2))], False),
    ("Conv2DTranspose", {"filters": 2, "kernel_size": [3, 2], "strides": 2, "padding": "same"}, [(F, (4, 3, 2))], False),
    ("Conv2DTranspose", {"filters": 2, "kernel_size": 3, "strides": [2, 3], "output_padding": [1, 0]},
     [(F, (3, 3, 2))], False),
    ("Conv2DTranspose", {"filters": 2, "kernel_size": 2, "dilation_rate": 2, "data_format": "channels_first",
                         "activation": "relu"}, [(F, (3, 4, 4))], False),
    ("Conv1DTranspose", {"filters": 3, "kernel_size": 3, "strides": 2}, [(F, (5, 2))], False),
    ("Conv1DTranspose", {"filters": 2, "kernel_size": 4, "strides": 3, "padding": "same", "output_padding": 2},
     [(F, (4, 3))], False),
    ("Conv3D", {"filters": 2, "kernel_size": 2}, [(F, (3, 4, 3, 2))], False),
    ("Conv3D", {"filters": 3, "kernel_size": [3, 2, 3], "strides": [2, 1, 2], "padding": "same", "activation": "relu"},
     [(F, (5, 3, 4, 2))], False),
    ("Conv3D", {"filters": 2, "kernel_size": 2, "dilation_rate": 2, "use_bias": False, "data_format": "channels_first"},
     [(F, (2, 4, 5, 4))], False),
    ("Conv3D", {"filters": 4, "kernel_size": [2, 1, 2], "groups": 2, "padding": "same"}, [(F, (3, 2, 3, 4))], False),
    ("Conv3DTranspose", {"filters": 2, "kernel_size": 2}, [(F, (2, 3, 2, 3))], False),
    ("Conv3DTranspose", {"filters": 3, "kernel_size": [3, 2, 3], "strides": [2, 1, 2], "padding": "same"},
     [(F, (2, 3, 3, 2))], False),
    ("Conv3DTranspose", {"filters": 2, "kernel_size": 3, "strides": [2, 3, 2], "output_padding": [1, 2, 0],
                         "activation": "relu"}, [(F, (2, 2, 3, 2))], False),
    ("Conv3DTranspose", {"filters": 2, "kernel_size": [2, 3, 2], "strides": 2, "padding": "same", "output_padding": 1},
     [(F, (3, 2, 2, 1))], False),
    ("Conv3DTranspose", {"filters": 2, "kernel_size": 2, "dilation_rate": [2, 1, 2], "use_bias": False,
                         "data_format": "channels_first"}, [(F, (2, 3, 2, 3))], False),
    ("CategoryEncoding", {"num_tokens": 10}, [("int", (4,))], False),
    ("CategoryEncoding", {"num_tokens": 8, "output_mode": "count"}, [("int", (5,))], False),
    ("CategoryEncoding", {"num_tokens": 10, "output_mode": "one_hot"}, [("int", (3,))], False),
    ("CategoryEncoding", {"num_tokens": 10, "output_mode": "one_hot"}, [("int", (1,))], False),
    ("CategoryEncoding", {"num_tokens": 10, "output_mode": "count"}, [("int", (3, 2))], False),
    ("Discretization", {"bin_boundaries": [-0.5, 0.0, 0.25, 1.0]}, [(F, (3, 2))], False),
    ("Discretization", {"bin_boundaries": [-1.0, 0.1], "output_mode": "one_hot"}, [(F, (4,))], False),
    ("Discretization", {"bin_boundaries": [-1.0, 0.1, 0.5], "output_mode": "multi_hot"}, [(F, (5,))], False),
    ("Discretization", {"bin_boundaries": [0.0], "output_mode": "count"}, [(F, (6,))], False),
    # Audio: float signals (batch, length[, channels]) of odd lengths. The kernels of
    # STFTSpectrogram are random like any weight here.
    ("STFTSpectrogram", {"frame_length": 8, "frame_step": 3, "fft_length": 8}, [(F, (23, 1))], False),
    ("STFTSpectrogram", {"mode": "magnitude", "frame_length": 7, "frame_step": 2, "fft_length": 9, "window": "hamming",
                         "padding": "same"}, [(F, (19, 2))], False),
    ("STFTSpectrogram", {"mode": "psd", "frame_length": 6, "padding": "same", "scaling": "spectrum", "periodic": True},
     [(F, (17, 2))], False),
    ("STFTSpectrogram", {"mode": "real", "frame_length": 5, "frame_step": 2, "window": None}, [(F, (13, 3))], False),
    ("STFTSpectrogram", {"mode": "imag", "frame_length": 8, "frame_step": 4, "data_format": "channels_first"},
     [(F, (2, 21))], False),
    ("STFTSpectrogram", {"mode": "angle", "frame_length": 6, "frame_step": 3, "scaling": None}, [(F, (17, 1))], False),
    ("STFTSpectrogram", {"mode": "stft", "frame_length": 5, "frame_step": 2, "fft_length": 8, "expand_dims": True},
     [(F, (15, 2))], False),
    ("STFTSpectrogram", {"frame_length": 4, "frame_step": 2, "expand_dims": True, "data_format": "channels_first",
                         "window": "blackman"}, [(F, (3, 11))], False),
    ("STFTSpectrogram", {"mode": "magnitude", "frame_length": 8, "trainable": False}, [(F, (21, 1))], False),
    ("MelSpectrogram", {"fft_length": 16, "sequence_stride": 5, "sampling_rate": 8000, "num_mel_bins": 6},
     [(F, (41,))], False),
    ("MelSpectrogram", {"fft_length": 15, "sequence_stride": 4, "sequence_length": 11, "window": "hamming",
                        "sampling_rate": 4000, "num_mel_bins": 5, "min_freq": 100.0, "max_freq": 1500.0, "top_db": 40.0,
                        "mag_exp": 1.0, "ref_power": 2.0}, [(F, (37,))], False),
    ("MelSpectrogram", {"fft_length": 32, "sequence_stride": 7, "window": None, "num_mel_bins": 8, "power_to_db": False},
     [(F, (45,))], False),
    ("MelSpectrogram", {"fft_length": 8, "sequence_stride": 3, "num_mel_bins": 4, "min_power": 1e-3,
                        "sampling_rate": 2000}, [(F, (25,))], False),
    # Image augmentations. Random draws compare at inference only; a range of one value
    # ([a, a]) draws a, so those cases compare in training too (outputs and gradients).
    ("Pipeline", {"layers": [keras.layers.Rescaling(0.5, offset=1.0), keras.layers.Dense(3),
                             keras.layers.RandomFlip("vertical")]}, [(F, (4, 3, 2))], False),
    ("RandomFlip", {}, [(F, (4, 3, 2))], False),
    ("RandomFlip", {"mode": "vertical", "seed": 3, "data_format": "channels_first"}, [(F, (2, 3, 4))], False),
    ("RandomRotation", {"factor": 0.2}, [(F, (5, 4, 2))], False),
    ("RandomRotation", {"factor": [0.1, 0.1]}, [(F, (5, 4, 2))], False),
    ("RandomRotation", {"factor": [-0.25, -0.25], "fill_mode": "constant", "fill_value": 0.5}, [(F, (5, 5, 1))], False),
    ("RandomRotation", {"factor": [0.07, 0.07], "fill_mode": "wrap", "interpolation": "nearest"}, [(F, (6, 5, 1))], False),
    ("RandomRotation", {"factor": [0.4, 0.4], "fill_mode": "nearest", "data_format": "channels_first"},
     [(F, (2, 5, 4))], False),
    ("RandomZoom", {"height_factor": 0.3}, [(F, (5, 4, 1))], False),
    ("RandomZoom", {"height_factor": [0.3, 0.3]}, [(F, (5, 4, 2))], False),
    ("RandomZoom", {"height_factor": [-0.35, -0.35], "width_factor": [0.45, 0.45], "fill_mode": "constant"},
     [(F, (6, 5, 1))], False),
    ("RandomZoom", {"height_factor": [0.5, 0.5], "width_factor": [0.2, 0.2], "fill_mode": "wrap"}, [(F, (5, 7, 1))], False),
    ("RandomTranslation", {"height_factor": 0.2, "width_factor": 0.1}, [(F, (5, 4, 1))], False),
    ("RandomTranslation", {"height_factor": [0.23, 0.23], "width_factor": [-0.37, -0.37]}, [(F, (5, 6, 2))], False),
    ("RandomTranslation", {"height_factor": [-0.41, -0.41], "width_factor": [0.13, 0.13], "fill_mode": "nearest",
                           "interpolation": "nearest"}, [(F, (7, 5, 1))], False),
    ("RandomTranslation", {"height_factor": [0.3, 0.3], "width_factor": [0.6, 0.6], "fill_mode": "constant",
                           "fill_value": -1.0, "data_format": "channels_first"}, [(F, (1, 5, 4))], False),
    ("RandomCrop", {"height": 4, "width": 3}, [(F, (4, 3, 2))], False),
    ("RandomCrop", {"height": 3, "width": 3}, [(F, (5, 3, 1))], False),
    ("RandomCrop", {"height": 4, "width": 5}, [(F, (2, 3, 2))], False),
    ("RandomContrast", {"factor": 0.5}, [(F, (4, 3, 2))], False),
    ("RandomContrast", {"factor": [-0.5, 0.5], "value_range": [-2, 2]}, [(F, (4, 3, 2))], False),
    ("RandomBrightness", {"factor": 0.3}, [(F, (4, 3, 1))], False),
    ("RandomBrightness", {"factor": [0.1, 0.1], "value_range": [-1, 1]}, [(F, (4, 3, 2))], False),
    # The colour layers. AutoContrast and Equalization draw nothing; the random ones compare in
    # training where their draws cannot matter (_color_draws_fixed).
    ("AutoContrast", {}, [(F, (4, 3, 2))], False),
    ("AutoContrast", {"value_range": [2, -2], "data_format": "channels_first"}, [(F, (2, 4, 3))], False),
    ("Equalization", {"value_range": [-2, 2]}, [(F, (5, 4, 3))], False),
    ("Equalization", {"value_range": [-3, 3], "bins": 16, "data_format": "channels_first"}, [(F, (2, 5, 4))], False),
    ("Solarization", {"value_range": [-2, 2]}, [(F, (4, 3, 2))], False),
    ("Solarization", {"addition_factor": 0.3, "threshold_factor": [0.2, 0.6]}, [(F, (4, 3, 1))], False),
    ("RandomInvert", {"factor": [1.0, 1.0], "value_range": [-1, 1]}, [(F, (4, 3, 2))], False),
    ("RandomInvert", {}, [(F, (4, 3, 1))], False),
    ("RandomPosterization", {"factor": [3, 3], "value_range": [-2, 2]}, [(F, (4, 3, 2))], False),
    ("RandomPosterization", {"factor": 6}, [(F, (4, 3, 1))], False),
    ("RandomGrayscale", {"factor": 1.0}, [(F, (4, 3, 3))], False),
    ("RandomGrayscale", {"factor": 1.0, "data_format": "channels_first"}, [(F, (3, 4, 2))], False),
    ("RandomGrayscale", {}, [(F, (4, 3, 3))], False),
    ("RandomColorDegeneration", {"factor": [0.4, 0.4], "value_range": [-2, 2]}, [(F, (4, 3, 3))], False),
    ("RandomColorDegeneration", {"factor": 0.5}, [(F, (4, 3, 3))], False),
    ("RandomColorJitter", {"value_range": [-3, 3], "brightness_factor": [0.1, 0.1], "contrast_factor": [-0.5, 0.5],
                           "saturation_factor": [0.3, 0.3]}, [(F, (4, 3, 3))], False),
    ("RandomColorJitter", {"brightness_factor": 0.2, "hue_factor": 0.3}, [(F, (4, 3, 3))], False),
    ("RandomErasing", {}, [(F, (4, 5, 2))], False),
    ("RandomErasing", {"factor": [1, 1], "scale": [1, 1], "fill_value": 3.0, "value_range": [-2, 2]}, [(F, (4, 5, 2))], False),
    ("RandomGaussianBlur", {"factor": 0.5, "kernel_size": 5}, [(F, (5, 4, 2))], False),
    ("RandomGaussianBlur", {"factor": [1, 1], "sigma": [0.6, 0.6]}, [(F, (4, 5, 2))], False),
    ("RandomGaussianBlur", {"factor": [1, 1], "kernel_size": [3, 5], "sigma": [0.8, 0.8], "value_range": [-1, 1],
                            "data_format": "channels_first"}, [(F, (2, 5, 4))], False),
    ("RandomShear", {"x_factor": [0.2, 0.3], "y_factor": [0.1, 0.1], "fill_mode": "constant"}, [(F, (4, 5, 1))], False),
    ("RandomPerspective", {"scale": 0.5}, [(F, (5, 4, 2))], False),
    ("RandomPerspective", {"factor": [1, 1], "scale": 0.0, "interpolation": "nearest"}, [(F, (5, 4, 2))], False),
    ("MixUp", {"alpha": 0.3}, [(F, (4, 3, 2))], False),
    ("CutMix", {"factor": 0.5, "data_format": "channels_first"}, [(F, (2, 4, 3))], False),
    ("RandomElasticTransform", {"scale": 0.5}, [(F, (6, 5, 1))], False),
    ("RandomElasticTransform", {"factor": [0, 0], "value_range": [0, 1]}, [(F, (6, 5, 1))], False),
    # RandAugment and AugMix draw their ops (AugMix through Python's own random module), weights and the
    # ops' values: in training they compare where nothing is applied (num_ops 0, chain_depth 0, so AugMix
    # gives clip(m x + (1 - m) Σ w x) whatever m and w); tests/layers/test_image_policy_values.cpp checks
    # their fixed-draw values and the draws' statistics.
    ("RandAugment", {}, [(F, (5, 4, 3))], False),
    ("RandAugment", {"value_range": [-1, 1], "num_ops": 3, "factor": [0.2, 0.7], "interpolation": "nearest",
                     "data_format": "channels_first"}, [(F, (3, 5, 4))], False),
    ("RandAugment", {"value_range": [-2, 2], "num_ops": 0}, [(F, (4, 3, 3))], False),
    ("AugMix", {}, [(F, (5, 4, 3))], False),
    ("AugMix", {"value_range": [-1, 1], "all_ops": False, "alpha": 0.5, "data_format": "channels_first"},
     [(F, (3, 5, 4))], False),
    ("AugMix", {"value_range": [-1, 1], "chain_depth": 0}, [(F, (4, 3, 2))], False),
    ("AugMix", {"value_range": [-2, 1.5], "num_chains": 1, "chain_depth": 0, "data_format": "channels_first"},
     [(F, (2, 4, 3))], False),
    # CLAHE draws nothing: compared in training and at inference (tiles of one pixel, padded tiles, clip 0).
    ("ContrastLimitedAdaptiveHistogramEqualization", {"value_range": [-2, 2]}, [(F, (5, 6, 2))], False),
    ("ContrastLimitedAdaptiveHistogramEqualization", {"value_range": [-2.5, 2.5], "clip_limit": 2.0,
                                                      "tile_grid_size": [2, 3]}, [(F, (7, 8, 3))], False),
    ("ContrastLimitedAdaptiveHistogramEqualization", {"value_range": [-3, 3], "clip_limit": 0.0, "tile_grid_size": [3, 2],
                                                      "data_format": "channels_first"}, [(F, (1, 9, 4))], False),
    # 8 x 8 tiles over 3 x 2 pixels: the symmetric padding is longer than the image.
    ("ContrastLimitedAdaptiveHistogramEqualization", {"value_range": [-2, 2], "clip_limit": 8.0}, [(F, (3, 2, 1))], False),
    # MaxNumBoundingBoxes on images alone returns them as they are (the boxes path: test_image_policy_values.cpp).
    ("MaxNumBoundingBoxes", {"max_number": 3}, [(F, (4, 3, 2))], False),
    ("MaxNumBoundingBoxes", {"max_number": 1, "fill_value": 0, "data_format": "channels_first"}, [(F, (2, 3, 4))], False),
    ("ReversibleEmbedding", {"input_dim": 10, "output_dim": 4}, [("int", (5,))], False),
    ("ReversibleEmbedding", {"input_dim": 12, "output_dim": 3, "tie_weights": False, "mask_zero": True},
     [("int", (2, 3))], False),
    # SpectralNormalization normalizes in training: the gradients flow through sigma and
    # vector_u is compared after the call (Keras's JAX training step keeps the kernel).
    ("SpectralNormalization", {"layer": keras.layers.Dense(3)}, [(F, (4,))], False),
    ("SpectralNormalization", {"layer": keras.layers.Dense(2, activation="tanh", use_bias=False),
                               "power_iterations": 3}, [(F, (3, 5))], False),
    ("SpectralNormalization", {"layer": keras.layers.Conv2D(2, 3), "power_iterations": 2}, [(F, (5, 4, 2))], False),
    ("SpectralNormalization", {"layer": keras.layers.Conv1D(3, 2, padding="same")}, [(F, (5, 2))], False),
]

# Cases called with keywords (Keras's layer(x, **keywords)), as (class name, kwargs, inputs,
# list_input, keywords), and cases for the layers group only; files hold models, not calls.
CALL_VARIANTS = [
    ("ReversibleEmbedding", {"input_dim": 10, "output_dim": 4}, [(F, (3, 4))], False, {"reverse": True}),
    ("ReversibleEmbedding", {"input_dim": 7, "output_dim": 4, "tie_weights": False, "logit_soft_cap": 2.0},
     [(F, (3, 4))], False, {"reverse": True}),
    ("ReversibleEmbedding", {"input_dim": 6, "output_dim": 5, "reverse_dtype": "float32", "logit_soft_cap": 0.5},
     [(F, (5,))], False, {"reverse": True}),
    ("ReversibleEmbedding", {"input_dim": 10, "output_dim": 3, "tie_weights": False}, [("int", (4,))], False,
     {"reverse": False}),
    # Keras casts SpectralNormalization's output to the input's dtype, so around an Embedding
    # it gives the embeddings truncated to int32; compared here, not in files (see the report).
    ("SpectralNormalization", {"layer": keras.layers.Embedding(10, 3)}, [("int", (4,))], False, {}),
]

RANDOM_CLASSES = {"SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "GaussianDropout", "GaussianNoise",
                  "AlphaDropout"}


IMAGE_AUGMENTATIONS = {"RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation", "RandomContrast",
                       "RandomBrightness"}

# Augmentations whose factor is a probability: their training outputs are fixed only when
# every draw is (probability 0 or 1, the other ranges of one value or without effect).
# RandomShear's sign, MixUp's and CutMix's Beta draws and permutations never are.
PROBABILITY_AUGMENTATIONS = {"RandomErasing", "RandomGaussianBlur", "RandomShear", "RandomPerspective", "MixUp",
                             "CutMix", "RandomElasticTransform"}


def _pinned_probability_case(cls, kwargs):
    f = kwargs.get("factor")
    if not (_one_value(f) and f[0] in (0, 1)):
        return False
    if cls == "RandomErasing":
        return f[0] == 0 or (kwargs.get("scale") == [1, 1] and kwargs.get("fill_value") is not None)
    if cls == "RandomGaussianBlur":
        return f[0] == 0 or _one_value(kwargs.get("sigma"))
    if cls == "RandomPerspective":
        return f[0] == 0 or kwargs.get("scale") == 0.0
    return cls == "RandomElasticTransform" and f[0] == 0


def _one_value(f):
    return isinstance(f, list) and len(f) == 2 and f[0] == f[1]


COLOR_AUGMENTATIONS = {"Solarization", "RandomInvert", "RandomPosterization", "RandomGrayscale",
                       "RandomColorDegeneration", "RandomColorJitter"}


def _color_draws_fixed(cls, kwargs):
    """Whether a colour layer's training output is the same for every draw."""
    if cls == "Solarization":  # draws in [lower, 255 upper): fixed only at 0
        return all(kwargs.get(k, 0) in (0, [0, 0]) for k in ("addition_factor", "threshold_factor"))
    if cls == "RandomInvert":
        return kwargs.get("factor", 1.0) in ([1.0, 1.0], [0, 0], 0)
    if cls == "RandomGrayscale":
        return kwargs.get("factor", 0.5) in (0, 1)
    if cls == "RandomColorJitter":  # RandomContrast draws in [1 - lower, 1 + upper); hue flips a coin
        c = kwargs.get("contrast_factor")
        return ("hue_factor" not in kwargs and all(_one_value(kwargs[k]) for k in ("brightness_factor", "saturation_factor")
                                                    if k in kwargs)
                and (c is None or isinstance(c, list) and c[0] == -c[1]))
    return _one_value(kwargs["factor"])


def inference_only(cls, kwargs):
    """A random layer that really draws noise: its training output is random."""
    if cls == "Pipeline":  # random when any of its layers is
        return any(inference_only(l.__class__.__name__, l.get_config()) for l in kwargs["layers"])
    if cls in PROBABILITY_AUGMENTATIONS:
        return not _pinned_probability_case(cls, kwargs)
    if cls in IMAGE_AUGMENTATIONS:
        factors = [kwargs.get(k) for k in ("factor", "height_factor", "width_factor") if k in kwargs]
        if cls == "RandomContrast":  # Keras 3.15 draws in [1 - lower, 1 + upper)
            return not (isinstance(factors[0], list) and factors[0][0] == -factors[0][1])
        return cls == "RandomFlip" or not all(_one_value(f) for f in factors)
    if cls in COLOR_AUGMENTATIONS:
        return not _color_draws_fixed(cls, kwargs)
    if cls == "RandAugment":
        return kwargs.get("num_ops", 2) != 0
    if cls == "AugMix":
        return kwargs.get("chain_depth", 3) != 0
    return cls in RANDOM_CLASSES and (kwargs.get("rate", 0) > 0 or kwargs.get("stddev", 0) > 0)


def training_only(cls, kwargs, specs):
    """Keras 3.15's RandomCrop returns its input unchanged at inference (keras-team/keras#21868), unlike its
    output shape and documentation; Kiln crops its fixed window there, as Keras does in training when the
    image is not larger on both axes. Such cases compare in training only."""
    if cls != "RandomCrop":
        return False
    h, w = specs[0][1][0], specs[0][1][1]
    return (h, w) != (kwargs["height"], kwargs["width"])


def keras_model_limit(cls):
    """Why Keras 3.15 cannot hold this class in a model, so has no files of it (None when it can)."""
    if cls == "Equalization":
        return ("Keras 3.15's Equalization.compute_output_spec returns its input tensor, so Keras refuses any "
                "Sequential or functional model holding it (\"is part of a cycle\")")
    return None


def keras_h5_limit(desc):
    """Why Keras 3.15 cannot read Kiln's legacy .h5 of this case right (None when it can).
    Each reason is Keras's side: its loader fails the same way on tf.keras 2 files."""
    if desc.startswith("SpatialDropout"):
        return ("Keras 3.15's legacy loader turns the first layer's batch_input_shape (tf.keras 2 files carry it) into "
                "an input_shape argument, and SpatialDropout's constructors take no **kwargs")
    if desc.startswith("Pipeline"):
        return ("Keras 3.15's legacy loader turns the first layer's batch_input_shape (tf.keras 2 files carry it) into "
                "an input_shape argument, and Pipeline's constructor takes no **kwargs")
    if desc.startswith("Discretization"):
        return ("Keras 3.15's legacy loader turns the first layer's batch_input_shape (tf.keras 2 files carry it) into "
                "an input_shape argument, and Discretization's constructor takes no **kwargs")
    if desc.startswith("UnitNormalization(axis=[1, 2]"):
        return ("Keras 3.15's legacy loader drops an `axis` list of more than one entry (legacy/saving/saving_utils.py), "
                "so it builds axis=-1; it misreads its own .h5 of this model the same way")
    return None
