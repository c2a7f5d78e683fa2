#pragma once
// TextVectorization: raw strings to token indices or bag-of-words vectors (Keras's
// `TextVectorization`), in the order Keras runs it:
//   1. standardize: "lower_and_strip_punctuation" (default), "lower", "strip_punctuation"
//      or none. Lowering is ASCII only and the punctuation is ASCII's (Keras's regex
//      [!"#$%&()*+,-./:;<=>?@[\]^_`{|}~']), as TensorFlow's string ops give them;
//   2. split: "whitespace" (runs of whitespace, tf.strings.split), "character" (UTF-8
//      characters) or none (each string one token). With a split, the input is (batch,),
//      (batch, 1) or a scalar;
//   3. ngrams: n gives widths 1..n, a list gives those widths (tf.strings.ngrams, " ");
//   4. a StringLookup with mask_token "": output_mode "int" gives int64 indices, index 0
//      for padding and 1 for unknown tokens, padded or cut to output_sequence_length
//      (to the longest row when unset); "multi_hot" and "count" give (batch, depth) int64
//      and "tf_idf" float32 (depth: the vocabulary size, or max_tokens with
//      pad_to_max_tokens).
//   L::TextVectorization tv({.max_tokens = 20000, .output_sequence_length = 200});
//   tv->adapt(train_texts);              // a (n,) string tensor, or a Dataset of batches
//   kiln::Tensor ids = tv(kiln::Tensor({"The cat sat.", "A dog!"}));   // (2, 200) int64
// adapt() keeps the most frequent tokens, ties by the bytewise greater token, as Keras.
// Not differentiable. ragged=true and sparse=true are refused, as Keras refuses them
// outside TensorFlow. standardize and split also take functions, as Keras's callables.
// In files the StringLookup is the sublayer "_lookup_layer", as in Keras's.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/string_lookup.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_assets.h"
#include "kiln/nn/layer_class.h"
#include "kiln/nn/stored_variables.h"

namespace kiln {
class Dataset;
class RaggedTensor;
}  // namespace kiln

