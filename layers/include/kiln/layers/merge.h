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

#include "kiln/nn/layer.h"
#include "kiln/layers/common.h"

namespace kiln::layers {

struct MergeOptions {
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
};

/// Base of the element-wise merge layers.
class MergeImpl : public Layer {
 public:
  explicit MergeImpl(MergeOptions options = {});
  bool takes_list() const override { return true; }
  Config get_config() const override;
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  Shape compute_output_shape(const Shape& input_shape) override;

 protected:
  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  /// Combines the (already checked) inputs.
  virtual Tensor merge(const std::vector<Tensor>& xs) const = 0;
  /// Number of inputs required (0: one or more).
  virtual std::size_t exact_inputs() const { return 0; }
  static MergeOptions options_from_config(const Config& c, const std::string& cls);

 private:
  Shape check_shapes(const std::vector<Shape>& shapes);
};

#define KILN_MERGE_LAYER(NAME, EXACT)                                                                   \
  class NAME##Impl : public MergeImpl {                                                                 \
   public:                                                                                              \
    explicit NAME##Impl(MergeOptions options = {}) : MergeImpl(std::move(options)) {}                    \
    std::string class_name() const override { return #NAME; }                                           \
    static std::shared_ptr<NAME##Impl> from_config(const Config& c) {                                   \
      return std::make_shared<NAME##Impl>(options_from_config(c, #NAME));                               \
    }                                                                                                   \
                                                                                                        \
   protected:                                                                                           \
    Tensor merge(const std::vector<Tensor>& xs) const override;                                         \
    std::size_t exact_inputs() const override { return EXACT; }                                         \
  };                                                                                                    \
  class NAME : public LayerHandle<NAME##Impl> {                                                         \
   public:                                                                                              \
    using LayerHandle<NAME##Impl>::LayerHandle;                                                         \
    NAME(MergeOptions options = {}) : LayerHandle(std::make_shared<NAME##Impl>(std::move(options))) {   \
      ptr()->name();                                                                                    \
    }                                                                                                   \
  };

// sum of the inputs
KILN_MERGE_LAYER(Add, 0)
// inputs[0] - inputs[1]
KILN_MERGE_LAYER(Subtract, 2)
// product of the inputs
KILN_MERGE_LAYER(Multiply, 0)
// mean of the inputs
KILN_MERGE_LAYER(Average, 0)
// element-wise maximum
KILN_MERGE_LAYER(Maximum, 0)
// element-wise minimum
KILN_MERGE_LAYER(Minimum, 0)
#undef KILN_MERGE_LAYER

struct ConcatenateOptions {
  int axis = -1;
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
};

class ConcatenateImpl : public Layer {
 public:
  explicit ConcatenateImpl(ConcatenateOptions options = {});
  std::string class_name() const override { return "Concatenate"; }
  bool takes_list() const override { return true; }
  Config get_config() const override;
  static std::shared_ptr<ConcatenateImpl> from_config(const Config& config);
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  Shape compute_output_shape(const Shape& input_shape) override;

 protected:
  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;

 private:
  ConcatenateOptions o_;
};

class Concatenate : public LayerHandle<ConcatenateImpl> {
 public:
  using LayerHandle<ConcatenateImpl>::LayerHandle;
  Concatenate(ConcatenateOptions options = {}) : LayerHandle(std::make_shared<ConcatenateImpl>(std::move(options))) {
    ptr()->name();
  }
};

struct DotOptions {
  bool normalize = false;
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
};

class DotImpl : public Layer {
 public:
  /// axes: one axis for both inputs, or {axis_of_first, axis_of_second}; never the batch axis.
  explicit DotImpl(Size2 axes, DotOptions options = {});
  std::string class_name() const override { return "Dot"; }
  bool takes_list() const override { return true; }
  Config get_config() const override;
  static std::shared_ptr<DotImpl> from_config(const Config& config);
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  Shape compute_output_shape(const Shape& input_shape) override;

 protected:
  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;

 private:
  std::pair<int, int> resolve_axes(const Shape& a, const Shape& b) const;
  bool single_axis_;  // Keras stores an int when one axis was given
  int axis0_, axis1_;
  DotOptions o_;
};

class Dot : public LayerHandle<DotImpl> {
 public:
  using LayerHandle<DotImpl>::LayerHandle;
  explicit Dot(Size2 axes, DotOptions options = {}) : LayerHandle(std::make_shared<DotImpl>(axes, std::move(options))) {
    ptr()->name();
  }
};

}  // namespace kiln::layers
