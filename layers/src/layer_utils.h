#pragma once
// Private helpers shared by the built-in layers: option plumbing, config
// (de)serialisation of initializers/regularizers/constraints/shapes, and the
// reader behind the generated from_config (config_fields.h). Only .cpp files include this
// (it pulls in nlohmann/json).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kiln/nn/constraints.h"
#include "kiln/core/error.h"
#include "kiln/nn/initializers.h"
#include "kiln/nn/layer.h"
#include "kiln/layers/common.h"
#include "kiln/ops/reduce_ops.h"
#include "kiln/nn/regularizers.h"

namespace kiln::layers::detail {

/// The base-layer kwargs of an options struct.
template <class O>
LayerOptions base_options(const O& o) {
  return LayerOptions{o.name, o.trainable, o.dtype};
}

/// Keras's input_shape kwarg: declared_input_shape = (None, ...input_shape).
template <class O>
void apply_input_shape(Layer& l, const O& o) {
  if (!o.input_shape) return;
  Shape s{None};
  for (auto d : *o.input_shape) s.push_back(d);
  l.declared_input_shape = s;
}

/// Floating inputs are computed in the layer's dtype (Keras autocasts them).
Tensor cast_input(const Tensor& x, DType layer_dtype);
/// Any input (integer and bool too) in the layer's dtype: for layers that
/// multiply by their float weights (Dense, Conv, normalization).
Tensor cast_to_compute(const Tensor& x, DType layer_dtype);

Config shape_to_json(const Shape& s);
Shape shape_from_json(const Config& j, const std::string& where);
Config size2_json(Size2 s);
Config serialize_initializer(const InitializerArg& i);
Config serialize_regularizer(const regularizers::RegularizerPtr& r);
Config serialize_constraint(const constraints::ConstraintPtr& c);
/// Axes as Keras writes them: an int for one axis, else a list.
Config axes_json(const Axes& a);
/// Adds "batch_input_shape" when the layer was given an input shape.
void add_declared_shape(const Layer& l, Config& c);

/// Keras's conv_output_length: output size along one spatial axis for padding
/// "valid", "same", "causal" or "full"; None (-1) stays None.
int64_t conv_output_length(int64_t in, int64_t kernel, const std::string& padding, int64_t stride, int64_t dilation);
/// Lower-cases and checks a padding argument against the allowed values.
std::string check_padding(const std::string& cls, std::string padding, std::initializer_list<const char*> allowed);
/// Checks data_format is "channels_last" or "channels_first" (empty means channels_last).
std::string check_data_format(const std::string& cls, const std::string& data_format);

/// Reads a layer config with errors naming the class and the key.
class ConfigReader {
 public:
  ConfigReader(std::string cls, const Config& c);
  bool has(const char* key) const;
  /// Throws "missing required key" unless the key is present and not null.
  void require(const char* key) const;
  int64_t integer(const char* key, int64_t def) const;
  int64_t required_integer(const char* key) const;
  std::optional<int64_t> optional_integer(const char* key) const;
  double number(const char* key, double def) const;
  std::optional<double> optional_number(const char* key) const;
  bool boolean(const char* key, bool def) const;
  std::string string(const char* key, const std::string& def) const;
  /// An int or a list of ints (Keras tuples); a 1-element list gives (v, v).
  Size2 size2(const char* key, Size2 def) const;
  /// One int from an int or a 1-element list (Conv1D's kernel_size: [3]).
  int64_t int_or_first(const char* key, int64_t def) const;
  /// An integer, a whole float (2.0) or a one-element list of either.
  int64_t integer_or_first(const char* key, int64_t def) const;
  std::vector<int64_t> int_list(const char* key) const;
  Axes axes(const char* key, Axes def) const;
  /// A name, a {"class_name", "config"} object, or null (keeps the default).
  InitializerArg initializer(const char* key, const InitializerArg& def) const;
  regularizers::RegularizerPtr regularizer(const char* key) const;
  constraints::ConstraintPtr constraint(const char* key) const;
  /// An activation name (or Keras's serialized function object); null is "linear".
  std::string activation(const char* key, const std::string& def) const;
  /// Fills name, trainable, dtype and input_shape (from batch_input_shape,
  /// batch_shape or input_shape) of any layer options struct.
  template <class O>
  void base(O& o) const {
    o.name = string("name", "");
    o.trainable = boolean("trainable", true);
    o.dtype = dtype();
    o.input_shape = input_shape();
  }
  DType dtype() const;
  std::optional<Shape> input_shape() const;
  const Config& raw() const { return c_; }
  const std::string& class_name() const { return cls_; }
  [[noreturn]] void fail(const char* key, const std::string& what) const;

 private:
  std::string cls_;
  const Config& c_;
};

}  // namespace kiln::layers::detail
