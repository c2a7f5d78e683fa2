// rnn_bench: time of the recurrent layers' forward pass (predict) and of a
// training step (forward + backprop through time) on a (32, 50, 32) batch,
// and of ConvLSTM2D on (8, 10, 16, 16, 4) frames.
//   rnn_bench [--reps N]    prints one line per layer and mode, milliseconds per call
#include <kiln/kiln.h>

#include <chrono>
#include <cstdio>
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
}  // namespace

int main(int argc, char** argv) {
  int reps = 10;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
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
