#pragma once
// A multinomial naive Bayes classifier over character 1- to 4-grams: the
// classic baseline for language identification, to measure the network against.
//   Each word is padded as "^word$" so that prefixes and suffixes are n-grams of
//   their own; a class scores log P(class) + Σ log P(n-gram | class) over the
//   word's n-grams, with add-alpha (Laplace) smoothing over the n-grams seen in training.
//
//   kiln::examples::CharNgramBayes nb(7);
//   nb.fit(train.words, train.labels);
//   double accuracy = nb.accuracy(test.words, test.labels);
#include <kiln/datasets/wordlists.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln::examples {

class CharNgramBayes {
 public:
  explicit CharNgramBayes(int num_classes, int max_n = 4, double alpha = 1.0)
      : max_n_(max_n), alpha_(alpha), counts_(static_cast<std::size_t>(num_classes)),
        totals_(static_cast<std::size_t>(num_classes)), docs_(static_cast<std::size_t>(num_classes)) {}

  void fit(const std::vector<std::string>& words, const std::vector<int64_t>& labels) {
    for (std::size_t i = 0; i < words.size(); ++i) {
      const auto c = static_cast<std::size_t>(labels[i]);
      ++docs_[c];
      for (const std::u32string& g : ngrams(words[i])) {
        ++counts_[c][g];
        ++totals_[c];
        vocabulary_[g] = true;
      }
    }
  }

  /// log P(class) + log P(word | class), for each class.
  std::vector<double> scores(const std::string& word) const {
    const std::vector<std::u32string> grams = ngrams(word);
    double all_docs = 0;
    for (double d : docs_) all_docs += d;
    const double v = static_cast<double>(vocabulary_.size());
    std::vector<double> s(counts_.size());
    for (std::size_t c = 0; c < counts_.size(); ++c) {
      s[c] = std::log(docs_[c] / all_docs);
      const double denominator = std::log(totals_[c] + alpha_ * v);
      for (const std::u32string& g : grams) {
        auto it = counts_[c].find(g);
        s[c] += std::log((it == counts_[c].end() ? 0.0 : it->second) + alpha_) - denominator;
      }
    }
    return s;
  }

  int64_t predict(const std::string& word) const {
    const std::vector<double> s = scores(word);
    std::size_t best = 0;
    for (std::size_t c = 1; c < s.size(); ++c)
      if (s[c] > s[best]) best = c;
    return static_cast<int64_t>(best);
  }

  double accuracy(const std::vector<std::string>& words, const std::vector<int64_t>& labels) const {
    std::size_t right = 0;
    for (std::size_t i = 0; i < words.size(); ++i) right += predict(words[i]) == labels[i];
    return words.empty() ? 0.0 : static_cast<double>(right) / static_cast<double>(words.size());
  }

 private:
  std::vector<std::u32string> ngrams(const std::string& word) const {
    const std::u32string padded = U"^" + datasets::wordlists::characters(word) + U"$";
    std::vector<std::u32string> out;
    for (std::size_t n = 1; n <= static_cast<std::size_t>(max_n_); ++n)
      for (std::size_t i = 0; i + n <= padded.size(); ++i) out.push_back(padded.substr(i, n));
    return out;
  }

  int max_n_;
  double alpha_;
  std::vector<std::unordered_map<std::u32string, double>> counts_;
  std::vector<double> totals_, docs_;
  std::unordered_map<std::u32string, bool> vocabulary_;
};

}  // namespace kiln::examples
