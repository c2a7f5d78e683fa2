// Hashing: Keras 3's checks and TensorFlow's hashing (tf.as_string, then
// to_hash_bucket_fast or to_hash_bucket_strong), through kiln/ops/string_hash.h.
#include "kiln/layers/hashing.h"

#include <cmath>
#include <string_view>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/string_hash.h"
#include "categorical_encoding.h"
#include "config_fields.h"

namespace kiln::layers {

// mask_value is a JSON integer, float or string in Keras's config.
Config config_value(const HashingValue& v) {
  if (v.kind == HashingValue::Kind::string) return v.text;
  if (v.kind == HashingValue::Kind::number) return v.number;
  return v.integer;
}

void read_value(const config_io::ConfigReader& r, const char* key, HashingValue& v) {
  const Config& j = r.raw()[key];
  if (j.is_string()) v = HashingValue(j.get<std::string>());
  else if (j.is_number_integer()) v = HashingValue(j.get<int64_t>());
  else if (j.is_number()) v = HashingValue(j.get<double>());
  else r.fail(key, "an integer, a float or a string");
}

using namespace detail;

namespace {

std::string hashing_value_text(const HashingValue& v) {
  if (v.kind == HashingValue::Kind::string) return "'" + v.text + "'";
  return v.kind == HashingValue::Kind::number ? Config(v.number).dump() : std::to_string(v.integer);
}

// A list as Python prints it: [1, 2, 3].
std::string salt_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Keras's defaults: int64 bins in "int" mode, floatx otherwise. Kiln's dtype option
// defaults to float32, which in "int" mode therefore stands for "not given".
HashingOptions with_default_dtype(HashingOptions o) {
  if (o.output_mode == "int" && o.dtype.variable_dtype() == DType::float32) o.dtype = DType::int64;
  return o;
}

// tf.cast(float -> int64) on x86: truncation; NaN and out-of-range values give -2^63.
int64_t float_to_int64(double v) {
  constexpr double two63 = 9223372036854775808.0;
  if (!(v >= -two63 && v < two63)) return INT64_MIN;
  return static_cast<int64_t>(v);
}

}  // namespace

HashingImpl::HashingImpl(int64_t num_bins, HashingOptions o)
    : Layer(base_options(with_default_dtype(o))), num_bins_(num_bins), o_(with_default_dtype(std::move(o))) {
  if (num_bins_ <= 0)
    throw ValueError("The `num_bins` for `Hashing` cannot be `None` or non-positive values. Received: num_bins=" +
                     std::to_string(num_bins_) + ".");
  if (o_.output_mode == "int" && o_.dtype.compute_dtype() != DType::int32 && o_.dtype.compute_dtype() != DType::int64)
    throw ValueError("When `output_mode=\"int\"`, `dtype` should be an integer type, 'int32' or 'in64'. Received: dtype=" +
                     o_.dtype.name());
  if (o_.output_mode != "int" && o_.output_mode != "one_hot" && o_.output_mode != "multi_hot" && o_.output_mode != "count")
    throw ValueError("Invalid value for argument `output_mode`. Expected one of ('int', 'one_hot', 'multi_hot', 'count'). "
                     "Received: output_mode=" + o_.output_mode);
  if (o_.sparse && o_.output_mode == "int")
    throw ValueError("`sparse` may only be true if `output_mode` is `\"one_hot\"`, `\"multi_hot\"`, or `\"count\"`. "
                     "Received: sparse=True and output_mode=int");
  if (o_.sparse) throw ValueError("Hashing: `sparse=True` is not supported in Kiln, which has dense tensors only; use sparse=False");
  if (o_.salt) {
    std::vector<int64_t>& s = *o_.salt;
    if (s.size() == 1) s.push_back(s[0]);  // a single integer s is [s, s]
    if (s.size() != 2)
      throw ValueError("The `salt` argument for `Hashing` can only be a tuple of size 2 integers, or a single integer. "
                       "Received: salt=" + salt_text(s) + ".");
  }
  apply_input_shape(*this, o_);
}

std::vector<int64_t> HashingImpl::bins(const std::vector<std::string>& strings, const std::vector<bool>& masked) const {
  const bool mask = o_.mask_value && num_bins_ > 1;  // with one bin, everything is in it
  std::vector<std::string_view> views(strings.begin(), strings.end());
  std::optional<std::pair<uint64_t, uint64_t>> salt;
  if (o_.salt) salt = {static_cast<uint64_t>((*o_.salt)[0]), static_cast<uint64_t>((*o_.salt)[1])};
  std::vector<int64_t> b = utils::hash_to_bins(views, mask ? num_bins_ - 1 : num_bins_, salt);
  if (mask)
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = masked[i] ? 0 : b[i] + 1;
  return b;
}

Tensor HashingImpl::output(const std::vector<int64_t>& b, Shape shape) const {
  Tensor indices(b, shape);
  if (o_.output_mode == "int") return cast(indices, compute_dtype());
  if (o_.output_mode == "one_hot" && shape.rank() == 0)
    throw ValueError("Layer '" + name() + "' (Hashing): output_mode='one_hot' needs an input of rank 1 or more (Keras "
                     "reads its last axis), received shape " + shape.to_string());
  // Keras squeezes a last axis of 1 before encoding; encode_categorical drops it (once) too.
  if (o_.output_mode == "one_hot" && shape.rank() > 1 && shape[-1] == 1) {
    shape.dims().pop_back();
    indices = reshape(indices, shape);
  }
  return encode_categorical(indices, o_.output_mode, num_bins_, compute_dtype());
}

Tensor HashingImpl::call(const Tensor& x, bool) {
  const DType dt = x.dtype();
  if (dt == DType::string) return hash_strings(x.to_vector<std::string>(), x.shape());
  const bool is_float = dt == DType::float32 || dt == DType::float64;
  const std::optional<HashingValue>& m = o_.mask_value;
  if (m && m->kind == HashingValue::Kind::string)
    throw ValueError("Layer '" + name() + "' (Hashing): mask_value " + hashing_value_text(*m) +
                     " is a string, but the input has dtype " + dtype_name(dt) + " and shape " + x.shape().to_string());
  const double mask_number = m ? (m->kind == HashingValue::Kind::number ? m->number : static_cast<double>(m->integer)) : 0;
  std::vector<std::string> strings;
  std::vector<bool> masked;
  strings.reserve(static_cast<std::size_t>(x.size()));
  if (is_float) {
    for (double v : x.to_vector<double>()) {
      strings.push_back(std::to_string(float_to_int64(v)));
      masked.push_back(m && v == mask_number);
    }
  } else {
    for (int64_t v : x.to_vector<int64_t>()) {
      strings.push_back(dt == DType::bool_ ? (v ? "true" : "false") : std::to_string(v));
      masked.push_back(m && (m->kind == HashingValue::Kind::integer ? v == m->integer : static_cast<double>(v) == m->number));
    }
  }
  return output(bins(strings, masked), x.shape());
}

Tensor HashingImpl::hash_strings(const std::vector<std::string>& strings, const Shape& shape) const {
  if (shape.num_elements() != static_cast<int64_t>(strings.size()))
    throw ValueError("Layer '" + name() + "' (Hashing): hash_strings got " + std::to_string(strings.size()) +
                     " strings for shape " + shape.to_string());
  const std::optional<HashingValue>& m = o_.mask_value;
  if (m && m->kind != HashingValue::Kind::string)
    throw ValueError("Layer '" + name() + "' (Hashing): mask_value " + hashing_value_text(*m) +
                     " is a number, but the input holds strings");
  std::vector<bool> masked;
  for (const std::string& s : strings) masked.push_back(m && s == m->text);
  return output(bins(strings, masked), shape);
}

Shape HashingImpl::compute_output_shape(const Shape& s) {
  if (o_.output_mode == "int") return s;
  Shape in = s;
  if (o_.output_mode == "one_hot" && in.rank() > 1 && in[-1] == 1) in.dims().pop_back();
  return encoded_shape(in, o_.output_mode, num_bins_);
}

Config HashingImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(HashingImpl, "Hashing")

}  // namespace kiln::layers
