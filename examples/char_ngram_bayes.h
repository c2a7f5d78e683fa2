#pragma once
// A multinomial naive Bayes classifier over character 1- to 4-grams: the
// classic baseline for language identification, to measure the network against.
//   Each word (UTF-8) is padded as "^word$" so that prefixes and suffixes are
//   n-grams of their own; its n-grams are its tokens for MultinomialBayes
//   (multinomial_bayes.h), with add-alpha (Laplace) smoothing.
//
//   kiln::examples::CharNgramBayes nb(7);
//   nb.fit(train.words, train.labels);
//   double accuracy = nb.accuracy(test.words, test.labels);
#include <cstdint>
#include <string>
#include <vector>

#include "multinomial_bayes.h"

namespace kiln::examples {

class CharNgramBayes {
 public:
  explicit CharNgramBayes(int num_classes, int max_n = 4, double alpha = 1.0)
      : max_n_(max_n), bayes_(num_classes, alpha) {}

  void fit(const std::vector<std::string>& words, const std::vector<int64_t>& labels) {
    bayes_.fit(ngrams(words), labels);
  }

  /// log P(class) + log P(word | class), for each class.
  std::vector<double> scores(const std::string& word) const { return bayes_.scores(ngrams(word)); }

  int64_t predict(const std::string& word) const { return bayes_.predict(ngrams(word)); }

  double accuracy(const std::vector<std::string>& words, const std::vector<int64_t>& labels) const {
    return bayes_.accuracy(ngrams(words), labels);
  }

 private:
  // The n-grams of characters, not bytes: a character starts at every byte that is not a
  // UTF-8 continuation byte (10xxxxxx), so an accented letter stays one character.
  MultinomialBayes::Document ngrams(const std::string& word) const {
    const std::string padded = "^" + word + "$";
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i < padded.size(); ++i)
      if ((static_cast<unsigned char>(padded[i]) & 0xC0) != 0x80) starts.push_back(i);
    starts.push_back(padded.size());
    MultinomialBayes::Document out;
    for (std::size_t n = 1; n <= static_cast<std::size_t>(max_n_); ++n)
      for (std::size_t i = 0; i + n < starts.size(); ++i)
        out.push_back(padded.substr(starts[i], starts[i + n] - starts[i]));
    return out;
  }

  std::vector<MultinomialBayes::Document> ngrams(const std::vector<std::string>& words) const {
    std::vector<MultinomialBayes::Document> out;
    out.reserve(words.size());
    for (const std::string& w : words) out.push_back(ngrams(w));
    return out;
  }

  int max_n_;
  MultinomialBayes bayes_;
};

}  // namespace kiln::examples
