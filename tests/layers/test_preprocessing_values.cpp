// CategoryEncoding, Discretization and IntegerLookup against values printed by
// Keras 3.15 (JAX backend; IntegerLookup's by its TensorFlow lookup tables,
// reasoned from keras/src/layers/preprocessing/index_lookup.py), and their errors.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "test_util.h"

namespace k = kiln;
namespace L = kiln::layers;
using kiln_test::check_values;

namespace {
k::Tensor ints(std::vector<int64_t> v, k::Shape s) { return k::Tensor(v, s); }

std::vector<float> float_data(int n, int mul, int mod, int shift, float div) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<float>((static_cast<int64_t>(i) * mul) % mod - shift) / div);
  return v;
}

void check_boundaries(const std::vector<float>& data, int64_t num_bins, double epsilon, const std::vector<double>& keras) {
  L::Discretization d({.num_bins = num_bins, .epsilon = epsilon});
  d->adapt(k::Tensor(data, k::Shape{static_cast<int64_t>(data.size())}));
  const auto got = d->bin_boundaries();
  REQUIRE(got.size() == keras.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == keras[i]);  // float32 values, exactly
}
}  // namespace

TEST_CASE("CategoryEncoding: one_hot, multi_hot, count (Keras values)") {
  const k::Tensor x = ints({0, 1, 1, 3, 2, 2, 5, 0}, {2, 4});
  check_values(L::CategoryEncoding(4, {.output_mode = "multi_hot"})(x), {1, 1, 0, 1, 1, 0, 1, 0});
  check_values(L::CategoryEncoding(4, {.output_mode = "count"})(x), {1, 2, 0, 1, 1, 0, 2, 0});
  // A last axis of 1 is replaced; 7 is outside [0, 4): zeros.
  k::Tensor oh = L::CategoryEncoding(4, {.output_mode = "one_hot"})(ints({1, 3, 7}, {3, 1}));
  CHECK(oh.shape() == k::Shape{3, 4});
  check_values(oh, {0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0});
  // Rank 1: the whole batch reduces to one vector; rank 3 reduces axis 1.
  check_values(L::CategoryEncoding(4)(ints({0, 2, 2}, {3})), {1, 0, 1, 0});
  k::Tensor r3 = L::CategoryEncoding(3, {.output_mode = "count"})(ints({0, 1, 1, 1, 2, 1}, {1, 3, 2}));
  CHECK(r3.shape() == k::Shape{1, 2, 3});
  check_values(r3, {1, 1, 1, 0, 3, 0});
  CHECK(L::CategoryEncoding(3)(ints({0, 1}, {1, 2})).dtype() == k::float32);
  CHECK(L::CategoryEncoding(4, {.output_mode = "binary"})->options().output_mode == "multi_hot");
  CHECK_THROWS_WITH_AS(L::CategoryEncoding(0), "CategoryEncoding: `num_tokens` must be >= 1. Received: num_tokens=0.",
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::CategoryEncoding(3, {.output_mode = "tf_idf"}), "CategoryEncoding: Unknown arg for output_mode: tf_idf",
                       k::ValueError);
  CHECK_THROWS_AS(L::CategoryEncoding(3, {.sparse = true}), k::ValueError);
  auto c = k::layers::serialize(*L::CategoryEncoding(5, {.output_mode = "count"}).ptr());
  CHECK(c["config"]["num_tokens"] == 5);
  CHECK(c["config"]["output_mode"] == "count");
}

