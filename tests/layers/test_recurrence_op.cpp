// The fused recurrence op (kiln/ops/recurrent_ops.h) against the step-by-step
// loop over the same cell, and its hand-written backprop through time against
// central differences, with masks (leading, middle and trailing padding) under
// both of Keras's rules for masked outputs.
#include <doctest/doctest.h>

#include "kiln/autodiff/gradient_check.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/backend/cpu_kernels.h"
#include "kiln/layers.h"
#include "kiln/nn/masking.h"
#include "kiln/ops/ops.h"
#include "kiln/ops/recurrent_ops.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_recurrence_op {

namespace k = kiln;
namespace L = kiln::layers;

namespace {
/// A cell that only offers step(), so RNN runs its step-by-step loop over `inner`.
class StepOnly : public L::RNNCell {
 public:
  explicit StepOnly(std::shared_ptr<L::RNNCell> inner)
      : RNNCell(k::LayerOptions{"step_only", true, inner->dtype()}), inner_(std::move(inner)) {
    track_layer(inner_);
  }
  std::vector<int64_t> state_size() const override { return inner_->state_size(); }
  StepResult step(const k::Tensor& x, const std::vector<k::Tensor>& s, bool training) override {
    return inner_->step(x, s, training);
  }

 protected:
  void build(const k::Shape& s) override { inner_->build_for(s); }
  using Layer::build;

 private:
  std::shared_ptr<L::RNNCell> inner_;
};

double max_diff(const k::Tensor& a, const k::Tensor& b) { return k::max(k::abs(a - b)).item<double>(); }

void compare_paths(const std::string& label, const std::shared_ptr<L::RNNCell>& cell, L::RNNOptions o) {
  INFO(label);
  k::random::set_seed(21);
  k::Tensor x = k::random::normal({3, 6, 2}, 0.0, 1.0, k::float64);
  const k::Tensor mask({{false, true, true, false, true, true}, {true, true, true, true, false, false},
                        {true, true, true, true, true, true}});
  o.dtype = k::float64;
  L::RNN fused(cell, o);
  L::RNN looped(std::make_shared<StepOnly>(cell), o);
  auto run = [&](L::RNN& r, const k::Tensor& in) {
    k::Tensor xm = in;
    k::set_keras_mask(xm, mask);
    return r(xm);
  };
  run(fused, x);
  run(looped, x);
  k::GradientTape tape({.persistent = true});
  tape.watch(x);
  k::Tensor yf = run(fused, x), yl = run(looped, x);
  CHECK(max_diff(yf, yl) < 1e-12);
  const k::Tensor cot = k::random::normal(yf.shape(), 0.0, 1.0, k::float64);
  k::Tensor lf = k::sum(yf * cot), ll = k::sum(yl * cot);
  CHECK(max_diff(*tape.gradient(lf, x), *tape.gradient(ll, x)) < 1e-10);
  auto vars = cell->trainable_variables();
  auto gf = tape.gradient(lf, vars), gl = tape.gradient(ll, vars);
  for (std::size_t i = 0; i < vars.size(); ++i) CHECK_MESSAGE(max_diff(*gf[i], *gl[i]) < 1e-10, vars[i].path());
  auto r = k::check_gradients([&](const std::vector<k::Tensor>& in) { return run(fused, in[0]); }, {x});
  CHECK_MESSAGE(r.ok, r.report);
  auto rw = k::check_gradients([&]() { return run(fused, x); }, vars);
  CHECK_MESSAGE(rw.ok, rw.report);
}
/// float32 runs the kernel's 8-lane activations (and, with 11 units, the one-by-one tail after them).
void compare_float32(const std::string& label, const std::shared_ptr<L::RNNCell>& cell, L::RNNOptions o) {
  INFO(label);
  k::random::set_seed(5);
  k::Tensor x = k::random::normal({9, 7, 4});
  const k::Tensor mask = k::random::uniform({9, 7}) > 0.25;
  L::RNN fused(cell, o);
  L::RNN looped(std::make_shared<StepOnly>(cell), o);
  auto run = [&](L::RNN& r) {
    k::Tensor xm = x;
    k::set_keras_mask(xm, mask);
    return r(xm, true);
  };
  run(fused);
  k::GradientTape tape({.persistent = true});
  tape.watch(x);
  k::Tensor yf = run(fused), yl = run(looped);
  CHECK(max_diff(yf, yl) < 2e-6);
  const k::Tensor cot = k::random::normal(yf.shape());
  k::Tensor lf = k::sum(yf * cot), ll = k::sum(yl * cot);
  CHECK(max_diff(*tape.gradient(lf, x), *tape.gradient(ll, x)) < 2e-5);
  auto vars = cell->trainable_variables();
  auto gf = tape.gradient(lf, vars), gl = tape.gradient(ll, vars);
  for (std::size_t i = 0; i < vars.size(); ++i)
    CHECK_MESSAGE(max_diff(*gf[i], *gl[i]) < 1e-4 * (1.0 + k::max(k::abs(*gl[i])).item<double>()), vars[i].path());
}

/// The op itself, every input checked (initial states and GRU's recurrent bias included) and every output
/// weighed (the final states too), on a random mask or none.
void check_op(const std::string& label, const k::RecurrenceOptions& o, int64_t gates, bool bias, bool masked) {
  INFO(label << (masked ? " masked" : "") << (o.zero_output_for_mask ? " zero output" : ""));
  k::random::set_seed(8);
  const int64_t b = 3, t = 5, u = 3;
  const std::size_t n_states = o.kind == k::RecurrentKind::lstm ? 2 : 1;
  std::vector<k::Tensor> in{k::random::normal({b, t, gates * u}, 0.0, 0.7, k::float64),
                            k::random::normal({u, gates * u}, 0.0, 0.5, k::float64)};
  if (bias) in.push_back(k::random::normal({gates * u}, 0.0, 0.3, k::float64));
  for (std::size_t i = 0; i < n_states; ++i) in.push_back(k::random::normal({b, u}, 0.0, 0.5, k::float64));
  const k::Tensor mask =
      masked ? k::Tensor({{true, false, true, true, false}, {false, false, true, true, true}, {true, true, true, true, false}})
             : k::Tensor();
  std::vector<k::Tensor> weights;
  for (std::size_t i = 0; i <= n_states; ++i)
    weights.push_back(k::random::normal(i == 0 ? k::Shape{b, t, u} : k::Shape{b, u}, 0.0, 1.0, k::float64));
  auto f = [&](const std::vector<k::Tensor>& x) {
    const std::size_t s0 = bias ? 3 : 2;
    std::vector<k::Tensor> outs = k::recurrence(x[0], x[1], bias ? x[2] : k::Tensor(),
                                                std::vector<k::Tensor>(x.begin() + s0, x.end()), mask, o);
    k::Tensor total = k::sum(outs[0] * weights[0]);
    for (std::size_t i = 1; i < outs.size(); ++i) total = total + k::sum(outs[i] * weights[i]);
    return total;
  };
  auto r = k::check_gradients(f, in);
  CHECK_MESSAGE(r.ok, r.report);
}
}  // namespace

