// rnn_bench: time of the recurrent layers' forward pass (predict) and of a
// training step (forward + backprop through time) on a (32, 50, 32) batch,
// and of ConvLSTM2D on (8, 10, 16, 16, 4) frames.
//   rnn_bench [--reps N]    prints one line per layer and mode, milliseconds per call
// With --model, the training step of a whole network under fit (traced, Adam), on
// synthetic data, as bench/rnn_train.sh runs it beside Keras and PyTorch
// (bench/peers/rnn_peer.py builds the same networks):
//   rnn_bench --model language_id|language_id_mask|imdb [--steps N] [--device cuda]   one JSON line
//     (--device cuda: the network on CUDA device 0, as bench/run_gpu.sh runs it)
//     language_id:  Embedding(61, 32) -> Bidirectional(LSTM(128)) -> Dense(7, softmax), length 16, batch 128
//                   (_mask: mask_zero, words of 2 to 16 characters padded with zeros)
//     imdb:         Keras's bidirectional LSTM example: Embedding(20000, 128) -> Bidirectional(LSTM(64,
//                   return_sequences)) -> Bidirectional(LSTM(64)) -> Dense(1, sigmoid), length 200, batch 32
#include <kiln/kiln.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

namespace k = kiln;
namespace L = kiln::layers;

namespace {
/// Offers only step(), so RNN runs its generic step-by-step loop over `inner`
/// (the path a user-written cell takes): the fused op's baseline.
class StepOnly : public L::RNNCell {
 public:
  explicit StepOnly(std::shared_ptr<L::RNNCell> inner) : RNNCell(k::LayerOptions{"step_only"}), inner_(std::move(inner)) {
    track_layer(inner_);
  }
  std::vector<int64_t> state_size() const override { return inner_->state_size(); }
  std::vector<k::Tensor> initial_state(const k::Shape& step_input) override { return inner_->initial_state(step_input); }
  StepResult step(const k::Tensor& x, const std::vector<k::Tensor>& s, bool training) override {
    return inner_->step(x, s, training);
  }

 protected:
  void build(const k::Shape& s) override { inner_->build_for(s); }
  using Layer::build;

