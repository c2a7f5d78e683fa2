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
