#pragma once
// All built-in Keras layers.  namespace L = kiln::layers;
//   L::Dense, L::Conv2D, L::Conv1D, L::MaxPooling2D, L::AveragePooling2D, L::MaxPooling1D,
//   L::AveragePooling1D, L::GlobalAveragePooling2D/1D, L::GlobalMaxPooling2D/1D, L::Flatten,
//   L::Reshape, L::Permute, L::RepeatVector, L::ZeroPadding2D, L::Dropout,
//   L::BatchNormalization, L::LayerNormalization, L::Activation, L::ReLU, L::Softmax,
//   L::LeakyReLU, L::ELU, L::PReLU, L::Add, L::Subtract, L::Multiply, L::Average,
//   L::Maximum, L::Minimum, L::Concatenate, L::Dot, L::Embedding, L::Lambda, L::Input, L::UpSampling1D,
//   L::GroupNormalization, L::RMSNormalization, L::UnitNormalization, L::Normalization,
//   L::SpatialDropout1D/2D/3D, L::GaussianDropout, L::GaussianNoise, L::AlphaDropout,
//   L::ActivityRegularization, L::Identity, L::Cropping1D/2D/3D, L::ZeroPadding1D/3D,
//   L::UpSampling2D/3D, L::CenterCrop, L::Resizing, L::Rescaling, L::MaxPooling3D,
//   L::AveragePooling3D, L::GlobalAveragePooling3D, L::GlobalMaxPooling3D,
//   L::AdaptiveAveragePooling1D/2D/3D, L::AdaptiveMaxPooling1D/2D/3D, L::DepthwiseConv1D/2D,
//   L::SeparableConv1D/2D, L::Conv1DTranspose, L::Conv2DTranspose, L::Conv3D.
//   L::Masking, L::SimpleRNN, L::LSTM, L::GRU (and their cells), L::RNN, L::StackedRNNCells, L::Bidirectional, L::TimeDistributed.
//   L::LayerScale, L::StochasticDepth, L::CustomScaleLayer (keras.applications' own layers).
//   L::Conv3DTranspose, L::CategoryEncoding, L::Discretization, L::IntegerLookup, L::RandomFlip,
//   L::RandomRotation, L::RandomZoom, L::RandomTranslation, L::RandomCrop, L::RandomContrast, L::RandomBrightness,
//   L::RandomErasing, L::RandomGaussianBlur, L::RandomShear, L::RandomPerspective, L::RandomElasticTransform,
//   L::MixUp, L::CutMix, L::Pipeline, L::STFTSpectrogram, L::MelSpectrogram.
//
// To add a layer Foo:
//   1. layers/include/kiln/layers/foo.h: `FooOptions` with its keys in
//      KILN_FIELDS and ending in KILN_LAYER_BASE_OPTIONS; `FooImpl : kiln::Layer`
//      with `using Options = FooOptions`, options(), KILN_ARGS(FooImpl, ...) for
//      its positional arguments, and KILN_LAYER_HANDLE(Foo). Include it here.
//   2. layers/src/foo.cpp: the constructor checks its arguments, build() adds
//      the weights by name, call() does the maths, get_config() is
//      `return layer_config(*this);`, and one line registers the class:
//      KILN_REGISTER_LAYER(FooImpl, "Foo"). Keras-version upgrades are static
//      hooks on the class (see layers/src/config_fields.h).
//   3. One entry in tests/layers/test_layer_harness.cpp: a gradient check, a
//      config round trip and .keras + .h5 save/load round trips.
#include "kiln/layers/activation_layers.h"
#include "kiln/layers/application_layers.h"
#include "kiln/layers/attention.h"
#include "kiln/layers/bidirectional.h"
#include "kiln/layers/common.h"
#include "kiln/layers/conv1d.h"
#include "kiln/layers/conv2d.h"
#include "kiln/layers/dense.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/einsum_dense.h"
#include "kiln/layers/embedding.h"
#include "kiln/layers/global_pooling.h"
#include "kiln/layers/grouped_query_attention.h"
#include "kiln/layers/conv_lstm.h"
#include "kiln/layers/conv_lstm_cell.h"
#include "kiln/layers/gru.h"
#include "kiln/layers/input.h"
#include "kiln/layers/lambda.h"
#include "kiln/layers/lstm.h"
#include "kiln/layers/masking.h"
#include "kiln/layers/merge.h"
#include "kiln/layers/multi_head_attention.h"
#include "kiln/layers/normalization.h"
#include "kiln/layers/pooling.h"
#include "kiln/layers/register.h"
#include "kiln/layers/reshaping.h"
#include "kiln/layers/rnn.h"
#include "kiln/layers/rnn_cell.h"
#include "kiln/layers/simple_rnn.h"
#include "kiln/layers/stacked_rnn_cells.h"
#include "kiln/layers/time_distributed.h"
#include "kiln/layers/up_sampling1d.h"
// Normalization, noise and regularization, shape and image layers.
#include "kiln/layers/adaptive_pooling.h"
#include "kiln/layers/conv3d.h"
#include "kiln/layers/conv_transpose.h"
#include "kiln/layers/cropping.h"
#include "kiln/layers/depthwise_conv.h"
#include "kiln/layers/feature_normalization.h"
#include "kiln/layers/group_normalization.h"
#include "kiln/layers/identity.h"
#include "kiln/layers/image_preprocessing.h"
#include "kiln/layers/noise.h"
#include "kiln/layers/pooling3d.h"
#include "kiln/layers/rms_normalization.h"
#include "kiln/layers/spatial_dropout.h"
// Audio.
#include "kiln/layers/mel_spectrogram.h"
#include "kiln/layers/stft_spectrogram.h"
#include "kiln/layers/up_sampling.h"
// Preprocessing and 3D transposed convolution.
#include "kiln/layers/conv3d_transpose.h"
#include "kiln/layers/category_encoding.h"
#include "kiln/layers/discretization.h"
#include "kiln/layers/integer_lookup.h"
#include "kiln/layers/string_lookup.h"
#include "kiln/layers/text_vectorization.h"
#include "kiln/layers/random_affine_transforms.h"
#include "kiln/layers/random_flip.h"
#include "kiln/layers/random_crop.h"
#include "kiln/layers/random_color.h"
#include "kiln/layers/color_adjust.h"
#include "kiln/layers/color_augment.h"
#include "kiln/layers/random_color_jitter.h"
#include "kiln/layers/pipeline.h"
#include "kiln/layers/random_erasing.h"
#include "kiln/layers/random_gaussian_blur.h"
#include "kiln/layers/random_warps.h"
#include "kiln/layers/image_mixing.h"
#include "kiln/layers/rand_augment.h"
#include "kiln/layers/aug_mix.h"
#include "kiln/layers/clahe.h"
#include "kiln/layers/max_num_bounding_boxes.h"
#include "kiln/layers/hashing.h"
#include "kiln/layers/hashed_crossing.h"
#include "kiln/layers/reversible_embedding.h"
#include "kiln/layers/spectral_normalization.h"

namespace kiln::layers::detail {
// Registers the built-ins in every program that includes this header (a static
// library would otherwise drop an unreferenced registration object).
inline const bool builtins_registered = (register_builtins(), true);
}  // namespace kiln::layers::detail
