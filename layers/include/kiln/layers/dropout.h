#pragma once
// Dropout: during training (training=true) zero each element with probability
// `rate` and scale the survivors by 1 / (1 - rate) (inverted dropout), so the
// expected value is unchanged; at inference it is the identity.
//   L::Dropout(0.1);
//   L::Dropout(0.5, {.noise_shape = Shape{None, 1, 64}, .seed = 42});  // same mask over axis 1
// noise_shape: the mask's shape (None entries take the input's size); it
// broadcasts over the input. seed: a seeded layer draws its masks from its own
// sequence (reproducible per layer); otherwise the global generator is used.
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of Dropout (Keras's `Dropout` constructor arguments after rate).
struct DropoutOptions {
  std::optional<Shape> noise_shape;  ///< The mask's shape (None entries: the input's size); none: the input's.
  std::optional<uint64_t> seed;  ///< Seed of the masks; none: the global generator.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(DropoutOptions, noise_shape, seed)
};

/// Inverted dropout (Keras's `Dropout`): in training each element is zeroed with probability
/// rate and the survivors scaled by 1 / (1 - rate), so the expected value is unchanged; the
/// identity at inference. Output shape = input shape; no weights. Users create it through the
/// handle `kiln::layers::Dropout(rate, {...})`, e.g. `Dropout(0.1)`.
class DropoutImpl : public Layer {
 public:
  /// Keras's call(..., training=False): outside training, and unless a caller says otherwise, it is the identity.
  std::optional<bool> default_training() const override { return false; }
  /// `rate`: the fraction of elements dropped.
  explicit DropoutImpl(double rate, DropoutOptions options = {});
  std::string class_name() const override { return "Dropout"; }
  Config get_config() const override;
  using Options = DropoutOptions;  ///< The options struct the constructor takes.
  const DropoutOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(DropoutImpl, rate_)
  /// Keras 1 called the rate "p".
  static Config upgrade_entry(const Config& entry);
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;
  double rate() const { return rate_; }  ///< The fraction of elements dropped.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  double rate_;
  DropoutOptions o_;
  uint64_t calls_ = 0;  // advances a seeded layer's mask sequence
};

KILN_LAYER_HANDLE(Dropout);

}  // namespace kiln::layers
