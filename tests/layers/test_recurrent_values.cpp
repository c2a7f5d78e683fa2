// Recurrent layers and masking: hand-computed values, Keras's masking rules,
// stateful carrying, initial and returned states, masked losses and metrics.
#include <doctest/doctest.h>

#include "kiln/core/error.h"
#include "kiln/layers.h"
#include "kiln/losses.h"
#include "kiln/nn/masking.h"
#include "kiln/ops/ops.h"
#include "kiln/training/model.h"
#include "kiln/training/sequential.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_recurrent_values {

namespace k = kiln;
namespace L = kiln::layers;

namespace {
void check_values(const k::Tensor& t, const std::vector<double>& expected, double eps = 1e-6) {
  auto got = t.to_vector<double>();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element ", i);
    CHECK(got[i] == doctest::Approx(expected[i]).epsilon(eps));
  }
}
/// A one-unit linear SimpleRNN: h_t = 0.5 x_t + 0.1 - h_{t-1}.
L::SimpleRNN linear_rnn(L::SimpleRNNOptions o) {
  o.activation = "linear";
  L::SimpleRNN r(1, o);
  r(k::zeros({1, 1, 1}));
  r->set_weights({k::Tensor({{0.5f}}), k::Tensor({{-1.f}}), k::Tensor({0.1f})});
  return r;
}
const k::Tensor seq123 = k::Tensor({{{1.f}, {2.f}, {3.f}}});
}  // namespace

TEST_CASE("SimpleRNN: hand-computed recurrence, go_backwards, initial state") {
  // h1 = 0.6, h2 = 1.1 - 0.6 = 0.5, h3 = 1.6 - 0.5 = 1.1
  check_values(linear_rnn({.return_sequences = true})(seq123), {0.6, 0.5, 1.1});
  check_values(linear_rnn({})(seq123), {1.1});
  // Reversed input 3, 2, 1: 1.6, -0.5, 1.1; the sequence comes out in processing order (Keras).
  check_values(linear_rnn({.return_sequences = true, .go_backwards = true})(seq123), {1.6, -0.5, 1.1});
  // h0 = 1: h1 = 0.6 - 1 = -0.4, h2 = 1.1 + 0.4 = 1.5, h3 = 1.6 - 1.5 = 0.1
  auto r = linear_rnn({.return_sequences = true, .return_state = true});
  std::vector<k::Tensor> out = r.call_multi({seq123, k::Tensor({{1.f}})});
  REQUIRE(out.size() == 2);
  check_values(out[0], {-0.4, 1.5, 0.1});
  check_values(out[1], {0.1});
}

TEST_CASE("masking: masked steps carry the state; output repeats it or is zero") {
  k::Tensor x = seq123;
  k::set_keras_mask(x, k::Tensor({{true, false, true}}));
  // Step 2 is skipped: h stays 0.6; h3 = 1.6 - 0.6 = 1.0.
  auto r = linear_rnn({.return_sequences = true});
  k::Tensor y = r(x);
  check_values(y, {0.6, 0.6, 1.0});
  check_values(k::get_keras_mask(y).cast(k::float32), {1, 0, 1});  // return_sequences passes the mask on
  check_values(linear_rnn({.return_sequences = true, .zero_output_for_mask = true})(x), {0.6, 0.0, 1.0});
  k::Tensor last = linear_rnn({})(x);
  check_values(last, {1.0});
  CHECK_FALSE(k::get_keras_mask(last).defined());  // no sequence, no mask
  // Leading padding: the output is the (zero) initial state until the first kept step.
  k::Tensor lead = seq123.clone();
  k::set_keras_mask(lead, k::Tensor({{false, true, true}}));
  check_values(linear_rnn({.return_sequences = true})(lead), {0.0, 1.1, 0.5});
}

TEST_CASE("masking: Embedding(mask_zero) and Masking attach Keras's masks; padded LSTM equals the short sequence") {
  L::Embedding e(5, 2, {.mask_zero = true});
  k::Tensor ids = k::Tensor({{3, 1, 0, 0}, {2, 0, 0, 0}});
  k::Tensor emb = e(ids);
  check_values(k::get_keras_mask(emb).cast(k::float32), {1, 1, 0, 0, 1, 0, 0, 0});
  CHECK_FALSE(k::get_keras_mask(L::Embedding(5, 2)(ids)).defined());

  L::Masking m({.mask_value = 0.0});
  k::Tensor xs = k::Tensor({{{1.f, 2.f}, {0.f, 0.f}, {0.f, 3.f}}});
  k::Tensor mo = m(xs);
  check_values(k::get_keras_mask(mo).cast(k::float32), {1, 0, 1});

  k::random::set_seed(7);
  L::LSTM lstm(3);
  k::Tensor a = k::random::normal({1, 2, 2});
  k::Tensor padded = k::concat({a, k::zeros({1, 3, 2})}, 1);
  k::Tensor short_out = lstm(a);
  k::Tensor padded_out = lstm(m(padded));
  check_values(padded_out, short_out.to_vector<double>(), 1e-6);
  // Without the mask the padding changes the result.
  CHECK(k::max(k::abs(lstm(padded) - short_out)).item<double>() > 1e-3);
  // A layer without masking support drops the mask (Keras warns and does the same).
  CHECK_FALSE(k::get_keras_mask(L::Flatten()(mo)).defined());
  CHECK(k::get_keras_mask(L::Dense(2)(mo)).defined());
}

