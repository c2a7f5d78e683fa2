// LoRA adapters on a layer's kernel (Keras's enable_lora).
#include "kiln/layers/lora.h"

#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"

namespace kiln::layers {

LoraLayer::LoraLayer(LayerOptions options, std::optional<int> rank, std::optional<double> alpha)
    : Layer(std::move(options)), rank_(rank), alpha_(alpha ? alpha : (rank ? std::optional<double>(*rank) : std::nullopt)) {
  if (rank_ && *rank_ <= 0)
    throw ValueError("LoRA: `lora_rank` must be a positive integer, but received lora_rank=" + std::to_string(*rank_));
}

void LoraLayer::enable_lora(int rank, LoraOptions o) {
  if (!built())
    throw ValueError("Layer '" + name() + "' (" + class_name() + "): Cannot enable lora on a layer that isn't yet built.");
  add_adapter(rank, std::move(o));
}

void LoraLayer::add_adapter(int rank, LoraOptions o) {
  const std::string who = "Layer '" + name() + "' (" + class_name() + ")";
  LoraBase base = lora_base();
  const std::string k = base.kernel_name;
  if (base.constrained)
    throw ValueError(who + ": Lora is incompatible with " + (k == "kernel" ? "kernel" : "embedding") +
                     " constraints. In order to enable lora on this layer, remove the `" + k +
                     "_constraint` argument.");
  if (lora_enabled()) throw ValueError(who + ": lora is already enabled. This can only be done once per layer.");
  if (rank <= 0)
    throw ValueError(who + ": the LoRA rank must be a positive integer, but received rank=" + std::to_string(rank));
  Shape a_shape = base.kernel.shape();
  const int64_t out = a_shape[-1];
  a_shape[-1] = rank;
  // Float32 whatever the policy: low-rank updates under- and overflow in half precision.
  lora_a_ = add_weight("lora_" + k + "_a", a_shape,
                       {.initializer = o.a_initializer, .regularizer = base.regularizer, .dtype = DType::float32});
  lora_b_ = add_weight("lora_" + k + "_b", {rank, out},
                       {.initializer = o.b_initializer, .regularizer = base.regularizer, .dtype = DType::float32});
  base.kernel.set_trainable(false);
  rank_ = rank;
  alpha_ = o.lora_alpha ? *o.lora_alpha : static_cast<double>(rank);
}

Tensor LoraLayer::kernel_with_lora() const {
  const Variable kernel = lora_base().kernel;
  Tensor k = kernel.value();
  if (!lora_enabled()) return k;
  const Shape shape = kernel.shape();
  Tensor delta = matmul(reshape(lora_a_.value(), {-1, *rank_}), lora_b_.value());
  delta = reshape(delta, shape) * (*alpha_ / static_cast<double>(*rank_));
  // The sum in the wider of the two float dtypes, as Keras's result_type gives it.
  const DType wide = dtype_size(k.dtype()) >= dtype_size(delta.dtype()) ? k.dtype() : delta.dtype();
  return cast(add(cast(k, wide), cast(delta, wide)), compute_dtype());
}

void LoraLayer::build_lora(bool keep_alpha) {
  if (!rank_ || lora_enabled()) return;
  LoraOptions o;
  if (keep_alpha) o.lora_alpha = alpha_;
  add_adapter(*rank_, o);
}

void LoraLayer::write_lora_config(Config& c) const {
  c.erase("lora_rank");
  c.erase("lora_alpha");
  if (!rank_) return;
  c["lora_rank"] = *rank_;
  if (*alpha_ == static_cast<double>(static_cast<int64_t>(*alpha_))) c["lora_alpha"] = static_cast<int64_t>(*alpha_);
  else c["lora_alpha"] = *alpha_;
}

std::vector<StoredVariable> LoraLayer::stored_variables() const {
  if (!lora_enabled()) return default_stored_variables(*this);
  const Variable kernel = lora_base().kernel;
  std::vector<StoredVariable> out;
  for (const Variable& v : own_variables()) {
    if (v.same_as(lora_a_) || v.same_as(lora_b_)) continue;
    if (v.same_as(kernel)) out.push_back({v, [this] { return kernel_with_lora(); }});
    else out.push_back({v, {}});
  }
  return out;
}

void LoraLayer::after_load_own_variables() const {
  if (!lora_enabled()) return;
  for (Variable v : {lora_a_, lora_b_}) v.assign(zeros(v.shape(), v.dtype()));
}

}  // namespace kiln::layers
