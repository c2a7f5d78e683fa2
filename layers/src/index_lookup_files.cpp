// IndexLookup's state in .keras archives, as Keras's IndexLookup keeps it: a learned
// vocabulary as the vocabulary.txt asset, tf_idf weights as the "idf_weights" entry of
// the layer's vars (loaded first: the asset then pairs them with its tokens).
#include <algorithm>

#include "kiln/core/error.h"
#include "kiln/layers/integer_lookup.h"
#include "kiln/layers/string_lookup.h"
#include "kiln/ops/array_ops.h"
#include "vocabulary_file.h"

namespace kiln::layers {

using namespace detail;

template <class Options, class Token>
void IndexLookupImpl<Options, Token>::load_assets(const AssetFiles& files, const std::string& folder) {
  if (input_vocabulary_) return;  // as Keras: a vocabulary in the config wins
  const auto it = files.find("vocabulary.txt");
  if (it == files.end()) return;
  const std::string where = folder + "vocabulary.txt";
  const std::vector<Token> tokens = vocabulary_file_tokens<Token>(it->second, where);
  std::optional<std::vector<double>> idf;
  if (o_.output_mode == "tf_idf") {
    if (!loaded_idf_)
      throw IOError(where + ": layer '" + name() + "' (" + cls_ + ") has output_mode 'tf_idf' but the weights file " +
                    "held no 'idf_weights' entry for it");
    idf = *loaded_idf_;
    // Keras pads the weights to max_tokens (pad_to_max_tokens), past the vocabulary's end.
    if (o_.pad_to_max_tokens && idf->size() > tokens.size()) idf->resize(tokens.size());
  }
  try {
    set_vocabulary(tokens, idf);
  } catch (const ValueError& e) {
    throw IOError(where + ": " + e.what());
  }
}

template <class Options, class Token>
AssetFiles IndexLookupImpl<Options, Token>::save_assets() const {
  if (input_vocabulary_) return {};
  std::string text;
  const std::vector<Token> vocabulary = get_vocabulary();
  for (std::size_t i = 0; i < vocabulary.size(); ++i) {
    if (i) text += '\n';
    if constexpr (std::is_same_v<Token, std::string>) text += vocabulary[i];
    else text += std::to_string(vocabulary[i]);
  }
  return {{"vocabulary.txt", text}};
}

template <class Options, class Token>
std::vector<StoredVariable> IndexLookupImpl<Options, Token>::stored_variables() const {
  if (o_.output_mode != "tf_idf") return {};
  // The entry's length: the weights of every index, as the config's vocabulary_size says
  // before a vocabulary asset is read.
  int64_t n = static_cast<int64_t>(idf_.size());
  if (!has_vocabulary_) n = o_.pad_to_max_tokens && o_.max_tokens ? *o_.max_tokens : o_.vocabulary_size.value_or(0);
  if (!idf_store_ || idf_store_->shape() != Shape{n})
    idf_store_ = Variable(zeros({n}, DType::float32), {.name = "idf_weights", .trainable = false});
  if (has_vocabulary_) idf_store_->assign(cast(Tensor(idf_, Shape{n}), DType::float32));
  return {{.variable = *idf_store_, .saved = {}, .key = "idf_weights"}};
}

template <class Options, class Token>
void IndexLookupImpl<Options, Token>::after_load_own_variables() const {
  if (!idf_store_) return;
  const std::vector<float> w = idf_store_->read_value_untracked().to_vector<float>();
  loaded_idf_ = std::vector<double>(w.begin(), w.end());
  // A vocabulary given in the config takes the file's weights now; a learned one with its asset.
  if (input_vocabulary_) const_cast<IndexLookupImpl*>(this)->idf_ = *loaded_idf_;
}

// The class itself is instantiated in index_lookup.cpp; these are its members defined here.
#define KILN_INDEX_LOOKUP_FILES(Options, Token)                                                              \
  template void IndexLookupImpl<Options, Token>::load_assets(const AssetFiles&, const std::string&);          \
  template AssetFiles IndexLookupImpl<Options, Token>::save_assets() const;                                   \
  template std::vector<StoredVariable> IndexLookupImpl<Options, Token>::stored_variables() const;             \
  template void IndexLookupImpl<Options, Token>::after_load_own_variables() const;
KILN_INDEX_LOOKUP_FILES(IntegerLookupOptions, int64_t)
KILN_INDEX_LOOKUP_FILES(StringLookupOptions, std::string)
#undef KILN_INDEX_LOOKUP_FILES

}  // namespace kiln::layers
