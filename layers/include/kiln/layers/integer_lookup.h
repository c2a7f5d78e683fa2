#pragma once
// IntegerLookup: integer tokens to vocabulary indices (or back, with invert).
//   L::IntegerLookup({.vocabulary = std::vector<int64_t>{12, 36, 1138, 42}})
//       [[12, 1138, 42], [42, 1000, 36]] -> [[1, 3, 4], [4, 0, 2]]   (int64)
//   L::IntegerLookup lookup({.max_tokens = 100});  lookup->adapt(data);   // most frequent tokens
// The index layout, OOV rules, encodings and adapt() are Keras's IndexLookup's
// (kiln/layers/index_lookup.h). invert gives oov_token (default -1) for OOV or unknown
// indices. oov_method "floormod" (default) sends an unknown t to OOV index
// floormod(t, num_oov_indices); "farmhash" hashes its decimal text as StringLookup does.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/index_lookup.h"
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
  std::string oov_method = "floormod";  ///< "floormod" or "farmhash" (for num_oov_indices > 1).
  /// With "farmhash": SipHash-2-4's key {k0, k1} (or {s} for {s, s}) instead of FarmHash.
  std::optional<std::vector<int64_t>> salt;
  /// The vocabulary size once known (Keras writes it to the config).
  std::optional<int64_t> vocabulary_size;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(IntegerLookupOptions, invert, max_tokens, num_oov_indices, oov_token, mask_token, output_mode, sparse,
              pad_to_max_tokens, vocabulary_dtype, idf_weights, vocabulary, vocabulary_size, oov_method, salt)
};

/// Maps integer tokens to vocabulary indices, or back with invert (Keras's `IntegerLookup`;
/// see IndexLookupImpl). Users create it through the handle
/// `kiln::layers::IntegerLookup({.vocabulary = ...})`.
class IntegerLookupImpl : public IndexLookupImpl<IntegerLookupOptions, int64_t> {
 public:
  using Options = IntegerLookupOptions;  ///< The options struct the constructor takes.
  /// Creates the layer from its options (the vocabulary may come later, from adapt()).
  explicit IntegerLookupImpl(IntegerLookupOptions options = {});
  std::string class_name() const override { return "IntegerLookup"; }
  Config get_config() const override;
  KILN_ARGS(IntegerLookupImpl)
  const IntegerLookupOptions& options() const { return o_; }  ///< The options this layer was created with.
};

KILN_LAYER_HANDLE(IntegerLookup);

}  // namespace kiln::layers
