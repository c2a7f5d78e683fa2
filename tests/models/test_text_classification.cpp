// A short run of examples/text_classification.cpp on Debian's fortune
// collections: 400 quotations of each of the five, a smaller network, four
// epochs (about a second). Five balanced classes make chance 1/5; the network
// and the naive Bayes baseline, counted on the same split, must do far better;
// the end-to-end model must predict from raw strings what the network predicts
// from their ids, and predict the same again once saved and reloaded.
#include <doctest/doctest.h>

#include "test_util.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "kiln/kiln.h"
#include "multinomial_bayes.h"
#include "text_classification_model.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_text_classification {

namespace fs = std::filesystem;
namespace k = kiln;
namespace fortunes = kiln::datasets::fortunes;

TEST_CASE("text classification: a BiLSTM on TextVectorization's ids learns the fortune collections, end to end") {
  bool all = true;
  for (const std::string& c : fortunes::default_collections())
    all = all && fs::exists(fs::path(fortunes::default_path()) / c);
  KILN_REQUIRE_TOOL(all, "Debian's fortune collections (package fortunes)");
  k::random::set_seed(3);
  const auto [train, test] = fortunes::load_data({.max_per_collection = 400, .seed = 3});
  const k::examples::TextClassifierSizes sizes{.max_tokens = 8000, .sequence_length = 48, .embedding_dim = 64,
                                               .units = 32};
  k::layers::TextVectorization vectorize = k::examples::text_vectorizer(sizes);
  vectorize->adapt(train.x);

  // The baseline counts the training split's documents, class by class, and is tested on the test split.
  const std::vector<int64_t> y_train = train.y.to_vector<int64_t>();
  k::examples::MultinomialBayes bayes(5);
  bayes.fit(k::examples::word_tokens(vectorize, train.x), y_train);
  for (int64_t c = 0; c < 5; ++c)
    CHECK(bayes.documents_per_class()[static_cast<std::size_t>(c)] == std::count(y_train.begin(), y_train.end(), c));
  const double bayes_accuracy =
      bayes.accuracy(k::examples::word_tokens(vectorize, test.x), test.y.to_vector<int64_t>());
  INFO("naive Bayes test accuracy ", bayes_accuracy);
  CHECK(bayes_accuracy > 0.45);

  const k::Tensor x_train = vectorize(train.x);
  const k::Tensor x_test = vectorize(test.x);
  CHECK(x_train.shape() == k::Shape{1600, 48});
  auto network = k::examples::text_classification_model(sizes);
  k::OptimizerPtr adam = std::make_shared<k::optimizers::Adam>(k::optimizers::AdamOptions{.learning_rate = 0.005});
  network->compile({.optimizer = adam, .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"}});
  network->fit(x_train, train.y, {.batch_size = 32, .epochs = 4, .verbose = 0});
  const std::vector<float> result = network->evaluate(x_test, test.y, {.verbose = 0});
  INFO("network test accuracy ", result[1]);
  CHECK(result[1] > 0.45f);  // chance is 1/5

  // Raw strings through the end-to-end model give the network's predictions on the ids.
  k::Model end_to_end = k::examples::end_to_end_model(vectorize, network);
  end_to_end.compile({.optimizer = adam, .loss = "sparse_categorical_crossentropy", .run_eagerly = true});
  const k::Tensor from_text = end_to_end.predict(test.x, {.verbose = 0});
  const k::Tensor from_ids = network->predict(x_test, {.verbose = 0});
  CHECK(k::max(k::abs(from_text - from_ids)).item<float>() < 1e-6f);

  // Saved with its vocabulary, reloaded, the same predictions from the same strings.
  const std::string path =
      (fs::temp_directory_path() / ("kiln_text_classification_" + std::to_string(::getpid()) + ".keras")).string();
  end_to_end.save(path);
  auto restored = k::models::load_model(path);
  std::shared_ptr<k::layers::TextVectorizationImpl> loaded;
  for (const auto& l : restored->layers())
    if (auto v = std::dynamic_pointer_cast<k::layers::TextVectorizationImpl>(l)) loaded = v;
  REQUIRE(loaded);
  CHECK(loaded->get_vocabulary() == vectorize->get_vocabulary());
  const k::Tensor reloaded = restored->predict(test.x, {.verbose = 0});
  CHECK(k::all(k::equal(reloaded, from_text)).item<bool>());
  fs::remove(path);
}

}  // namespace test_text_classification
