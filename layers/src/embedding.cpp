// Embedding through kiln::gather (its gradient scatters into the table).
#include "kiln/layers/embedding.h"

#include "kiln/graph/function.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "config_fields.h"
#include "legacy_config.h"

namespace kiln::layers {

using namespace detail;

EmbeddingImpl::EmbeddingImpl(int64_t input_dim, int64_t output_dim, EmbeddingOptions o)
    : LoraLayer(base_options(o), o.lora_rank, o.lora_alpha), input_dim_(input_dim), output_dim_(output_dim), o_(std::move(o)) {
  if (input_dim_ <= 0 || output_dim_ <= 0)
    throw ValueError("Embedding: both `input_dim` and `output_dim` should be positive, received input_dim=" +
                     std::to_string(input_dim_) + " and output_dim=" + std::to_string(output_dim_));
  activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
  set_supports_masking(o_.mask_zero);
  set_autocast(false);
}

Tensor EmbeddingImpl::compute_mask(const Tensor& x, const Tensor&) {
  if (!o_.mask_zero) return Tensor();
  return not_equal(x, zeros({}, x.dtype()));
}

void EmbeddingImpl::build(const Shape&) {
  if (!dtype_policy().quantization_mode().empty()) {
    // A quantized layer from a config: Keras's _int8_build or _int4_build, filled by the weights that follow.
    o_.quantization_config = quantizers::quantized_build_config(*this, o_.quantization_config);
    build_quantized();
    build_lora(false);
    return;
  }
  embeddings_ = add_weight("embeddings", {input_dim_, output_dim_},
                           {.initializer = o_.embeddings_initializer, .regularizer = o_.embeddings_regularizer,
                            .constraint = o_.embeddings_constraint});
  build_lora(false);
}

LoraLayer::LoraBase EmbeddingImpl::lora_base() const {
  return {embeddings_, o_.embeddings_regularizer, o_.embeddings_constraint != nullptr, "embeddings"};
}

Tensor EmbeddingImpl::call(const Tensor& x, bool) {
  Tensor idx = is_integer(x.dtype()) ? x : cast(x, DType::int64);
  // Eagerly the indices are checked here, with the layer's name. A traced step
  // cannot read them; there the gather kernel checks each replay's indices.
  if (idx.size() > 0 && executing_eagerly()) {
    const int64_t lo = min(idx).cast(DType::int64).item<int64_t>();
    const int64_t hi = max(idx).cast(DType::int64).item<int64_t>();
    if (lo < 0 || hi >= input_dim_)
      throw IndexError("Embedding: the input contains index " + std::to_string(lo < 0 ? lo : hi) +
                       ", which is out of range for input_dim=" + std::to_string(input_dim_) +
                       " (indices must be in [0, " + std::to_string(input_dim_) + "))");
  }
  // autocast() is off, as in Keras: inside another layer's autocast scope the
  // table reads in its own dtype, and the rows are cast to the compute dtype.
  if (embeddings_scale_.defined()) return cast_to_compute(quantized_lookup(idx), compute_dtype());
  return cast_to_compute(gather(kernel_with_lora(), idx, 0), compute_dtype());
}

std::string EmbeddingImpl::error_arguments() const {
  return "input_dim=" + std::to_string(input_dim_) + ", output_dim=" + std::to_string(output_dim_);
}

Shape EmbeddingImpl::compute_output_shape(const Shape& s) {
  Shape out = s;
  out.push_back(output_dim_);
  return out;
}

Config EmbeddingImpl::get_config() const {
  Config c = layer_config(*this);
  write_lora_config(c);
  return c;
}

Config EmbeddingImpl::upgrade_entry(const Config& e) {
  const Config& c = e["config"];
  if (!c.contains("input_length")) return e;
  Config n = c;
  n.erase("input_length");
  const bool declared = c.contains("batch_input_shape") || c.contains("batch_shape") || c.contains("input_shape");
  if (!declared && c["input_length"].is_number_integer()) n["batch_input_shape"] = Config::array({nullptr, c["input_length"]});
  return replace_entry(e, "Embedding", n);
}

KILN_REGISTER_LAYER(EmbeddingImpl, "Embedding")

}  // namespace kiln::layers