namespace kiln::layers {

/// TextVectorization's `ngrams`: an integer n (widths 1..n) or a list of widths.
struct Ngrams {
  int64_t up_to = 0;            ///< n when given as an integer; 0 when given as widths.
  std::vector<int64_t> widths;  ///< The widths used (1..n for an integer).
  Ngrams() = default;           ///< No widths.
  Ngrams(int64_t n);            ///< Widths 1..n, written as the integer n.
  Ngrams(int n) : Ngrams(static_cast<int64_t>(n)) {}  ///< Widths 1..n.
  Ngrams(std::vector<int64_t> widths);  ///< These widths, written as a list.
};

/// TextVectorization's `standardize`: a built-in mode by name, or a function of a string
/// tensor returning one of the same shape (Keras's callable, such as keras.io's
/// custom_standardization), which configs name as Keras does ("package>name").
struct Standardize {
  std::string name;  ///< The mode, or the function's registered name.
  std::function<Tensor(const Tensor&)> function;  ///< Empty for a built-in mode.
  Standardize() = default;  ///< No mode yet (what a config is read into).
  Standardize(const char* mode) : name(mode) {}      ///< A built-in mode.
  Standardize(std::string mode) : name(std::move(mode)) {}  ///< A built-in mode.
  /// A function, registered under `registered_name` (register_standardize) so that a
  /// model saved with it loads again in this program.
  Standardize(std::string registered_name, std::function<Tensor(const Tensor&)> function);
};

/// TextVectorization's `split`: "whitespace", "character", or a function from the
/// standardized (batch,) strings to their tokens (Keras's callable).
struct Split {
  std::string name;  ///< The mode, or the function's registered name.
  std::function<RaggedTensor(const Tensor&)> function;  ///< Empty for a built-in mode.
  Split() = default;  ///< No mode yet (what a config is read into).
  Split(const char* mode) : name(mode) {}      ///< A built-in mode.
  Split(std::string mode) : name(std::move(mode)) {}  ///< A built-in mode.
  /// A function, registered under `registered_name` (register_split) as for Standardize.
  Split(std::string registered_name, std::function<RaggedTensor(const Tensor&)> function);
};

/// Registers a standardize function under the name Keras's configs give it (Keras's
/// `@register_keras_serializable(package="demo")` on `custom_standardization` names it
/// "demo>custom_standardization"), so that files using it load.
void register_standardize(const std::string& name, std::function<Tensor(const Tensor&)> function);
/// Registers a split function under the name Keras's configs give it.
void register_split(const std::string& name, std::function<RaggedTensor(const Tensor&)> function);

/// Options of TextVectorization (Keras's `TextVectorization` constructor arguments).
struct TextVectorizationOptions {
  std::optional<int64_t> max_tokens;  ///< Most indices in all (mask and OOV included); none: no limit.
  /// "lower_and_strip_punctuation", "lower", "strip_punctuation", a function, or none.
  std::optional<Standardize> standardize = "lower_and_strip_punctuation";
  std::optional<Split> split = "whitespace";  ///< "whitespace", "character", a function, or none.
  std::optional<Ngrams> ngrams;  ///< N-gram widths; none: single tokens.
  std::string output_mode = "int";  ///< "int", "multi_hot", "count" or "tf_idf" ("one_hot" without a split).
  std::optional<int64_t> output_sequence_length;  ///< "int" only: pad or cut to this length.
  bool pad_to_max_tokens = false;  ///< Encode over max_tokens indices rather than the vocabulary size.
  std::optional<std::vector<std::string>> vocabulary;  ///< The tokens; none: set by adapt().
  std::optional<std::vector<double>> idf_weights;  ///< "tf_idf" weights, one per vocabulary token.
  bool sparse = false;  ///< Only false: outputs are dense.
  bool ragged = false;  ///< Only false: "int" outputs are padded.
  std::string encoding = "utf-8";  ///< The text encoding Keras records ("utf-8").
  std::optional<int64_t> vocabulary_size;  ///< The vocabulary size once known (Keras writes it).
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(TextVectorizationOptions, max_tokens, standardize, split, ngrams, output_mode, output_sequence_length,
              pad_to_max_tokens, sparse, ragged, vocabulary, idf_weights, encoding, vocabulary_size)
};

/// Raw strings to token indices or encodings (Keras's `TextVectorization`; see above).
/// Users create it through the handle `kiln::layers::TextVectorization({...})`.
class TextVectorizationImpl : public Layer, public LayerAssets, public CustomVariableStore {
 public:
  using Options = TextVectorizationOptions;  ///< The options struct the constructor takes.
  /// Creates the layer; the vocabulary comes from the options or from adapt().
  explicit TextVectorizationImpl(TextVectorizationOptions options = {});
  std::string class_name() const override { return "TextVectorization"; }
  /// Keras passes string inputs through as they are.
  bool converts_inputs() const override { return false; }
  Config get_config() const override;
  KILN_ARGS(TextVectorizationImpl)
  const TextVectorizationOptions& options() const { return o_; }  ///< The options, with what adapt() learned.
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  /// Learns the vocabulary (and idf weights for "tf_idf") from texts: a scalar, (n,) or (n, 1)
  /// string tensor, each string a document.
  void adapt(const Tensor& texts);
  /// The same from every batch of a Dataset whose first component holds the texts.
  void adapt(const Dataset& texts);
  /// Replaces the vocabulary (and idf weights), as set_vocabulary of Keras.
  void set_vocabulary(const std::vector<std::string>& vocabulary,
                      std::optional<std::vector<double>> idf_weights = std::nullopt);
  /// Every index's token: "", "[UNK]" (for "int"), then the vocabulary.
  std::vector<std::string> get_vocabulary(bool include_special_tokens = true) const;
  /// The number of indices, special tokens included.
  int64_t vocabulary_size() const;
  /// Reads Keras's vocabulary.txt asset of an adapted layer (its StringLookup's).
  void load_assets(const AssetFiles& files, const std::string& folder) override;
  /// Its StringLookup's vocabulary.txt, which Keras writes for both layers.
  AssetFiles save_assets() const override;
  /// Its StringLookup's "idf_weights" entry ("tf_idf"), which Keras stores for both layers.
  std::vector<StoredVariable> stored_variables() const override;
  /// Standardized, split and n-grammed tokens of `texts`: a row of tokens per string
  /// (ragged_rank 0 when there is no split, or for a scalar input).
  RaggedTensor tokenize(const Tensor& texts) const;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Tensor standardized(const Tensor& texts) const;
  TextVectorizationOptions o_;
  std::shared_ptr<StringLookupImpl> lookup_;
};

KILN_LAYER_HANDLE(TextVectorization);

}  // namespace kiln::layers
