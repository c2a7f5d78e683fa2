// The attention layers' call options and masks: causal masks, value and query
// masks, attention scores and explicit attention masks, with values worked by
// hand or invariances the masks promise (a masked position's value cannot
// change the output).
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/layers.h"
#include "kiln/nn/masking.h"
#include "kiln/ops/ops.h"

namespace k = kiln;
namespace L = kiln::layers;

namespace {
k::Tensor t3(std::initializer_list<double> v, k::Shape s) { return k::reshape(k::Tensor(v, k::float64), s); }
k::Tensor mask(std::initializer_list<int> v, k::Shape s) { return k::reshape(k::cast(k::Tensor(v), k::bool_), s); }

void close(const k::Tensor& a, const k::Tensor& b, double tol = 1e-12) {
  auto x = a.to_vector<double>(), y = b.to_vector<double>();
  REQUIRE(x.size() == y.size());
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(x[i] == doctest::Approx(y[i]).epsilon(tol).scale(1.0));
}
}  // namespace

TEST_CASE("Attention: the causal mask, worked by hand") {
  // One batch, T = 2, dim = 1: query = key = value = [[1], [2]].
  k::Tensor x = t3({1, 2}, {1, 2, 1});
  L::Attention att({.dtype = k::float64});
  auto [out, w] = att->attend({x, x}, {.return_attention_scores = true, .use_causal_mask = true});
  // Row 0 sees only position 0; row 1 weights exp(2·1) and exp(2·2).
  const double w10 = std::exp(2.0) / (std::exp(2.0) + std::exp(4.0));
  close(w, t3({1, 0, w10, 1 - w10}, {1, 2, 2}));
  close(out, t3({1, w10 * 1 + (1 - w10) * 2}, {1, 2, 1}));
  // Without the mask row 0 attends to both.
  auto [out2, w2] = att->attend({x, x}, {.return_attention_scores = true});
  const double w01 = std::exp(2.0) / (std::exp(1.0) + std::exp(2.0));
  close(w2, t3({1 - w01, w01, w10, 1 - w10}, {1, 2, 2}));
}

TEST_CASE("Attention and AdditiveAttention: masked values get no weight, masked queries give 0") {
  for (bool additive : {false, true}) {
    INFO((additive ? "AdditiveAttention" : "Attention"));
    k::Tensor q = k::random::normal({2, 3, 4}, 0, 1, k::float64, 1);
    k::Tensor v = k::random::normal({2, 5, 4}, 0, 1, k::float64, 2);
    k::Tensor v2 = k::concat({k::slice(v, {k::Slice(), k::Slice(0, 3)}), k::random::normal({2, 2, 4}, 0, 1, k::float64, 3)}, 1);
    k::Tensor vmask = mask({1, 1, 1, 0, 0, 1, 1, 1, 0, 0}, {2, 5});
    k::Tensor qmask = mask({1, 0, 1, 1, 1, 0}, {2, 3});
    k::LayerPtr layer = additive ? k::LayerPtr(L::AdditiveAttention({.dtype = k::float64}).ptr())
                                 : k::LayerPtr(L::Attention({.dtype = k::float64}).ptr());
    auto* att = dynamic_cast<L::AttentionImpl*>(layer.get());
    k::set_keras_mask(q, qmask);
    k::set_keras_mask(v, vmask);
    k::set_keras_mask(v2, vmask);
    auto [a, wa] = att->attend({q, v}, {.return_attention_scores = true});
    auto [b, wb] = att->attend({q, v2}, {.return_attention_scores = true});
    close(a, b);  // the last two (masked) steps of value differ
    auto w = wa.to_vector<double>();
    for (int bi = 0; bi < 2; ++bi)
      for (int i = 0; i < 3; ++i) {
        double row = 0;
        for (int j = 0; j < 5; ++j) row += w[static_cast<std::size_t>((bi * 3 + i) * 5 + j)];
        CHECK(row == doctest::Approx(1.0));
        CHECK(w[static_cast<std::size_t>((bi * 3 + i) * 5 + 3)] == 0.0);
        CHECK(w[static_cast<std::size_t>((bi * 3 + i) * 5 + 4)] == 0.0);
      }
    auto o = a.to_vector<double>();
    for (int d = 0; d < 4; ++d) {
      CHECK(o[static_cast<std::size_t>(1 * 4 + d)] == 0.0);        // batch 0, query 1 is masked
      CHECK(o[static_cast<std::size_t>((3 + 2) * 4 + d)] == 0.0);  // batch 1, query 2 is masked
    }
    // Called as a layer, the output carries the query's mask.
    k::Tensor y = (*layer)(std::vector<k::Tensor>{q, v})[0];
    CHECK(k::get_keras_mask(y).to_vector<bool>() == qmask.to_vector<bool>());
  }
}