TEST_CASE("fused recurrence op: its gradient for every input matches finite differences, with and without a mask") {
  using K = k::RecurrentKind;
  for (bool zero : {false, true})
    for (bool masked : {false, true}) {
      check_op("LSTM", {.kind = K::lstm, .zero_output_for_mask = zero}, 4, false, masked);
      check_op("LSTM hard_sigmoid",
               {.kind = K::lstm, .recurrent_activation = "hard_sigmoid", .zero_output_for_mask = zero}, 4, false, masked);
      check_op("GRU", {.kind = K::gru, .zero_output_for_mask = zero}, 3, true, masked);
      check_op("GRU without bias", {.kind = K::gru, .zero_output_for_mask = zero}, 3, false, masked);
      check_op("GRU reset before", {.kind = K::gru, .reset_after = false, .zero_output_for_mask = zero}, 3, false,
               masked);
      check_op("SimpleRNN", {.kind = K::simple_rnn, .zero_output_for_mask = zero}, 1, false, masked);
    }
}

TEST_CASE("fused recurrence kernels agree with the reference kernels' composed loop") {
  using K = k::RecurrentKind;
  k::random::set_seed(3);
  const k::Tensor mask = k::random::uniform({6, 9}) > 0.3;
  for (const k::RecurrenceOptions& o :
       {k::RecurrenceOptions{.kind = K::lstm}, k::RecurrenceOptions{.kind = K::gru},
        k::RecurrenceOptions{.kind = K::gru, .reset_after = false, .zero_output_for_mask = true},
        k::RecurrenceOptions{.kind = K::simple_rnn}}) {
    const int64_t g = o.kind == K::lstm ? 4 : o.kind == K::gru ? 3 : 1, u = 12;
    std::vector<k::Tensor> in{k::random::normal({6, 9, g * u}), k::random::normal({u, g * u}, 0.0, 0.3)};
    const k::Tensor bias = o.kind == K::gru && o.reset_after ? k::random::normal({g * u}) : k::Tensor();
    std::vector<k::Tensor> states{k::random::normal({6, u})};
    if (o.kind == K::lstm) states.push_back(k::random::normal({6, u}));
    auto run = [&](k::CpuKernels kernels) {
      k::set_cpu_kernels(kernels);
      k::GradientTape tape({.persistent = true});
      for (auto& t : in) tape.watch(t);
      for (auto& t : states) tape.watch(t);
      std::vector<k::Tensor> outs = k::recurrence(in[0], in[1], bias, states, mask, o);
      k::Tensor loss = k::sum(k::square(outs[0])) + k::sum(outs.back());
      std::vector<k::Tensor> r = outs;
      for (auto& t : in) r.push_back(*tape.gradient(loss, t));
      for (auto& t : states) r.push_back(*tape.gradient(loss, t));
      k::set_cpu_kernels(k::CpuKernels::fast);
      return r;
    };
    const std::vector<k::Tensor> fast = run(k::CpuKernels::fast), ref = run(k::CpuKernels::reference);
    for (std::size_t i = 0; i < fast.size(); ++i)
      CHECK_MESSAGE(max_diff(fast[i], ref[i]) < 1e-4 * (1.0 + k::max(k::abs(ref[i])).item<double>()),
                    "kind " << static_cast<int>(o.kind) << ", tensor " << i);
  }
}

