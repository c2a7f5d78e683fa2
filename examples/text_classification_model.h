#pragma once
// The pieces of examples/text_classification.cpp that its test shares: the
// vectorizer, the network, the end-to-end model over raw strings, and the word
// tokens the naive Bayes baseline counts.
//   (batch,) string quotations
//     -> TextVectorization      (batch, sequence_length) int64 word ids, 0 = padding, 1 = unknown
//     -> Embedding(mask_zero)   (batch, sequence_length, embedding_dim), with the mask ids != 0
//     -> Bidirectional(LSTM)    (batch, 2·units): each direction stops at the quotation's last word
//     -> Dense(softmax)         (batch, num_classes)
// String layers cannot run inside Kiln's traced steps (nor inside Keras's compiled
// ones), so, as keras.io's text-classification example does, the vectorizer runs
// once up front and fit trains the integer network; end_to_end_model() then puts
// the adapted vectorizer in front of the trained network for inference on raw strings.
#include <kiln/kiln.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "multinomial_bayes.h"

namespace kiln::examples {

struct TextClassifierSizes {
  int64_t max_tokens = 20000;  // vocabulary of the vectorizer, padding and unknown included
  int64_t sequence_length = 128;  // words kept per quotation (about 95% of them have no more)
  int64_t embedding_dim = 128;
  int64_t units = 32;
  int64_t num_classes = 5;
};

// Words without ASCII punctuation, their case kept: Keras's default standardization
// also lower-cases, but case tells these collections apart (zippy SHOUTS, names and
// acronyms fill computers and politics), for the network and the baseline alike.
inline layers::TextVectorization text_vectorizer(const TextClassifierSizes& s) {
  return layers::TextVectorization(
      {.max_tokens = s.max_tokens, .standardize = "strip_punctuation", .output_sequence_length = s.sequence_length});
}

// Shared, so that end_to_end_model() can call it on a symbolic tensor, as a layer.
inline std::shared_ptr<Sequential> text_classification_model(const TextClassifierSizes& s) {
  namespace L = kiln::layers;
  return std::make_shared<Sequential>(std::vector<LayerPtr>{
      L::Input({s.sequence_length}, {.dtype = DType::int64}),
      L::Embedding(s.max_tokens, s.embedding_dim, {.mask_zero = true}),
      L::Bidirectional(L::LSTM(s.units)),
      L::Dense(s.num_classes, {.activation = "softmax"}),
  });
}

// Raw strings in, class probabilities out: Input(dtype string) -> vectorizer -> the trained network.
inline Model end_to_end_model(layers::TextVectorization& vectorizer, const std::shared_ptr<Sequential>& network) {
  Tensor text = Input({}, {.dtype = string_});
  return Model(text, (*network)(vectorizer(text)));
}

// The words the vectorizer sees in each text (standardized and split, before the
// max_tokens cut), as the naive Bayes baseline's documents.
inline std::vector<MultinomialBayes::Document> word_tokens(const layers::TextVectorization& vectorizer,
                                                          const Tensor& texts) {
  const RaggedTensor rows = vectorizer->tokenize(texts);
  const std::vector<std::string> words = rows.values().to_vector<std::string>();
  const std::vector<int64_t> splits = rows.row_splits().to_vector<int64_t>();
  std::vector<MultinomialBayes::Document> documents;
  documents.reserve(splits.size() - 1);
  for (std::size_t i = 0; i + 1 < splits.size(); ++i)
    documents.emplace_back(words.begin() + splits[i], words.begin() + splits[i + 1]);
  return documents;
}

}  // namespace kiln::examples
