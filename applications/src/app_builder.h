#pragma once
// What every application builder shares (Keras's imagenet_utils): the input
// shape rules, the classifier or pooling on top, and the weights file.
#include <string>

#include "kiln/applications.h"
#include "kiln/layers.h"

namespace kiln::applications::detail {

/// imagenet_utils.obtain_input_shape, channels last: the given shape checked
/// (rank 3, at least min_size high and wide, static with the top), or the default.
Shape obtain_input_shape(const std::string& cls, const ApplicationOptions& o, int64_t default_size, int64_t min_size);

/// How a family names its pooling layers, empty for Keras's automatic names:
/// the classifier's global average pooling, and `pooling`'s "avg" and "max".
struct TopNames {
  std::string top, avg_pool, max_pool;
};

/// Adds the classifier (include_top: global average pooling then Dense
/// "predictions") or the pooling of `o.pooling`, makes the model and loads `o.weights`.
ModelPtr finish(const Tensor& input, Tensor x, const ApplicationOptions& o, const std::string& default_name,
                const TopNames& names);
/// The same without the top: the model and its weights (VGG builds its own top).
ModelPtr make_model(const Tensor& input, const Tensor& output, const ApplicationOptions& o,
                    const std::string& default_name);

/// imagenet_utils.correct_pad: the ((top, bottom), (left, right)) zero padding
/// that makes a stride-2 "valid" convolution of `kernel` align as "same" would.
std::pair<layers::Size2, layers::Size2> correct_pad(const Tensor& x, int kernel);

/// A number as the user wrote it, for messages: the shortest text that reads
/// back as `v` ("0.35", not std::to_string's "0.350000").
std::string number_text(double v);

}  // namespace kiln::applications::detail
