#pragma once
// Layer: config in the constructor, weights in build() registered by name,
// maths in call(). The non-virtual operator() checks the input spec, builds
// once from the first input's shape, then calls call().
//
// To add a layer (see layers/include/kiln/layers.h for the built-in recipe):
//   1. Derive `FooImpl` from kiln::Layer: store config in the constructor,
//      create weights in build() with add_weight("kernel", ...), compute in call().
//   2. Override class_name() and get_config() (and compute_output_shape() if cheap).
//   3. Declare the handle with KILN_LAYER_HANDLE(Foo) (kiln/nn/layer_class.h), or
//      use make_layer<FooImpl>(...).
//   4. Register it with kiln::register_layer_class so configs and files can name it.
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/nn/call_kwargs.h"
#include "kiln/nn/constraints.h"
#include "kiln/nn/dtype_policy.h"
#include "kiln/nn/initializers.h"
#include "kiln/nn/regularizers.h"
#include "kiln/core/tensor.h"
#include "kiln/autodiff/variable.h"

namespace kiln {

class Node;
namespace detail {
class OwnerScope;
}  // namespace detail

/// Options of add_weight().
struct WeightOptions {
  InitializerArg initializer = "glorot_uniform";  ///< Initial values: a name ("zeros") or an Initializer.
  regularizers::RegularizerPtr regularizer = nullptr;  ///< Penalty added to losses(); none by default.
  constraints::ConstraintPtr constraint = nullptr;  ///< Applied after each optimizer update; none by default.
  bool trainable = true;  ///< Whether optimizers update the weight.
  std::optional<DType> dtype;  ///< Defaults to the layer's variable dtype.
  /// Whether reads inside the layer's call give its compute dtype under a mixed
  /// policy (Keras's autocast); normalization layers keep float32 statistics.
  bool autocast = true;
};

/// What inputs a layer accepts; checked before build() and call().
struct InputSpec {
  std::optional<int64_t> ndim;  ///< Exact rank required (counting the batch axis).
  std::optional<int64_t> min_ndim;  ///< Smallest rank accepted.
  std::optional<int64_t> max_ndim;  ///< Largest rank accepted.
  std::map<int64_t, int64_t> axes;  ///< Axis (may be negative) -> required size.
};

/// Options every layer takes (Keras's base-layer kwargs).
struct LayerOptions {
  std::string name;  ///< Layer name; empty picks a unique one from the class name (dense, dense_1).
  bool trainable = true;  ///< Whether the layer's weights are updated by training.
  /// The layer's dtype policy: a dtype, "mixed_bfloat16", "mixed_float16" or a
  /// DTypePolicy. Defaults to the global policy (kiln/nn/dtype_policy.h).
  DTypePolicy dtype;
  /// Whether a call casts float inputs to the compute dtype and lets an
  /// enclosing layer's autocast scope reach this layer's weights (Keras's
  /// `autocast`). Not part of the config, as in Keras.
  bool autocast = true;
};

/// The base-layer keyword arguments that end every layer's options struct:
/// Keras's name, trainable, dtype, autocast and input_shape (without the batch axis).
/// A member list rather than a base class, because C++20 designated
/// initialisers cannot name a base's members and `Dense(64, {.name = "fc"})`
/// must keep working.
#define KILN_LAYER_BASE_OPTIONS                      \
  std::string name;                                  \
  bool trainable = true;                             \
  ::kiln::DTypePolicy dtype;                         \
  bool autocast = true;                              \
  std::optional<::kiln::Shape> input_shape;

/// Base of every layer (Keras's keras.layers.Layer): config in the constructor,
/// weights created in build() from the first input's shape, maths in call().
/// Calling a layer on symbolic tensors records a node of a functional model.
class Layer : public std::enable_shared_from_this<Layer> {
 public:
  /// Takes the base-layer options (name, trainable, dtype).
  explicit Layer(LayerOptions options = {});
  /// Destroys the layer and, unless shared elsewhere, its weights.
  virtual ~Layer();
  /// Layers are not copyable: share them through handles or LayerPtr.
  Layer(const Layer&) = delete;
  /// Layers are not copy-assignable.
  Layer& operator=(const Layer&) = delete;

