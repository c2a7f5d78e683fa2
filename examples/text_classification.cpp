// Which collection is a quotation from? A word-level bidirectional LSTM over
// TextVectorization's output, trained on five of the `fortune` program's
// collections, measured against a word-level naive Bayes baseline on the same
// split; then wrapped with its vectorizer into a model that takes raw strings,
// saved as .keras with its vocabulary, reloaded, and checked to predict the same.
//
//   KILN_NUM_THREADS=2 ./text_classification
//   ./text_classification --epochs 3 --seed 7 --out results/
//
// The data (kiln/datasets/fortunes.h): Debian's package fortunes, in
// /usr/share/games/fortunes. The collections computers, politics, science,
// songs-poems and zippy, each entry a quotation, without the entries two
// collections share; 80% of each collection for training and 20% for testing,
// fixed by --seed (--per-collection N samples N entries of each at most).
// The vectorizer keeps the words' case (examples/text_classification_model.h
// says why); the baseline counts the same words.
#include <kiln/kiln.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "multinomial_bayes.h"
#include "text_classification_model.h"

namespace k = kiln;
namespace fortunes = kiln::datasets::fortunes;

namespace {

struct Args {
  int epochs = 6;
  int batch_size = 32;
  double learning_rate = 0.003;
  uint64_t seed = 2024;
  int64_t per_collection = 0;
  k::examples::TextClassifierSizes sizes;
  std::string out_dir = ".";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw k::ValueError("text_classification: " + flag + " needs a value");
    const char* v = argv[i + 1];
    if (flag == "--epochs") a.epochs = std::atoi(v);
    else if (flag == "--batch-size") a.batch_size = std::atoi(v);
    else if (flag == "--learning-rate") a.learning_rate = std::atof(v);
    else if (flag == "--seed") a.seed = std::strtoull(v, nullptr, 10);
    else if (flag == "--per-collection") a.per_collection = std::atoll(v);
    else if (flag == "--max-tokens") a.sizes.max_tokens = std::atoll(v);
    else if (flag == "--sequence-length") a.sizes.sequence_length = std::atoll(v);
    else if (flag == "--embedding-dim") a.sizes.embedding_dim = std::atoll(v);
    else if (flag == "--units") a.sizes.units = std::atoll(v);
    else if (flag == "--out") a.out_dir = v;
    else throw k::ValueError("text_classification: unknown flag " + flag);
  }
  return a;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void print_class_sizes(const k::datasets::TrainTest& data, const std::vector<std::string>& names) {
  const std::vector<int64_t> train = data.train.y.to_vector<int64_t>();
  const std::vector<int64_t> test = data.test.y.to_vector<int64_t>();
  std::printf("Quotations: %zu train, %zu test\n", train.size(), test.size());
  for (std::size_t c = 0; c < names.size(); ++c) {
    const auto label = static_cast<int64_t>(c);
    std::printf("  %-12s %4td train %4td test\n", names[c].c_str(), std::count(train.begin(), train.end(), label),
                std::count(test.begin(), test.end(), label));
  }
}

void print_predictions(const k::Tensor& texts, const k::Tensor& probabilities, const std::vector<std::string>& names) {
  const std::vector<std::string> t = texts.to_vector<std::string>();
  const std::vector<float> p = probabilities.to_vector<float>();
  const std::vector<int64_t> best = k::argmax(probabilities, -1).to_vector<int64_t>();
  for (std::size_t i = 0; i < t.size(); ++i) {
    std::string line = t[i].substr(0, 60);
    std::replace(line.begin(), line.end(), '\n', ' ');
    const auto b = static_cast<std::size_t>(best[i]);
    std::printf("  %-62s -> %-11s (%.2f)\n", ("\"" + line + "\"").c_str(), names[b].c_str(),
                p[i * names.size() + b]);
  }
}

// The word-level naive Bayes baseline, on the vectorizer's words of the same split.
double naive_bayes_accuracy(const k::layers::TextVectorization& vectorize, const k::datasets::TrainTest& data,
                            int num_classes) {
  const auto t0 = std::chrono::steady_clock::now();
  k::examples::MultinomialBayes bayes(num_classes);
  bayes.fit(k::examples::word_tokens(vectorize, data.train.x), data.train.y.to_vector<int64_t>());
  const double accuracy =
      bayes.accuracy(k::examples::word_tokens(vectorize, data.test.x), data.test.y.to_vector<int64_t>());
  std::printf("Naive Bayes (words, add-one smoothing) test accuracy: %.4f (%.2f s)\n", accuracy, seconds_since(t0));
  return accuracy;
}

// keras.io's pattern: the texts are vectorized once, outside the traced training steps,
// and fit trains the integer network. Returns the test accuracy.
float train_network(k::Sequential& network, k::layers::TextVectorization& vectorize,
                    const k::datasets::TrainTest& data, const Args& args) {
  const k::Tensor x_train = vectorize(data.train.x);
  const k::Tensor x_test = vectorize(data.test.x);
  network.summary();
  // The learning rate falls along a cosine to 0 over the whole run: the last epochs fine-tune.
  const int64_t steps = args.epochs * ((x_train.shape()[0] + args.batch_size - 1) / args.batch_size);
  k::optimizers::SchedulePtr schedule =
      std::make_shared<k::optimizers::schedules::CosineDecay>(args.learning_rate, static_cast<double>(steps));
  k::OptimizerPtr adam = std::make_shared<k::optimizers::Adam>(k::optimizers::AdamOptions{.learning_rate = schedule});
  network.compile({.optimizer = adam, .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"}});
  const auto t0 = std::chrono::steady_clock::now();
  network.fit(x_train, data.train.y, {.batch_size = args.batch_size, .epochs = args.epochs, .verbose = 2});
  const double seconds = seconds_since(t0);
  const float accuracy = network.evaluate(x_test, data.test.y, {.batch_size = 256, .verbose = 0})[1];
  std::printf("Trained %d epochs in %.1f s\n", args.epochs, seconds);
  return accuracy;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse(argc, argv);
    k::random::set_seed(args.seed);
    const std::vector<std::string>& names = fortunes::default_collections();
    const k::datasets::TrainTest data =
        fortunes::load_data({.max_per_collection = args.per_collection, .seed = args.seed});
    print_class_sizes(data, names);

    k::examples::TextClassifierSizes sizes = args.sizes;
    sizes.num_classes = static_cast<int64_t>(names.size());
    k::layers::TextVectorization vectorize = k::examples::text_vectorizer(sizes);
    vectorize->adapt(data.train.x);

    const double bayes_accuracy = naive_bayes_accuracy(vectorize, data, static_cast<int>(names.size()));
    auto network = k::examples::text_classification_model(sizes);
    const float network_accuracy = train_network(*network, vectorize, data, args);
    std::printf("Test accuracy: network %.4f, naive Bayes %.4f\n", network_accuracy, bayes_accuracy);

    k::Model end_to_end = k::examples::end_to_end_model(vectorize, network);
    // Compiled, as keras.io compiles it, to evaluate on raw strings too. Its string layer cannot be
    // traced, so its steps run eagerly: run_eagerly says so (no warning at each first call), and
    // travels in the file's compile config.
    end_to_end.compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"},
                        .run_eagerly = true});
    const k::Tensor probabilities = end_to_end.predict(data.test.x, {.batch_size = 256, .verbose = 0});
    std::filesystem::create_directories(args.out_dir);
    const std::string path = args.out_dir + "/text_classification.keras";
    end_to_end.save(path);
    auto restored = k::models::load_model(path);
    const k::Tensor reloaded = restored->predict(data.test.x, {.batch_size = 256, .verbose = 0});
    const bool same = k::all(k::equal(reloaded, probabilities)).item<bool>();
    const float text_accuracy = end_to_end.evaluate(data.test.x, data.test.y, {.batch_size = 256, .verbose = 0})[1];
    std::printf("End to end from raw strings: test accuracy %.4f; saved to %s and reloaded: %s\n", text_accuracy,
                path.c_str(), same ? "the same predictions, bit for bit" : "DIFFERENT predictions");

    std::printf("Predictions of the reloaded model:\n");
    const k::Tensor samples({"The compiler crashed again, so I rebooted the server and rewrote the kernel driver.",
                             "The senator promised lower taxes if the voters elect him again.",
                             "The experiment proved the theory: energy equals mass times the speed of light squared.",
                             "Oh my love, the moon is singing softly in the summer night.",
                             "I want a PURPLE HAMBURGER and a DISCO BALL for my TOASTER!!"});
    print_predictions(samples, restored->predict(samples, {.verbose = 0}), names);
    if (!same) {
      std::cerr << "ERROR: the reloaded model predicts differently\n";
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "text_classification: " << e.what() << "\n";
    return 1;
  }
}
