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

#include "kiln/nn/layer.h"

namespace kiln::layers {

struct DropoutOptions {
  std::optional<Shape> noise_shape;
  std::optional<uint64_t> seed;
  std::string name;
  bool trainable = true;
  DType dtype = DType::float32;
  std::optional<Shape> input_shape;
};

class DropoutImpl : public Layer {
 public:
  explicit DropoutImpl(double rate, DropoutOptions options = {});
  std::string class_name() const override { return "Dropout"; }
  Config get_config() const override;
  static std::shared_ptr<DropoutImpl> from_config(const Config& config);
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;
  double rate() const { return rate_; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  double rate_;
  DropoutOptions o_;
  uint64_t calls_ = 0;  // advances a seeded layer's mask sequence
};

class Dropout : public LayerHandle<DropoutImpl> {
 public:
  using LayerHandle<DropoutImpl>::LayerHandle;
  explicit Dropout(double rate, DropoutOptions options = {})
      : LayerHandle(std::make_shared<DropoutImpl>(rate, std::move(options))) {
    ptr()->name();
  }
};

}  // namespace kiln::layers
