// SpectralNormalization: Keras 3's power iteration, with the normalized kernel
// handed to the wrapped layer through a VariableValueScope (see the header for why
// the kernel variable itself is not written).
#include "kiln/layers/spectral_normalization.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "config_fields.h"
#include "nested_layers.h"

namespace kiln::layers {

using namespace detail;

namespace {

// keras.utils.normalize(a, axis=None): a * min(rsqrt(sum(a^2)), 1 / epsilon), epsilon 1e-7.
Tensor unit_norm(const Tensor& a) {
  const Tensor inv = rsqrt(sum(a * a, {}, true));
  return a * minimum(inv, scalar_like(1e7, inv));
}

}  // namespace

SpectralNormalizationImpl::SpectralNormalizationImpl(LayerPtr layer, SpectralNormalizationOptions o)
    : Layer(base_options(o)), layer_(std::move(layer)), o_(std::move(o)) {
  if (!layer_) throw ValueError("SpectralNormalization: the wrapped layer is null");
  if (o_.power_iterations <= 0)
    throw ValueError("`power_iterations` should be greater than zero. Received: `power_iterations=" +
                     std::to_string(o_.power_iterations) + "`");
  track_layer(layer_, "layer");
  apply_input_shape(*this, o_);
}

void SpectralNormalizationImpl::build(const Shape& s) {
  layer_->build_for(s);
  prefix_weight_paths(*layer_, name());
  set_input_spec({InputSpec{.min_ndim = 1, .axes = {{-1, s[-1]}}}});
  for (const char* attribute : {"kernel", "embeddings"}) {
    for (const Variable& v : layer_->own_variables())
      if (v.name() == attribute) kernel_ = v;
    if (kernel_.defined()) break;
  }
  if (!kernel_.defined())
    throw ValueError(layer_->class_name() + " object has no attribute 'kernel' nor 'embeddings'");
  track_variable(kernel_);  // Keras's `self.kernel = self.layer.kernel` makes it one of the wrapper's own
  const Shape ks = kernel_.shape();
  vector_u_ = add_weight("vector_u", {1, ks[-1]},
                         {.initializer = initializers::TruncatedNormal(0.0, 0.02), .trainable = false,
                          .dtype = kernel_.dtype()});
}

std::pair<Tensor, Tensor> SpectralNormalizationImpl::normalized_weights() const {
  const Tensor w = kernel_.value();
  const Shape ks = w.shape();
  const Tensor w2 = reshape(w, {-1, ks[-1]});
  Tensor u = vector_u_.value(), v;
  for (int64_t i = 0; i < o_.power_iterations; ++i) {
    v = unit_norm(matmul(u, w2, false, true));
    u = unit_norm(matmul(v, w2));
  }
  u = stop_gradient(u);
  v = stop_gradient(v);
  Tensor sigma = matmul(matmul(v, w2), u, false, true);  // (1, 1)
  // Keras skips the update of an all-zero kernel (ops.cond); a branch on a tensor
  // keeps this traceable, and the safe sigma keeps the unused branch finite.
  const Tensor zero_kernel = equal(max(abs(w)), zeros({}, w.dtype()));
  sigma = where(zero_kernel, ones_like(sigma), sigma);
  return {where(zero_kernel, vector_u_.value(), u), reshape(w / sigma, ks)};
}

Tensor SpectralNormalizationImpl::call(const Tensor& x, bool training) {
  if (!training) return cast((*layer_)(x, false), x.dtype());
  auto [u, kernel] = normalized_weights();
  vector_u_.assign(cast(u, vector_u_.dtype()));
  VariableValueScope normalized(kernel_, cast(kernel, kernel_.dtype()));
  return cast((*layer_)(x, true), x.dtype());
}

std::vector<Variable> SpectralNormalizationImpl::weights() const {
  if (!kernel_.defined()) return Layer::weights();
  std::vector<Variable> out{kernel_, vector_u_};
  for (const Variable& v : layer_->weights())
    if (!v.same_as(kernel_)) out.push_back(v);
  return out;
}

Shape SpectralNormalizationImpl::compute_output_shape(const Shape& s) { return layer_->compute_output_shape(s); }

Config SpectralNormalizationImpl::get_config() const {
  Config c = base_config();
  c["layer"] = serialize_nested(*layer_);
  c["power_iterations"] = o_.power_iterations;
  add_declared_shape(*this, c);
  return c;
}

std::shared_ptr<SpectralNormalizationImpl> SpectralNormalizationImpl::from_config(const Config& config) {
  auto inner = nested_from_config<Layer>(config, "layer", "SpectralNormalization");
  ConfigReader r("SpectralNormalization", config);
  SpectralNormalizationOptions o;
  r.base(o);
  o.power_iterations = r.integer("power_iterations", 1);
  return std::make_shared<SpectralNormalizationImpl>(inner, o);
}

KILN_REGISTER_LAYER(SpectralNormalizationImpl, "SpectralNormalization")

}  // namespace kiln::layers
