// keras.ops' neural-network functions (kiln/ops/keras_nn_ops.h): hand-checked values,
// the errors (op name, expectation, full shapes) and the tape's gradients against
// central differences in float64. tests/oracle/oracle_ops_nn.py compares every op
// with Keras 3.15 (JAX) at large.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "kiln/ops/keras_nn_ops.h"
#include "test_util.h"

namespace test_keras_nn_ops {

namespace k = kiln;
using kiln_test::check_gradients_ok;
using kiln_test::check_values;
using kiln_test::contains;
using kiln_test::message_of;

namespace {

// Distinct, untied float64 values (sin of a scaled ramp), shaped.
k::Tensor wave(const k::Shape& shape, double step = 0.7) { return k::sin(kiln_test::iota(shape) * step + 0.3); }

}  // namespace

TEST_CASE("keras.ops conv: 1D values, strides and same padding") {
  // x = [1, 2, 3, 4, 5], kernel [1, 0, -1]: valid gives x[i] - x[i+2] = -2.
  k::Tensor x = k::reshape(k::Tensor(std::vector<double>{1, 2, 3, 4, 5}, k::Shape{5}), {1, 5, 1});
  k::Tensor w = k::reshape(k::Tensor(std::vector<double>{1, 0, -1}, k::Shape{3}), {3, 1, 1});
  check_values(k::conv(x, w), {-2, -2, -2});
  // "same", stride 2: pads one zero each side -> [0 - 2, 2 - 4, 4 - 0].
  check_values(k::conv(x, w, {.strides = {2}, .padding = "same"}), {-2, -2, 4});
  // dilation 2: x[i] - x[i+4].
  check_values(k::conv(x, w, {.dilation_rate = {2}}), {-4});
}

TEST_CASE("keras.ops conv: channels_first equals channels_last transposed; groups split channels") {
  k::Tensor x = wave({2, 6, 5, 4});
  k::Tensor w = wave({3, 2, 2, 6}, 0.37);  // two groups of two input channels
  k::Tensor last = k::conv(x, w, {.padding = "same"});
  k::Tensor first = k::conv(k::transpose(x, {0, 3, 1, 2}), w, {.padding = "same", .data_format = "channels_first"});
  CHECK(first.shape() == k::Shape{2, 6, 6, 5});
  check_values(k::transpose(first, {0, 2, 3, 1}), last.to_vector<double>(), 1e-12);
  // Group 0 is a plain convolution of channels 0..1 with filters 0..2.
  k::Tensor g0 = k::conv(k::slice(x, {k::Slice(), k::Slice(), k::Slice(), k::Slice(0, 2)}),
                         k::slice(w, {k::Slice(), k::Slice(), k::Slice(), k::Slice(0, 3)}), {.padding = "same"});
  check_values(g0, k::slice(last, {k::Slice(), k::Slice(), k::Slice(), k::Slice(0, 3)}).to_vector<double>(), 1e-12);
}

TEST_CASE("keras.ops conv family: gradients match central differences") {
  check_gradients_ok("conv1d", [](const auto& v) { return k::conv(v[0], v[1], {.strides = {2}, .padding = "same"}); },
                     {wave({2, 7, 2}), wave({3, 2, 3}, 0.4)});
  check_gradients_ok("conv3d",
                     [](const auto& v) {
                       return k::conv(v[0], v[1], {.strides = {2, 1, 1}, .padding = "same", .dilation_rate = {1}});
                     },
                     {wave({1, 4, 3, 3, 2}), wave({2, 2, 2, 2, 2}, 0.4)});
  check_gradients_ok("depthwise_conv3d", [](const auto& v) { return k::depthwise_conv(v[0], v[1]); },
                     {wave({1, 3, 3, 3, 2}), wave({2, 2, 2, 2, 2}, 0.4)});
  check_gradients_ok("conv_transpose",
                     [](const auto& v) {
                       return k::conv_transpose(v[0], v[1], {.strides = {2}, .padding = "same", .output_padding = {{1}}});
                     },
                     {wave({1, 3, 4, 2}), wave({3, 3, 2, 2}, 0.4)});
  check_gradients_ok("conv_transpose_cf",
                     [](const auto& v) { return k::conv_transpose(v[0], v[1], {.strides = {2}, .data_format = "channels_first"}); },
                     {wave({1, 2, 3, 3, 3}), wave({2, 2, 2, 2, 2}, 0.4)});
  check_gradients_ok("separable_conv", [](const auto& v) { return k::separable_conv(v[0], v[1], v[2]); },
                     {wave({1, 4, 4, 2}), wave({2, 2, 2, 2}, 0.4), wave({1, 1, 4, 3}, 0.9)});
}

TEST_CASE("keras.ops conv_transpose: output lengths follow Keras") {
  k::Tensor x = wave({1, 5, 3});
  CHECK(k::conv_transpose(x, wave({3, 4, 3}), {.strides = {2}}).shape() == k::Shape{1, 11, 4});
  CHECK(k::conv_transpose(x, wave({3, 4, 3}), {.strides = {2}, .padding = "same"}).shape() == k::Shape{1, 10, 4});
  CHECK(k::conv_transpose(x, wave({4, 2, 3}), {.strides = {3}, .output_padding = {{1}}}).shape() == k::Shape{1, 17, 2});
  CHECK(k::conv_transpose_output_length(5, 3, 2, 1, "valid", std::nullopt) == 11);
  CHECK(k::conv_transpose_output_length(-1, 3, 2, 1, "valid", std::nullopt) == -1);
}

TEST_CASE("keras.ops pools: values, 3D and gradients") {
  k::Tensor x = k::reshape(k::Tensor(std::vector<double>{1, 5, 2, 4, 3}, k::Shape{5}), {1, 5, 1});
  check_values(k::max_pool(x, {2}), {5, 4});  // strides default to pool_size
  check_values(k::average_pool(x, {2}, {.strides = {2}, .padding = "same"}), {3, 3, 3});  // last window holds only 3
  k::Tensor v = wave({1, 3, 4, 4, 2});
  CHECK(k::max_pool(v, {2}, {.padding = "same"}).shape() == k::Shape{1, 2, 2, 2, 2});
  check_gradients_ok("max_pool3d", [](const auto& a) { return k::max_pool(a[0], {2, 2, 2}, {.strides = {1}}); }, {v});
  check_gradients_ok("average_pool_cf",
                     [](const auto& a) {
                       return k::average_pool(a[0], {3}, {.strides = {2}, .padding = "same", .data_format = "channels_first"});
                     },
                     {wave({2, 2, 7})});
}

TEST_CASE("keras.ops normalizations: values and gradients") {
  k::Tensor x = k::Tensor({{1.0, 2.0, 3.0}, {4.0, 6.0, 8.0}}, k::float64);
  // batch_normalization along axis 1 with given statistics.
  k::Tensor bn = k::batch_normalization(x, k::Tensor({1.0, 2.0, 3.0}, k::float64), k::Tensor({4.0, 4.0, 4.0}, k::float64), 1, k::Tensor({1.0, 1.0, 1.0}, k::float64),
                                        k::Tensor({2.0, 2.0, 2.0}, k::float64), 0.0);
  check_values(bn, {1, 1, 1, 4, 5, 6});
  // layer_normalization of [1, 2, 3]: (x - 2) / sqrt(2/3 + eps).
  const double s = 1.0 / std::sqrt(2.0 / 3.0 + 1e-7);
  check_values(k::slice(k::layer_normalization(x), {0}), {-s, 0, s}, 1e-9);
  // rms_normalization of [4, 6, 8] along the last axis: x / sqrt(116 / 3 + eps).
  const double r = 1.0 / std::sqrt(116.0 / 3.0 + 1e-7);
  check_values(k::slice(k::rms_normalization(x), {1}), {4 * r, 6 * r, 8 * r}, 1e-9);
  CHECK(k::layer_normalization(k::cast(x, k::float32)).dtype() == k::float32);
  check_gradients_ok("layer_normalization",
                     [](const auto& a) { return k::layer_normalization(a[0], a[1], a[2], {1, 2}); },
                     {wave({2, 3, 4}), wave({3, 4}, 0.3), wave({3, 4}, 0.5)});
  check_gradients_ok("rms_normalization", [](const auto& a) { return k::rms_normalization(a[0], a[1], {0}); },
                     {wave({4, 3}), wave({4, 1}, 0.3)});
  check_gradients_ok("batch_normalization",
                     [](const auto& a) { return k::batch_normalization(a[0], a[1], a[2] * a[2] + 0.5, 1, a[3], a[4]); },
                     {wave({2, 3, 2}), wave({3}, 0.2), wave({3}, 0.5), wave({3}, 0.9), wave({3}, 1.1)});
}

TEST_CASE("keras.ops crossentropies: values and gradients") {
  k::Tensor t = k::Tensor({{0.0, 1.0}}, k::float64);
  k::Tensor p = k::Tensor({{0.25, 0.75}}, k::float64);
  check_values(k::binary_crossentropy(t, p), {-std::log(0.75), -std::log(0.75)}, 1e-6);
  check_values(k::categorical_crossentropy(t, p), {-std::log(0.75)}, 1e-6);
  check_values(k::sparse_categorical_crossentropy(k::Tensor(std::vector<int32_t>{1}, k::Shape{1}), p), {-std::log(0.75)}, 1e-6);
  // From logits z: softplus(z) - t·z.
  check_values(k::binary_crossentropy(k::Tensor({1.0}, k::float64), k::Tensor({2.0}, k::float64), true), {std::log1p(std::exp(-2.0))}, 1e-9);
  check_gradients_ok("categorical_crossentropy_axis0",
                     [](const auto& a) { return k::categorical_crossentropy(a[0], a[1] * a[1] + 0.1, false, 0); },
                     {wave({3, 2}), wave({3, 2}, 0.4)});
  k::Tensor labels = k::Tensor(std::vector<int32_t>{0, 2, 1, 2, 1, 0}, k::Shape{2, 3});
  check_gradients_ok("sparse_categorical_crossentropy_axis1",
                     [labels](const auto& a) { return k::sparse_categorical_crossentropy(labels, a[0], true, 1); },
                     {wave({2, 3, 3})});
}

TEST_CASE("keras.ops multi_hot and psnr") {
  k::Tensor ids = k::Tensor(std::vector<int32_t>{0, 3, -1, 6, 2, 2}, k::Shape{2, 3});
  k::Tensor m = k::multi_hot(ids, 4);
  CHECK(m.dtype() == k::float32);
  check_values(m, {1, 0, 0, 1, 0, 0, 1, 0});
  check_values(k::multi_hot(k::Tensor(std::vector<int32_t>{0, 4}, k::Shape{2}), 5, -1, k::int32), {1, 0, 0, 0, 1});
  // mse 0.01 and max_val 1: 20·log10(1) - 10·log10(0.01) = 20.
  k::Tensor a = k::Tensor({0.0, 0.1, 0.2}, k::float64), b = k::Tensor({0.1, 0.2, 0.3}, k::float64);
  check_values(k::psnr(a, b, 1.0), {20.0}, 1e-9);
}

TEST_CASE("keras.ops dot_product_attention: uniform keys, causal mask, grouped heads and gradients") {
  // Equal keys give equal weights: the output is the mean of the values.
  k::Tensor q = wave({1, 2, 1, 2}), key = k::ones({1, 3, 1, 2}, k::float64);
  k::Tensor v = k::reshape(k::Tensor(std::vector<double>{1, 2, 3, 4, 5, 6}, k::Shape{6}), {1, 3, 1, 2});
  check_values(k::dot_product_attention(q, key, v), {3, 4, 3, 4}, 1e-9);
  // Causal: query 0 sees only key 0.
  k::Tensor causal = k::dot_product_attention(wave({1, 3, 1, 2}), key, v, {.is_causal = true});
  check_values(k::slice(causal, {0, 0}), {1, 2}, 1e-9);
  // Two query heads over one key/value head equal one head run twice.
  k::Tensor q2 = wave({1, 2, 2, 2}), kk = wave({1, 3, 1, 2}, 0.3);
  k::Tensor grouped = k::dot_product_attention(q2, kk, v);
  k::Tensor head1 = k::dot_product_attention(k::slice(q2, {k::Slice(), k::Slice(), k::Slice(1, 2)}), kk, v);
  check_values(k::slice(grouped, {k::Slice(), k::Slice(), k::Slice(1, 2)}), head1.to_vector<double>(), 1e-12);
  k::Tensor mask = k::cast(k::reshape(k::Tensor({1.0, 0.0, 1.0, 1.0, 1.0, 0.0}, k::float64), {1, 1, 2, 3}), k::DType::bool_);
  check_gradients_ok("dot_product_attention",
                     [mask](const auto& a) {
                       return k::dot_product_attention(a[0], a[1], a[2], {.bias = a[3], .mask = mask, .scale = 0.6});
                     },
                     {wave({1, 2, 2, 2}), wave({1, 3, 1, 2}, 0.3), wave({1, 3, 1, 2}, 0.9), wave({1, 1, 2, 3}, 0.2)});
}

namespace {

/// A bool mask of `shape` keeping about two in three logits, with the first query row of every
/// (batch, head) block hidden entirely (its softmax is then uniform, as JAX's is).
k::Tensor pattern_mask(const k::Shape& shape) {
  std::vector<double> keep(static_cast<std::size_t>(shape.num_elements()));
  const int64_t keys = shape[-1], queries = shape[-2];
  for (std::size_t i = 0; i < keep.size(); ++i)
    keep[i] = (static_cast<int64_t>(i) / keys) % queries != 0 && (i * 7 + i / 3) % 3 != 0;
  return k::cast(k::Tensor(keep, shape), k::DType::bool_);
}

}  // namespace

TEST_CASE("keras.ops dot_product_attention: the one-pass kernel equals the separate ops, and traces as one node") {
  // Without a tape a float32 call takes the backend's one-pass kernel; under one, the separate ops.
  struct Case {
    k::Shape q, key, value;
    std::optional<k::Shape> mask;
    bool causal;
  };
  const std::vector<Case> cases{
      {{2, 37, 4, 16}, {2, 53, 4, 16}, {2, 53, 4, 16}, std::nullopt, false},
      // grouped heads (two query heads per key head), values 24 wide, a padding mask (B, 1, T, S)
      {{2, 37, 4, 16}, {2, 53, 2, 16}, {2, 53, 2, 24}, k::Shape{2, 1, 37, 53}, false},
      // 600 keys: query rows in several blocks; causal and a (T, S) mask together
      {{1, 600, 2, 8}, {1, 600, 2, 8}, {1, 600, 2, 8}, k::Shape{600, 600}, true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.q.to_string());
    const k::Tensor q = k::cast(wave(c.q, 0.37), k::float32), key = k::cast(wave(c.key, 0.53), k::float32);
    const k::Tensor v = k::cast(wave(c.value, 0.91), k::float32);
    const k::AttentionArgs args{.mask = c.mask ? pattern_mask(*c.mask) : k::Tensor(), .is_causal = c.causal};
    const k::Tensor one_pass = k::dot_product_attention(q, key, v, args);
    k::GradientTape tape;
    tape.watch(q);
    const k::Tensor separate = k::dot_product_attention(q, key, v, args);
    REQUIRE(one_pass.shape() == separate.shape());
    CHECK(k::max(k::abs(one_pass - separate)).item<float>() <= 2e-6f);
  }
  auto f = k::function([](const k::Tensor& q, const k::Tensor& key, const k::Tensor& v) {
    return k::dot_product_attention(q, key, v, {.mask = pattern_mask({2, 1, 5, 6})});
  });
  const auto cf = f.get_concrete_function(k::TensorSpec({2, 5, 2, 4}, k::float32), k::TensorSpec({2, 6, 2, 4}, k::float32),
                                          k::TensorSpec({2, 6, 2, 4}, k::float32));
  int nodes = 0;
  for (const auto& op : cf.operations()) nodes += op.type == "DotProductAttention";
  CHECK(nodes == 1);
}

TEST_CASE("keras.ops sparsemax, polar, kaiser and saturate_cast") {
  // One entry in the support: it keeps the gap to the threshold (x - (x - 1)).
  check_values(k::sparsemax(k::Tensor({3.0, -1.0}, k::float64)), {1, 0}, 1e-12);
  // Two in the support: tau = (0.5 + 0.9 - 1) / 2, Keras's threshold.
  check_values(k::sparsemax(k::Tensor({0.5, 0.4}, k::float64)), {0.3, 0.2}, 1e-12);
  check_gradients_ok("sparsemax", [](const auto& a) { return k::sparsemax(a[0], 0); }, {wave({4, 3}, 0.45)});
  auto [re, im] = k::polar(k::Tensor({2.0}, k::float64), k::Tensor({std::acos(-1.0) / 2}, k::float64));
  CHECK(std::abs(re.to_vector<double>()[0]) < 1e-12);
  check_values(im, {2.0}, 1e-12);
  k::Tensor w = k::kaiser(5, 2.0);
  CHECK(w.dtype() == k::float32);
  check_values(w, {0.4386762798370488, 0.8347614334011666, 1.0, 0.8347614334011666, 0.4386762798370488}, 1e-6);
  check_values(k::kaiser(1, 3.0), {1.0});
  const double inf = std::numeric_limits<double>::infinity();
  k::Tensor u = k::saturate_cast(k::Tensor({-300.0, 0.4, 254.6, 300.0, inf}, k::float64), k::uint8);
  CHECK(u.dtype() == k::uint8);
  check_values(u, {0, 0, 254, 255, 255});
  // float32 rounds 2^31 - 1 up to 2^31: values there saturate to the int32 maximum, as in Keras (XLA).
  check_values(k::saturate_cast(k::cast(k::Tensor({3e9, 2147483520.0, -3e9}, k::float64), k::float32), k::int32),
               {2147483647.0, 2147483520.0, -2147483648.0});
  check_values(k::saturate_cast(k::Tensor({1e19, -1e19, 5.0}, k::float64), k::int64),
               {9223372036854775807.0, -9223372036854775808.0, 5.0});
}

TEST_CASE("keras.ops ctc_loss: one step, two paths, gradients") {
  const k::Tensor one = k::Tensor(std::vector<int32_t>{1}, k::Shape{1});
  // One step, one label: -log softmax(logits)[label].
  k::Tensor logits = k::reshape(k::Tensor({0.5, 1.5, -0.5}, k::float64), {1, 1, 3});
  const double z = std::exp(0.5) + std::exp(1.5) + std::exp(-0.5);
  check_values(k::ctc_loss(k::reshape(one, {1, 1}), logits, one, one), {-(1.5 - std::log(z))}, 1e-9);
  // Two steps, label "1", blank 0: the paths (1, 1), (0, 1) and (1, 0).
  k::Tensor two = k::reshape(k::Tensor({0.2, 0.9, -0.3, 0.4, 0.1, 0.6}, k::float64), {1, 2, 3});
  auto p = k::softmax(two, -1).to_vector<double>();
  const double likelihood = p[1] * p[4] + p[0] * p[4] + p[1] * p[3];
  check_values(k::ctc_loss(k::reshape(one, {1, 1}), two, one, k::Tensor(std::vector<int32_t>{2}, k::Shape{1})),
               {-std::log(likelihood)}, 1e-9);
  const k::Tensor labels = k::Tensor(std::vector<int32_t>{1, 1, 2, 2, 3, 0}, k::Shape{2, 3});
  const k::Tensor label_len = k::Tensor(std::vector<int32_t>{3, 2}, k::Shape{2});
  const k::Tensor out_len = k::Tensor(std::vector<int32_t>{6, 4}, k::Shape{2});
  check_gradients_ok("ctc_loss",
                     [=](const auto& a) { return k::ctc_loss(labels, a[0], label_len, out_len); },
                     {wave({2, 6, 4}, 0.83)});
}

TEST_CASE("keras.ops ctc_decode and extract_sequences") {
  // Best classes 1, 1, 0, 1 with blank 0: "1 1" after merging repeats and dropping blanks.
  k::Tensor in = k::reshape(k::Tensor({0.1, 0.5, 0.4, 0.1, 0.6, 0.3, 0.8, 0.1, 0.1, 0.2, 0.7, 0.1}, k::float64), {1, 4, 3});
  auto [paths, scores] = k::ctc_decode(in, k::Tensor(std::vector<int32_t>{4}, k::Shape{1}));
  CHECK(paths.shape() == k::Shape{1, 1, 4});
  check_values(paths, {1, 1, -1, -1});
  check_values(scores, {-(0.5 + 0.6 + 0.8 + 0.7)}, 1e-6);
  auto [unmerged, unused] = k::ctc_decode(in, k::Tensor(std::vector<int32_t>{4}, k::Shape{1}), {.merge_repeated = false});
  check_values(unmerged, {1, 1, 1, -1});
  // Beam search keeps the most likely labelling first.
  auto [beams, beam_scores] = k::ctc_decode(in, k::Tensor(std::vector<int32_t>{4}, k::Shape{1}),
                                            {.strategy = "beam_search", .beam_width = 4, .top_paths = 2});
  CHECK(beams.shape() == k::Shape{2, 1, 4});
  auto bs = beam_scores.to_vector<double>();
  CHECK(bs[0] >= bs[1]);
  CHECK(contains(message_of<k::ValueError>([&] { k::ctc_decode(in, k::Tensor(std::vector<int32_t>{4}, k::Shape{1}), {.strategy = "best"}); }),
                 "Invalid strategy best"));
  k::Tensor frames = k::extract_sequences(kiln_test::iota({2, 7}), 3, 2);
  CHECK(frames.shape() == k::Shape{2, 3, 3});
  check_values(k::slice(frames, {0}), {0, 1, 2, 2, 3, 4, 4, 5, 6});
}

TEST_CASE("keras.ops unfold and fold: values, adjointness, gradients") {
  // A 1x1x3x3 image 0..8, 2x2 blocks: four blocks, tap-major rows.
  k::Tensor img = kiln_test::iota({1, 1, 3, 3});
  k::Tensor cols = k::unfold(img, {2});
  CHECK(cols.shape() == k::Shape{1, 4, 4});
  check_values(cols, {0, 1, 3, 4, 1, 2, 4, 5, 3, 4, 6, 7, 4, 5, 7, 8});
  // fold sums overlaps: folding ones counts how many blocks cover each pixel.
  check_values(k::fold(k::ones({1, 4, 4}, k::float64), {3, 3}, {2}), {1, 2, 1, 2, 4, 2, 1, 2, 1});
  // <unfold(x), y> == <x, fold(y)> with padding, stride and dilation.
  const k::FoldArgs a{.dilation = {1, 2}, .padding = {1}, .stride = {2, 1}};
  k::Tensor x = wave({2, 2, 5, 6}), y = wave({2, 8, 18}, 0.31);
  const double lhs = k::sum(k::unfold(x, {2}, a) * y).to_vector<double>()[0];
  const double rhs = k::sum(x * k::fold(y, {5, 6}, {2}, a)).to_vector<double>()[0];
  CHECK(lhs == doctest::Approx(rhs).epsilon(1e-12));
  check_gradients_ok("fold", [a](const auto& v) { return k::fold(v[0], {5, 6}, {2}, a); }, {y});
  CHECK(contains(message_of<k::ShapeError>([] { k::fold(k::zeros({1, 5, 4}), {3, 3}, {2}); }), "(1, 5, 4)"));
}

TEST_CASE("keras.ops adaptive pools: bins and gradients") {
  // Length 5 into 3 bins: [0, 2), [1, 4), [3, 5).
  k::Tensor x = k::reshape(k::Tensor({1.0, 4.0, 2.0, 8.0, 3.0}, k::float64), {1, 5, 1});
  check_values(k::adaptive_average_pool(x, {3}), {2.5, 14.0 / 3.0, 5.5}, 1e-12);
  check_values(k::adaptive_max_pool(x, {3}), {4, 8, 8});
  check_gradients_ok("adaptive_average_pool",
                     [](const auto& v) { return k::adaptive_average_pool(v[0], {2, 3}, "channels_first"); }, {wave({1, 2, 5, 7})});
}

TEST_CASE("keras.ops nn: errors name the op, the expectation and the shapes") {
  const std::string chans = message_of<k::ValueError>([] { k::conv(k::zeros({1, 5, 3}), k::zeros({2, 2, 4})); });
  CHECK(contains(chans, "conv"));
  CHECK(contains(chans, "input channels 3 and kernel in_channels 2"));
  const std::string rank = message_of<k::ShapeError>([] { k::conv(k::zeros({1, 5, 5, 3}), k::zeros({2, 3, 4})); });
  CHECK(contains(rank, "(1, 5, 5, 3)"));
  CHECK(contains(rank, "(2, 3, 4)"));
  const std::string fmt = message_of<k::ValueError>([] { k::max_pool(k::zeros({1, 4, 1}), {2}, {.data_format = "NHWC"}); });
  CHECK(contains(fmt, "max_pool"));
  CHECK(contains(fmt, "data_format=NHWC"));
  const std::string pad = message_of<k::ValueError>([] { k::average_pool(k::zeros({1, 4, 1}), {2}, {.padding = "full"}); });
  CHECK(contains(pad, "Invalid padding 'full'"));
  const std::string empty = message_of<k::ValueError>([] { k::conv(k::zeros({1, 2, 1}), k::zeros({3, 1, 1})); });
  CHECK(contains(empty, "empty output"));
  CHECK(contains(empty, "(1, 2, 1)"));
  const std::string strides = message_of<k::ValueError>([] { k::conv(k::zeros({1, 5, 5, 1}), k::zeros({2, 2, 1, 1}), {.strides = {1, 2, 3}}); });
  CHECK(contains(strides, "`strides`"));
  const std::string bce = message_of<k::ValueError>([] { k::binary_crossentropy(k::zeros({2, 3}), k::zeros({3, 2})); });
  CHECK(contains(bce, "target.shape=(2, 3), output.shape=(3, 2)"));
  const std::string scce =
      message_of<k::ValueError>([] { k::sparse_categorical_crossentropy(k::zeros({3}, k::int32), k::zeros({2, 4})); });
  CHECK(contains(scce, "up until the last dimension"));
  const std::string bn = message_of<k::ShapeError>([] { k::batch_normalization(k::zeros({2, 3}), k::zeros({2}), k::ones({3}), 1); });
  CHECK(contains(bn, "`mean` must have shape (3,)"));
  const std::string att = message_of<k::ShapeError>(
      [] { k::dot_product_attention(k::zeros({1, 2, 3, 4}), k::zeros({1, 2, 2, 4}), k::zeros({1, 2, 2, 4})); });
  CHECK(contains(att, "query (1, 2, 3, 4)"));
  CHECK(contains(message_of<k::ValueError>([] { k::dot_product_attention(k::zeros({2, 3, 4}), k::zeros({2, 3, 4}), k::zeros({2, 3, 4})); }),
                 "only supports 4D inputs"));
  const std::string ps = message_of<k::ValueError>([] { k::psnr(k::zeros({2}), k::zeros({3}), 1.0); });
  CHECK(contains(ps, "(2,) and (3,)"));
  const std::string mh = message_of<k::TypeError>([] { k::multi_hot(k::zeros({2}), 3); });
  CHECK(contains(mh, "multi_hot"));
  CHECK_THROWS_AS(k::dot_product_attention(k::zeros({1, 2, 1, 4}), k::zeros({1, 2, 1, 4}), k::zeros({1, 2, 1, 4}),
                                           {.flash_attention = true}),
                  k::ValueError);
}

}  // namespace test_keras_nn_ops
