#pragma once
// Merge layers: take a list of tensors (functional models) and return one.
//   Add, Subtract (exactly 2: a - b), Multiply, Average, Maximum, Minimum: element-wise,
//     shapes broadcast NumPy-style (a size-1 axis stretches); otherwise
//     "Inputs have incompatible shapes. Received shapes (None, 16) and (None, 8)".
//   Concatenate(axis=-1): shapes must match except on `axis`.
//   Dot(axes, normalize=false): batch-wise dot product contracting axes[0] of the first
//     input with axes[1] of the second; (b, n)·(b, n) -> (b, 1); (b, n, m)·(b, m, k), axes (2, 1) -> (b, n, k).
//     normalize=true L2-normalises both inputs along their axes first (cosine proximity).
//
//   auto s = L::Add()({a, b});
//   auto c = L::Concatenate({.axis = 1})({a, b});
//   auto d = L::Dot(1, {.normalize = true})({a, b});
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"
#include "kiln/layers/common.h"

namespace kiln::layers {

/// Options of the element-wise merge layers: only the base-layer arguments.
struct MergeOptions {
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(MergeOptions)
};

/// Base of the element-wise merge layers (Keras's Merge): Add, Subtract (exactly 2 inputs:
/// a - b), Multiply, Average, Maximum and Minimum combine a list of tensors element-wise,
/// shapes broadcast NumPy-style. Users create them through their handles and call them on a
/// list, e.g. `kiln::layers::Add()({a, b})`.
class MergeImpl : public Layer {
 public:
  /// Creates the layer from its options.
  explicit MergeImpl(MergeOptions options = {});
  bool takes_list() const override { return true; }
  Config get_config() const override;
  using Options = MergeOptions;  ///< The options struct the constructor takes.
  const MergeOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(MergeImpl)
  /// Keras 3's merge layers define build(), so their .keras entries carry a build_config.
  static constexpr bool records_build_config = true;
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  Shape compute_output_shape(const Shape& input_shape) override;
  /// Keras 3's rule: the OR of the inputs' masks; none when any input has none.
  Tensor compute_list_mask(const std::vector<Tensor>& xs, const std::vector<Tensor>& masks) override;

 protected:
  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  /// Combines the (already checked) inputs.
  virtual Tensor merge(const std::vector<Tensor>& xs) const = 0;
  /// Number of inputs required (0: one or more).
  virtual std::size_t exact_inputs() const { return 0; }

 private:
  Shape check_shapes(const std::vector<Shape>& shapes);
  MergeOptions o_;
};

// The comment before each use documents NAME##Impl; the API reference expands
// this macro (docs/Doxyfile, EXPAND_AS_DEFINED), so the comments inside it
// document the constructor and the handle of every class.
#define KILN_MERGE_LAYER(NAME, EXACT)                                                \
  class NAME##Impl : public MergeImpl {                                              \
   public:                                                                           \
    /** Creates the layer from its options. */                                       \
    explicit NAME##Impl(MergeOptions options = {}) : MergeImpl(std::move(options)) {} \
    std::string class_name() const override { return #NAME; }                        \
                                                                                     \
   protected:                                                                        \
    Tensor merge(const std::vector<Tensor>& xs) const override;                      \
    std::size_t exact_inputs() const override { return EXACT; }                      \
  };                                                                                 \
  /** The handle users create and call the layer through (a LayerHandle). */         \
  KILN_LAYER_HANDLE(NAME);

/// The element-wise sum of one or more tensors (Keras's `Add`). Users create it through the
/// handle `kiln::layers::Add()`, then call it on a list: `Add()({a, b})`.
KILN_MERGE_LAYER(Add, 0)
/// The element-wise difference inputs[0] - inputs[1] of exactly two tensors (Keras's `Subtract`).
/// Users create it through the handle `kiln::layers::Subtract()`, then call it on a list.
KILN_MERGE_LAYER(Subtract, 2)
/// The element-wise product of one or more tensors (Keras's `Multiply`). Users create it
/// through the handle `kiln::layers::Multiply()`, then call it on a list.
KILN_MERGE_LAYER(Multiply, 0)
/// The element-wise mean of one or more tensors (Keras's `Average`). Users create it through
/// the handle `kiln::layers::Average()`, then call it on a list.
KILN_MERGE_LAYER(Average, 0)
/// The element-wise maximum of one or more tensors (Keras's `Maximum`). Users create it
/// through the handle `kiln::layers::Maximum()`, then call it on a list.
KILN_MERGE_LAYER(Maximum, 0)
/// The element-wise minimum of one or more tensors (Keras's `Minimum`). Users create it
/// through the handle `kiln::layers::Minimum()`, then call it on a list.
KILN_MERGE_LAYER(Minimum, 0)
#undef KILN_MERGE_LAYER

/// Options of Concatenate (Keras's `Concatenate` constructor arguments).
struct ConcatenateOptions {
  int axis = -1;  ///< The axis the inputs are joined along.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ConcatenateOptions, axis)
};

/// Joins a list of tensors along `axis` (Keras's `Concatenate`): shapes must match except
/// on `axis`, whose sizes add up. No weights. Users create it through the handle
/// `kiln::layers::Concatenate({.axis = ...})`, then call it on a list: `Concatenate()({a, b})`.
class ConcatenateImpl : public Layer {
 public:
  /// Creates the layer from its options.
  explicit ConcatenateImpl(ConcatenateOptions options = {});
  std::string class_name() const override { return "Concatenate"; }
  bool takes_list() const override { return true; }
  Config get_config() const override;
  using Options = ConcatenateOptions;  ///< The options struct the constructor takes.
  const ConcatenateOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(ConcatenateImpl)
  /// Keras 3 writes a build_config for this class even without weights (Python's build()).
  static constexpr bool records_build_config = true;
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  Shape compute_output_shape(const Shape& input_shape) override;
  /// Keras's rule: each input's mask is widened to the input's shape (all true
  /// where it has none), the masks are concatenated along `axis`, and the
  /// output mask is their any() over the last axis.
  Tensor compute_list_mask(const std::vector<Tensor>& xs, const std::vector<Tensor>& masks) override;

