// Embedding through kiln::gather (its gradient scatters into the table).
#include "kiln/layers/embedding.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "layer_utils.h"

namespace kiln::layers {

using namespace detail;

EmbeddingImpl::EmbeddingImpl(int64_t input_dim, int64_t output_dim, EmbeddingOptions o)
    : Layer(base_options(o)), input_dim_(input_dim), output_dim_(output_dim), o_(std::move(o)) {
  if (input_dim_ <= 0 || output_dim_ <= 0)
    throw ValueError("Embedding: both `input_dim` and `output_dim` should be positive, received input_dim=" +
                     std::to_string(input_dim_) + " and output_dim=" + std::to_string(output_dim_));
  activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
}

void EmbeddingImpl::build(const Shape&) {
  embeddings_ = add_weight("embeddings", {input_dim_, output_dim_},
                           {.initializer = o_.embeddings_initializer, .regularizer = o_.embeddings_regularizer,
                            .constraint = o_.embeddings_constraint});
}

Tensor EmbeddingImpl::call(const Tensor& x, bool) {
  Tensor idx = is_integer(x.dtype()) ? x : cast(x, DType::int64);
  if (idx.size() > 0) {
    const int64_t lo = min(idx).cast(DType::int64).item<int64_t>();
    const int64_t hi = max(idx).cast(DType::int64).item<int64_t>();
    if (lo < 0 || hi >= input_dim_)
      throw IndexError("Layer '" + name() + "' (Embedding): indices must be in [0, " + std::to_string(input_dim_) +
                       "), but the input contains " + std::to_string(lo < 0 ? lo : hi));
  }
  return gather(embeddings_.value(), idx, 0);
}

Shape EmbeddingImpl::compute_output_shape(const Shape& s) {
  Shape out = s;
  out.push_back(output_dim_);
  return out;
}

Config EmbeddingImpl::get_config() const {
  Config c = base_config();
  c["input_dim"] = input_dim_;
  c["output_dim"] = output_dim_;
  c["embeddings_initializer"] = serialize_initializer(o_.embeddings_initializer);
  c["embeddings_regularizer"] = serialize_regularizer(o_.embeddings_regularizer);
  c["activity_regularizer"] = serialize_regularizer(o_.activity_regularizer);
  c["embeddings_constraint"] = serialize_constraint(o_.embeddings_constraint);
  c["mask_zero"] = o_.mask_zero;
  add_declared_shape(*this, c);
  return c;
}

std::shared_ptr<EmbeddingImpl> EmbeddingImpl::from_config(const Config& config) {
  ConfigReader r("Embedding", config);
  EmbeddingOptions o;
  r.base(o);
  // tf.keras 2 writes input_length, which sets the declared input shape.
  if (!o.input_shape)
    if (auto len = r.optional_integer("input_length")) o.input_shape = Shape{*len};
  o.embeddings_initializer = r.initializer("embeddings_initializer", o.embeddings_initializer);
  o.embeddings_regularizer = r.regularizer("embeddings_regularizer");
  o.activity_regularizer = r.regularizer("activity_regularizer");
  o.embeddings_constraint = r.constraint("embeddings_constraint");
  o.mask_zero = r.boolean("mask_zero", false);
  return std::make_shared<EmbeddingImpl>(r.required_integer("input_dim"), r.required_integer("output_dim"), std::move(o));
}

}  // namespace kiln::layers
