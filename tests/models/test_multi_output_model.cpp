// kiln::MultiOutputModel<N>: every output from one call, the count in the type
// (deduced from the braced output list), the training flag passed through,
// nesting in a functional model, a save and load round trip with the count
// checked where the loaded model becomes typed, and several inputs.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "temp_dir.h"
#include "test_util.h"

namespace test_multi_output_model {

namespace k = kiln;
namespace L = kiln::layers;

namespace {

float max_abs_diff(const k::Tensor& a, const k::Tensor& b) { return k::max(k::abs(a - b)).item<float>(); }

}  // namespace

TEST_CASE("MultiOutputModel: one call returns every output; the count is deduced and checked at compile time") {
  k::clear_session();
  k::random::set_seed(3);
  k::Tensor in = L::Input({4});
  k::Tensor hidden = L::Dense(3, {.name = "hidden"})(in);
  k::Tensor head = L::Dense(2, {.name = "head"})(hidden);
  k::Tensor dropped = L::Dropout(0.5)(head);
  k::MultiOutputModel model(in, {hidden, head, dropped}, {.name = "three"});
  static_assert(std::is_same_v<decltype(model), k::MultiOutputModel<3>>);
  static_assert(std::tuple_size_v<decltype(model(in))> == 3);
  static_assert(!std::is_convertible_v<decltype(model(in)), k::Tensor>);

  const k::Tensor x = k::random::normal({5, 4});
  auto [h, y, d] = model(x);
  CHECK(h.shape() == k::Shape{5, 3});
  CHECK(y.shape() == k::Shape{5, 2});
  CHECK(max_abs_diff(y, model->get_layer("head")->operator()(h)) < 1e-6f);
  CHECK(max_abs_diff(d, y) == 0.0f);  // inference: Dropout passes through
  // training = true reaches the Dropout: some of its outputs are 0, the rest doubled.
  const auto [h2, y2, d2] = model(x, true);
  const auto dv = d2.to_vector<float>(), yv = y2.to_vector<float>();
  int zeros = 0;
  for (std::size_t i = 0; i < dv.size(); ++i) {
    if (dv[i] == 0.0f) ++zeros;
    else CHECK(dv[i] == doctest::Approx(2 * yv[i]).epsilon(1e-5));
  }
  CHECK(zeros > 0);
  CHECK(zeros < static_cast<int>(dv.size()));
  CHECK(model->count_params() == (4 * 3 + 3) + (3 * 2 + 2));
}

TEST_CASE("MultiOutputModel: nested in a functional model, saved, loaded and typed again") {
  k::clear_session();
  k::random::set_seed(4);
  k::Tensor in = L::Input({4}, {.name = "features"});
  k::Tensor a = L::Dense(2, {.name = "a"})(in);
  k::Tensor b = L::Dense(2, {.name = "b"})(in);
  const k::MultiOutputModel<2> pair(in, {a, b}, {.name = "pair"});

  // Symbolic call: both outputs are graph tensors of the outer model.
  k::Tensor outer_in = L::Input({4});
  auto [p, q] = pair(outer_in);
  k::Model outer(outer_in, L::Subtract()({p, q}), {.name = "outer"});
  const k::Tensor x = k::random::normal({3, 4});
  const auto [ya, yb] = pair(x);
  CHECK(max_abs_diff(outer(x), ya - yb) < 1e-6f);
  CHECK(outer.get_layer("pair") != nullptr);

  kiln_test::TempDir dir("kiln_multi_output");
  const std::string path = (dir.path / "pair.keras").string();
  pair->save(path);
  const k::MultiOutputModel<2> loaded(k::models::load_model(path));
  const auto [la, lb] = loaded(x);
  CHECK(max_abs_diff(la, ya) == 0.0f);
  CHECK(max_abs_diff(lb, yb) == 0.0f);
  CHECK(kiln_test::message_of<k::ValueError>([&] { k::MultiOutputModel<3>{k::models::load_model(path)}; }) ==
        "MultiOutputModel<3>: model 'pair' has 2 outputs, not 3");
}

TEST_CASE("MultiOutputModel: several inputs, and one output") {
  k::clear_session();
  k::Tensor i1 = L::Input({2}), i2 = L::Input({2});
  k::MultiOutputModel both({i1, i2}, {L::Add()({i1, i2}), L::Multiply()({i1, i2})});
  static_assert(std::is_same_v<decltype(both), k::MultiOutputModel<2>>);
  const k::Tensor x1({{1.f, 2.f}}), x2({{3.f, 5.f}});
  const auto [sum, product] = both({x1, x2});
  CHECK(sum.to_vector<float>() == std::vector<float>{4, 7});
  CHECK(product.to_vector<float>() == std::vector<float>{3, 10});
  // N = 1 is the same result type, an array of one.
  const k::MultiOutputModel<1> single(i1, {L::Dense(1)(i1)});
  const auto [only] = single(x1);
  CHECK(only.shape() == k::Shape{1, 1});
}

}  // namespace test_multi_output_model
