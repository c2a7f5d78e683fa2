#pragma once
// keras.ops calls inside a functional model. Keras 3 records each call of an
// op on symbolic tensors as an operation node (`keras.src.ops.numpy.NotEqual`
// with config {"name": "not_equal"} and args [tensor, 0.0]); a functional
// Masking layer, for one, records its mask as NotEqual and Any. Kiln keeps each
// such call as an OperationLayer: Keras's class name, its constructor keywords
// (axis, keepdims, dtype, ...) and its positional arguments, where
// {"__kiln_tensor__": i} stands for the i-th tensor input.
//
//   kiln::Tensor s = kiln::keras_op("Add", {a, b});
//   kiln::Tensor m = kiln::keras_op("Mean", {s}, {{"axis", -1}, {"keepdims", true}});
//   kiln::Tensor p = kiln::keras_op("Multiply", {s}, {}, R"([{"__kiln_tensor__": 0}, 2.0])");
// Supported: Add, Subtract, Multiply, Divide, Maximum, Minimum, Equal,
// NotEqual, LogicalAnd, LogicalOr, Any, All, Sum, Mean, Max, Min, Cast,
// ExpandDims, Squeeze, Reshape, Transpose, Concatenate; the element-wise Exp,
// Log, Log1p, Expm1, Sqrt, Rsqrt, Square, Absolute, Negative, Sign, Sin, Cos,
// Tanh, Erf, Floor; FloorDivide, Mod, Power, Arctan2, Matmul, Less, LessEqual,
// Greater, GreaterEqual, LogicalNot, Round, Isnan, Isfinite, Clip, Prod, Var,
// Std, Logsumexp, Argmax, Argmin, Tile, Stack, Where, Einsum, ZerosLike,
// OnesLike, StopGradient, OneHot, Normalize, GetItem (int, slice, None and
// Ellipsis subscripts); and every activation op of
// keras.ops.nn (Relu, Relu6, Sigmoid, Softmax, Gelu, Celu, Elu, Threshold, ...)
// with keras.activations' ReLU.
#include <string>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/nn/layer.h"

namespace kiln {

/// A keras.ops call inside a functional model (Keras 3's operation node): Keras's
/// class name ("NotEqual"), its config and its positional arguments.
class OperationLayer : public Layer {
 public:
  /// `config` is Keras's op config (its "name" becomes the layer name); `args`
  /// is the positional arguments and `kwargs` the keyword arguments of the call,
  /// with tensor slots. Throws NotFoundError for an op Kiln does not implement.
  OperationLayer(const std::string& keras_class, const Config& config, const Config& args, const Config& kwargs);
  /// An operation called without keyword arguments.
  OperationLayer(const std::string& keras_class, const Config& config, const Config& args);
  ~OperationLayer() override;
  std::string class_name() const override { return keras_class_; }
  /// Keras's op config: {"name": ..., axis, keepdims, ...}.
  Config get_config() const override;
  /// The Python module Keras finds the class in ("keras.src.ops.numpy").
  std::string keras_module() const;
  /// The positional arguments with slot i replaced by refs[i].
  Config args_with(const std::vector<Config>& refs) const;
  /// The keyword arguments (an object) with slot i replaced by refs[i].
  Config kwargs_with(const std::vector<Config>& refs) const;
  bool takes_list() const override { return true; }
  bool infers_outputs_by_running() const override { return true; }
  /// Keras ops pass no mask on (and, unlike a layer that drops one, do not warn).
  Tensor compute_list_mask(const std::vector<Tensor>& xs, const std::vector<Tensor>& masks) override;
  Tensor compute_mask(const Tensor& x, const Tensor& previous_mask) override;
  /// Whether Kiln implements the Keras op class.
  static bool supports(const std::string& keras_class);
  /// The JSON key of a tensor slot in `args`.
  static constexpr const char* kTensorSlot = "__kiln_tensor__";

 protected:
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  using Layer::call;

 private:
  std::string keras_class_;
  std::string config_json_, args_json_, kwargs_json_;
};

/// Applies the Keras op `keras_class` to `tensors`: symbolic tensors record a
/// graph node, concrete ones compute. `args_json` defaults to the tensors in order.
Tensor keras_op(const std::string& keras_class, const std::vector<Tensor>& tensors, const Config& config,
                const std::string& args_json = "");
/// keras_op() with an empty config.
Tensor keras_op(const std::string& keras_class, const std::vector<Tensor>& tensors);

}  // namespace kiln
