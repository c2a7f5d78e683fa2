#pragma once
// The language-identification network of examples/language_id.cpp: a word's
// character ids, embedded, read by an LSTM in both directions, then a softmax
// over the seven languages.
//   (batch, max_length) int64 ids, 0 = padding
//     -> Embedding(mask_zero)   (batch, max_length, embedding_dim), with the mask ids != 0
//     -> Bidirectional(LSTM)    (batch, 2·units): each direction stops at the word's last character
//     -> Dense(softmax)         (batch, num_classes)
#include <kiln/kiln.h>

#include <cstdint>

namespace kiln::examples {

struct LanguageIdSizes {
  int64_t vocabulary_size = 0;  // character ids, padding and unknown included
  int64_t max_length = 16;
  int64_t embedding_dim = 32;
  int64_t units = 128;
  int64_t num_classes = 7;
};

inline Sequential language_id_model(const LanguageIdSizes& s) {
  namespace L = kiln::layers;
  return Sequential({
      L::Input({s.max_length}, {.dtype = DType::int64}),
      L::Embedding(s.vocabulary_size, s.embedding_dim, {.mask_zero = true}),
      L::Bidirectional(L::LSTM(s.units)),
      L::Dense(s.num_classes, {.activation = "softmax"}),
  });
}

}  // namespace kiln::examples
