// int8 inference against float32 in Kiln: an MLP (784-512-512-10) and a
// transformer encoder block (sequence 128, width 256, 4 heads, feed-forward
// 1024), each timed on the same weights before and after model.quantize("int8"):
// a float32 model and its quantized copy are called in turn, so that a machine
// whose speed drifts during the run slows both alike.
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

double median(std::vector<double> ms) {
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

/// Median milliseconds per call of f and of g over reps calls each, called in turn after one warm-up call each.
template <class F, class G>
std::pair<double, double> alternating_ms(F&& f, G&& g, int reps) {
  f();
  g();
  std::vector<double> fs, gs;
  auto time = [](auto& call) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  for (int i = 0; i < reps; ++i) {
    fs.push_back(time(f));
    gs.push_back(time(g));
  }
  return {median(fs), median(gs)};
}

void line(const std::string& model, const std::string& dtype, int batch, double ms, double accuracy = -1) {
  std::cout << "{\"peer\": \"kiln\", \"model\": \"" << model << "\", \"dtype\": \"" << dtype << "\", \"batch\": " << batch
            << ", \"ms\": " << ms;
  if (accuracy >= 0) std::cout << ", \"accuracy\": " << accuracy;
  std::cout << "}" << std::endl;
}

/// A copy of model (built by make) with its weights, quantized to int8.
template <class Make>
std::shared_ptr<k::Model> quantized_copy(Make make, const k::Model& model) {
  auto copy = make();
  copy->set_weights(model.get_weights());
  copy->quantize("int8");
  return copy;
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
  const k::CompileOptions options{.optimizer = "adam",
                                  .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                                  .metrics = {"accuracy"}};
  model->compile(options);
  model->fit(x_train, train.y, {.batch_size = 128, .epochs = 5, .verbose = 0});
  auto quantized = quantized_copy(mlp, *model);
  quantized->compile(options);
  const k::Tensor x = x_test[{k::Slice(0, batch)}];
  const double float_accuracy = model->evaluate(x_test, test.y, {.verbose = 0})[1];
  const double int8_accuracy = quantized->evaluate(x_test, test.y, {.verbose = 0})[1];
  const auto [float_ms, int8_ms] = alternating_ms([&] { model->predict(x, {.batch_size = batch}); },
                                                  [&] { quantized->predict(x, {.batch_size = batch}); }, reps);
  line("mlp", "float32", batch, float_ms, float_accuracy);
  line("mlp", "int8", batch, int8_ms, int8_accuracy);
}

void bench_block(int reps, int batch) {
  k::random::set_seed(2);
  auto model = encoder_block();
  auto quantized = quantized_copy(encoder_block, *model);
  const k::Tensor x = k::random::normal({batch, 128, 256});
  const auto [float_ms, int8_ms] = alternating_ms([&] { model->predict(x, {.batch_size = batch}); },
                                                  [&] { quantized->predict(x, {.batch_size = batch}); }, reps);
  line("encoder_block", "float32", batch, float_ms);
  line("encoder_block", "int8", batch, int8_ms);
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
