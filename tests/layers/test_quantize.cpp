// int8 quantization (Keras's quantize("int8")): the int8 dtype, the abs-max
// quantizer's values, a quantized Dense's formula, gradients, errors, policies
// and files. tests/oracle/oracle_quantize.py compares all of it with Keras.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "kiln/kiln.h"
#include "../test_util.h"

namespace test_quantize {

namespace k = kiln;
namespace L = kiln::layers;
namespace Q = kiln::quantizers;
using kiln_test::contains;
using kiln_test::message_of;

TEST_CASE("int8 tensors: literals, casts, printing, and matmul accumulating in int32") {
  const k::Tensor a(std::vector<int8_t>{-128, -1, 0, 127}, {2, 2});
  CHECK(a.dtype() == k::int8);
  CHECK(k::dtype_from_name("int8") == k::int8);
  CHECK(k::dtype_size(k::int8) == 1);
  CHECK(k::is_integer(k::int8));
  kiln_test::check_values(a.cast(k::float32), {-128, -1, 0, 127});
  const k::Tensor p = k::matmul(a, a);  // 127 · 127 and (-128)(-128) overflow int8
  CHECK(p.dtype() == k::int32);
  kiln_test::check_values(p, {-128.0 * -128 + -1 * 0, -128.0 * -1 + -1 * 127, 0 * -128 + 127 * 0, 0 * -1 + 127.0 * 127});
  std::ostringstream os;
  os << a;
  CHECK(contains(os.str(), "-128"));
}

TEST_CASE("abs_max_quantize over the last axis: the one-kernel path gives the ops' bits") {
  // Without a tape the activations take the fused kernel; under one, the separate ops.
  // Rows of 1, 37 and 70 values cover the kernel's 8- and 32-wide loops and their tails,
  // an all-zero row the epsilon, and multiples of 0.5 the ties of round-half-to-even.
  k::random::set_seed(5);
  for (int64_t n : {1, 37, 70}) {
    k::Tensor x = k::random::normal({3, 2, n}) * 3.0f;
    x = k::concat({x, k::zeros({1, 2, n}), k::round(x * 2.0f) / 2.0f}, 0);
    auto [q, scale] = Q::abs_max_quantize(x, -1);
    k::GradientTape tape;
    tape.watch(x);
    auto [q_ops, scale_ops] = Q::abs_max_quantize(x, -1);
    CAPTURE(n);
    CHECK(q.dtype() == k::int8);
    CHECK(scale.shape() == k::Shape{7, 2, 1});
    CHECK(k::all(k::equal(q, q_ops)).item<bool>());
    CHECK(k::all(k::equal(scale, scale_ops)).item<bool>());
  }
}

TEST_CASE("int8 matmul is exact for every shape, layout and value, -128 included") {
  // Sizes off the kernels' row tiles (4, 8), column panels (16, 32) and 4-deep groups, past the
  // AVX2 kernel's k block of 512 and the VNNI kernel's 128-row blocks, with one row or many;
  // the float64 product of the same values is exact at these sizes.
  k::random::set_seed(3);
  for (const auto& size : std::vector<std::array<int64_t, 3>>{
           {1, 1, 1}, {5, 17, 7}, {9, 33, 600}, {64, 16, 4}, {1, 70, 37}, {131, 70, 37}, {300, 64, 258}}) {
    const int64_t m = size[0], n = size[1], kk = size[2];
    for (bool with_min : {false, true}) {
      k::Tensor a = k::cast(k::random::uniform({2, m, kk}, -127.49, 127.49), k::int8);
      const k::Tensor b = k::cast(k::random::uniform({2, kk, n}, -128.49, 127.49), k::int8);
      if (with_min) a = k::cast(k::cast(a, k::int32) * 0 - 128, k::int8);  // -128 everywhere in A
      const k::Tensor want = k::matmul(k::cast(a, k::float64), k::cast(b, k::float64));
      CAPTURE(m);
      CAPTURE(n);
      CAPTURE(kk);
      CAPTURE(with_min);
      CHECK(k::all(k::equal(k::cast(k::matmul(a, b), k::float64), want)).item<bool>());
      const k::Tensor at = k::transpose(a, {0, 2, 1}), bt = k::transpose(b, {0, 2, 1});
      CHECK(k::all(k::equal(k::cast(k::matmul(at, bt, true, true), k::float64), want)).item<bool>());
    }
  }
}

TEST_CASE("int8_matmul: the product and its dequantization in one pass, with the ops' bits") {
  // Sizes off the row tiles, column panels and 4-deep groups, one row or many; x's rows span
  // several orders of magnitude so that the scales differ.
  for (const auto& size : std::vector<std::array<int64_t, 3>>{{1, 70, 37}, {131, 70, 37}, {300, 64, 258}, {7, 5, 3}}) {
    CAPTURE(size[0]);
    CAPTURE(size[1]);
    CAPTURE(size[2]);
    const k::Tensor x = k::random::normal({size[0], size[2]}, 0.0, 1.0, k::float32, 11) *
                        k::exp(k::random::uniform({size[0], 1}, -5.0, 5.0, k::float32, 12));
    auto [xq, xs] = Q::abs_max_quantize(x, -1);
    auto [kq, ks] = Q::abs_max_quantize(k::random::normal({size[2], size[1]}, 0.0, 1.0, k::float32, 13), 0);
    ks = k::squeeze(ks, {0});
    const k::Tensor want = k::cast(k::matmul(xq, kq), k::float32) / (ks * xs);
    CHECK(k::all(k::equal(Q::int8_matmul(xq, kq, xs, ks), want)).item<bool>());
  }
  // Plain variables: clang 14 cannot capture structured bindings in a lambda.
  const auto x = Q::abs_max_quantize(k::random::normal({4, 6}), -1);
  const auto kernel = Q::abs_max_quantize(k::random::normal({5, 3}), 0);
  const std::string e =
      message_of([&] { Q::int8_matmul(x.first, kernel.first, x.second, k::squeeze(kernel.second, {0})); });
  CHECK(contains(e, "int8_matmul"));
  CHECK(contains(e, "xq (4, 6) int8, kernel (5, 3) int8, x_scale (4, 1), kernel_scale (3,)"));
}

TEST_CASE("abs_max_quantize: Keras's scale and rounding") {
  const k::Tensor w(std::vector<float>{0.5f, -2.0f, 1.0f, 0.25f, 0.0f, 0.0f}, {3, 2});
  auto [q, scale] = Q::abs_max_quantize(w, 0);
  CHECK(q.dtype() == k::int8);
  CHECK(scale.shape() == k::Shape{1, 2});
  const double s0 = 127.0 / (1.0 + 1e-7), s1 = 127.0 / (2.0 + 1e-7);
  kiln_test::check_values(scale, {s0, s1}, 1e-6);
  kiln_test::check_values(q, {std::nearbyint(0.5 * s0), std::nearbyint(-2.0 * s1), 127, std::nearbyint(0.25 * s1), 0, 0});
}

TEST_CASE("a quantized Dense: int8 kernel, per-unit scales, quantized inputs, the float result within 1%") {
  L::Dense d(5, {.name = "dense_q"});
  const k::Tensor x = k::random::normal({4, 6}, 0.0, 1.0, k::float32, 3);
  const k::Tensor before = d(x);
  const k::Tensor kernel = d->kernel().value().clone();
  d->quantize("int8");
  CHECK(d->dtype_policy().name() == "int8_from_float32");
  CHECK(d->kernel().dtype() == k::int8);
  CHECK(d->kernel_scale().shape() == k::Shape{5});
  std::vector<std::string> trainable;
  for (const auto& v : d->trainable_weights()) trainable.push_back(v.name());
  CHECK(trainable == std::vector<std::string>{"bias"});
  auto [kq, ks] = Q::abs_max_quantize(kernel, 0);
  kiln_test::check_values(d->kernel().value(), kq.to_vector<double>());
  auto [xq, xs] = Q::abs_max_quantize(x, -1);
  const k::Tensor want = k::cast(k::matmul(xq, kq), k::float32) / (ks * xs) + d->bias().value();
  const k::Tensor y = d(x);
  kiln_test::check_values(y, want.to_vector<double>(), 1e-6);
  {
    // Under a tape the quantizer and the product run as separate ops: the same bits.
    k::GradientTape tape;
    CHECK(k::all(k::equal(d(x), y)).item<bool>());
  }
  const double err = k::max(k::abs(y - before)).item<double>(), top = k::max(k::abs(before)).item<double>();
  CHECK(err < 0.01 * top);
}

TEST_CASE("a quantized Dense's bias and activation: in the product's pass, with the separate ops' bits") {
  // 70 units: two column panels of 32 and a partial one; rank-3 inputs take the reshape.
  for (const std::string activation : {"relu", "linear", "tanh"}) {
    CAPTURE(activation);
    L::Dense d(70, {.activation = activation});
    const k::Tensor x = k::random::normal({3, 5, 37}, 0.0, 1.0, k::float32, 17);
    d(x);
    d->quantize("int8");
    d->bias().assign(k::random::normal({70}, 0.0, 1.0, k::float32, 18));
    const k::Tensor y = d(x);
    CHECK(y.shape() == k::Shape{3, 5, 70});
    k::GradientTape tape;  // under a tape the quantizer, the product, bias_add and the activation run apart
    CHECK(k::all(k::equal(d(x), y)).item<bool>());
  }
}

TEST_CASE("a quantized Dense's input gradient goes through the dequantized kernel, as Keras's rule") {
  L::Dense d(3);
  const k::Tensor x = k::random::normal({2, 4}, 0.0, 1.0, k::float32, 4);
  d(x);
  d->quantize("int8", Q::QuantizationConfig{.activation_quantizer = std::nullopt});
  k::GradientTape tape;
  tape.watch(x);
  const k::Tensor w = k::random::normal({2, 3}, 0.0, 1.0, k::float32, 5);
  const k::Tensor g = *tape.gradient(k::sum(d(x) * w), x);
  const k::Tensor dequantized = k::cast(d->kernel().value(), k::float32) / d->kernel_scale().value();
  kiln_test::check_values(g, k::matmul(w, dequantized, false, true).to_vector<double>(), 1e-5);
}

TEST_CASE("quantize refuses what Keras refuses") {
  L::Dense unbuilt(2, {.name = "late"});
  CHECK(contains(message_of<k::ValueError>([&] { unbuilt->quantize("int8"); }),
                 "Cannot quantize a layer that isn't yet built"));
  L::Dense d(2, {.name = "twice"});
  d(k::ones({1, 3}));
  d->quantize("int8");
  CHECK(contains(message_of<k::ValueError>([&] { d->quantize("int8"); }),
                 "Layer 'twice' is already quantized with dtype_policy='int8_from_float32'"));
  L::Dense h(2, {.dtype = "mixed_float16"});
  h(k::ones({1, 3}));
  CHECK(contains(message_of<k::ValueError>([&] { h->quantize("int8"); }), "doesn't work well with compute_dtype='float16'"));
  L::Dense f(2);
  f(k::ones({1, 3}));
  CHECK(contains(message_of<k::ValueError>([&] { f->quantize("int3"); }), "Invalid quantization mode"));
}

TEST_CASE("Model::quantize with filters, and quantized models in .keras files") {
  const auto dir = std::filesystem::temp_directory_path() / "kiln_test_quantize";
  std::filesystem::create_directories(dir);
  auto model = std::make_shared<k::Sequential>(std::vector<k::LayerPtr>{
      L::Input({6}), L::Dense(8, {.activation = "relu", .name = "hidden"}), L::Dense(3, {.name = "head"})});
  const k::Tensor x = k::random::normal({5, 6}, 0.0, 1.0, k::float32, 6);
  model->predict(x, {.verbose = 0});
  model->quantize("int8", std::nullopt, {"^hid"});
  CHECK(model->get_layer("hidden")->dtype_policy().name() == "int8_from_float32");
  CHECK(model->get_layer("head")->dtype_policy().name() == "float32");
  const k::Tensor pred = model->predict(x, {.verbose = 0});
  const std::string path = (dir / "q.keras").string();
  model->save(path);
  auto loaded = k::models::load_model(path);
  CHECK(loaded->get_layer("hidden")->dtype_policy().name() == "int8_from_float32");
  const auto config = loaded->get_layer("hidden")->get_config();
  CHECK(config["quantization_config"]["class_name"] == "Int8QuantizationConfig");
  kiln_test::check_values(loaded->predict(x, {.verbose = 0}), pred.to_vector<double>(), 1e-6);
  std::filesystem::remove_all(dir);
}

TEST_CASE("EinsumDense quantization axes are Keras's, ellipses included") {
  using V = std::vector<int>;
  struct Case {
    const char* equation;
    int64_t rank;
    V input_reduced, kernel_reduced, input_transpose, kernel_transpose, input_expand, kernel_expand, input_squeeze,
        kernel_squeeze;
    const char* gradient;
  };
  // Keras 3.15's _analyze_quantization_info for these equations and ranks.
  const std::vector<Case> cases = {
      {"abc,cde->abde", 3, {2}, {0}, {0, 1, 2}, {0, 1, 2}, {3}, {1}, {}, {}, "abde,cde->abc"},
      {"abcd,cde->abe", 4, {2, 3}, {0, 1}, {0, 1, 3, 2}, {0, 1, 2}, {}, {}, {3}, {}, "abe,cde->abcd"},
      {"abc,bcd->ad", 3, {1, 2}, {0, 1}, {0, 2, 1}, {1, 0, 2}, {}, {}, {2}, {1}, "ad,bcd->abc"},
      {"abc,cd->abd", 3, {2}, {0}, {0, 1, 2}, {0, 1}, {}, {1}, {}, {}, "abd,cd->abc"},
      {"...b,bc->...c", 3, {2}, {0}, {0, 1, 2}, {0, 1}, {}, {1}, {}, {}, "BAc,bc->BAb"},
      {"ab...,bc->ac...", 4, {1}, {0}, {0, 1, 2, 3}, {0, 1}, {}, {2, 3}, {}, {}, "acAB,bc->abAB"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.equation);
    const L::EinsumQuantizationAxes q = L::analyze_einsum_quantization(c.equation, c.rank);
    CHECK(q.input_reduced == c.input_reduced);
    CHECK(q.kernel_reduced == c.kernel_reduced);
    CHECK(q.input_transpose == c.input_transpose);
    CHECK(q.kernel_transpose == c.kernel_transpose);
    CHECK(q.input_expand == c.input_expand);
    CHECK(q.kernel_expand == c.kernel_expand);
    CHECK(q.input_squeeze == c.input_squeeze);
    CHECK(q.kernel_squeeze == c.kernel_squeeze);
    CHECK(q.gradient_equation == c.gradient);
  }
}

TEST_CASE("a quantized EinsumDense: scales over the contracted axes, the result within 1%, its input gradient") {
  struct Case {
    std::string equation;
    k::Shape output_shape, input_shape, scale_shape;
  };
  const std::vector<Case> cases = {
      {"abc,cde->abde", {3, 2, 4}, {5, 3, 6}, {1, 1, 2, 4}},
      {"abcd,cde->abe", {3, 4}, {5, 3, 2, 6}, {1, 1, 4}},
      {"abc,bcd->ad", {4}, {5, 3, 6}, {1, 4}},
      {"...b,bc->...c", {4}, {5, 3, 6}, {1, 1, 4}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.equation);
    L::EinsumDense d(c.equation, c.output_shape, {.bias_axes = std::string(1, c.equation.back())});
    const k::Tensor x = k::random::normal(c.input_shape, 0.0, 1.0, k::float32, 7);
    const k::Tensor before = d(x);
    auto input_gradient = [&] {
      k::GradientTape tape;
      tape.watch(x);
      return *tape.gradient(k::sum(d(x) * before), x);
    };
    const k::Tensor float_gradient = input_gradient();
    d->quantize("int8");
    CHECK(d->dtype_policy().name() == "int8_from_float32");
    CHECK(d->kernel().dtype() == k::int8);
    CHECK(d->kernel_scale().shape() == c.scale_shape);
    const k::Tensor y = d(x);
    CHECK(y.shape() == before.shape());
    {
      // The one-pass product (a plain matrix product's equation) or the einsum: under a tape
      // the separate ops run, with the same bits.
      k::GradientTape tape;
      CHECK(k::all(k::equal(d(x), y)).item<bool>());
    }
    const double err = k::max(k::abs(y - before)).item<double>(), top = k::max(k::abs(before)).item<double>();
    CHECK(err < 0.02 * top);
    // The inputs' gradient goes through the dequantized kernel: the float one within its rounding.
    const k::Tensor g = input_gradient();
    REQUIRE(g.shape() == x.shape());
    CHECK(k::max(k::abs(g - float_gradient)).item<double>() < 0.02 * k::max(k::abs(float_gradient)).item<double>());
  }
}

TEST_CASE("a quantized EinsumDense saves and loads with Keras's variable order") {
  const auto dir = std::filesystem::temp_directory_path() / "kiln_test_quantize_einsum";
  std::filesystem::create_directories(dir);
  auto model = std::make_shared<k::Sequential>(std::vector<k::LayerPtr>{
      L::Input({3, 6}), L::EinsumDense("abc,cde->abde", {3, 2, 4}, {.bias_axes = "de", .name = "proj"})});
  const k::Tensor x = k::random::normal({5, 3, 6}, 0.0, 1.0, k::float32, 8);
  model->quantize("int8", Q::QuantizationConfig{.activation_quantizer = std::nullopt});
  const k::Tensor pred = model->predict(x, {.verbose = 0});
  const std::string path = (dir / "einsum.keras").string();
  model->save(path);
  auto loaded = k::models::load_model(path);
  const auto proj = std::dynamic_pointer_cast<L::EinsumDenseImpl>(loaded->get_layer("proj"));
  REQUIRE(proj);
  CHECK(proj->dtype_policy().name() == "int8_from_float32");
  CHECK(proj->kernel_scale().shape() == k::Shape{1, 1, 2, 4});
  CHECK(!proj->options().quantization_config->activation_quantizer);
  std::vector<std::string> order;
  for (const auto& v : k::stored_variables_of(*proj)) order.push_back(v.variable.name());
  CHECK(order == std::vector<std::string>{"kernel", "bias", "kernel_scale"});
  kiln_test::check_values(loaded->predict(x, {.verbose = 0}), pred.to_vector<double>(), 1e-6);
  std::filesystem::remove_all(dir);
}

}  // namespace test_quantize
