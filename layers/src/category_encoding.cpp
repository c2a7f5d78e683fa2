// CategoryEncoding (Keras 3's checks and its JAX backend's encodings).
#include "kiln/layers/category_encoding.h"

#include "categorical_encoding.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

CategoryEncodingImpl::CategoryEncodingImpl(int64_t num_tokens, CategoryEncodingOptions o)
    : Layer(base_options(o)), num_tokens_(num_tokens), o_(std::move(o)) {
  if (o_.output_mode == "binary") o_.output_mode = "multi_hot";
  if (o_.output_mode != "count" && o_.output_mode != "one_hot" && o_.output_mode != "multi_hot")
    throw ValueError("CategoryEncoding: Unknown arg for output_mode: " + o_.output_mode);
  if (num_tokens_ < 1)
    throw ValueError("CategoryEncoding: `num_tokens` must be >= 1. Received: num_tokens=" + std::to_string(num_tokens_) + ".");
  if (o_.sparse)
    throw ValueError("CategoryEncoding: `sparse=True` is not supported in Kiln, which has dense tensors only; use sparse=False");
  apply_input_shape(*this, o_);
}

Shape CategoryEncodingImpl::compute_output_shape(const Shape& s) { return encoded_shape(s, o_.output_mode, num_tokens_); }

Tensor CategoryEncodingImpl::call(const Tensor& x, bool) { return encode_categorical(x, o_.output_mode, num_tokens_, dtype()); }

Config CategoryEncodingImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(CategoryEncodingImpl, "CategoryEncoding")

}  // namespace kiln::layers