TEST_CASE("LSTM: return_state, stateful carrying and reset_states") {
  k::random::set_seed(3);
  k::Tensor x = k::random::normal({2, 6, 3});
  L::LSTM full(4, {.return_state = true});
  std::vector<k::Tensor> o = full.call_multi({x});
  REQUIRE(o.size() == 3);
  check_values(o[0], o[1].to_vector<double>());  // the output is h
  CHECK(o[2].shape() == k::Shape{2, 4});

  L::LSTM st(4, {.stateful = true});
  st(x[{k::Slice(), k::Slice(0, 3)}]);
  st->set_weights(full->get_weights());
  st->reset_states();
  st(x[{k::Slice(), k::Slice(0, 3)}]);
  k::Tensor second = st(x[{k::Slice(), k::Slice(3, 6)}]);
  check_values(second, o[0].to_vector<double>(), 1e-5);  // two halves = one call
  st->reset_states();
  k::Tensor fresh = st(x[{k::Slice(), k::Slice(3, 6)}]);
  CHECK(k::max(k::abs(fresh - second)).item<double>() > 1e-4);
  CHECK_THROWS_AS(st(k::random::normal({3, 2, 3})), k::ValueError);  // another batch size
}

TEST_CASE("Bidirectional: initial_state gives each direction its half; mask= reaches both directions") {
  k::random::set_seed(4);
  const k::Tensor x = k::random::normal({2, 5, 3});
  const k::Tensor h = k::random::normal({2, 4}), c = k::random::normal({2, 4});
  L::Bidirectional bi(L::LSTM(4, {.return_sequences = true}), {.merge_mode = std::nullopt, .name = "bi_states"});
  const std::vector<k::Tensor> y = bi.call_multi({x}, {.initial_state = {h, c, c, h}});
  REQUIRE(y.size() == 2);
  // The same as a list call, and as each direction run alone from its states.
  const std::vector<k::Tensor> listed = bi.call_multi({x, h, c, c, h});
  check_values(y[0], listed[0].to_vector<double>());
  check_values(y[1], listed[1].to_vector<double>());
  check_values(y[0], (*bi->forward_layer())(std::vector<k::Tensor>{x, h, c}).at(0).to_vector<double>());
  const k::Tensor backward = (*bi->backward_layer())(std::vector<k::Tensor>{x, c, h}).at(0);
  check_values(y[1], k::gather(backward, k::Tensor(std::vector<int64_t>{4, 3, 2, 1, 0}, k::Shape{5}), 1).to_vector<double>());
  CHECK(k::max(k::abs(y[0] - bi.call_multi({x})[0])).item<double>() > 1e-4);  // the states were used
  CHECK_THROWS_WITH_AS(bi.call_multi({x}, {.initial_state = {h, c, c}}),
                       doctest::Contains("needs as many initial states for the backward layer as for the forward "
                                         "layer, but received 3 states"),
                       k::ValueError);

  const k::Tensor m = k::cast(k::Tensor({{1, 1, 1, 0, 0}, {1, 1, 1, 1, 0}}), k::bool_);
  k::Tensor attached = k::identity(x);
  k::set_keras_mask(attached, m);
  const std::vector<k::Tensor> by_attached = bi.call_multi({attached});
  const std::vector<k::Tensor> by_keyword = bi.call_multi({x}, {.mask = m});
  check_values(by_keyword[0], by_attached[0].to_vector<double>());
  check_values(by_keyword[1], by_attached[1].to_vector<double>());
  CHECK(k::max(k::abs(by_keyword[1] - bi.call_multi({x})[1])).item<double>() > 1e-4);
}

TEST_CASE("masked loss and metric: padded steps count for nothing") {
  k::Tensor logits = k::Tensor({{{2.f, 0.f}, {0.f, 1.f}, {5.f, -5.f}}});
  k::Tensor labels = k::Tensor({{0, 1, 1}});
  k::Tensor kept_logits = logits[{k::Slice(), k::Slice(0, 2)}];
  k::Tensor kept_labels = labels[{k::Slice(), k::Slice(0, 2)}];
  k::losses::SparseCategoricalCrossentropy scce({.from_logits = true});
  const double expected = scce(kept_labels, kept_logits).item<double>();
  k::Tensor masked = logits.clone();
  k::set_keras_mask(masked, k::Tensor({{true, true, false}}));
  CHECK(scce(labels, masked).item<double>() == doctest::Approx(expected).epsilon(1e-6));
  CHECK(scce(labels, logits).item<double>() > expected + 1.0);  // the last step is badly wrong
}

TEST_CASE("summary shows the wrappers with their output shapes and parameter counts") {
  k::Sequential model({L::Input({5, 3}), L::Bidirectional(L::LSTM(4, {.return_sequences = true})),
                       L::TimeDistributed(L::Dense(2))});
  const std::string s = model.summary_string();
  INFO(s);
  // tf.keras's table wraps long "name (type)" cells.
  CHECK(s.find(" bidirectional (Bidirectiona  (None, 5, 8)             256") != std::string::npos);
  CHECK(s.find(" time_distributed (TimeDistr  (None, 5, 2)             18") != std::string::npos);
  CHECK(s.find("(None, 5, 8)") != std::string::npos);
  CHECK(s.find("(None, 5, 2)") != std::string::npos);
  // LSTM(4) on 3 features: 4 gates x 4 units x (3 + 4 + 1) = 128 per direction; Dense(2) on 8: 18.
  CHECK(s.find("256") != std::string::npos);
  CHECK(model.count_params() == 256 + 18);
}

}  // namespace test_recurrent_values
