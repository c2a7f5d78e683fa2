#pragma once
// SpectralNormalization: divides a layer's kernel by its largest singular value
// (Keras's `SpectralNormalization`, Miyato et al. 2018), to bound its Lipschitz constant.
//   L::SpectralNormalization sn(L::Dense(10));            // or a Conv, an Embedding (its embeddings)
//   Tensor y = sn(x, true);                                // training: normalized kernel
// The kernel W (the layer's "kernel", else its "embeddings") is read as a matrix
// W2 = reshape(W, (-1, W.shape[-1])). A training call runs power_iterations steps from
// the non-trainable vector_u (1, W.shape[-1]), initialised TruncatedNormal(stddev 0.02):
//   v = normalize(u W2^T), u = normalize(v W2), sigma = v W2 u^T  (u, v without gradient)
// with normalize(a) = a * min(rsqrt(sum(a^2)), 1e7); stores u in vector_u and calls the
// layer with W / sigma in place of W (gradients flow through sigma to W). An all-zero
// kernel is used as it is. Inference calls the layer with W unchanged. The output is
// cast to the input's dtype.
// Keras's own call also writes W / sigma into the kernel, but its JAX training step
// (stateless_call) drops that write of a trainable variable; Kiln follows the training
// step, which the Keras oracle compares: the kernel variable keeps W.
// Weights, as Keras lists them: the kernel (also one of the wrapper's own variables, as
// Keras tracks it), vector_u, then the layer's other weights.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of SpectralNormalization (Keras's constructor arguments after the layer).
struct SpectralNormalizationOptions {
  int64_t power_iterations = 1;  ///< Power-iteration steps per training call (> 0).
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(SpectralNormalizationOptions, power_iterations)
};

/// Spectral normalization of a layer's kernel (Keras's `SpectralNormalization`; see
/// above). Users create it through the handle `kiln::layers::SpectralNormalization(layer)`.
class SpectralNormalizationImpl : public Layer {
 public:
  using Options = SpectralNormalizationOptions;  ///< The options struct the constructor takes.
  /// Wraps `layer`, which must have a "kernel" or an "embeddings" weight once built.
  SpectralNormalizationImpl(LayerPtr layer, SpectralNormalizationOptions options = {});
  std::string class_name() const override { return "SpectralNormalization"; }
  Config get_config() const override;
  /// Rebuilds the wrapper from its config, with the nested "layer".
  static std::shared_ptr<SpectralNormalizationImpl> from_config(const Config& config);
  const LayerPtr& layer() const { return layer_; }  ///< The wrapped layer.
  const SpectralNormalizationOptions& options() const { return o_; }  ///< The options this layer was created with.
  Variable vector_u() const { return vector_u_; }  ///< The power iteration's vector (1, units); undefined before build.
  /// Keras's order: the kernel, vector_u, then the wrapped layer's other weights.
  std::vector<Variable> weights() const override;
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  /// The updated vector_u and W / sigma (Keras's normalized_weights()).
  std::pair<Tensor, Tensor> normalized_weights() const;
  LayerPtr layer_;
  SpectralNormalizationOptions o_;
  Variable kernel_, vector_u_;
};

/// The handle: SpectralNormalization(Dense(10)).
class SpectralNormalization : public LayerHandle<SpectralNormalizationImpl> {
 public:
  /// Wraps `layer`, e.g. Dense(10).
  explicit SpectralNormalization(LayerPtr layer, SpectralNormalizationOptions options = {})
      : LayerHandle<SpectralNormalizationImpl>(
            ::kiln::detail::make_named_layer<SpectralNormalizationImpl>(std::move(layer), std::move(options))) {}
};

}  // namespace kiln::layers
