#pragma once
// IndexLookupImpl: what Keras's IntegerLookup and StringLookup share (Keras's IndexLookup):
// tokens to vocabulary indices or back, the index layout, adapt(), the encodings.
// Index layout: [mask] [OOV indices] [vocabulary tokens]. The mask index 0 exists when
// mask_token is set and output_mode is "int"; num_oov_indices (default 1) OOV indices
// follow. An unknown token goes to an OOV index: floormod(t, num_oov_indices) for an
// integer (oov_method "floormod"), or FarmHash Fingerprint64 of the token's text modulo
// num_oov_indices for a string, or for an integer with oov_method "farmhash" (SipHash-2-4
// with a salt); num_oov_indices = 0 makes an unknown token an error. A mask token maps
// to 0 ("int") or encodes as zeros (other modes).
// output_mode: "int" (indices, int64), "one_hot", "multi_hot", "count" (encoded over
// vocabulary_size() indices, or max_tokens with pad_to_max_tokens, as CategoryEncoding
// does; int64 values, as Keras's TensorFlow lookup gives them), "tf_idf" (counts times
// idf_weights, float32). invert=true maps indices back to tokens: the mask index to
// mask_token and OOV or unknown indices to oov_token; only with "int".
// adapt(data) keeps the tokens of `data` (mask and OOV tokens left out) by decreasing
// count, ties by decreasing token (bytes for strings), at most max_tokens indices in
// all; for "tf_idf" it also sets idf = log(1 + documents / (1 + documents containing the
// token)), each row of data a document. Not differentiable; dense outputs only.
// Files as Keras writes them: the config carries a vocabulary only when one was given
// to the constructor; a learned one is the vocabulary.txt asset, and tf_idf weights the
// weights file's "idf_weights" entry.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "kiln/nn/layer.h"
#include "kiln/nn/layer_assets.h"
#include "kiln/nn/stored_variables.h"

namespace kiln::layers {

/// The lookup both IntegerLookupImpl (Token int64_t) and StringLookupImpl (Token
/// std::string) are. `Options` holds Keras's IndexLookup arguments under Keras's names.
template <class Options, class Token>
class IndexLookupImpl : public Layer, public LayerAssets, public CustomVariableStore {
 public:
  /// Keras passes inputs through as they are (no cast to the compute dtype).
  bool converts_inputs() const override { return false; }
  /// The input's shape for "int"; the encoded shape for the other modes.
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  /// Replaces the vocabulary (and, for "tf_idf", the idf weights), with Keras's checks.
  void set_vocabulary(const std::vector<Token>& vocabulary, std::optional<std::vector<double>> idf_weights = std::nullopt);
  /// Learns the vocabulary from the tokens of `data` (see above).
  void adapt(const Tensor& data);
  /// Learns the vocabulary from documents: document i is tokens[row_splits[i]:row_splits[i + 1]]
  /// (TextVectorization's adapt, whose documents are split text).
  void adapt_documents(const std::vector<Token>& tokens, const std::vector<int64_t>& row_splits);
  /// Each token's index ("int" mode's output, before any encoding), int64 of x's shape.
  Tensor lookup(const Tensor& x) const;
  /// The encoding of documents of token indices (from lookup()): multi_hot, count or
  /// tf_idf per output_mode, (documents, depth); document i is ids[row_splits[i]:row_splits[i + 1]].
  Tensor encode_documents(const Tensor& ids, const std::vector<int64_t>& row_splits) const;
  /// The number of encoded indices: max_tokens with pad_to_max_tokens, else vocabulary_size().
  int64_t encoding_depth() const;
  /// Every index's token: mask, OOV tokens, then the vocabulary (without them when false).
  std::vector<Token> get_vocabulary(bool include_special_tokens = true) const;
  /// The number of indices: mask, OOV and vocabulary tokens.
  int64_t vocabulary_size() const;
  /// Reads Keras's vocabulary.txt asset (one token a line, special tokens first), which
  /// Keras writes for an adapted layer, unless the config gave the vocabulary.
  void load_assets(const AssetFiles& files, const std::string& folder) override;
  /// Keras's vocabulary.txt (every index's token, one a line, no final newline) when the
  /// vocabulary was learned or set rather than given in the config, which then carries it.
  AssetFiles save_assets() const override;
  /// "tf_idf": the idf weights as the weights file's "idf_weights" entry, as Keras stores
  /// them (not a Keras weight, so not among weights()); other modes store nothing.
  std::vector<StoredVariable> stored_variables() const override;
  /// Takes the loaded idf weights, which a vocabulary.txt asset then pairs with its tokens.
  void after_load_own_variables() const override;

 protected:
  /// Checks the options as Keras's IndexLookup does; `cls` names the class in errors.
  IndexLookupImpl(Options options, const char* cls);
  /// The lookup (or its inverse) and the output_mode's encoding.
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;
  Options o_;  ///< The options, with the vocabulary adapt() learned.

 private:
  int64_t oov_start() const;
  int64_t token_start() const;
  int64_t oov_index(const Token& t) const;
  void set_tokens(const std::vector<Token>& tokens, const std::vector<double>& idf);
  void check_encodable() const;
  Tensor invert_lookup(const Tensor& x) const;
  const char* cls_;
  std::vector<Token> tokens_;
  std::unordered_map<Token, int64_t> index_;
  std::vector<double> idf_;  // one per index, the special ones padded
  bool has_vocabulary_ = false;
  bool input_vocabulary_ = false;  // given at construction: adapt() refuses then
  // The "idf_weights" entry a weights file loads into before the vocabulary asset is read.
  mutable std::optional<Variable> idf_store_;
  mutable std::optional<std::vector<double>> loaded_idf_;
};

}  // namespace kiln::layers
