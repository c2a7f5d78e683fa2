// HashedCrossing: Keras 3's checks and tf.sparse.cross_hashed's hashing
// (tensorflow/core/kernels/sparse_cross_op.cc's HashCrosser), dense inputs only.
#include "kiln/layers/hashed_crossing.h"

#include <limits>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/string_hash.h"
#include "categorical_encoding.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

namespace {

// tf.sparse.cross_hashed's default hash_key, the seed of every sample's chain.
constexpr uint64_t kCrossHashKey = 0xDECAFCAFFEULL;

HashedCrossingOptions crossing_default_dtype(HashedCrossingOptions o) {
  // Keras: int64 bins in "int" mode unless a dtype is given; Kiln's float32 default stands for "not given".
  if (o.output_mode == "int" && o.dtype.variable_dtype() == DType::float32) o.dtype = DType::int64;
  return o;
}

std::string shapes_text(const std::vector<Shape>& shapes) {
  std::string s = "[";
  for (std::size_t i = 0; i < shapes.size(); ++i) s += (i ? ", " : "") + shapes[i].to_string();
  return s + "]";
}

}  // namespace

HashedCrossingImpl::HashedCrossingImpl(int64_t num_bins, HashedCrossingOptions o)
    : Layer(base_options(crossing_default_dtype(o))), num_bins_(num_bins), o_(crossing_default_dtype(std::move(o))) {
  if (o_.sparse) throw ValueError("`sparse=True` can only be used with the TensorFlow backend.");
  if (o_.output_mode != "int" && o_.output_mode != "one_hot")
    throw ValueError("Unknown value for `output_mode` argument of HashedCrossing. Allowed values are: ('int', 'one_hot'). "
                     "Received: output_mode=" + o_.output_mode);
  // tf.sparse.cross_hashed takes num_buckets >= 0 (0: no modulus but int64's maximum).
  if (num_bins_ < 0 || (num_bins_ == 0 && o_.output_mode == "one_hot"))
    throw ValueError("HashedCrossing: `num_bins` must be positive (or 0 with output_mode='int'). Received: num_bins=" +
                     std::to_string(num_bins_));
  apply_input_shape(*this, o_);
}

void HashedCrossingImpl::check_shapes(const std::vector<Shape>& shapes) const {
  if (shapes.size() < 2)
    throw ValueError("`HashedCrossing` should be called on at least two inputs. Received: inputs of shapes " +
                     shapes_text(shapes));
  const Shape& first = shapes[0];
  if (first.rank() > 2 || (first.rank() == 2 && first[-1] != 1))
    throw ValueError("All `HashedCrossing` inputs should have shape `()`, `(batch_size)` or `(batch_size, 1)`. "
                     "Received: inputs of shapes " + shapes_text(shapes));
  for (const Shape& s : shapes)
    if (s != first)
      throw ValueError("All `HashedCrossing` inputs should have equal shape. Received: inputs of shapes " +
                       shapes_text(shapes));
}

void HashedCrossingImpl::build(const std::vector<Shape>& shapes) { check_shapes(shapes); }

std::vector<Shape> HashedCrossingImpl::compute_output_shape(const std::vector<Shape>& shapes) {
  check_shapes(shapes);
  if (o_.output_mode == "int") return {shapes[0]};
  return {encoded_shape(shapes[0], "one_hot", num_bins_)};
}

Tensor HashedCrossingImpl::output(const std::vector<std::vector<uint64_t>>& hashes, const Shape& shape) const {
  const uint64_t modulus = num_bins_ > 0 ? static_cast<uint64_t>(num_bins_) : std::numeric_limits<int64_t>::max();
  const std::size_t n = hashes[0].size();
  std::vector<int64_t> bins(n);
  for (std::size_t i = 0; i < n; ++i) {
    uint64_t h = kCrossHashKey;
    for (const auto& feature : hashes) h = utils::fingerprint_cat64(h, feature[i]);
    bins[i] = static_cast<int64_t>(h % modulus);
  }
  const Tensor indices(bins, shape);
  if (o_.output_mode == "int") return cast(indices, compute_dtype());
  return encode_categorical(indices, "one_hot", num_bins_, compute_dtype());
}

std::vector<Tensor> HashedCrossingImpl::call(const std::vector<Tensor>& xs, bool) {
  std::vector<Shape> shapes;
  for (const Tensor& x : xs) shapes.push_back(x.shape());
  check_shapes(shapes);
  std::vector<std::vector<uint64_t>> hashes;
  for (const Tensor& x : xs) {
    const DType dt = x.dtype();
    if (dt != DType::int32 && dt != DType::int64 && dt != DType::uint8 && dt != DType::string) {
      std::string dtypes;
      for (const Tensor& t : xs) dtypes += (dtypes.empty() ? "" : ", ") + dtype_name(t.dtype());
      throw ValueError("All `HashedCrossing` inputs should have an integer or string dtype. Received: inputs of dtypes [" +
                       dtypes + "] and shapes " + shapes_text(shapes));
    }
    std::vector<uint64_t> h;
    if (dt == DType::string)
      for (const std::string& s : x.to_vector<std::string>()) h.push_back(utils::fingerprint64(s));
    else
      for (int64_t v : x.to_vector<int64_t>()) h.push_back(static_cast<uint64_t>(v));  // an integer is its own fingerprint
    hashes.push_back(std::move(h));
  }
  return {output(hashes, shapes[0])};
}

Tensor HashedCrossingImpl::cross_features(const std::vector<CrossFeature>& features) const {
  std::vector<std::vector<uint64_t>> hashes;
  std::vector<Shape> shapes;
  for (const CrossFeature& f : features) {
    std::vector<uint64_t> h;
    if (const auto* ints = std::get_if<std::vector<int64_t>>(&f))
      for (int64_t v : *ints) h.push_back(static_cast<uint64_t>(v));
    else
      for (const std::string& s : std::get<std::vector<std::string>>(f)) h.push_back(utils::fingerprint64(s));
    shapes.push_back(Shape{static_cast<int64_t>(h.size())});
    hashes.push_back(std::move(h));
  }
  check_shapes(shapes);
  return output(hashes, shapes[0]);
}

Config HashedCrossingImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(HashedCrossingImpl, "HashedCrossing")

}  // namespace kiln::layers
