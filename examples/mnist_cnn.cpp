// The TensorFlow guide's MNIST CNN in Kiln: define, summarise, train, evaluate,
// then save, reload and check that the reloaded model predicts the same.
//
//   ./mnist_cnn                 # the shipped 8,000/2,000 real MNIST digits
//   ./mnist_cnn --fashion       # Debian's Fashion-MNIST (60,000/10,000)
//   ./mnist_cnn --epochs 1 --seed 3 --out results/
#include <kiln/kiln.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include "guide_cnn.h"

namespace k = kiln;
namespace L = kiln::layers;

int main(int argc, char** argv) {
  bool fashion = false;
  int epochs = 5;
  std::string out_dir = ".";
  uint64_t seed = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--fashion")) fashion = true;
    else if (!std::strcmp(argv[i], "--epochs") && i + 1 < argc) epochs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out_dir = argv[++i];
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
  }
  try {
    k::random::set_seed(seed);
    auto [train, test] = fashion ? k::datasets::fashion_mnist::load_data() : k::datasets::mnist::load_data();
    k::Tensor x_train = k::expand_dims(k::cast(train.x, k::float32) / 255.0f, -1);  // (N, 28, 28, 1)
    k::Tensor x_test = k::expand_dims(k::cast(test.x, k::float32) / 255.0f, -1);

    k::Sequential model = k::examples::guide_cnn();  // guide_cnn.h: the guide's layers, one by one
    model.summary();
    model.compile({.optimizer = "adam",
                   .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                   .metrics = {"accuracy"}});
    k::History history = model.fit(x_train, train.y, {.batch_size = 64, .epochs = epochs, .validation_split = 0.1});

    std::filesystem::create_directories(out_dir);
    k::utils::plot_history(history, out_dir + "/history.svg");
    auto plotted = k::utils::plot_model(model, out_dir + "/model.svg");
    std::cout << "Wrote " << out_dir << "/history.svg and " << plotted.dot_path
              << (plotted.ok ? " and " + plotted.output_path : " (" + plotted.message + ")") << "\n";

    std::vector<float> loss_and_acc = model.evaluate(x_test, test.y, {.verbose = 0});
    std::cout << "Test loss: " << loss_and_acc[0] << "\n";
    std::cout << "Test accuracy: " << loss_and_acc[1] << "\n";

    k::Tensor logits = model.predict(x_test, {.batch_size = 1000});
    const std::string path = out_dir + "/mnist_cnn.keras";
    model.save(path);
    auto restored = k::models::load_model(path);
    k::Tensor logits2 = restored->predict(x_test, {.batch_size = 1000});
    float max_diff = k::max(k::abs(logits - logits2)).item<float>();
    std::cout << "Saved to " << path << ", reloaded; max |prediction difference| = " << max_diff << "\n";
    std::vector<float> reloaded = restored->evaluate(x_test, test.y, {.verbose = 0});
    std::cout << "Reloaded test accuracy: " << reloaded[1] << "\n";
    if (max_diff != 0.0f) {
      std::cerr << "ERROR: the reloaded model's predictions differ\n";
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "mnist_cnn: " << e.what() << "\n";
    return 1;
  }
}
