#pragma once
// Hashing: values to hash bins, with TensorFlow's string hashes (Keras's `Hashing`).
//   L::Hashing(3)                          [["A"], ["B"], ["C"]] -> [[1], [0], [1]]
//   L::Hashing(3, {.salt = std::vector<int64_t>{133, 137}})   SipHash-2-4 keyed by the salt
//   L::Hashing(3, {.mask_value = 0})       0 -> bin 0, every other value to bins 1..2
// Each value becomes its decimal string (floats are first cast to int64, truncating;
// NaN and values outside int64 become -2^63, as TensorFlow's cast gives on x86; bools
// are "true"/"false"), and its bin is FarmHash Fingerprint64(string) % num_bins
// (tf.strings.to_hash_bucket_fast) or, with a salt, SipHash-2-4(salt[0], salt[1],
// string) % num_bins (to_hash_bucket_strong); a single salt value s means [s, s].
// With mask_value (and num_bins > 1) values equal to it go to bin 0 and the others to
// 1 + hash % (num_bins - 1). output_mode "int" gives the bins (int64, or int32 with
// dtype int32); "one_hot", "multi_hot" and "count" encode them over num_bins as
// CategoryEncoding does (float32). String tensors hash their elements as they are
// (hash_strings() takes them as a vector). Not differentiable; dense outputs only
// (sparse=true is rejected).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// A value Keras's Hashing takes as mask_value: an integer, a float or a string.
struct HashingValue {
  /// Which member holds the value.
  enum class Kind {
    integer,  ///< `integer`.
    number,   ///< `number` (a float).
    string    ///< `text`.
  };
  Kind kind = Kind::integer;  ///< Which member holds the value.
  int64_t integer = 0;  ///< The value when kind is integer.
  double number = 0;  ///< The value when kind is number.
  std::string text;  ///< The value when kind is string.
  HashingValue() = default;  ///< The integer 0.
  HashingValue(int v) : integer(v) {}  ///< An integer.
  HashingValue(int64_t v) : integer(v) {}  ///< An integer.
  HashingValue(double v) : kind(Kind::number), number(v) {}  ///< A float.
  HashingValue(std::string v) : kind(Kind::string), text(std::move(v)) {}  ///< A string.
  HashingValue(const char* v) : kind(Kind::string), text(v) {}  ///< A string.
};

/// Options of Hashing (Keras's `Hashing` constructor arguments after num_bins).
struct HashingOptions {
  /// SipHash's key: {k0, k1}, or {s} for {s, s}; none: FarmHash Fingerprint64.
  std::optional<std::vector<int64_t>> salt;
  std::optional<HashingValue> mask_value;  ///< Values equal to it go to bin 0; none: no mask bin.
  std::string output_mode = "int";  ///< "int", "one_hot", "multi_hot" or "count".
  bool sparse = false;  ///< Only false: outputs are dense.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(HashingOptions, salt, mask_value, output_mode, sparse)
};

/// Hashes values to bins in [0, num_bins) (Keras's `Hashing`; see above). Users create it
/// through the handle `kiln::layers::Hashing(num_bins, {...})`.
class HashingImpl : public Layer {
 public:
  using Options = HashingOptions;  ///< The options struct the constructor takes.
  /// `num_bins`: the number of bins, the mask bin included.
  explicit HashingImpl(int64_t num_bins, HashingOptions options = {});
  std::string class_name() const override { return "Hashing"; }
  /// Keras passes float inputs through as they are (no cast to the compute dtype).
  bool converts_inputs() const override { return false; }
  Config get_config() const override;
  KILN_ARGS(HashingImpl, num_bins_)
  const HashingOptions& options() const { return o_; }  ///< The options this layer was created with.
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  /// The layer's output for a string tensor of shape `shape` holding `strings` in
  /// row-major order (what call() gives for that tensor).
  Tensor hash_strings(const std::vector<std::string>& strings, const Shape& shape) const;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  /// Bins of the values' strings; `masked[i]` sends value i to bin 0 (when there is a mask bin).
  std::vector<int64_t> bins(const std::vector<std::string>& strings, const std::vector<bool>& masked) const;
  /// Wraps the bins as a tensor of `shape` and encodes them per output_mode.
  Tensor output(const std::vector<int64_t>& bins, Shape shape) const;
  int64_t num_bins_;
  HashingOptions o_;
};

KILN_LAYER_HANDLE(Hashing);

}  // namespace kiln::layers