TEST_CASE("Discretization: digitize and encodings (Keras values)") {
  const k::Tensor x({{-1.5f, 0.f, 0.5f, 2.f, 1.f}});
  k::Tensor y = L::Discretization({.bin_boundaries = std::vector<double>{0.0, 1.0}})(x);
  CHECK(y.dtype() == k::int32);
  check_values(y, {0, 1, 1, 2, 2});
  check_values(L::Discretization({.bin_boundaries = std::vector<double>{0.0, 1.0}, .output_mode = "count"})(x), {1, 2, 2});
  check_values(L::Discretization({.bin_boundaries = std::vector<double>{0.0, 1.0}, .output_mode = "multi_hot"})(x), {1, 1, 1});
  k::Tensor oh = L::Discretization({.bin_boundaries = std::vector<double>{0.0}, .output_mode = "one_hot"})(k::Tensor({-1.f, 3.f}));
  CHECK(oh.shape() == k::Shape{2, 2});
  check_values(oh, {1, 0, 0, 1});
  // Compared in float32, as Keras: 0.1f is in the upper bucket of the boundary 0.1.
  check_values(L::Discretization({.bin_boundaries = std::vector<double>{0.1}})(k::Tensor({0.1f})), {1});
  CHECK_THROWS_AS(L::Discretization(), k::ValueError);
  CHECK_THROWS_AS(L::Discretization({.bin_boundaries = std::vector<double>{0.0}, .num_bins = 2}), k::ValueError);
  CHECK_THROWS_AS(L::Discretization({.num_bins = 2, .output_mode = "tf_idf"}), k::ValueError);
  CHECK_THROWS_AS(L::Discretization({.num_bins = 2})(x), k::ValueError);  // neither adapted nor given boundaries
  CHECK_THROWS_AS(L::Discretization({.bin_boundaries = std::vector<double>{0.0}})->adapt(x), k::ValueError);
}

TEST_CASE("Discretization.adapt: Keras's quantile boundaries, float32 for float32") {
  const auto a = float_data(150, 37, 101, 50, 8.f);
  check_boundaries(a, 4, 0.01, {-3.3125011920928955, -0.12500111758708954, 3.062499523162842});
  check_boundaries(a, 3, 0.1, {-2.208333730697632, 2.041666269302368});
  check_boundaries(a, 7, 0.05,
                   {-4.608928680419922, -2.875000238418579, -1.0928571224212646, 0.6857137084007263, 2.4732141494750977,
                    4.233928203582764});
  std::vector<float> sq;
  for (int64_t i = 0; i < 150; ++i) sq.push_back(static_cast<float>((i * i) % 997) / 3.f);
  check_boundaries(sq, 5, 0.01, {45.33327865600586, 107.9998779296875, 174.6665802001953, 254.99996948242188});
  std::vector<float> sq2 = sq;
  sq2.insert(sq2.end(), sq.begin(), sq.begin() + 37);
  check_boundaries(sq2, 10, 0.001,
                   {11.566666603088379, 33.79999923706055, 66.46666717529297, 89.53333282470703, 129.8333282470703,
                    163.39999389648438, 208.3333282470703, 243.1999969482422, 285.0333251953125});
  // Fewer values than 1 / epsilon: the sorted values but the last.
  check_boundaries({3, 1, 2, 5, 4}, 10, 0.01, {1, 2, 3, 4});
  // The adapted config carries both num_bins and bin_boundaries, and loads back (Keras's from_config).
  L::Discretization d({.num_bins = 10});
  d->adapt(k::Tensor({3.f, 1.f, 2.f, 5.f, 4.f}));
  auto c = k::layers::serialize(*d.ptr());
  CHECK(c["config"]["bin_boundaries"] == nlohmann::json::parse("[1.0, 2.0, 3.0, 4.0]"));
  CHECK(c["config"]["num_bins"] == 10);
  CHECK_FALSE(c["config"].contains("trainable"));
  auto back = k::layers::from_config(c);
  check_values((*back)(k::Tensor({0.5f, 4.5f})), {0, 4});
}