TEST_CASE("fused recurrence in float32 equals the step loop, masked, forwards and backwards") {
  using O = L::RNNOptions;
  for (const O& o : {O{.return_sequences = true}, O{.return_sequences = true, .go_backwards = true}, O{}}) {
    compare_float32("LSTM", std::make_shared<L::LSTMCellImpl>(11), o);
    compare_float32("LSTM 16", std::make_shared<L::LSTMCellImpl>(16), o);
    compare_float32("GRU", std::make_shared<L::GRUCellImpl>(11), o);
    compare_float32("GRU reset before", std::make_shared<L::GRUCellImpl>(11, L::GRUCellOptions{.reset_after = false}), o);
    compare_float32("SimpleRNN", std::make_shared<L::SimpleRNNCellImpl>(11), o);
  }
}

TEST_CASE("fused recurrence equals the step loop and its BPTT matches finite differences, with masks") {
  using O = L::RNNOptions;
  for (const O& o : {O{.return_sequences = true}, O{.return_sequences = true, .go_backwards = true},
                     O{.return_sequences = true, .zero_output_for_mask = true}, O{}}) {
    const std::string how = std::string(o.go_backwards ? " backwards" : "") + (o.zero_output_for_mask ? " zero output" : "") +
                            (o.return_sequences ? " sequences" : " last");
    compare_paths("LSTM" + how, std::make_shared<L::LSTMCellImpl>(3, L::LSTMCellOptions{.dtype = k::float64}), o);
    compare_paths("GRU" + how, std::make_shared<L::GRUCellImpl>(3, L::GRUCellOptions{.dtype = k::float64}), o);
    compare_paths("GRU reset before" + how,
                  std::make_shared<L::GRUCellImpl>(2, L::GRUCellOptions{.reset_after = false, .dtype = k::float64}), o);
    compare_paths("SimpleRNN relu" + how,
                  std::make_shared<L::SimpleRNNCellImpl>(3, L::SimpleRNNCellOptions{.activation = "relu", .dtype = k::float64}),
                  o);
    compare_paths("LSTM hard_sigmoid" + how,
                  std::make_shared<L::LSTMCellImpl>(
                      2, L::LSTMCellOptions{.recurrent_activation = "hard_sigmoid", .use_bias = false, .dtype = k::float64}),
                  o);
  }
}

}  // namespace test_recurrence_op