TEST_CASE("MultiHeadAttention: causal scores, explicit masks and key masks") {
  L::MultiHeadAttention mha(2, 3, {.dtype = k::float64});
  k::Tensor x = k::random::normal({2, 4, 5}, 0, 1, k::float64, 7);
  auto [y, s] = mha->attend(x, x, {.return_attention_scores = true, .use_causal_mask = true});
  CHECK(s.shape() == k::Shape({2, 2, 4, 4}));
  auto w = s.to_vector<double>();
  for (int r = 0; r < 2 * 2 * 4; ++r) {
    const int i = r % 4;
    double row = 0;
    for (int j = 0; j < 4; ++j) {
      const double wij = w[static_cast<std::size_t>(r * 4 + j)];
      row += wij;
      if (j > i) CHECK(wij == 0.0);
    }
    CHECK(row == doctest::Approx(1.0));
  }
  // The causal mask given explicitly as attention_mask gives the same result.
  k::Tensor lower = mask({1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1}, {1, 4, 4});
  close(mha->attend(x, x, {.attention_mask = lower}).first, y);
  // Causality: changing step 3 leaves steps 0..2 unchanged.
  k::Tensor x2 = k::concat({k::slice(x, {k::Slice(), k::Slice(0, 3)}), k::random::normal({2, 1, 5}, 0, 1, k::float64, 8)}, 1);
  k::Tensor y2 = mha->attend(x2, x2, {.use_causal_mask = true}).first;
  close(k::slice(y2, {k::Slice(), k::Slice(0, 3)}), k::slice(y, {k::Slice(), k::Slice(0, 3)}));
  // A masked key step: its key and value cannot matter.
  k::Tensor key = k::random::normal({2, 4, 5}, 0, 1, k::float64, 9);
  k::Tensor key2 = k::concat({k::slice(key, {k::Slice(), k::Slice(0, 2)}), k::random::normal({2, 2, 5}, 0, 1, k::float64, 10)}, 1);
  k::Tensor kmask = mask({1, 1, 0, 0, 1, 1, 0, 0}, {2, 4});
  k::set_keras_mask(key, kmask);
  k::set_keras_mask(key2, kmask);
  close(mha->attend(x, x, {.key = key}).first, mha->attend(x, x, {.key = key2}).first);
  CHECK(k::get_keras_mask(key).defined());  // the caller's masks are left in place
}

