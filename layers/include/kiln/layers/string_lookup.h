#pragma once
// StringLookup: string tokens to vocabulary indices (or back, with invert).
//   L::StringLookup({.vocabulary = std::vector<std::string>{"a", "b", "c"}})
//       [["a", "c", "d"], ["d", "z", "b"]] -> [[1, 3, 0], [0, 0, 2]]   (int64)
//   L::StringLookup lookup({.max_tokens = 20000});  lookup->adapt(words);   // most frequent tokens
// The index layout, encodings and adapt() are Keras's IndexLookup's
// (kiln/layers/index_lookup.h). With num_oov_indices > 1 an unknown string goes to OOV
// index Fingerprint64(s) % num_oov_indices (SipHash-2-4 keyed by `salt` when given), as
// tf.strings.to_hash_bucket_fast gives it; invert gives oov_token ("[UNK]") for OOV or
// unknown indices. Ties in adapt() fall to the bytewise greater string, as Keras's sort.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/index_lookup.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of StringLookup (Keras's `StringLookup` constructor arguments).
struct StringLookupOptions {
  std::optional<int64_t> max_tokens;  ///< Most indices in all (mask, OOV and vocabulary); none: no limit.
  int64_t num_oov_indices = 1;  ///< OOV indices; 0 makes an unknown token an error.
  std::optional<std::string> mask_token;  ///< The token that marks padding (index 0 with "int"); none: no mask index.
  std::optional<std::string> oov_token = "[UNK]";  ///< The token invert gives for OOV or unknown indices.
  std::optional<std::vector<std::string>> vocabulary;  ///< The tokens, in index order; none: set by adapt().
  std::optional<std::vector<double>> idf_weights;  ///< "tf_idf" weights, one per vocabulary token.
  bool invert = false;  ///< Map indices back to tokens (only with "int").
  std::string output_mode = "int";  ///< "int", "one_hot", "multi_hot", "count" or "tf_idf".
  bool sparse = false;  ///< Only false: outputs are dense.
  bool pad_to_max_tokens = false;  ///< Encode over max_tokens indices rather than vocabulary_size().
  std::string encoding = "utf-8";  ///< The text encoding Keras records ("utf-8").
  std::string oov_method = "floormod";  ///< Recorded as Keras does; strings always hash.
  /// SipHash-2-4's key {k0, k1} (or {s} for {s, s}) for OOV strings instead of FarmHash.
  std::optional<std::vector<int64_t>> salt;
  /// The vocabulary size once known (Keras writes it to the config).
  std::optional<int64_t> vocabulary_size;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(StringLookupOptions, invert, max_tokens, num_oov_indices, oov_token, mask_token, output_mode, sparse,
              pad_to_max_tokens, idf_weights, vocabulary, vocabulary_size, oov_method, salt, encoding)
};

/// Maps string tokens to vocabulary indices, or back with invert (Keras's `StringLookup`;
/// see IndexLookupImpl). Users create it through the handle
/// `kiln::layers::StringLookup({.vocabulary = ...})`.
class StringLookupImpl : public IndexLookupImpl<StringLookupOptions, std::string> {
 public:
  using Options = StringLookupOptions;  ///< The options struct the constructor takes.
  /// Creates the layer from its options (the vocabulary may come later, from adapt()).
  explicit StringLookupImpl(StringLookupOptions options = {});
  std::string class_name() const override { return "StringLookup"; }
  Config get_config() const override;
  KILN_ARGS(StringLookupImpl)
  const StringLookupOptions& options() const { return o_; }  ///< The options this layer was created with.
};

KILN_LAYER_HANDLE(StringLookup);

}  // namespace kiln::layers