  /// Calls the layer: concrete tensors compute; symbolic tensors record a graph node.
  /// `training` resolves as Keras's call context does: a value given here wins;
  /// otherwise the value of the layer call this one runs inside (so a Dropout in a
  /// custom layer drops during fit without being passed `training`); otherwise
  /// default_training(); otherwise inference.
  Tensor operator()(const Tensor& x, std::optional<bool> training = std::nullopt);
  /// Multi-input form (merge layers, multi-input models).
  std::vector<Tensor> operator()(const std::vector<Tensor>& xs, std::optional<bool> training = std::nullopt);
  /// Calls with Keras's call keywords (kiln/nn/call_kwargs.h): lstm(x, {.initial_state = {h, c}}).
  /// The first output; the list form gives all of them.
  Tensor operator()(const Tensor& x, const CallOptions& options);
  /// Every output of a keyword call (return_state, return_attention_scores).
  std::vector<Tensor> operator()(const std::vector<Tensor>& xs, const CallOptions& options);
  /// The keyword call by name, as a functional model replays a node. A
  /// `training` keyword overrides `training`; `mask` replaces the first input's mask.
  std::vector<Tensor> call_with_kwargs(const std::vector<Tensor>& xs, bool list_call, const CallKwargs& kwargs,
                                       std::optional<bool> training = std::nullopt);
  /// The `training` a call of this layer takes when neither its caller nor an
  /// enclosing layer call gives one: the default of `training` in the Keras
  /// class's call() signature. True for the image preprocessing layers (called
  /// directly, they augment), false for the dropout and noise layers and the
  /// recurrent layers, none (inference, and no effect on the layers called after
  /// it) for the rest.
  virtual std::optional<bool> default_training() const { return std::nullopt; }
  /// The `training` value of the layer call running on this thread (Keras's call
  /// context), or none outside any call. A container passes it on to its layers.
  static std::optional<bool> context_training();

  /// Keras-style unique name; auto names come from the class name (dense, dense_1).
  const std::string& name() const;
  /// Keras class name (defaults to the demangled C++ class name without "Impl").
  virtual std::string class_name() const;
  /// The constructor arguments an error inside call() should quote ("input_dim=10"
  /// for an Embedding fed an index out of range): they end the message of any
  /// kiln::Error raised in call(), eagerly or in a traced step. Empty by default.
  virtual std::string error_arguments() const { return {}; }
  /// Whether build() has run (the layer has its weights).
  bool built() const { return built_; }
  /// Whether the layer's weights are updated by training (Keras's trainable).
  bool trainable() const { return trainable_; }
  /// Sets trainable for this layer and its sublayers.
  virtual void set_trainable(bool t);
  /// The dtype of the layer's weights (Keras's layer.dtype, the policy's variable dtype).
  DType dtype() const { return policy_.variable_dtype(); }
  /// The dtype the layer computes in: float inputs are cast to it, and under a
  /// mixed policy float weights read as it inside call().
  DType compute_dtype() const { return policy_.compute_dtype(); }
  /// The layer's dtype policy (Keras's layer.dtype_policy).
  const DTypePolicy& dtype_policy() const { return policy_; }
  /// Replaces the policy; weights made before keep their dtype, as in Keras.
  void set_dtype_policy(const DTypePolicy& policy) { policy_ = policy; }
  /// Whether a call casts float inputs to compute_dtype() first (Keras's
  /// _convert_input_args). Models and layers that take raw strings or ids say no.
  virtual bool converts_inputs() const { return true; }
  /// Keras's layer.autocast: when false, float inputs keep their dtype and a call
  /// inside another layer's autocast scope runs outside it (LayerNormalization,
  /// GroupNormalization and Embedding set it, as in Keras).
  bool autocast() const { return autocast_; }
  /// Sets autocast(), as a Keras layer's `self.autocast = False` does.
  void set_autocast(bool on) { autocast_ = on; }

  /// Weights in Keras order: own trainable, then sublayers'; see weights().
  std::vector<Variable> trainable_variables() const;
  /// Weights not updated by training (e.g. BatchNormalization's moving statistics).
  std::vector<Variable> non_trainable_variables() const;
  /// trainable then non-trainable, as Keras's layer.weights for saving. Virtual for
  /// the layers whose Keras order differs (SpectralNormalization lists its own
  /// variables before its inner layer's).
  virtual std::vector<Variable> weights() const;
  /// Keras's name for trainable_variables().
  std::vector<Variable> trainable_weights() const { return trainable_variables(); }
  /// Keras's name for non_trainable_variables().
  std::vector<Variable> non_trainable_weights() const { return non_trainable_variables(); }
  /// Own variables in creation order (not sublayers').
  const std::vector<Variable>& own_variables() const { return variables_; }
  /// Total number of scalars in weights() (Keras's count_params()).
  int64_t count_params() const;
  /// Regularization penalties of this layer and its sublayers (weights'
  /// regularizers now, plus activity penalties from the last call).
  std::vector<Tensor> losses() const;
  /// Adds a penalty from inside call() (Keras's add_loss); cleared at each top-level call.
  void add_loss(const Tensor& loss);
  /// Tracked sublayers, in tracking order.
  const std::vector<std::shared_ptr<Layer>>& sublayers() const { return sublayers_; }

  /// Copies of weights() as tensors (Keras's get_weights()).
  std::vector<Tensor> get_weights() const;
  /// Assigns `ws` to weights() in order; throws ValueError (count) or ShapeError (shape) on a mismatch.
  void set_weights(const std::vector<Tensor>& ws);

