#pragma once
// Layer handles: the value types users hold (kiln::layers::Dense d(64); d(x)),
// each sharing one layer, and unpack() for multi-output calls.
#include <array>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "kiln/nn/layer.h"

namespace kiln {

/// unpack()'s error: expected `want` outputs, received `got`.
[[noreturn]] void throw_unpack_count(std::size_t want, std::size_t got);

/// The outputs of a multi-output call as a fixed-size array, for structured
/// bindings: `auto [z_mean, z_log_var, z] = kiln::unpack<3>(encoder.call_multi({x}));`.
/// Throws ValueError when the call returned another number of outputs.
template <std::size_t N>
std::array<Tensor, N> unpack(const std::vector<Tensor>& outputs) {
  if (outputs.size() != N) throw_unpack_count(N, outputs.size());
  std::array<Tensor, N> a;
  for (std::size_t i = 0; i < N; ++i) a[i] = outputs[i];
  return a;
}

/// What every layer handle shares: the layer, and the calls, which are the
/// same for every class. Not a template, so the calls are compiled once.
class LayerHandleBase {
 public:
  LayerHandleBase() = default;
  /// Wraps an existing layer.
  explicit LayerHandleBase(LayerPtr p) : layer_(std::move(p)) {}
  /// The wrapped layer.
  operator LayerPtr() const { return layer_; }
  /// Calls the layer on one input.
  Tensor operator()(const Tensor& x, std::optional<bool> training = std::nullopt) const;
  /// Merge layers and multi-input models take a list.
  Tensor operator()(const std::vector<Tensor>& xs, std::optional<bool> training = std::nullopt) const;
  /// Every output of a list call.
  std::vector<Tensor> call_multi(const std::vector<Tensor>& xs, std::optional<bool> training = std::nullopt) const;
  /// Calls with Keras's call keywords: lstm(x, {.initial_state = {h, c}}), mha({q, v}, {.use_causal_mask = true}).
  Tensor operator()(const Tensor& x, const CallOptions& options) const;
  /// Calls a multi-input layer with call keywords.
  Tensor operator()(const std::vector<Tensor>& xs, const CallOptions& options) const;
  /// Every output of a keyword call (return_state, return_attention_scores).
  std::vector<Tensor> call_multi(const std::vector<Tensor>& xs, const CallOptions& options) const;

 protected:
  LayerPtr layer_;  ///< The layer this handle refers to.
};

/// A shared handle to a layer: copies refer to the same layer (and weights).
///   kiln::layers::Dense d(64);  auto y = d(x);  d->kernel();
/// It holds a LayerPtr, not a std::shared_ptr<T>: a shared_ptr of each of the
/// hundred-odd layer classes would be instantiated in every includer.
template <class T>
class LayerHandle : public LayerHandleBase {
 public:
  /// A handle that refers to no layer.
  LayerHandle() = default;
  /// Wraps a layer, which must be a T.
  explicit LayerHandle(LayerPtr p) : LayerHandleBase(std::move(p)) {}
  /// Member access to the layer as its own class.
  T* operator->() const { return get(); }
  /// The layer as its own class.
  T& operator*() const { return *get(); }
  /// The layer as its own class (null for an empty handle).
  T* get() const { return static_cast<T*>(layer_.get()); }
  /// The layer as its own class (sharing ownership with the handle).
  std::shared_ptr<T> ptr() const { return std::shared_ptr<T>(layer_, get()); }
  /// Converts to a shared_ptr of T or a base of T (sharing ownership).
  template <class U>
    requires std::is_convertible_v<T*, U*>
  operator std::shared_ptr<U>() const {
    return std::shared_ptr<U>(layer_, get());
  }
};

/// make_layer<MyLayer>(args...): a custom layer owned by a handle.
template <class T, class... A>
LayerHandle<T> make_layer(A&&... args) {
  return LayerHandle<T>(std::make_shared<T>(std::forward<A>(args)...));
}

}  // namespace kiln
