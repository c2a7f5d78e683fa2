// Transfer learning and fine-tuning, as the keras.io guide does it, with a
// kiln::applications base:
//   1. a ResNet50 base (32x32x3, no top) learns a source task: the MNIST
//      digits shipped with Kiln. It stands in for the ImageNet weights the
//      guide downloads; pass --weights FILE to use a weights file of the same
//      base instead (Keras's own, for one).
//   2. The base is rebuilt from its weights file and frozen; its
//      BatchNormalization layers then run in inference mode. A new head
//      (pooling, dropout, a Dense of 10 logits) learns Fashion-MNIST.
//   3. The top blocks (conv5) are unfrozen, except the batch norms, and
//      the whole model is fine-tuned at a learning rate of 1e-5.
//   4. The model is saved as .keras, reloaded, and must predict as before.
//
//   ./transfer_learning                      # 10,000 training images, 3 + 2 epochs
//   ./transfer_learning --quick --out dir    # the short run the test suite makes
#include <kiln/applications.h>
#include <kiln/kiln.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace k = kiln;
namespace L = kiln::layers;
namespace A = kiln::applications;

namespace {

/// The first n images as (n, 28, 28, 1) float pixels in [0, 255], and their labels.
std::pair<k::Tensor, k::Tensor> first(const k::datasets::Split& s, int64_t n) {
  n = std::min(n, s.x.shape()[0]);
  k::Tensor x = k::slice(s.x, {k::Slice(0, n)});
  return {k::expand_dims(k::cast(x, k::float32), -1), k::slice(s.y, {k::Slice(0, n)})};
}

/// The guide puts the base's input preprocessing in the model: 28x28 gray
/// images become the base's 32x32 RGB, centred as ResNet's "caffe" mode
/// centres ImageNet (one gray channel: the mean of the three channel means).
k::Tensor to_base_input(const k::Tensor& gray) {
  k::Tensor x = L::ZeroPadding2D(2)(gray);
  x = L::Concatenate()({x, x, x});
  return L::Rescaling(1.0, {.offset = -114.8})(x);
}

const A::ApplicationOptions kBase = {.include_top = false, .input_shape = k::Shape{32, 32, 3}};

/// Step 1: the base learns the digits; its weights go to a file, as pretrained weights come.
std::string pretrain_base(const std::string& out, int64_t n, int epochs) {
  auto [train, test] = k::datasets::mnist::load_data();
  auto [x, y] = first(train, n);
  auto base = A::ResNet50(kBase);
  auto in = k::Input({28, 28, 1});
  k::Tensor h = L::GlobalAveragePooling2D()((*base)(to_base_input(in)));
  k::Model source(in, L::Dense(10)(h));
  source.compile({.optimizer = "adam",
                  .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                  .metrics = {"accuracy"}});
  // Small batches: more steps, so the moving statistics (momentum 0.99) settle
  // before the frozen base runs on them in inference mode.
  source.fit(x, y, {.batch_size = 16, .epochs = epochs, .verbose = 2});
  auto [xt, yt] = first(test, std::min<int64_t>(n, 1000));
  std::cout << "Source task (digits) accuracy: " << source.evaluate(xt, yt, {.verbose = 0})[1] << "\n";
  const std::string path = out + "/base.weights.h5";
  base->save_weights(path);
  return path;
}

bool same_values(const std::vector<k::Tensor>& a, const std::vector<k::Tensor>& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (k::max(k::abs(a[i] - b[i])).item<float>() != 0.0f) return false;
  return a.size() == b.size();
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string out = ".", weights;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!std::strcmp(argv[i], "--weights") && i + 1 < argc) weights = argv[++i];
  }
  // The quick run checks the workflow (a frozen base stays frozen, a reload predicts the same), not accuracy.
  const int64_t n = quick ? 500 : 10000;
  const int head_epochs = quick ? 1 : 3, tune_epochs = quick ? 1 : 2;
  try {
    k::random::set_seed(7);
    std::filesystem::create_directories(out);
    if (weights.empty()) weights = pretrain_base(out, n, quick ? 1 : 3);

    // Step 2: a frozen base under a new head.
    A::ApplicationOptions opts = kBase;
    opts.weights = weights;
    auto base = A::ResNet50(opts);
    base->set_trainable(false);
    auto inputs = k::Input({28, 28, 1});
    k::Tensor x = (*base)(to_base_input(inputs), /*training=*/false);
    x = L::Dropout(0.2)(L::GlobalAveragePooling2D()(x));
    auto model = std::make_shared<k::Model>(inputs, L::Dense(10)(x), k::LayerOptions{.name = "transfer"});
    model->compile({.optimizer = "adam",
                    .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                    .metrics = {"accuracy"}});
    std::cout << "Trainable weights with the base frozen: " << model->trainable_weights().size() << "\n";
    auto [train, test] = k::datasets::fashion_mnist::load_data();
    auto [xs, ys] = first(train, n);
    auto [xt, yt] = first(test, quick ? 200 : 2000);
    const auto before = base->get_weights();
    model->fit(xs, ys, {.batch_size = 64, .epochs = head_epochs, .verbose = 2, .validation_data = k::ValidationData{xt, yt}});
    const bool frozen_kept = same_values(before, base->get_weights());
    std::cout << "Base unchanged while frozen (moving statistics included): " << (frozen_kept ? "yes" : "NO") << "\n";
    const float head_acc = model->evaluate(xt, yt, {.verbose = 0})[1];
    std::cout << "Fashion-MNIST accuracy, new head only: " << head_acc << "\n";

    // Step 3: unfreeze the top blocks, keep every BatchNormalization in inference mode.
    base->set_trainable(true);
    bool top = false;
    for (const auto& layer : base->layers()) {
      top = top || layer->name().rfind("conv5_", 0) == 0;
      if (!top || layer->class_name() == "BatchNormalization") layer->set_trainable(false);
    }
    model->compile({.optimizer = k::optimizers::Adam({.learning_rate = 1e-5}),
                    .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                    .metrics = {"accuracy"}});
    std::cout << "Trainable weights while fine-tuning: " << model->trainable_weights().size() << "\n";
    model->fit(xs, ys, {.batch_size = 64, .epochs = tune_epochs, .verbose = 2, .validation_data = k::ValidationData{xt, yt}});
    const float tuned_acc = model->evaluate(xt, yt, {.verbose = 0})[1];
    std::cout << "Fashion-MNIST accuracy after fine-tuning: " << tuned_acc << "\n";

    // Step 4: save, reload, and predict the same.
    const std::string path = out + "/transfer.keras";
    model->save(path);
    auto reloaded = k::models::load_model(path);
    const bool same = k::max(k::abs(reloaded->predict(xt) - model->predict(xt))).item<float>() < 1e-5f;
    std::cout << "Reloaded model predicts the same: " << (same ? "yes" : "NO") << "\n";
    return frozen_kept && same ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "transfer_learning: " << e.what() << "\n";
    return 1;
  }
}