  /// Layer config as JSON (Keras's get_config(): name, trainable, dtype, ...).
  virtual Config get_config() const;
  /// Output shape for an input shape (None batch allowed). The default runs
  /// call() on zeros with None replaced by 1.
  virtual Shape compute_output_shape(const Shape& input_shape);
  /// Output shapes for a list of input shapes (multi-input layers).
  virtual std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes);

  /// Builds weights for an input shape (idempotent); public so models can build eagerly.
  void build_for(const Shape& input_shape);
  /// Builds for a list of input shapes (multi-input layers).
  void build_for(const std::vector<Shape>& input_shapes);
  /// Runs `f` once, right after this layer is built (at once if it is built
  /// already): a checkpoint restored before the layer had weights fills them
  /// this way, before the first call computes with them.
  void call_after_build(std::function<void()> f);

  // ---- functional-graph access ----
  /// Symbolic output of the layer's first call (throws if never called symbolically).
  Tensor output() const;
  /// Symbolic input of the layer's first call (throws if never called symbolically).
  Tensor input() const;
  /// Graph nodes where this layer was called symbolically (weak: the graph owns them).
  std::vector<std::shared_ptr<Node>> inbound_nodes() const;
  /// Records a graph node where this layer was called (used by the functional API).
  void add_inbound_node(const std::shared_ptr<Node>& n) { inbound_nodes_.push_back(n); }
  /// Keras's supports_masking: the layer passes an input mask on to its output
  /// through compute_mask(); a layer that does not drops the mask (kiln/nn/masking.h).
  bool supports_masking() const { return supports_masking_; }
  /// Sets supports_masking(); layers that propagate masks call it in their constructor.
  void set_supports_masking(bool s) { supports_masking_ = s; }
  /// The mask of the (first) output, from the input and the mask attached to it
  /// (undefined: none). The default passes previous_mask through, as Keras.
  virtual Tensor compute_mask(const Tensor& x, const Tensor& previous_mask);
  /// The output mask of a list call from every input's mask (undefined where
  /// an input has none); merge layers combine them. The default is
  /// compute_mask(xs[0], masks[0]).
  virtual Tensor compute_list_mask(const std::vector<Tensor>& xs, const std::vector<Tensor>& masks);
  /// The attribute a sublayer is saved under in Keras 3 files ("cell",
  /// "forward_layer"); empty for sublayers kept in the "layers" list.
  std::string sublayer_attribute(const Layer& sublayer) const;

  /// Multiple-input layers return true (merge layers, multi-input models).
  virtual bool takes_list() const { return false; }
  /// Keras calls this layer with its inputs as separate positional arguments
  /// (MultiHeadAttention(query, value, key)) where Kiln passes a list; saved
  /// configs write them that way.
  virtual bool positional_inputs() const { return false; }
  /// True when a symbolic call takes its outputs' shapes and dtypes from running
  /// call() on zeros rather than from compute_output_shape() (keras.ops nodes).
  virtual bool infers_outputs_by_running() const { return false; }
  /// True when call() answers with several tensors even for one input (a model with several outputs).
  virtual bool returns_list() const { return false; }
  /// The input shape the layer was built for; empty until built with a single input.
  const std::optional<Shape>& build_input_shape() const { return build_shape_; }
  /// The input shapes the layer was built for; empty until built with a list.
  const std::optional<std::vector<Shape>>& build_input_shapes() const { return build_shapes_; }
  /// Batch input shape given in the config (Keras's batch_input_shape on the first layer).
  std::optional<Shape> declared_input_shape;
  /// Common config entries (name, trainable, dtype) that get_config() starts from.
  Config base_config() const;

  /// Moves own and sublayers' variables to a device.
  virtual void to(Device device);
  /// Where this layer's weights live (weights created later go there too).
  Device device() const { return device_; }

