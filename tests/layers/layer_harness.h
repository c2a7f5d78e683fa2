#pragma once
// One harness for every layer. check_layer(case) verifies:
//   1. the output shape equals compute_output_shape() (concrete and with a None batch);
//   2. the weight count and paths ("dense/kernel", ...);
//   3. the config round trip: from_config(get_config()) has the same config and, given
//      the same weights, the same output;
//   4. the layer in a functional model saved as .keras and as .h5 and loaded back:
//      the same config and output;
//   5. gradients (float64 layer) w.r.t. the inputs and w.r.t. the trainable weights,
//      against central differences (kiln::check_gradients);
//   6. one SGD step (w -= lr * dL/dw, L = mean((y - t)^2) + layer.losses()) lowers L.
// To test a new layer: add a LayerCase to test_layer_harness.cpp.
#include <functional>
#include <string>
#include <vector>

#include "kiln/nn/layer.h"
#include "kiln/core/tensor.h"

namespace kiln::testing {

struct LayerCase {
  std::string label;
  /// A fresh layer whose weights and computations use `dtype`.
  std::function<LayerPtr(DType dtype)> make;
  /// Concrete input shapes, batch axis included.
  std::vector<Shape> input_shapes;
  /// Call with a list (merge layers) rather than one tensor.
  bool list_input = false;
  /// Expected weight names in weights() order (trainable first), without the layer prefix.
  std::vector<std::string> weight_names;
  /// Integer inputs drawn from [0, int_high) (Embedding); no input gradient then.
  bool integer_input = false;
  int64_t int_high = 10;
  /// When set, inputs are strings drawn from these (the text layers); no input gradient then.
  std::vector<std::string> string_pool;
  /// Mode of the gradient check and the SGD step.
  bool training = false;
  bool check_input_gradient = true;
  bool config_round_trip = true;
  double learning_rate = 0.1;
  /// False for layers with integer outputs (Discretization's "int" mode).
  bool float_output = true;
};

void check_layer(const LayerCase& c);

/// Calls a layer on one tensor or a list.
Tensor call_layer(Layer& layer, const std::vector<Tensor>& xs, bool list_input, bool training);

}  // namespace kiln::testing
