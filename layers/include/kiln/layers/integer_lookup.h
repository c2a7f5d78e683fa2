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

struct IntegerLookupOptions {
  std::optional<int64_t> max_tokens;
  int64_t num_oov_indices = 1;
  std::optional<int64_t> mask_token;
  std::optional<int64_t> oov_token = -1;
  std::optional<std::vector<int64_t>> vocabulary;
  std::string vocabulary_dtype = "int64";
  std::optional<std::vector<double>> idf_weights;
  bool invert = false;
  std::string output_mode = "int";
  bool sparse = false;
  bool pad_to_max_tokens = false;
  std::string oov_method = "floormod";
  std::optional<int64_t> salt;
  /// The vocabulary size once known (Keras writes it to the config).
  std::optional<int64_t> vocabulary_size;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(IntegerLookupOptions, invert, max_tokens, num_oov_indices, oov_token, mask_token, output_mode, sparse,
              pad_to_max_tokens, vocabulary_dtype, idf_weights, vocabulary, vocabulary_size, oov_method, salt)
};

class IntegerLookupImpl : public Layer {
 public:
  using Options = IntegerLookupOptions;
  explicit IntegerLookupImpl(IntegerLookupOptions options = {});
  std::string class_name() const override { return "IntegerLookup"; }
  Config get_config() const override;
  KILN_ARGS(IntegerLookupImpl)
  const IntegerLookupOptions& options() const { return o_; }
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
