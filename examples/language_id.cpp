// Which language is a word in? A character-level bidirectional LSTM trained on
// Debian's word lists of seven languages, measured against a character n-gram
// naive Bayes baseline on the same split; then saved, reloaded and checked, and
// quantized to int8 and int4 as Keras's model.quantize does.
//
//   KILN_NUM_THREADS=2 ./language_id
//   ./language_id --words 5000 --epochs 2 --out results/
//
// The data (kiln/datasets/wordlists.h): Debian's packages wamerican, wngerman,
// wfrench, wspanish, witalian, wportuguese and wdutch. The split, fixed by --seed:
//   - lower-cased words that start with a lower-case letter (no proper nouns, and
//     so no German nouns) and contain no apostrophe;
//   - words that occur in more than one language's list are dropped;
//   - --words words per language (20,000) sampled without replacement, 80% of
//     each language for training and 20% for testing: 112,000 / 28,000, balanced.
// Words are encoded as character ids, cut to their first --max-length characters.
#include <kiln/kiln.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "char_ngram_bayes.h"
#include "language_id_model.h"

namespace k = kiln;
namespace wl = kiln::datasets::wordlists;

namespace {

struct Args {
  int64_t words = 20000;
  int epochs = 8;
  int batch_size = 128;
  double learning_rate = 0.003;
  uint64_t seed = 2024;
  k::examples::LanguageIdSizes sizes;
  std::string out_dir = ".";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* v = argv[i + 1];
    if (flag == "--words") a.words = std::atoll(v);
    else if (flag == "--epochs") a.epochs = std::atoi(v);
    else if (flag == "--batch-size") a.batch_size = std::atoi(v);
    else if (flag == "--learning-rate") a.learning_rate = std::atof(v);
    else if (flag == "--seed") a.seed = std::strtoull(v, nullptr, 10);
    else if (flag == "--units") a.sizes.units = std::atoll(v);
    else if (flag == "--embedding-dim") a.sizes.embedding_dim = std::atoll(v);
    else if (flag == "--max-length") a.sizes.max_length = std::atoll(v);
    else if (flag == "--out") a.out_dir = v;
    else throw k::ValueError("language_id: unknown flag " + flag);
  }
  return a;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Each word with the language the model gives the highest probability.
void print_predictions(k::Model& model, const std::vector<std::string>& words, const std::vector<char32_t>& vocabulary,
                       int64_t max_length) {
  const k::Tensor x = wl::encode(words, vocabulary, max_length);
  const std::vector<float> p = model.predict(x, {.verbose = 0}).to_vector<float>();
  const std::size_t n = wl::languages().size();
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::size_t best = 0;
    for (std::size_t c = 1; c < n; ++c)
      if (p[i * n + c] > p[i * n + best]) best = c;
    // Padded by characters, not bytes, so that words with accents line up too.
    const std::size_t width = wl::characters(words[i]).size();
    const std::string pad(width < 18 ? 18 - width : 1, ' ');
    std::printf("  %s%s-> %-10s (%.2f)\n", words[i].c_str(), pad.c_str(), wl::languages()[best].c_str(),
                p[i * n + best]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse(argc, argv);
    k::random::set_seed(args.seed);
    auto t0 = std::chrono::steady_clock::now();
    auto [train, test] = wl::load_words({.words_per_language = args.words, .seed = args.seed});
    std::printf("Words: %zu train, %zu test, %zu languages (read and split in %.1f s)\n", train.words.size(),
                test.words.size(), wl::languages().size(), seconds_since(t0));

    t0 = std::chrono::steady_clock::now();
    k::examples::CharNgramBayes bayes(static_cast<int>(wl::languages().size()));
    bayes.fit(train.words, train.labels);
    const double bayes_accuracy = bayes.accuracy(test.words, test.labels);
    std::printf("Naive Bayes (character 1-4-grams, add-one smoothing) test accuracy: %.4f (%.1f s)\n", bayes_accuracy,
                seconds_since(t0));

    const std::vector<char32_t> vocabulary = wl::char_vocabulary(train.words);
    k::examples::LanguageIdSizes sizes = args.sizes;
    sizes.vocabulary_size = static_cast<int64_t>(vocabulary.size()) + 2;
    const k::Tensor x_train = wl::encode(train.words, vocabulary, sizes.max_length);
    const k::Tensor x_test = wl::encode(test.words, vocabulary, sizes.max_length);
    const k::Tensor y_train(train.labels, k::Shape{static_cast<int64_t>(train.labels.size())});
    const k::Tensor y_test(test.labels, k::Shape{static_cast<int64_t>(test.labels.size())});

    k::Sequential model = k::examples::language_id_model(sizes);
    model.summary();
    // The learning rate falls along a cosine to 0 over the whole run: the last epochs fine-tune.
    const int64_t steps = args.epochs * ((x_train.shape()[0] + args.batch_size - 1) / args.batch_size);
    k::optimizers::SchedulePtr schedule =
        std::make_shared<k::optimizers::schedules::CosineDecay>(args.learning_rate, static_cast<double>(steps));
    k::OptimizerPtr adam =
        std::make_shared<k::optimizers::Adam>(k::optimizers::AdamOptions{.learning_rate = schedule});
    model.compile({.optimizer = adam, .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"}});
    t0 = std::chrono::steady_clock::now();
    model.fit(x_train, y_train, {.batch_size = args.batch_size, .epochs = args.epochs, .verbose = 2});
    std::printf("Trained %d epochs in %.1f s\n", args.epochs, seconds_since(t0));

    const std::vector<float> result = model.evaluate(x_test, y_test, {.batch_size = 1024, .verbose = 0});
    std::printf("Test accuracy: %.4f (loss %.4f); naive Bayes: %.4f\n", result[1], result[0], bayes_accuracy);

    std::filesystem::create_directories(args.out_dir);
    const std::string path = args.out_dir + "/language_id.keras";
    model.save(path);
    auto restored = k::models::load_model(path);
    const std::vector<float> reloaded = restored->evaluate(x_test, y_test, {.batch_size = 1024, .verbose = 0});
    std::printf("Saved to %s and reloaded: test accuracy %.4f\n", path.c_str(), reloaded[1]);

    std::printf("Predictions of the reloaded model (\"butterfly\" in the seven languages, then test words):\n");
    std::vector<std::string> words = {"butterfly", "schmetterling", "papillon", "mariposa",
                                      "farfalla",  "borboleta",     "vlinder"};
    for (std::size_t i = 0; i < 5 && i < test.words.size(); ++i) words.push_back(test.words[i]);
    print_predictions(*restored, words, vocabulary, sizes.max_length);
    if (reloaded[1] != result[1]) {
      std::cerr << "ERROR: the reloaded model's accuracy differs\n";
      return 1;
    }
    // Keras's post-training quantization: the Embedding and the Dense head become int8 (int4),
    // the LSTMs stay float, as in Keras.
    for (const std::string mode : {"int8", "int4"}) {
      auto quantized = k::models::load_model(path);
      quantized->quantize(mode);
      const float accuracy = quantized->evaluate(x_test, y_test, {.batch_size = 1024, .verbose = 0})[1];
      std::printf("model.quantize(\"%s\"): test accuracy %.4f (%+.2f points)\n", mode.c_str(), accuracy,
                  100.0 * (accuracy - result[1]));
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "language_id: " << e.what() << "\n";
    return 1;
  }
}
