#pragma once
// kiln::MultiOutputModel<N>: a model whose output count is part of its C++
// type, so that a call returns every output and the wrong use does not compile.
//
//   // Keras: encoder = keras.Model(encoder_inputs, [z_mean, z_log_var, z], name="encoder")
//   kiln::MultiOutputModel encoder(encoder_inputs, {z_mean, z_log_var, z}, {.name = "encoder"});  // N = 3
//   // Keras: z_mean, z_log_var, z = encoder(data)
//   auto [z_mean, z_log_var, z] = encoder(data);
//   kiln::Tensor t = encoder(data);            // does not compile: three outputs are not one tensor
//   auto [a, b] = encoder(data);               // does not compile: three outputs, two names
//   kiln::MultiOutputModel<3> loaded(kiln::load_model("encoder.keras"));  // ValueError unless 3 outputs
//
// The result is std::array<Tensor, N> for every N, one result type for one or
// many outputs. A plain kiln::Model keeps Keras's single-output call, which
// returns a Tensor (and throws, naming this class, when the model has several
// outputs): a loaded model's output count is only known at run time, so it is
// checked once, where the model becomes a MultiOutputModel, not at each use.
#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "kiln/training/model.h"

namespace kiln {

/// MultiOutputModel's check: ValueError naming the model, `want` and `got`.
[[noreturn]] void throw_model_output_count(const Model& model, std::size_t want, std::size_t got);

/// A shared handle to a model with exactly N outputs, whose calls return all of
/// them as std::array<Tensor, N> (structured bindings take exactly N names).
/// Copies refer to the same model and weights; `->` reaches the model itself
/// (compile, fit, save, summary).
template <std::size_t N>
class MultiOutputModel {
  static_assert(N >= 1, "a model has at least one output");

 public:
  /// A functional model from one input to the N outputs of a braced list.
  MultiOutputModel(const Tensor& input, const Tensor (&outputs)[N], LayerOptions options = {})
      : model_(std::make_shared<Model>(input, std::vector<Tensor>(outputs, outputs + N), std::move(options))) {}
  /// A functional model from several inputs to the N outputs of a braced list.
  MultiOutputModel(const std::vector<Tensor>& inputs, const Tensor (&outputs)[N], LayerOptions options = {})
      : model_(std::make_shared<Model>(inputs, std::vector<Tensor>(outputs, outputs + N), std::move(options))) {}
  /// An existing model: loaded, subclassed, or built as a kiln::Model. A
  /// functional model must have N outputs (ValueError otherwise); a subclassed
  /// one is checked at each call, since only its call() knows.
  explicit MultiOutputModel(ModelPtr model) : model_(std::move(model)) {
    if (model_->is_functional() && model_->outputs().size() != N)
      throw_model_output_count(*model_, N, model_->outputs().size());
  }

  /// Every output of a call on one input (training as in Layer::operator()).
  std::array<Tensor, N> operator()(const Tensor& x, std::optional<bool> training = std::nullopt) const {
    return to_array((*model_)(std::vector<Tensor>{x}, training));
  }
  /// Every output of a call on several inputs.
  std::array<Tensor, N> operator()(const std::vector<Tensor>& xs, std::optional<bool> training = std::nullopt) const {
    return to_array((*model_)(xs, training));
  }

  /// The model.
  Model* operator->() const { return model_.get(); }
  /// The model.
  Model& operator*() const { return *model_; }
  /// The model, sharing ownership.
  const ModelPtr& ptr() const { return model_; }
  /// Converts to a shared_ptr of Model or a base of it (Layer), to nest the
  /// model in another or to pass it where a model is taken.
  template <class U>
    requires std::is_convertible_v<Model*, U*>
  operator std::shared_ptr<U>() const {
    return model_;
  }

 private:
  std::array<Tensor, N> to_array(std::vector<Tensor> outputs) const {
    if (outputs.size() != N) throw_model_output_count(*model_, N, outputs.size());
    std::array<Tensor, N> a;
    for (std::size_t i = 0; i < N; ++i) a[i] = std::move(outputs[i]);
    return a;
  }

  ModelPtr model_;
};

}  // namespace kiln
