#pragma once
// What the built-in layers' upgrade hooks share: the base keys of a Keras 1
// layer config, its dim_ordering, and the kernel layouts of Keras 1 and
// Theano files (tf-keras's preprocess_weights_for_loading and convert_kernel).
#include <array>
#include <string>

#include "kiln/core/config.h"
#include "kiln/core/tensor.h"

namespace kiln::layers::detail {

/// name, trainable, batch_input_shape and activation as they are, and
/// input_dtype (or dtype) as dtype.
Config keras1_base_config(const Config& c);
/// Keras 1's dim_ordering "th" is channels_first; "tf" and "default" channels_last.
std::string keras1_data_format(const Config& c);
/// The entry with a new class name and config; other keys (name, inbound_nodes) stay.
Config replace_entry(const Config& entry, const std::string& class_name, Config config);

/// A rank-4 float tensor with its axes permuted.
Tensor transpose4(const Tensor& t, std::array<int, 4> perm);
/// Reverses the leading `spatial` (1 or 2) axes: Theano convolved, TF correlates.
Tensor flip_spatial(const Tensor& t, int spatial);

}  // namespace kiln::layers::detail