// IntegerLookup: the outputs printed in Keras 3.15's docstrings and asserted by its
// integer_lookup_test.py (Keras runs this layer on TensorFlow's lookup tables only).
TEST_CASE("IntegerLookup: vocabulary, OOV indices, mask, invert (Keras's documented values)") {
  const std::vector<int64_t> vocab{12, 36, 1138, 42};
  k::Tensor y = L::IntegerLookup({.vocabulary = vocab})(ints({12, 1138, 42, 42, 1000, 36}, {2, 3}));
  CHECK(y.dtype() == k::int64);
  check_values(y, {1, 3, 4, 4, 0, 2});
  check_values(L::IntegerLookup({.num_oov_indices = 2, .vocabulary = vocab})(ints({12, 1138, 42, 37, 1000, 36}, {2, 3})),
               {2, 4, 5, 1, 0, 3});
  // floormod into the OOV indices: -3 mod 2 = 1.
  check_values(L::IntegerLookup({.num_oov_indices = 2, .vocabulary = vocab})(ints({-3, 7}, {2})), {1, 1});
  check_values(L::IntegerLookup({.mask_token = 0, .vocabulary = std::vector<int64_t>{1, 2, 3}})(ints({0, 1, 2, 3}, {4})),
               {0, 2, 3, 4});
  // The special tokens may lead the vocabulary, in order: they are not tokens then.
  L::IntegerLookup with_special({.mask_token = 0, .vocabulary = std::vector<int64_t>{0, -1, 5, 6}});
  check_values(with_special(ints({5, 6, 9}, {3})), {2, 3, 1});
  CHECK(with_special->get_vocabulary() == std::vector<int64_t>{0, -1, 5, 6});
  CHECK(with_special->get_vocabulary(false) == std::vector<int64_t>{5, 6});
  check_values(L::IntegerLookup({.vocabulary = vocab, .invert = true})(ints({1, 3, 4, 4, 0, 2}, {2, 3})),
               {12, 1138, 42, 42, -1, 36});
  check_values(L::IntegerLookup({.vocabulary = std::vector<int64_t>{10, 20, 30}, .invert = true})(ints({1, 2, 3, 0}, {4})),
               {10, 20, 30, -1});
  CHECK_THROWS_AS(L::IntegerLookup({.num_oov_indices = 0, .vocabulary = std::vector<int64_t>{1, 2, 3}})(ints({1, 4}, {2})),
                  k::InvalidArgumentError);
}

TEST_CASE("IntegerLookup: one_hot, multi_hot, count, tf_idf (Keras's documented values)") {
  const std::vector<int64_t> vocab{12, 36, 1138, 42};
  k::Tensor oh = L::IntegerLookup({.vocabulary = vocab, .output_mode = "one_hot"})(ints({12, 36, 1138, 42, 7}, {5}));
  CHECK(oh.shape() == k::Shape{5, 5});
  check_values(oh, {0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0});
  const k::Tensor data = ints({12, 1138, 42, 42, 42, 7, 36, 7}, {2, 4});
  check_values(L::IntegerLookup({.vocabulary = vocab, .output_mode = "multi_hot"})(data), {0, 1, 0, 1, 1, 1, 0, 1, 0, 1});
  check_values(L::IntegerLookup({.vocabulary = vocab, .output_mode = "count"})(data), {0, 1, 0, 1, 2, 2, 0, 1, 0, 1});
  // The OOV index's idf defaults to the mean of the given ones (0.5).
  k::Tensor tfidf = L::IntegerLookup({.vocabulary = vocab, .idf_weights = std::vector<double>{0.25, 0.75, 0.6, 0.4},
                                      .output_mode = "tf_idf"})(data);
  CHECK(tfidf.dtype() == k::float32);
  check_values(tfidf, {0, 0.25, 0, 0.6, 0.8, 1.0, 0, 0.75, 0, 0.4});
  check_values(L::IntegerLookup({.vocabulary = std::vector<int64_t>{-1, 12, 36, 1138, 42},
                                 .idf_weights = std::vector<double>{0.9, 0.25, 0.75, 0.6, 0.4}, .output_mode = "tf_idf"})(data),
               {0, 0.25, 0, 0.6, 0.8, 1.8, 0, 0.75, 0, 0.4});
  // Higher-rank one_hot keeps the input axes; pad_to_max_tokens widens to max_tokens.
  k::Tensor oh3 = L::IntegerLookup({.vocabulary = std::vector<int64_t>{1, 2, 3}, .output_mode = "one_hot"})(ints({1, 2, 3, 0}, {2, 2}));
  CHECK(oh3.shape() == k::Shape{2, 2, 4});
  check_values(oh3, {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0});
  L::IntegerLookup padded({.max_tokens = 5, .vocabulary = std::vector<int64_t>{1, 2}, .output_mode = "multi_hot",
                           .pad_to_max_tokens = true});
  check_values(padded(ints({1, 2}, {2})), {0, 1, 1, 0, 0});
}