TEST_CASE("MultiHeadAttention and GroupedQueryAttention: the mask keywords act as the masks attached to the inputs") {
  k::Tensor q = k::random::normal({2, 3, 4}, 0, 1, k::float64, 11), v = k::random::normal({2, 4, 4}, 0, 1, k::float64, 12);
  k::Tensor qmask = mask({1, 1, 0, 1, 0, 0}, {2, 3}), vmask = mask({1, 0, 1, 1, 1, 1, 0, 0}, {2, 4});
  k::Tensor q_attached = k::identity(q), v_attached = k::identity(v);
  k::set_keras_mask(q_attached, qmask);
  k::set_keras_mask(v_attached, vmask);
  L::MultiHeadAttention mha(2, 3, {.dtype = k::float64});
  L::GroupedQueryAttention gqa(2, 2, 1, {.dtype = k::float64});
  for (k::Layer* layer : {static_cast<k::Layer*>(mha.get()), static_cast<k::Layer*>(gqa.get())}) {
    CAPTURE(layer->class_name());
    const k::Tensor attached = (*layer)(std::vector<k::Tensor>{q_attached, v_attached}).at(0);
    const k::Tensor given = (*layer)(std::vector<k::Tensor>{q, v}, k::CallOptions{.query_mask = qmask, .value_mask = vmask}).at(0);
    close(given, attached);
    // The key defaults to the value; a key_mask on it masks the same steps.
    close((*layer)(std::vector<k::Tensor>{q, v}, k::CallOptions{.query_mask = qmask, .key_mask = vmask}).at(0), attached);
    // Without the masks the result differs: they were not ignored.
    CHECK(k::max(k::abs((*layer)(std::vector<k::Tensor>{q, v}).at(0) - attached)).item<double>() > 1e-3);
    CHECK_THROWS_WITH_AS((*layer)(std::vector<k::Tensor>{q, v}, k::CallOptions{.value_mask = qmask}),
                         doctest::Contains("the call keyword value_mask must have shape (2, 4) (batch, steps of its "
                                           "input), but received (2, 3)"),
                         k::ValueError);
  }
}

TEST_CASE("MultiHeadAttention: errors name the layer and the shapes") {
  L::MultiHeadAttention mha(2, 3);
  k::Tensor q = k::ones({2, 4, 5}), v = k::ones({2, 3, 5}), key = k::ones({2, 2, 5});
  CHECK_THROWS_WITH_AS(mha(std::vector<k::Tensor>{q, v, key}),
                       doctest::Contains("All dimensions of `value` and `key`, except the last one, must be equal. "
                                         "Received: value_shape=(2, 3, 5) and key_shape=(2, 2, 5)"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::MultiHeadAttention(0, 3), doctest::Contains("num_heads=0"), k::ValueError);
  CHECK_THROWS_WITH_AS(L::Attention({.score_mode = "cosine"}), doctest::Contains("Received: score_mode=cosine"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::EinsumDense("ab->b", {3}), doctest::Contains("Invalid einsum equation 'ab->b'"), k::ValueError);
}

TEST_CASE("GroupedQueryAttention: query heads of one group share their key/value head") {
  // With one key/value head and identical query projections per head, every
  // query head computes the same weights.
  L::GroupedQueryAttention gqa(2, 4, 1, {.dtype = k::float64});
  k::Tensor x = k::random::normal({2, 3, 5}, 0, 1, k::float64, 11);
  (void)gqa({x, x});
  k::Variable qk = gqa->weights()[0];  // query kernel (5, 4, 2)
  k::Tensor one = k::random::normal({5, 1, 2}, 0, 1, k::float64, 12);
  qk.assign(k::broadcast_to(one, {5, 4, 2}));
  k::Variable qb = gqa->weights()[1];  // query bias (4, 2)
  qb.assign(k::zeros({4, 2}, k::float64));
  auto [y, s] = gqa->attend(x, x, {.return_attention_scores = true, .use_causal_mask = true});
  CHECK(s.shape() == k::Shape({2, 4, 3, 3}));
  for (int h = 1; h < 4; ++h)
    close(k::slice(s, {k::Slice(), k::Slice(h, h + 1)}), k::slice(s, {k::Slice(), k::Slice(0, 1)}));
  auto w = s.to_vector<double>();
  CHECK(w[1] == 0.0);  // batch 0, head 0, query 0 cannot see key 1
  CHECK_THROWS_WITH_AS(L::GroupedQueryAttention(2, 3, 2), doctest::Contains("must be divisible"), k::ValueError);
}
