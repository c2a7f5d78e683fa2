// A short run of examples/language_id.cpp's network on Debian's word lists:
// 7,000 words, three epochs. Seven balanced languages make chance 1/7; the
// bidirectional LSTM must do far better, and its masking must make the
// prediction for a word independent of the padding after it.
#include <doctest/doctest.h>

#include "test_util.h"

#include <filesystem>

#include "kiln/kiln.h"
#include "language_id_model.h"

namespace fs = std::filesystem;
namespace k = kiln;
namespace wl = kiln::datasets::wordlists;

TEST_CASE("language id: the bidirectional LSTM over characters learns the seven word lists well above chance") {
  bool all = true;
  for (const std::string& f : wl::file_names()) all = all && fs::exists(fs::path(wl::default_path()) / f);
  KILN_REQUIRE_TOOL(all, "Debian's word lists (wamerican wngerman wfrench wspanish witalian wportuguese wdutch)");
  k::random::set_seed(1);
  auto [train, test] = wl::load_words({.words_per_language = 1000});
  const std::vector<char32_t> vocabulary = wl::char_vocabulary(train.words);
  const k::examples::LanguageIdSizes sizes{.vocabulary_size = static_cast<int64_t>(vocabulary.size()) + 2,
                                           .max_length = 16, .embedding_dim = 16, .units = 32};
  const k::Tensor x_train = wl::encode(train.words, vocabulary, sizes.max_length);
  const k::Tensor y_train(train.labels, k::Shape{static_cast<int64_t>(train.labels.size())});
  const k::Tensor x_test = wl::encode(test.words, vocabulary, sizes.max_length);
  const k::Tensor y_test(test.labels, k::Shape{static_cast<int64_t>(test.labels.size())});

  k::Sequential model = k::examples::language_id_model(sizes);
  k::OptimizerPtr adam = std::make_shared<k::optimizers::Adam>(k::optimizers::AdamOptions{.learning_rate = 0.005});
  model.compile({.optimizer = adam, .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"}});
  const std::vector<float> before = model.evaluate(x_test, y_test, {.verbose = 0});
  model.fit(x_train, y_train, {.batch_size = 32, .epochs = 3, .verbose = 0});
  const std::vector<float> after = model.evaluate(x_test, y_test, {.verbose = 0});
  INFO("test accuracy before ", before[1], ", after ", after[1]);
  CHECK(after[0] < before[0] - 0.6f);
  CHECK(after[1] > 0.55f);  // chance is 1/7

  // The same words with more padding: the mask stops both directions at the last character.
  const k::examples::LanguageIdSizes longer{sizes.vocabulary_size, sizes.max_length + 8, 16, 32};
  k::Sequential padded = k::examples::language_id_model(longer);
  padded.set_weights(model.get_weights());
  const k::Tensor p = model.predict(x_test, {.verbose = 0});
  const k::Tensor more_padding = k::zeros({x_test.shape()[0], 8}, k::DType::int64);
  const k::Tensor q = padded.predict(k::concat({x_test, more_padding}, 1), {.verbose = 0});
  CHECK(k::max(k::abs(p - q)).item<float>() < 1e-5f);
}