 protected:
  /// Creates the layer's weights for an input shape (Keras's build()); runs once,
  /// before the first call. The default creates none.
  virtual void build(const Shape& input_shape);
  /// build() for a list of input shapes (multi-input layers).
  virtual void build(const std::vector<Shape>& input_shapes);
  /// The layer's computation (Keras's call()); `training` selects training
  /// behaviour (dropout, batch statistics).
  virtual Tensor call(const Tensor& x, bool training);
  /// call() for a list of inputs (merge layers, multi-input models).
  virtual std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training);
  /// call() for an input that carries a mask (Keras passes it to a call() that
  /// takes `mask`); the defaults ignore the mask and run call().
  virtual Tensor call_masked(const Tensor& x, const Tensor& mask, bool training);
  /// call_masked() for a list of inputs.
  virtual std::vector<Tensor> call_masked(const std::vector<Tensor>& xs, const Tensor& mask, bool training);
  /// A call with keywords other than training and mask (those are in
  /// `training` and `mask`, undefined when absent). Layers that take call
  /// keywords override it; the default refuses every keyword, naming it.
  virtual std::vector<Tensor> call_kwargs(const std::vector<Tensor>& xs, const CallKwargs& kwargs, const Tensor& mask,
                                          bool training);

  /// Creates and registers a weight named `name` (path "<layer>/<name>").
  Variable add_weight(const std::string& name, const Shape& shape, WeightOptions options = {});
  /// Drops one of the layer's own weights (quantize replaces the float kernel).
  void remove_weight(const Variable& weight);
  /// Registers a sublayer so its variables and losses are collected.
  template <class T>
  std::shared_ptr<T> track(std::shared_ptr<T> layer) {
    track_layer(layer);
    return layer;
  }
  /// Registers a sublayer so its variables and losses are collected.
  void track_layer(std::shared_ptr<Layer> layer);
  /// Adds an existing variable (a sublayer's) to this layer's own variables, as Keras
  /// tracks a variable assigned to a layer attribute (SpectralNormalization's
  /// `self.kernel = self.layer.kernel`): Keras saves it with this layer's own.
  void track_variable(const Variable& v);
  /// Tracks a sublayer that Keras saves under an attribute name (RNN's "cell").
  void track_layer(std::shared_ptr<Layer> layer, const std::string& attribute);
  /// Sets the input specs checked before build() and call(), one per input.
  void set_input_spec(std::vector<InputSpec> spec) { input_spec_ = std::move(spec); }
  /// Renames the layer.
  void set_name(const std::string& n) { name_ = n; }
  /// Marks the layer built and runs the call_after_build functions.
  void mark_built();
  /// Activity-regularizer hook: penalties added here show up in losses().
  regularizers::RegularizerPtr activity_regularizer;

  friend class Model;
  friend class Sequential;
  friend class detail::OwnerScope;

 private:
  void check_input_spec(const std::vector<Tensor>& xs) const;
  /// Keras's _set_mask_metadata: attaches compute_mask()'s result to ys[0].
  void attach_output_mask(const Tensor& x, const std::vector<Tensor>& ys, const Tensor& mask);
  void attach_output_mask(const std::vector<Tensor>& xs, const std::vector<Tensor>& ys, const Tensor& mask);
  /// The eager keyword call: checks, builds, runs call_kwargs() (or call()).
  std::vector<Tensor> run_with_kwargs(const std::vector<Tensor>& xs, bool list_call, const CallKwargs& rest,
                                      const Tensor& mask, bool training);
  /// The activity regularizer's penalty on output y, per sample (Keras).
  void add_activity_loss(const Tensor& y);
  void collect_losses(std::vector<Tensor>& out, std::vector<const Layer*>& seen) const;
  std::vector<Tensor> call_symbolic(const std::vector<Tensor>& xs, bool list_call, bool training,
                                    const CallKwargs& kwargs = {});
  /// Output shapes and dtypes of a keyword call, from two runs on zeros.
  std::vector<Tensor> symbolic_outputs_of_kwargs_call(const std::vector<Tensor>& xs, bool list_call,
                                                       const CallKwargs& kwargs);
  void maybe_build(const std::vector<Tensor>& xs, bool list_call);
  /// Tracks `callee`, called inside this layer's call() or build(), as a sublayer.
  void adopt_called_layer(Layer& callee);

  std::string name_;
  bool trainable_ = true;
  bool autocast_ = true;
  DTypePolicy policy_;
  bool built_ = false;
  std::vector<std::function<void()>> after_build_;
  bool in_build_ = false;
  std::vector<Variable> variables_;
  std::vector<regularizers::RegularizerPtr> var_regularizers_;
  std::vector<std::shared_ptr<Layer>> sublayers_;
  std::vector<InputSpec> input_spec_;
  std::vector<Tensor> call_losses_;
  std::optional<Shape> build_shape_;
  std::optional<std::vector<Shape>> build_shapes_;
  std::vector<std::weak_ptr<Node>> inbound_nodes_;
  mutable std::string lazy_name_;
  std::vector<bool> var_trainable_;
  Device device_ = Device::cpu();
  bool supports_masking_ = false;
  bool warned_mask_dropped_ = false;
  std::map<const Layer*, std::string> sublayer_attributes_;
  uint64_t serial_;  // when the layer was made, against when an owner's call began
};

using LayerPtr = std::shared_ptr<Layer>;  ///< A shared pointer to a layer.

/// Resets the automatic layer-name counters (Keras's clear_session()).
void clear_session();
/// "dense", "dense_1", ...: a process-unique name from a base.
std::string unique_name(const std::string& base);

}  // namespace kiln

#include "kiln/nn/layer_handle.h"