TEST_CASE("IntegerLookup.adapt: by count then token, tf_idf weights (Keras's integer_lookup_test values)") {
  const k::Tensor adapt_data = ints({1, 1, 1, 2, 2, 3}, {6});
  L::IntegerLookup l;
  l->adapt(adapt_data);
  CHECK(l->get_vocabulary() == std::vector<int64_t>{-1, 1, 2, 3});
  check_values(l(ints({1, 2, 4, 2, 3, 5}, {2, 3})), {1, 2, 0, 2, 3, 0});
  L::IntegerLookup c({.output_mode = "count"});
  c->adapt(adapt_data);
  check_values(c(ints({1, 2, 3, 4, 1, 2, 1}, {7})), {1, 3, 2, 1});
  L::IntegerLookup t({.output_mode = "tf_idf"});
  t->adapt(adapt_data);  // idf = log(1 + 6 / (1 + df)); the OOV index takes their mean
  check_values(t(ints({1, 2, 4}, {3})), {1.133732, 0.916291, 1.098612, 0.0}, 1e-5);
  // Ties by decreasing token: 42 and 1138 twice, 1000, 36 and 12 once.
  L::IntegerLookup d;
  d->adapt(ints({12, 1138, 42, 42, 1000, 36}, {2, 3}));
  CHECK(d->get_vocabulary() == std::vector<int64_t>{-1, 42, 1138, 1000, 36, 12});
  check_values(d(ints({12, 1138, 42, 42, 1000, 36}, {2, 3})), {5, 2, 1, 1, 3, 4});
  L::IntegerLookup m({.max_tokens = 4});
  m->adapt(ints({1, 2, 3, 4, 5, 6, 1, 1, 2, 2}, {10}));
  CHECK(m->get_vocabulary() == std::vector<int64_t>{-1, 2, 1, 6});
  // As in Keras, the config carries no adapted vocabulary (a .keras file keeps it as an asset).
  CHECK(d->get_config()["vocabulary"].is_null());
  auto back = std::dynamic_pointer_cast<L::IntegerLookupImpl>(k::layers::from_config(k::layers::serialize(*d.ptr())));
  REQUIRE(back);
  back->set_vocabulary(d->get_vocabulary());
  check_values((*back)(ints({42, 12, 99}, {3})), {1, 5, 0});
  CHECK_THROWS_AS(L::IntegerLookup({.vocabulary = std::vector<int64_t>{1}})->adapt(adapt_data), k::ValueError);
}

TEST_CASE("IntegerLookup: Keras's argument errors") {
  CHECK_THROWS_WITH_AS(L::IntegerLookup({.max_tokens = 1}),
                       "If `max_tokens` is set for `IntegerLookup`, it must be greater than 1. Received: max_tokens=1",
                       k::ValueError);
  CHECK_THROWS_AS(L::IntegerLookup({.num_oov_indices = -1}), k::ValueError);
  CHECK_THROWS_AS(L::IntegerLookup({.vocabulary_dtype = "int32"}), k::ValueError);
  CHECK_THROWS_AS(L::IntegerLookup({.invert = true, .output_mode = "count"}), k::ValueError);
  CHECK_THROWS_AS(L::IntegerLookup({.vocabulary = std::vector<int64_t>{1}, .output_mode = "tf_idf"}), k::ValueError);
  CHECK_THROWS_AS(L::IntegerLookup({.vocabulary = std::vector<int64_t>{1, 2, 1}}), k::ValueError);
  CHECK_THROWS_AS(L::IntegerLookup({.mask_token = 0, .vocabulary = std::vector<int64_t>{1, 0}}), k::ValueError);
  CHECK_THROWS_AS(L::IntegerLookup({.max_tokens = 3, .vocabulary = std::vector<int64_t>{1, 2, 3}}), k::ValueError);
  CHECK_THROWS_AS(L::IntegerLookup({.oov_method = "fnv"}), k::ValueError);
  CHECK_THROWS_AS(L::IntegerLookup({.salt = std::vector<int64_t>{1, 2}}), k::ValueError);  // salt needs "farmhash"
  CHECK_THROWS_AS(L::IntegerLookup({.sparse = true}), k::ValueError);
  CHECK_THROWS_AS(L::IntegerLookup({.output_mode = "multi_hot"})(ints({1}, {1})), k::RuntimeError);
  CHECK(L::IntegerLookup({.output_mode = "binary"})->options().output_mode == "multi_hot");
}
