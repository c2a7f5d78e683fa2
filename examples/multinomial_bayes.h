#pragma once
// A multinomial naive Bayes classifier over documents given as lists of tokens
// (words, character n-grams, ...): the classic baseline to measure a text network
// against. A class scores log P(class) + Σ log P(token | class) over the document's
// tokens, with add-alpha (Laplace; add-one by default) smoothing over the tokens
// seen in training; a token never seen in training counts alike for every class.
//
//   kiln::examples::MultinomialBayes nb(5);
//   nb.fit(train_tokens, train_labels);    // std::vector<std::vector<std::string>>, labels 0..4
//   double accuracy = nb.accuracy(test_tokens, test_labels);
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kiln::examples {

class MultinomialBayes {
 public:
  using Document = std::vector<std::string>;

  explicit MultinomialBayes(int num_classes, double alpha = 1.0)
      : alpha_(alpha), counts_(static_cast<std::size_t>(num_classes)), totals_(static_cast<std::size_t>(num_classes)),
        docs_(static_cast<std::size_t>(num_classes)) {}

  void fit(const std::vector<Document>& documents, const std::vector<int64_t>& labels) {
    for (std::size_t i = 0; i < documents.size(); ++i) {
      const auto c = static_cast<std::size_t>(labels[i]);
      ++docs_[c];
      for (const std::string& token : documents[i]) {
        ++counts_[c][token];
        ++totals_[c];
        vocabulary_.insert(token);
      }
    }
  }

  /// log P(class) + log P(document | class), for each class.
  std::vector<double> scores(const Document& document) const {
    double all_docs = 0;
    for (double d : docs_) all_docs += d;
    const double v = static_cast<double>(vocabulary_.size());
    std::vector<double> s(counts_.size());
    for (std::size_t c = 0; c < counts_.size(); ++c) {
      s[c] = std::log(docs_[c] / all_docs);
      const double denominator = std::log(totals_[c] + alpha_ * v);
      for (const std::string& token : document) {
        auto it = counts_[c].find(token);
        s[c] += std::log((it == counts_[c].end() ? 0.0 : it->second) + alpha_) - denominator;
      }
    }
    return s;
  }

  int64_t predict(const Document& document) const {
    const std::vector<double> s = scores(document);
    std::size_t best = 0;
    for (std::size_t c = 1; c < s.size(); ++c)
      if (s[c] > s[best]) best = c;
    return static_cast<int64_t>(best);
  }

  double accuracy(const std::vector<Document>& documents, const std::vector<int64_t>& labels) const {
    std::size_t right = 0;
    for (std::size_t i = 0; i < documents.size(); ++i) right += predict(documents[i]) == labels[i];
    return documents.empty() ? 0.0 : static_cast<double>(right) / static_cast<double>(documents.size());
  }

  /// The documents fit() has counted, per class.
  const std::vector<double>& documents_per_class() const { return docs_; }

 private:
  double alpha_;
  std::vector<std::unordered_map<std::string, double>> counts_;
  std::vector<double> totals_, docs_;
  std::unordered_set<std::string> vocabulary_;
};

}  // namespace kiln::examples
