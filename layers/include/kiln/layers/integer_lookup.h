#pragma once
// IntegerLookup: integer tokens to vocabulary indices (or back, with invert).
//   L::IntegerLookup({.vocabulary = std::vector<int64_t>{12, 36, 1138, 42}})
//       [[12, 1138, 42], [42, 1000, 36]] -> [[1, 3, 4], [4, 0, 2]]   (int64)
//   L::IntegerLookup lookup({.max_tokens = 100});  lookup->adapt(data);   // most frequent tokens
// Index layout (Keras's): [mask] [OOV indices] [vocabulary tokens]. The mask index 0
// exists when mask_token is set and output_mode is "int"; num_oov_indices (default 1)
// OOV indices follow, and an unknown token t goes to OOV index floormod(t, num_oov_indices)
// (num_oov_indices = 0: an unknown token is an error). A mask token maps to 0 ("int") or
// encodes as zeros (other modes).
// output_mode: "int" (indices, int64), "one_hot", "multi_hot", "count" (encoded over
// vocabulary_size() indices, or max_tokens with pad_to_max_tokens, as CategoryEncoding
// does; int64 values, as Keras's TensorFlow lookup gives them), "tf_idf" (counts times
// idf_weights, float32). invert=true maps indices back to tokens: the mask index to
// mask_token and OOV or unknown indices to oov_token (default -1); only with "int".
// adapt(data) keeps the tokens of `data` (mask and OOV tokens left out) by decreasing
// count, ties by decreasing token, at most max_tokens indices in all; for "tf_idf" it
// also sets idf = log(1 + documents / (1 + documents containing the token)), each row
// of data a document. Not differentiable; dense outputs only (sparse=true is rejected),
// oov_method "floormod" only (Keras's "farmhash" hashes with TensorFlow's FarmHash).
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of IntegerLookup (Keras's `IntegerLookup` constructor arguments).
struct IntegerLookupOptions {
  std::optional<int64_t> max_tokens;  ///< Most indices in all (mask, OOV and vocabulary); none: no limit.
  int64_t num_oov_indices = 1;  ///< OOV indices: unknown t goes to floormod(t, num_oov_indices); 0: an error.
  std::optional<int64_t> mask_token;  ///< The token that marks padding (index 0 with "int"); none: no mask index.
  std::optional<int64_t> oov_token = -1;  ///< The token invert gives for OOV or unknown indices.
  std::optional<std::vector<int64_t>> vocabulary;  ///< The tokens, in index order; none: set by adapt() or set_vocabulary().
  std::string vocabulary_dtype = "int64";  ///< The token dtype Keras records ("int64").
  std::optional<std::vector<double>> idf_weights;  ///< "tf_idf" weights, one per vocabulary token.
  bool invert = false;  ///< Map indices back to tokens (only with "int").
  std::string output_mode = "int";  ///< "int", "one_hot", "multi_hot", "count" or "tf_idf".
  bool sparse = false;  ///< Only false: outputs are dense.
  bool pad_to_max_tokens = false;  ///< Encode over max_tokens indices rather than vocabulary_size().
  std::string oov_method = "floormod";  ///< Only "floormod" (Keras's "farmhash" is not supported).
  std::optional<int64_t> salt;  ///< Keras's "farmhash" salt; must stay unset.
  /// The vocabulary size once known (Keras writes it to the config).
  std::optional<int64_t> vocabulary_size;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(IntegerLookupOptions, invert, max_tokens, num_oov_indices, oov_token, mask_token, output_mode, sparse,
              pad_to_max_tokens, vocabulary_dtype, idf_weights, vocabulary, vocabulary_size, oov_method, salt)
};

/// Maps integer tokens to vocabulary indices, or back with invert (Keras's `IntegerLookup`).
/// Index layout: [mask] [OOV indices] [vocabulary tokens]; output_mode "int" gives int64
/// indices of the input's shape, "one_hot", "multi_hot", "count" and "tf_idf" encode them
/// as CategoryEncoding does. adapt(data) keeps the most frequent tokens, at most max_tokens
/// indices. Not differentiable. Users create it through the handle
/// `kiln::layers::IntegerLookup({.vocabulary = ...})`.
class IntegerLookupImpl : public Layer {
 public:
  using Options = IntegerLookupOptions;  ///< The options struct the constructor takes.
  /// Creates the layer from its options (the vocabulary may come later, from adapt()).
  explicit IntegerLookupImpl(IntegerLookupOptions options = {});
  std::string class_name() const override { return "IntegerLookup"; }
  /// Keras passes float inputs through as they are (no cast to the compute dtype).
  bool converts_inputs() const override { return false; }
  Config get_config() const override;
  KILN_ARGS(IntegerLookupImpl)
  const IntegerLookupOptions& options() const { return o_; }  ///< The options this layer was created with.
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  /// Replaces the vocabulary (and, for "tf_idf", the idf weights), with Keras's checks.
  void set_vocabulary(const std::vector<int64_t>& vocabulary, std::optional<std::vector<double>> idf_weights = std::nullopt);
  /// Learns the vocabulary from the tokens of `data` (see above).
  void adapt(const Tensor& data);
  /// Every index's token: mask, OOV tokens, then the vocabulary (without them when false).
  std::vector<int64_t> get_vocabulary(bool include_special_tokens = true) const;
  /// The number of indices: mask, OOV and vocabulary tokens.
  int64_t vocabulary_size() const;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  int64_t oov_start() const;
  int64_t token_start() const;
  void set_tokens(const std::vector<int64_t>& tokens, const std::vector<double>& idf);
  Tensor lookup(const Tensor& x) const;
  Tensor invert_lookup(const Tensor& x) const;
  IntegerLookupOptions o_;
  std::vector<int64_t> tokens_;
  std::unordered_map<int64_t, int64_t> index_;
  std::vector<double> idf_;  // one per index, the special ones padded
  bool has_vocabulary_ = false;
  bool input_vocabulary_ = false;  // given at construction: adapt() refuses then
};

KILN_LAYER_HANDLE(IntegerLookup);

}  // namespace kiln::layers