 private:
  std::shared_ptr<L::RNNCell> inner_;
};

double ms_per_call(const std::function<void()>& f, int reps) {
  f();  // builds the layer, warms the allocator
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / reps;
}

void bench(const std::string& label, k::LayerPtr layer, const k::Tensor& x, int reps) {
  const double fwd = ms_per_call([&] { (*layer)(x); }, reps);
  const double step = ms_per_call(
      [&] {
        k::GradientTape tape;
        k::Tensor loss = k::mean(k::square((*layer)(x, true)));
        auto g = tape.gradient(loss, layer->trainable_variables());
      },
      reps);
  std::printf("%-28s forward %8.2f ms   forward+backward %8.2f ms\n", label.c_str(), fwd, step);
}
struct TrainCase {
  int64_t vocabulary, length, batch, min_length;
  bool mask;
};

TrainCase train_case(const std::string& model) {
  if (model == "language_id") return {61, 16, 128, 16, false};
  if (model == "language_id_mask") return {61, 16, 128, 2, true};
  if (model == "imdb") return {20000, 200, 32, 200, false};
  throw k::ValueError("rnn_bench: unknown --model " + model);
}

k::Sequential train_model(const std::string& model, const TrainCase& c) {
  if (model == "imdb")
    return k::Sequential({L::Input({c.length}, {.dtype = k::DType::int64}), L::Embedding(c.vocabulary, 128),
                          L::Bidirectional(L::LSTM(64, {.return_sequences = true})), L::Bidirectional(L::LSTM(64)),
                          L::Dense(1, {.activation = "sigmoid"})});
  return k::Sequential({L::Input({c.length}, {.dtype = k::DType::int64}),
                        L::Embedding(c.vocabulary, 32, {.mask_zero = c.mask}), L::Bidirectional(L::LSTM(128)),
                        L::Dense(7, {.activation = "softmax"})});
}

/// Fits 2 untimed batches (tracing happens there), then `steps` timed ones; prints ms per step.
int train_bench(const std::string& model, int steps, bool gpu) {
  if (gpu && k::cuda::device_count() == 0) {
    std::printf("{\"impl\": \"kiln\", \"case\": \"%s\", \"skipped\": \"no CUDA device\"}\n", model.c_str());
    return 0;
  }
  const TrainCase c = train_case(model);
  const int64_t n = c.batch * steps;
  std::mt19937_64 rng(7);
  std::vector<int64_t> ids(static_cast<std::size_t>(n * c.length), 0);
  std::vector<float> labels(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t len = c.min_length + static_cast<int64_t>(rng() % static_cast<uint64_t>(c.length - c.min_length + 1));
    for (int64_t t = 0; t < len; ++t) ids[i * c.length + t] = 1 + static_cast<int64_t>(rng() % (c.vocabulary - 1));
    labels[i] = static_cast<float>(rng() % (model == "imdb" ? 2 : 7));
  }
  const k::Tensor x(ids, k::Shape{n, c.length});
  const k::Tensor y(labels, k::Shape{n, 1});
  k::Sequential net = train_model(model, c);
  if (gpu) net.to(k::Device::cuda(0));
  net.compile({.optimizer = "adam",
               .loss = model == "imdb" ? "binary_crossentropy" : "sparse_categorical_crossentropy"});
  const k::Tensor x_warm = x[{k::Slice(0, 2 * c.batch)}], y_warm = y[{k::Slice(0, 2 * c.batch)}];
  net.fit(x_warm, y_warm, {.batch_size = static_cast<int>(c.batch), .verbose = 0, .shuffle = false});
  if (gpu) k::cuda::synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  net.fit(x, y, {.batch_size = static_cast<int>(c.batch), .verbose = 0, .shuffle = false});
  if (gpu) k::cuda::synchronize();  // device work is asynchronous
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / steps;
  std::printf("{\"impl\": \"kiln\", \"case\": \"%s\", \"ms_per_step\": %.3f, \"steps\": %d, \"device\": \"%s\"}\n",
              model.c_str(), ms, steps, gpu ? k::cuda::device_name(0).c_str() : "cpu");
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  int reps = 10, steps = 30;
  std::string model;
  bool gpu = false;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--device") == 0) gpu = std::strcmp(argv[i + 1], "cuda") == 0;
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--steps") == 0) steps = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--model") == 0) model = argv[i + 1];
  }
  if (!model.empty()) return train_bench(model, steps, gpu);
  k::random::set_seed(1);
  const k::Tensor x = k::random::normal({32, 50, 32});
  std::printf("batch 32, 50 steps, 32 features, 64 units, %d calls each\n", reps);
  bench("SimpleRNN(64)", L::SimpleRNN(64).ptr(), x, reps);
  bench("LSTM(64)", L::LSTM(64).ptr(), x, reps);
  bench("GRU(64)", L::GRU(64).ptr(), x, reps);
  bench("LSTM(64, sequences)", L::LSTM(64, {.return_sequences = true}).ptr(), x, reps);
  bench("Bidirectional(LSTM(64))", L::Bidirectional(L::LSTM(64)).ptr(), x, reps);
  bench("step loop: SimpleRNNCell(64)", L::RNN(std::make_shared<StepOnly>(std::make_shared<L::SimpleRNNCellImpl>(64))).ptr(),
        x, reps);
  bench("step loop: LSTMCell(64)", L::RNN(std::make_shared<StepOnly>(std::make_shared<L::LSTMCellImpl>(64))).ptr(), x, reps);
  bench("step loop: GRUCell(64)", L::RNN(std::make_shared<StepOnly>(std::make_shared<L::GRUCellImpl>(64))).ptr(), x, reps);
  // ConvLSTM2D convolves every frame in one call before the loop; the step loop convolves frame by frame.
  const k::Tensor frames = k::random::normal({8, 10, 16, 16, 4});
  std::printf("batch 8, 10 frames of 16x16x4, 16 filters, 3x3 same\n");
  bench("ConvLSTM2D(16, 3)", L::ConvLSTM2D(16, 3, {.padding = "same"}).ptr(), frames, reps);
  bench("step loop: ConvLSTMCell", L::RNN(std::make_shared<StepOnly>(std::make_shared<L::ConvLSTMCellImpl<2>>(
                                              16, 3, L::ConvLSTMCellOptions<2>{.padding = "same"}))).ptr(),
        frames, reps);
  return 0;
}
