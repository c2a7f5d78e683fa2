// Linear regression with a GradientTape, after the TensorFlow guide "Basic
// training loops": fit y = W x + b to noisy samples of y = 3 x + 2.
//
// Each epoch prints the model and loss *before* that epoch's update (as Keras
// fit logs it), so epoch 0 shows the initial W=5.00 b=0.00. With seed 42:
//   Epoch  0: W=5.00 b=0.00, loss=10.54346
//   Epoch  1: W=4.47 b=0.41, loss=6.58206
//   ...
//   Epoch  9: W=3.15 b=1.78, loss=1.17398
//   Final:    W=3.12 b=1.84, loss=1.13790
// The guide prints the loss after each update: 6.58578, 4.21202, ..., 0.93857;
// its digits depend on its noise draw, but the curve is the same.
#include <cstdio>
#include <vector>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/ops/ops.h"
#include "kiln/core/tensor.h"
#include "kiln/autodiff/variable.h"

namespace k = kiln;

int main() {
  constexpr double TRUE_W = 3.0;
  constexpr double TRUE_B = 2.0;
  constexpr int64_t NUM_EXAMPLES = 201;
  constexpr double learning_rate = 0.1;
  constexpr int epochs = 10;

  k::random::set_seed(42);
  // float32 inputs, as tf.cast(tf.linspace(-2, 2, 201), tf.float32) in the guide.
  k::Tensor x = k::linspace(-2, 2, NUM_EXAMPLES);
  k::Tensor noise = k::random::normal({NUM_EXAMPLES});
  k::Tensor y = x * TRUE_W + TRUE_B + noise;

  // The model: two trainable scalars, watched automatically by the tape.
  k::Variable W(k::Tensor(5.0f), {.name = "W"});
  k::Variable b(k::Tensor(0.0f), {.name = "b"});
  auto model = [&](const k::Tensor& inputs) { return W * inputs + b; };
  auto loss = [](const k::Tensor& target_y, const k::Tensor& predicted_y) {
    return k::mean(k::square(target_y - predicted_y));
  };
  auto value = [](const k::Variable& v) { return v.read_value_untracked().item<float>(); };

  for (int epoch = 0; epoch < epochs; ++epoch) {
    k::GradientTape tape;
    k::Tensor current_loss = loss(y, model(x));
    auto grads = tape.gradient(current_loss, std::vector<k::Variable>{W, b});
    std::printf("Epoch %2d: W=%.2f b=%.2f, loss=%.5f\n", epoch, value(W), value(b), current_loss.item<float>());
    W.assign_sub(learning_rate * *grads[0]);
    b.assign_sub(learning_rate * *grads[1]);
  }
  std::printf("Final:    W=%.2f b=%.2f, loss=%.5f\n", value(W), value(b), loss(y, model(x)).item<float>());
  return 0;
}