 protected:
  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;

 private:
  ConcatenateOptions o_;
};

KILN_LAYER_HANDLE(Concatenate);

/// Options of Dot (Keras's `Dot` constructor arguments after axes).
struct DotOptions {
  bool normalize = false;  ///< L2-normalise both inputs along their axes first (cosine proximity).
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(DotOptions, normalize)
};

/// Batch-wise dot product of two tensors (Keras's `Dot`): contracts axes[0] of the first
/// input with axes[1] of the second, e.g. (b, n)·(b, n) -> (b, 1) and (b, n, m)·(b, m, k)
/// with axes (2, 1) -> (b, n, k). No weights. Users create it through the handle
/// `kiln::layers::Dot(axes, {...})`, then call it on a list: `Dot(1)({a, b})`.
class DotImpl : public Layer {
 public:
  /// axes: one axis for both inputs, or {axis_of_first, axis_of_second}; never the batch axis.
  explicit DotImpl(Size2 axes, DotOptions options = {});
  std::string class_name() const override { return "Dot"; }
  bool takes_list() const override { return true; }
  Config get_config() const override;
  using Options = DotOptions;  ///< The options struct the constructor takes.
  const DotOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(DotImpl, axes_)
  /// Keras 3 writes a build_config for this class even without weights (Python's build()).
  static constexpr bool records_build_config = true;
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  Shape compute_output_shape(const Shape& input_shape) override;
  /// Keras: the output has no mask (and the inputs' masks are not warned about).
  Tensor compute_list_mask(const std::vector<Tensor>& xs, const std::vector<Tensor>& masks) override;

 protected:
  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;

 private:
  std::pair<int, int> resolve_axes(const Shape& a, const Shape& b) const;
  Size2 axes_;  // Keras stores an int when both axes are the same
  DotOptions o_;
};

KILN_LAYER_HANDLE(Dot);

/// @name Functional merge helpers
/// Keras's keras.layers.add(inputs), concatenate(inputs, axis), ...: each makes the
/// merge layer and calls it on `inputs` (concrete or symbolic), as
/// `Add(options)(inputs)` does.
//@{
/// Element-wise sum of the inputs (keras.layers.add).
Tensor add(const std::vector<Tensor>& inputs, MergeOptions options = {});
/// The first input minus the second (keras.layers.subtract).
Tensor subtract(const std::vector<Tensor>& inputs, MergeOptions options = {});
/// Element-wise product (keras.layers.multiply).
Tensor multiply(const std::vector<Tensor>& inputs, MergeOptions options = {});
/// Element-wise mean (keras.layers.average).
Tensor average(const std::vector<Tensor>& inputs, MergeOptions options = {});
/// Element-wise maximum (keras.layers.maximum).
Tensor maximum(const std::vector<Tensor>& inputs, MergeOptions options = {});
/// Element-wise minimum (keras.layers.minimum).
Tensor minimum(const std::vector<Tensor>& inputs, MergeOptions options = {});
/// Joins the inputs along `axis` (keras.layers.concatenate(inputs, axis=-1)).
Tensor concatenate(const std::vector<Tensor>& inputs, int axis = -1, ConcatenateOptions options = {});
/// Batch-wise dot product of two inputs (keras.layers.dot(inputs, axes, normalize=False)).
Tensor dot(const std::vector<Tensor>& inputs, Size2 axes, bool normalize = false, DotOptions options = {});
//@}

}  // namespace kiln::layers
