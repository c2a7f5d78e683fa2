// Conv3DTranspose and the preprocessing layers through the one harness (layer_harness.h).
#include <doctest/doctest.h>

#include "kiln/core/error.h"
#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "layer_harness.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_harness_preprocessing {

namespace k = kiln;
namespace L = kiln::layers;
using k::testing::check_layer;
using k::testing::LayerCase;

namespace {
template <class H>
k::LayerPtr ptr(H h) {
  return h.ptr();
}
}  // namespace

TEST_CASE("harness: Conv3DTranspose") {
  check_layer({.label = "Conv3DTranspose valid",
               .make = [](k::DType dt) { return ptr(L::Conv3DTranspose(2, {2, 3, 2}, {.dtype = dt})); },
               .input_shapes = {{2, 2, 3, 2, 3}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Conv3DTranspose strides, same, output_padding",
               .make = [](k::DType dt) {
                 return ptr(L::Conv3DTranspose(2, {3}, {.strides = {2, 1, 3}, .padding = "same",
                                                       .output_padding = std::vector<int>{1, 0, 2}, .dtype = dt}));
               },
               .input_shapes = {{1, 2, 3, 2, 2}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Conv3DTranspose dilation, channels_first, no bias",
               .make = [](k::DType dt) {
                 return ptr(L::Conv3DTranspose(3, {2}, {.data_format = "channels_first", .dilation_rate = {2, 1, 2},
                                                       .activation = "tanh", .use_bias = false, .dtype = dt}));
               },
               .input_shapes = {{2, 2, 2, 3, 2}},
               .weight_names = {"kernel"}});
}

TEST_CASE("Conv3DTranspose: output shapes and Keras's argument errors") {
  // Keras's docstring example: (4, 10, 8, 12, 128) -> (4, 20, 16, 24, 32) with kernel 2, strides 2.
  CHECK(L::Conv3DTranspose(32, {2}, {.strides = {2, 2, 2}})->compute_output_shape(k::Shape{4, 10, 8, 12, 128}) ==
        k::Shape{4, 20, 16, 24, 32});
  // valid: I·s + max(k - s, 0); same: I·s; output_padding: (I - 1)·s + k - 2·(k / 2 if same) + p.
  CHECK(L::Conv3DTranspose(2, {3, 2, 5}, {.strides = {2, 3, 1}})->compute_output_shape(k::Shape{1, 4, 4, 4, 1}) ==
        k::Shape{1, 9, 12, 8, 2});
  CHECK(L::Conv3DTranspose(2, {3}, {.strides = {2, 2, 2}, .padding = "same", .output_padding = std::vector<int>{1, 0, 1}})
            ->compute_output_shape(k::Shape{1, 4, 4, 4, 1}) == k::Shape{1, 8, 7, 8, 2});
  CHECK_THROWS_WITH_AS(L::Conv3DTranspose(0, {3}),
                       "Conv3DTranspose: invalid value for argument `filters`. Expected a strictly positive value. Received filters=0.",
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::Conv3DTranspose(2, {3, 0, 3}),
                       "Conv3DTranspose: the `kernel_size` argument must be a tuple of 3 integers. Received kernel_size=(3, 0, "
                       "3), including values {0} that do not satisfy `value > 0`",
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::Conv3DTranspose(2, {3}, {.strides = {2, 2, 2}, .output_padding = std::vector<int>{1, 2, 0}}),
                       "Conv3DTranspose: `output_padding` must be strictly less than `strides` for all dimensions. At dimension "
                       "1, `output_padding` is 2 but `strides` is 2. Received: output_padding=(1, 2, 0), strides=(2, 2, 2)",
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::Conv3DTranspose(2, {3}, {.strides = {2, 1, 1}, .dilation_rate = {1, 2, 1}}),
                       "Conv3DTranspose: `strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                       "strides=(2, 1, 1) and dilation_rate=(1, 2, 1)",
                       k::ValueError);
  CHECK_THROWS_AS(L::Conv3DTranspose(2, {3, 3}), k::ValueError);
  CHECK_THROWS_AS(L::Conv3DTranspose(2, {3}, {.padding = "causal"}), k::ValueError);
}

TEST_CASE("harness: CategoryEncoding and Discretization (integer outputs: no gradients)") {
  check_layer({.label = "CategoryEncoding count",
               .make = [](k::DType dt) { return ptr(L::CategoryEncoding(6, {.output_mode = "count", .dtype = dt})); },
               .input_shapes = {{3, 4}},
               .integer_input = true,
               .int_high = 6});
  check_layer({.label = "CategoryEncoding one_hot",
               .make = [](k::DType dt) { return ptr(L::CategoryEncoding(5, {.output_mode = "one_hot", .dtype = dt})); },
               .input_shapes = {{3, 2}},
               .integer_input = true,
               .int_high = 7});
  check_layer({.label = "Discretization multi_hot",
               .make = [](k::DType dt) {
                 return ptr(L::Discretization({.bin_boundaries = std::vector<double>{-0.5, 0.0, 0.7}, .output_mode = "multi_hot", .dtype = dt}));
               },
               .input_shapes = {{3, 4}},
               .check_input_gradient = false});
  check_layer({.label = "Discretization adapted, int",
               .make = [](k::DType dt) {
                 L::Discretization d({.num_bins = 3, .dtype = dt});
                 d->adapt(k::range(0.0, 30.0, 1.0, k::float32));
                 return ptr(d);
               },
               .input_shapes = {{2, 3}},
               .check_input_gradient = false,
               .float_output = false});
}

TEST_CASE("harness: IntegerLookup (integer outputs: no gradients)") {
  check_layer({.label = "IntegerLookup int",
               .make = [](k::DType) { return ptr(L::IntegerLookup({.vocabulary = std::vector<int64_t>{3, 1, 4, 5}})); },
               .input_shapes = {{3, 4}},
               .integer_input = true,
               .float_output = false});
  check_layer({.label = "IntegerLookup invert, mask",
               .make = [](k::DType) { return ptr(L::IntegerLookup({.mask_token = 0, .vocabulary = std::vector<int64_t>{7, 8, 9}, .invert = true})); },
               .input_shapes = {{2, 3}},
               .integer_input = true,
               .int_high = 6,
               .float_output = false});
  check_layer({.label = "IntegerLookup tf_idf",
               .make = [](k::DType) {
                 return ptr(L::IntegerLookup({.vocabulary = std::vector<int64_t>{2, 4, 6}, .idf_weights = std::vector<double>{0.5, 1.5, 2.0},
                                              .output_mode = "tf_idf"}));
               },
               .input_shapes = {{3, 5}},
               .integer_input = true,
               .float_output = false});
}

TEST_CASE("harness: StringLookup (string inputs, integer or string outputs: no gradients)") {
  const std::vector<std::string> words{"cat", "dog", "bird", "ant", "[UNK]", "zebra", ""};
  check_layer({.label = "StringLookup int",
               .make = [](k::DType) { return ptr(L::StringLookup({.vocabulary = std::vector<std::string>{"dog", "cat", "ant"}})); },
               .input_shapes = {{3, 4}},
               .string_pool = words,
               .float_output = false});
  check_layer({.label = "StringLookup multi_hot, mask, hashed OOV",
               .make = [](k::DType) {
                 return ptr(L::StringLookup({.num_oov_indices = 2, .mask_token = "", .vocabulary = std::vector<std::string>{"dog", "cat"},
                                             .output_mode = "multi_hot"}));
               },
               .input_shapes = {{2, 5}},
               .string_pool = words,
               .float_output = false});
  check_layer({.label = "StringLookup invert",
               .make = [](k::DType) { return ptr(L::StringLookup({.vocabulary = std::vector<std::string>{"x", "y", "z"}, .invert = true})); },
               .input_shapes = {{2, 3}},
               .integer_input = true,
               .int_high = 6,
               .float_output = false});
}

TEST_CASE("harness: TextVectorization (string inputs: no gradients)") {
  const std::vector<std::string> texts{"The cat sat.", "a DOG!", "", "cat cat dog", "zebra"};
  check_layer({.label = "TextVectorization int",
               .make = [](k::DType) {
                 return ptr(L::TextVectorization({.output_sequence_length = 4, .vocabulary = std::vector<std::string>{"cat", "dog", "the"}}));
               },
               .input_shapes = {{3}},
               .string_pool = texts,
               .float_output = false});
  check_layer({.label = "TextVectorization count, bigrams",
               .make = [](k::DType) {
                 return ptr(L::TextVectorization({.ngrams = 2, .output_mode = "count",
                                                  .vocabulary = std::vector<std::string>{"cat", "dog", "cat dog"}}));
               },
               .input_shapes = {{4, 1}},
               .string_pool = texts,
               .float_output = false});
}

TEST_CASE("harness: Hashing and HashedCrossing (integer outputs: no gradients)") {
  check_layer({.label = "Hashing int, salted, masked",
               .make = [](k::DType) { return ptr(L::Hashing(7, {.salt = std::vector<int64_t>{3, 5}, .mask_value = 0})); },
               .input_shapes = {{3, 4}},
               .integer_input = true,
               .float_output = false});
  check_layer({.label = "Hashing count",
               .make = [](k::DType dt) { return ptr(L::Hashing(5, {.output_mode = "count", .dtype = dt})); },
               .input_shapes = {{3, 4}},
               .integer_input = true});
  check_layer({.label = "HashedCrossing int",
               .make = [](k::DType) { return ptr(L::HashedCrossing(9)); },
               .input_shapes = {{4}, {4}},
               .list_input = true,
               .integer_input = true,
               .float_output = false});
  check_layer({.label = "HashedCrossing one_hot",
               .make = [](k::DType dt) { return ptr(L::HashedCrossing(6, {.output_mode = "one_hot", .dtype = dt})); },
               .input_shapes = {{3, 1}, {3, 1}, {3, 1}},
               .list_input = true,
               .integer_input = true});
}

// The image augmentations at inference (the identity; RandomCrop's fixed window):
// shapes, configs, .keras/.h5 round trips and gradients. Training-mode gradients are
// checked in test_random_image_values.cpp with a fresh seeded layer per evaluation.
TEST_CASE("harness: image augmentation layers") {
  check_layer({.label = "RandomFlip", .make = [](k::DType dt) { return ptr(L::RandomFlip("horizontal", {.seed = 3, .dtype = dt})); },
               .input_shapes = {{2, 4, 3, 2}}});
  check_layer({.label = "RandomRotation",
               .make = [](k::DType dt) { return ptr(L::RandomRotation(0.2, {.fill_mode = "constant", .fill_value = 1.0, .dtype = dt})); },
               .input_shapes = {{2, 5, 4, 1}}});
  check_layer({.label = "RandomZoom",
               .make = [](k::DType dt) {
                 return ptr(L::RandomZoom({-0.2, 0.3}, L::Factor(0.1), {.interpolation = "nearest", .data_format = "channels_first", .dtype = dt}));
               },
               .input_shapes = {{2, 1, 4, 5}}});
  check_layer({.label = "RandomTranslation",
               .make = [](k::DType dt) { return ptr(L::RandomTranslation(0.1, {-0.2, 0.3}, {.fill_mode = "wrap", .dtype = dt})); },
               .input_shapes = {{3, 4, 4}}});
  check_layer({.label = "RandomCrop fixed window",
               .make = [](k::DType dt) { return ptr(L::RandomCrop(3, 2, {.seed = 1, .dtype = dt})); },
               .input_shapes = {{2, 5, 6, 2}}});
  check_layer({.label = "RandomCrop smaller image, resized",
               .make = [](k::DType dt) { return ptr(L::RandomCrop(4, 5, {.data_format = "channels_first", .dtype = dt})); },
               .input_shapes = {{1, 2, 3, 3}}});
  check_layer({.label = "RandomContrast",
               .make = [](k::DType dt) { return ptr(L::RandomContrast(0.4, {.value_range = {-3, 3}, .dtype = dt})); },
               .input_shapes = {{2, 3, 3, 2}}});
  check_layer({.label = "RandomBrightness",
               .make = [](k::DType dt) { return ptr(L::RandomBrightness({-0.1, 0.2}, {.seed = 9, .dtype = dt})); },
               .input_shapes = {{2, 3, 3, 1}}});
  check_layer({.label = "Pipeline",
               .make = [](k::DType dt) {
                 return ptr(L::Pipeline({L::Rescaling(0.5, {.offset = 1.0, .dtype = dt}),
                                         L::Dense(3, {.name = "proj", .dtype = dt}),
                                         L::RandomFlip("horizontal", {.dtype = dt})}));
               },
               .input_shapes = {{2, 4, 3, 2}},
               .weight_names = {"proj/kernel", "proj/bias"}});
  check_layer({.label = "RandomHue",
               .make = [](k::DType dt) { return ptr(L::RandomHue(0.3, {.value_range = {0, 1}, .dtype = dt})); },
               .input_shapes = {{2, 3, 3, 3}}});
  check_layer({.label = "RandomSaturation",
               .make = [](k::DType dt) { return ptr(L::RandomSaturation({0.2, 0.6}, {.seed = 4, .dtype = dt})); },
               .input_shapes = {{2, 3, 3, 3}}});
  check_layer({.label = "RandomSharpness",
               .make = [](k::DType dt) { return ptr(L::RandomSharpness(0.5, {.data_format = "channels_first", .dtype = dt})); },
               .input_shapes = {{2, 3, 4, 4}}});
  check_layer({.label = "AutoContrast (active at inference)",
               .make = [](k::DType dt) { return ptr(L::AutoContrast({.value_range = {-3, 3}, .dtype = dt})); },
               .input_shapes = {{2, 3, 3, 2}}});
  check_layer({.label = "Equalization",
               .make = [](k::DType dt) { return ptr(L::Equalization({.value_range = {-3, 3}, .bins = 16, .dtype = dt})); },
               .input_shapes = {{2, 3, 3, 2}}});
  check_layer({.label = "Solarization",
               .make = [](k::DType dt) { return ptr(L::Solarization({.threshold_factor = 0.5, .value_range = {-3, 3}, .dtype = dt})); },
               .input_shapes = {{2, 3, 3, 1}}});
  check_layer({.label = "RandomInvert",
               .make = [](k::DType dt) { return ptr(L::RandomInvert(0.5, {.seed = 2, .dtype = dt})); },
               .input_shapes = {{2, 3, 3, 2}}});
  check_layer({.label = "RandomPosterization",
               .make = [](k::DType dt) { return ptr(L::RandomPosterization(4, {.value_range = {-3, 3}, .dtype = dt})); },
               .input_shapes = {{2, 3, 3, 1}}});
  check_layer({.label = "RandomGrayscale",
               .make = [](k::DType dt) { return ptr(L::RandomGrayscale(0.5, {.data_format = "channels_first", .dtype = dt})); },
               .input_shapes = {{2, 3, 2, 2}}});
  check_layer({.label = "RandomColorDegeneration",
               .make = [](k::DType dt) { return ptr(L::RandomColorDegeneration(0.4, {.value_range = {-3, 3}, .dtype = dt})); },
               .input_shapes = {{2, 2, 2, 3}}});
  check_layer({.label = "RandomColorJitter",
               .make = [](k::DType dt) {
                 return ptr(L::RandomColorJitter({.value_range = {0, 1}, .brightness_factor = 0.2, .contrast_factor = 0.3,
                                                  .saturation_factor = L::Factor(0.4, 0.6), .hue_factor = 0.1, .dtype = dt}));
               },
               .input_shapes = {{2, 2, 2, 3}}});
  check_layer({.label = "RandomErasing",
               .make = [](k::DType dt) { return ptr(L::RandomErasing(0.5, {.scale = L::Factor(0.1, 0.3), .fill_value = std::vector<double>{2}, .dtype = dt})); },
               .input_shapes = {{2, 4, 5, 2}}});
  check_layer({.label = "RandomGaussianBlur",
               .make = [](k::DType dt) { return ptr(L::RandomGaussianBlur(0.8, {.kernel_size = {3, 5}, .sigma = L::Factor(0.2, 0.7), .data_format = "channels_first", .seed = 2, .dtype = dt})); },
               .input_shapes = {{2, 2, 5, 4}}});
  check_layer({.label = "RandomShear",
               .make = [](k::DType dt) { return ptr(L::RandomShear(0.2, {0.1, 0.3}, {.fill_mode = "nearest", .seed = 4, .dtype = dt})); },
               .input_shapes = {{2, 4, 5, 1}}});
  check_layer({.label = "RandomPerspective",
               .make = [](k::DType dt) { return ptr(L::RandomPerspective({0.2, 0.9}, {.scale = 0.5, .interpolation = "nearest", .fill_value = 1.0, .dtype = dt})); },
               .input_shapes = {{2, 4, 5, 3}}});
  check_layer({.label = "MixUp",
               .make = [](k::DType dt) { return ptr(L::MixUp(0.4, {.seed = 5, .dtype = dt})); },
               .input_shapes = {{3, 4, 4, 2}}});
  check_layer({.label = "CutMix",
               .make = [](k::DType dt) { return ptr(L::CutMix({0.2, 0.6}, {.data_format = "channels_first", .dtype = dt})); },
               .input_shapes = {{3, 2, 4, 4}}});
  check_layer({.label = "RandomElasticTransform",
               .make = [](k::DType dt) { return ptr(L::RandomElasticTransform(0.7, {.scale = L::Factor(0.5), .fill_mode = "mirror", .value_range = {0, 1}, .dtype = dt})); },
               .input_shapes = {{2, 6, 5, 1}}});
}

TEST_CASE("harness: RandAugment, AugMix, CLAHE and MaxNumBoundingBoxes") {
  check_layer({.label = "RandAugment",
               .make = [](k::DType dt) { return ptr(L::RandAugment({.value_range = {-3, 3}, .num_ops = 3, .factor = 0.4, .seed = 2, .dtype = dt})); },
               .input_shapes = {{2, 4, 5, 3}}});
  check_layer({.label = "AugMix",
               .make = [](k::DType dt) { return ptr(L::AugMix({.value_range = {-3, 3}, .all_ops = false, .interpolation = "nearest", .data_format = "channels_first", .dtype = dt})); },
               .input_shapes = {{2, 3, 4, 5}}});
  check_layer({.label = "ContrastLimitedAdaptiveHistogramEqualization (active at inference)",
               .make = [](k::DType dt) { return ptr(L::ContrastLimitedAdaptiveHistogramEqualization({.value_range = {-3, 3}, .clip_limit = 2.0, .tile_grid_size = {2, 3}, .dtype = dt})); },
               .input_shapes = {{2, 5, 4, 2}}});
  check_layer({.label = "MaxNumBoundingBoxes (images unchanged)",
               .make = [](k::DType dt) { return ptr(L::MaxNumBoundingBoxes(4, {.fill_value = 0, .dtype = dt})); },
               .input_shapes = {{2, 3, 4, 1}}});
}

}  // namespace test_harness_preprocessing

namespace test_harness_preprocessing {

TEST_CASE("harness: STFTSpectrogram and MelSpectrogram") {
  check_layer({.label = "STFTSpectrogram log",
               .make = [](k::DType dt) { return ptr(L::STFTSpectrogram({.frame_length = 8, .frame_step = 3, .dtype = dt})); },
               .input_shapes = {{2, 19, 1}},
               .weight_names = {"real_kernel", "imag_kernel"}});
  check_layer({.label = "STFTSpectrogram magnitude, same, hamming, odd fft_length",
               .make = [](k::DType dt) {
                 return ptr(L::STFTSpectrogram({.mode = "magnitude", .frame_length = 7, .frame_step = 2, .fft_length = 9,
                                                .window = "hamming", .padding = "same", .dtype = dt}));
               },
               .input_shapes = {{2, 15, 2}},
               .weight_names = {"real_kernel", "imag_kernel"}});
  check_layer({.label = "STFTSpectrogram psd, spectrum scaling, periodic",
               .make = [](k::DType dt) {
                 return ptr(L::STFTSpectrogram({.mode = "psd", .frame_length = 6, .window = "blackman", .periodic = true,
                                                .scaling = std::string("spectrum"), .dtype = dt}));
               },
               .input_shapes = {{1, 17, 2}},
               .weight_names = {"real_kernel", "imag_kernel"}});
  check_layer({.label = "STFTSpectrogram real, no window",
               .make = [](k::DType dt) {
                 return ptr(L::STFTSpectrogram({.mode = "real", .frame_length = 5, .frame_step = 2, .window = std::nullopt, .dtype = dt}));
               },
               .input_shapes = {{2, 13, 3}},
               .weight_names = {"real_kernel"}});
  check_layer({.label = "STFTSpectrogram imag, channels_first",
               .make = [](k::DType dt) {
                 return ptr(L::STFTSpectrogram({.mode = "imag", .frame_length = 8, .frame_step = 4, .data_format = "channels_first", .dtype = dt}));
               },
               .input_shapes = {{2, 2, 21}},
               .weight_names = {"imag_kernel"}});
  // Mode "angle" has no harness line: with the initial DFT kernels the zero-frequency bin's imaginary part is
  // exactly 0, so a negative real part puts arctan2 on its branch cut, where central differences jump by 2π.
  // The layers oracle checks that mode's values and gradients against Keras's with random kernels.
  check_layer({.label = "STFTSpectrogram stft, expand_dims, channels_first",
               .make = [](k::DType dt) {
                 return ptr(L::STFTSpectrogram({.mode = "stft", .frame_length = 5, .frame_step = 2, .fft_length = 8,
                                                .expand_dims = true, .data_format = "channels_first", .dtype = dt}));
               },
               .input_shapes = {{2, 2, 15}},
               .weight_names = {"real_kernel", "imag_kernel"}});
  check_layer({.label = "MelSpectrogram dB",
               .make = [](k::DType dt) {
                 return ptr(L::MelSpectrogram({.fft_length = 16, .sequence_stride = 5, .sampling_rate = 8000, .num_mel_bins = 6, .dtype = dt}));
               },
               .input_shapes = {{2, 41}}});
  check_layer({.label = "MelSpectrogram odd fft_length, hamming, magnitude, ref_power",
               .make = [](k::DType dt) {
                 return ptr(L::MelSpectrogram({.fft_length = 15, .sequence_stride = 4, .sequence_length = 11,
                                               .window = "hamming", .sampling_rate = 4000, .num_mel_bins = 5,
                                               .min_freq = 100.0, .max_freq = 1500.0, .top_db = 40.0, .mag_exp = 1.0,
                                               .ref_power = 2.0, .dtype = dt}));
               },
               .input_shapes = {{3, 37}}});
  check_layer({.label = "MelSpectrogram power, no window",
               .make = [](k::DType dt) {
                 return ptr(L::MelSpectrogram({.fft_length = 32, .sequence_stride = 7, .window = std::nullopt, .num_mel_bins = 8,
                                               .power_to_db = false, .dtype = dt}));
               },
               .input_shapes = {{2, 45}}});
}

}  // namespace test_harness_preprocessing
