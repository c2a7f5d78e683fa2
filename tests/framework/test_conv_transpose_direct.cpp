// The 1-D and 2-D transposed convolutions as one backend pass (conv2d's input gradient)
// against the composed form it replaces: the input dilated by the stride,
// padded as Keras converts its padding, then convolved with the flipped kernel.
// The composed form is what ONNX export traces (backend::PortableTraceScope),
// and the Keras oracle checks it (tests/oracle/oracle_ops_nn.py). Both forms
// must agree for every kernel size, stride, dilation, padding and
// output_padding; the gradients are checked against central differences.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backend/portable_trace.h"
#include "kiln/kiln.h"
#include "kiln/ops/keras_nn_ops.h"

namespace test_conv_transpose_direct {

namespace k = kiln;

namespace {

struct Case {
  int64_t k, stride, dilation;
  std::string padding;
  std::optional<int64_t> output_padding;
};

k::ConvTransposeArgs args_of(const Case& c, const std::string& format = "channels_last") {
  k::ConvTransposeArgs a;
  a.strides = {c.stride};
  a.padding = c.padding;
  if (c.output_padding) a.output_padding = std::vector<int64_t>{*c.output_padding};
  a.data_format = format;
  a.dilation_rate = {c.dilation};
  return a;
}

std::string describe(const Case& c) {
  return "k " + std::to_string(c.k) + ", stride " + std::to_string(c.stride) + ", dilation " + std::to_string(c.dilation) +
         ", " + c.padding + ", output_padding " + (c.output_padding ? std::to_string(*c.output_padding) : "none");
}

const std::vector<Case> kCases = {
    {3, 2, 1, "same", std::nullopt}, {3, 2, 1, "valid", std::nullopt}, {2, 2, 1, "same", std::nullopt},
    {2, 2, 1, "valid", std::nullopt}, {3, 1, 1, "same", std::nullopt}, {3, 1, 2, "valid", std::nullopt},
    {5, 3, 1, "same", std::nullopt}, {3, 2, 1, "same", 1}, {3, 2, 1, "valid", 1}, {4, 2, 1, "valid", 0},
    {1, 3, 1, "valid", std::nullopt}, {3, 2, 1, "same", 0}, {3, 3, 2, "same", std::nullopt}, {4, 2, 1, "same", std::nullopt},
};

// Every case of kCases on x, with a kernel of the shape kernel_shape gives, both ways.
void check_against_composed(const k::Tensor& x, const std::function<k::Shape(const Case&)>& kernel_shape) {
  for (const Case& c : kCases) {
    k::Tensor kernel = k::random::normal(kernel_shape(c), 0.0, 1.0, k::float32, 11);
    k::Tensor direct = k::conv_transpose(x, kernel, args_of(c));
    k::Tensor composed;
    {
      kiln::backend::PortableTraceScope portable;
      composed = k::conv_transpose(x, kernel, args_of(c));
    }
    INFO(describe(c), ": shapes ", direct.shape().to_string(), " and ", composed.shape().to_string());
    REQUIRE(direct.shape() == composed.shape());
    auto a = direct.to_vector<double>(), b = composed.to_vector<double>();
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
    CHECK(worst < 1e-4);
  }
}

}  // namespace

TEST_CASE("conv_transpose_direct: one pass equals the dilate-pad-convolve form") {
  check_against_composed(k::random::normal({2, 5, 4, 3}, 0.0, 1.0, k::float32, 7),
                         [](const Case& c) { return k::Shape{c.k, c.k, 6, 3}; });
}

TEST_CASE("conv_transpose_direct: the 1-D form, run as 2-D with a height of 1, equals the composed form") {
  check_against_composed(k::random::normal({2, 9, 3}, 0.0, 1.0, k::float32, 17),
                         [](const Case& c) { return k::Shape{c.k, 5, 3}; });
}

TEST_CASE("conv_transpose_direct: channels_first gives the transposed channels_last result") {
  const Case c{3, 2, 1, "same", std::nullopt};
  k::Tensor x = k::random::normal({2, 5, 4, 3}, 0.0, 1.0, k::float32, 3);
  k::Tensor kernel = k::random::normal({3, 3, 4, 3}, 0.0, 1.0, k::float32, 5);
  k::Tensor last = k::conv_transpose(x, kernel, args_of(c));
  k::Tensor first = k::conv_transpose(k::transpose(x, {0, 3, 1, 2}), kernel, args_of(c, "channels_first"));
  auto a = k::transpose(first, {0, 2, 3, 1}).to_vector<double>(), b = last.to_vector<double>();
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  CHECK(worst < 1e-5);
}

TEST_CASE("conv_transpose_direct: input and kernel gradients against central differences") {
  for (const Case& c : {Case{3, 2, 1, "same", std::nullopt}, Case{2, 2, 1, "valid", std::nullopt},
                        Case{3, 2, 2, "valid", 1}}) {
    k::Tensor x = k::random::normal({1, 3, 4, 2}, 0.0, 1.0, k::float64, 1);
    k::Tensor kernel = k::random::normal({c.k, c.k, 3, 2}, 0.0, 1.0, k::float64, 2);
    auto r = k::check_gradients(
        [&](const std::vector<k::Tensor>& in) { return k::conv_transpose(in[0], in[1], args_of(c)); }, {x, kernel});
    INFO(describe(c), ": ", r.report);
    CHECK(r.ok);
  }
}

}  // namespace test_conv_transpose_direct
