#pragma once
// Global pooling: the mean or max over all spatial axes.
//   2D: (batch, H, W, C) -> (batch, C)   (keepdims: (batch, 1, 1, C))
//   1D: (batch, steps, C) -> (batch, C)  (keepdims: (batch, 1, C))
//   3D: (batch, D, H, W, C) -> (batch, C) (keepdims: (batch, 1, 1, 1, C))
//   L::GlobalAveragePooling2D();  L::GlobalMaxPooling1D({.keepdims = true});
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of the global pooling layers (Keras's constructor arguments).
struct GlobalPoolingOptions {
  std::string data_format = "channels_last";  ///< "channels_last" or "channels_first".
  bool keepdims = false;  ///< Keep the pooled axes with size 1.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(GlobalPoolingOptions, data_format, keepdims)
};

/// What the six global pooling layers (Keras's GlobalAveragePooling1D/2D/3D and
/// GlobalMaxPooling1D/2D/3D) share: the mean or max over every spatial axis,
/// (batch, *spatial, C) -> (batch, C), or (batch, 1, ..., 1, C) with keepdims. Users
/// create them through their handles, e.g. `kiln::layers::GlobalAveragePooling2D()`.
class GlobalPoolingImpl : public Layer {
 public:
  /// `spatial_rank` is 1, 2 or 3; `is_max` picks max instead of mean pooling.
  GlobalPoolingImpl(int spatial_rank, bool is_max, GlobalPoolingOptions options);
  std::string class_name() const override;
  Config get_config() const override;
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  using Options = GlobalPoolingOptions;  ///< The options struct the constructor takes.
  const GlobalPoolingOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(GlobalPoolingImpl)

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  std::vector<int> spatial_axes() const;
  int rank_;
  bool is_max_;
  GlobalPoolingOptions o_;
};

// The comment before each use documents NAME##Impl; the API reference expands
// this macro (docs/Doxyfile, EXPAND_AS_DEFINED), so the comments inside it
// document the constructor and the handle of every class.
#define KILN_GLOBAL_POOLING(NAME, RANK, IS_MAX)                                   \
  class NAME##Impl : public GlobalPoolingImpl {                                   \
   public:                                                                        \
    /** Creates the layer from its options. */                                    \
    explicit NAME##Impl(GlobalPoolingOptions options = {})                        \
        : GlobalPoolingImpl(RANK, IS_MAX, std::move(options)) {}                  \
  };                                                                              \
  /** The handle users create and call the layer through (a LayerHandle). */      \
  KILN_LAYER_HANDLE(NAME);

// The classes differ only in rank and reduction.
/// Mean over H and W (Keras's `GlobalAveragePooling2D`, alias GlobalAvgPool2D): (batch, H, W, C)
/// -> (batch, C). Users create it through the handle `kiln::layers::GlobalAveragePooling2D()`.
KILN_GLOBAL_POOLING(GlobalAveragePooling2D, 2, false)
/// Max over H and W (Keras's `GlobalMaxPooling2D`, alias GlobalMaxPool2D): (batch, H, W, C)
/// -> (batch, C). Users create it through the handle `kiln::layers::GlobalMaxPooling2D()`.
KILN_GLOBAL_POOLING(GlobalMaxPooling2D, 2, true)
/// Mean over the steps (Keras's `GlobalAveragePooling1D`, alias GlobalAvgPool1D): (batch, steps, C)
/// -> (batch, C). Users create it through the handle `kiln::layers::GlobalAveragePooling1D()`.
KILN_GLOBAL_POOLING(GlobalAveragePooling1D, 1, false)
/// Max over the steps (Keras's `GlobalMaxPooling1D`, alias GlobalMaxPool1D): (batch, steps, C)
/// -> (batch, C). Users create it through the handle `kiln::layers::GlobalMaxPooling1D()`.
KILN_GLOBAL_POOLING(GlobalMaxPooling1D, 1, true)
/// Mean over D, H and W (Keras's `GlobalAveragePooling3D`): (batch, D, H, W, C) -> (batch, C).
/// Users create it through the handle `kiln::layers::GlobalAveragePooling3D()`.
KILN_GLOBAL_POOLING(GlobalAveragePooling3D, 3, false)
/// Max over D, H and W (Keras's `GlobalMaxPooling3D`): (batch, D, H, W, C) -> (batch, C).
/// Users create it through the handle `kiln::layers::GlobalMaxPooling3D()`.
KILN_GLOBAL_POOLING(GlobalMaxPooling3D, 3, true)
#undef KILN_GLOBAL_POOLING

using GlobalAvgPool2D = GlobalAveragePooling2D;  ///< Keras's alias of GlobalAveragePooling2D.
using GlobalMaxPool2D = GlobalMaxPooling2D;  ///< Keras's alias of GlobalMaxPooling2D.
using GlobalAvgPool1D = GlobalAveragePooling1D;  ///< Keras's alias of GlobalAveragePooling1D.
using GlobalMaxPool1D = GlobalMaxPooling1D;  ///< Keras's alias of GlobalMaxPooling1D.

}  // namespace kiln::layers
