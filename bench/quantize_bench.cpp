// int8 inference against float32 in Kiln: an MLP (784-512-512-10) and a
// transformer encoder block (sequence 128, width 256, 4 heads, feed-forward
// 1024), each timed on the same weights before and after model.quantize("int8").
// The MLP is first trained on the shipped MNIST digits so that the accuracy
// change can be read. Prints one JSON line per measurement; bench/quantize_bench.sh
// runs PyTorch's dynamic int8 quantization and Keras on JAX beside it.
//
//   quantize_bench [REPS] [MLP_BATCH] [BLOCK_BATCH] [mlp|encoder_block]
//
// The last argument times one model alone (to profile it); both by default.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace k = kiln;
namespace L = kiln::layers;

namespace {

/// Median milliseconds per call over reps calls, after one warm-up call.
template <class F>
double median_ms(F&& f, int reps) {
  f();
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

void line(const std::string& model, const std::string& dtype, int batch, double ms, double accuracy = -1) {
  std::cout << "{\"peer\": \"kiln\", \"model\": \"" << model << "\", \"dtype\": \"" << dtype << "\", \"batch\": " << batch
            << ", \"ms\": " << ms;
  if (accuracy >= 0) std::cout << ", \"accuracy\": " << accuracy;
  std::cout << "}" << std::endl;
}

std::shared_ptr<k::Model> mlp() {
  auto x = k::Input({784});
  auto h = L::Dense(512, {.activation = "relu"})(x);
  h = L::Dense(512, {.activation = "relu"})(h);
  return std::make_shared<k::Model>(x, L::Dense(10)(h));
}

std::shared_ptr<k::Model> encoder_block() {
  auto x = k::Input({128, 256});
  auto attention = L::MultiHeadAttention(4, 64)({x, x});
  auto h = L::LayerNormalization({.epsilon = 1e-6})(L::Add()({x, attention}));
  auto ff = L::Dense(1024, {.activation = "relu"})(h);
  ff = L::Dense(256)(ff);
  return std::make_shared<k::Model>(x, L::LayerNormalization({.epsilon = 1e-6})(L::Add()({h, ff})));
}

void bench_mlp(int reps, int batch) {
  k::random::set_seed(1);
  auto [train, test] = k::datasets::mnist::load_data();
  const k::Tensor x_train = k::reshape(k::cast(train.x, k::float32) / 255.0f, {-1, 784});
  const k::Tensor x_test = k::reshape(k::cast(test.x, k::float32) / 255.0f, {-1, 784});
  auto model = mlp();
  model->compile({.optimizer = "adam",
                  .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                  .metrics = {"accuracy"}});
  model->fit(x_train, train.y, {.batch_size = 128, .epochs = 5, .verbose = 0});
  const k::Tensor x = x_test[{k::Slice(0, batch)}];
  const double float_accuracy = model->evaluate(x_test, test.y, {.verbose = 0})[1];
  line("mlp", "float32", batch, median_ms([&] { model->predict(x, {.batch_size = batch}); }, reps), float_accuracy);
  model->quantize("int8");
  const double int8_accuracy = model->evaluate(x_test, test.y, {.verbose = 0})[1];
  line("mlp", "int8", batch, median_ms([&] { model->predict(x, {.batch_size = batch}); }, reps), int8_accuracy);
}

void bench_block(int reps, int batch) {
  k::random::set_seed(2);
  auto model = encoder_block();
  const k::Tensor x = k::random::normal({batch, 128, 256});
  line("encoder_block", "float32", batch, median_ms([&] { model->predict(x, {.batch_size = batch}); }, reps));
  model->quantize("int8");
  line("encoder_block", "int8", batch, median_ms([&] { model->predict(x, {.batch_size = batch}); }, reps));
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::stoi(argv[1]) : 30;
  const int mlp_batch = argc > 2 ? std::stoi(argv[2]) : 128;
  const int block_batch = argc > 3 ? std::stoi(argv[3]) : 32;
  const std::string only = argc > 4 ? argv[4] : "";
  try {
    if (only.empty() || only == "mlp") bench_mlp(reps, mlp_batch);
    if (only.empty() || only == "encoder_block") bench_block(reps, block_batch);
  } catch (const std::exception& e) {
    std::cerr << "quantize_bench: " << e.what() << "\n";
    return 1;
  }
}
