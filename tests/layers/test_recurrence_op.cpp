// The fused recurrence op (kiln/ops/recurrent_ops.h) against the step-by-step
// loop over the same cell, and its hand-written backprop through time against
// central differences, with masks (leading, middle and trailing padding) under
// both of Keras's rules for masked outputs.
#include <doctest/doctest.h>

#include "kiln/autodiff/gradient_check.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/layers.h"
#include "kiln/nn/masking.h"
#include "kiln/ops/ops.h"

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
}  // namespace

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
