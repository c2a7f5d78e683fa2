// NASNetMobile and NASNetLarge, as keras.applications builds them (nasnet.py):
// a stem of two reduction cells, then three stacks of normal cells joined by
// reduction cells. Many layers are unnamed (the relus, the adjust paddings and
// croppings, one add per reduction cell) and take Keras's automatic names, so
// every layer is created in Keras's order.
#include <optional>
#include <tuple>
#include <utility>

#include "app_builder.h"
#include "kiln/core/error.h"

namespace kiln::applications {

namespace L = kiln::layers;

namespace {

/// The arguments of Keras's NASNet() that NASNetMobile and NASNetLarge fix.
struct NASNetArgs {
  int64_t penultimate_filters, num_blocks, stem_block_filters;
  bool skip_reduction;
  int64_t filter_multiplier, default_size;
};

/// A cell's output and the `previous path` the next cell takes.
using Cell = std::pair<Tensor, Tensor>;

Tensor bn(const std::string& name, const Tensor& x) {
  return L::BatchNormalization({.axis = -1, .momentum = 0.9997, .epsilon = 1e-3, .name = name})(x);
}

Tensor relu(const Tensor& x, const std::string& name = "") { return L::Activation("relu", {.name = name})(x); }

Tensor add(const Tensor& a, const Tensor& b, const std::string& name = "") { return L::Add({.name = name})({a, b}); }

/// A bias-free 1x1 "same" convolution, He-normal initialised.
Tensor conv1x1(int64_t filters, const std::string& name, const Tensor& x) {
  return L::Conv2D(filters, 1,
                   {.padding = "same", .use_bias = false, .kernel_initializer = "he_normal", .name = name})(x);
}

Tensor avg_pool(int size, int strides, const std::string& padding, const std::string& name, const Tensor& x) {
  return L::AveragePooling2D(size, {.strides = strides, .padding = padding, .name = name})(x);
}

Tensor max_pool_valid(const std::string& name, const Tensor& x) {
  return L::MaxPooling2D(3, {.strides = 2, .padding = "valid", .name = name})(x);
}

/// _separable_conv_block: two [relu, separable conv, batch norm]; a stride-2 block
/// pads explicitly and convolves "valid".
Tensor separable_conv_block(const Tensor& ip, int64_t filters, int kernel, int strides, const std::string& id) {
  Tensor x = relu(ip);
  std::string padding = "same";
  if (strides == 2) {
    const auto [h, w] = detail::correct_pad(x, kernel);
    x = L::ZeroPadding2D(h, w, {.name = "separable_conv_1_pad_" + id})(x);
    padding = "valid";
  }
  x = L::SeparableConv2D(filters, kernel, {.strides = strides, .padding = padding, .use_bias = false,
                                           .name = "separable_conv_1_" + id})(x);
  x = relu(bn("separable_conv_1_bn_" + id, x));
  x = L::SeparableConv2D(filters, kernel, {.padding = "same", .use_bias = false, .name = "separable_conv_2_" + id})(x);
  return bn("separable_conv_2_bn_" + id, x);
}

/// _adjust_block: the previous path brought to the input's width (a factorised
/// stride-2 reduction) or to `filters` channels (a 1x1 projection).
Tensor adjust_block(const std::optional<Tensor>& previous, const Tensor& ip, int64_t filters, const std::string& id) {
  if (!previous) return ip;
  Tensor p = *previous;
  if (p.shape()[-2] != ip.shape()[-2]) {
    p = relu(p, "adjust_relu_1_" + id);
    Tensor p1 = avg_pool(1, 2, "valid", "adjust_avg_pool_1_" + id, p);
    p1 = conv1x1(filters / 2, "adjust_conv_1_" + id, p1);
    // The second half sees the input shifted by one pixel.
    Tensor p2 = L::ZeroPadding2D(L::Size2(0, 1), L::Size2(0, 1))(p);
    p2 = L::Cropping2D(L::Size2(1, 0), L::Size2(1, 0))(p2);
    p2 = avg_pool(1, 2, "valid", "adjust_avg_pool_2_" + id, p2);
    p2 = conv1x1(filters / 2, "adjust_conv_2_" + id, p2);
    p = L::Concatenate({.axis = -1})({p1, p2});
    return bn("adjust_bn_" + id, p);
  }
  if (p.shape()[-1] != filters) {
    p = relu(p);
    p = conv1x1(filters, "adjust_conv_projection_" + id, p);
    return bn("adjust_bn_" + id, p);
  }
  return p;
}

/// _normal_a_cell (Fig. 4 of the paper).
Cell normal_a_cell(const Tensor& ip, const std::optional<Tensor>& previous, int64_t filters, const std::string& id) {
  const Tensor p = adjust_block(previous, ip, filters, id);
  Tensor h = relu(ip);
  h = conv1x1(filters, "normal_conv_1_" + id, h);
  h = bn("normal_bn_1_" + id, h);

  const Tensor x1_1 = separable_conv_block(h, filters, 5, 1, "normal_left1_" + id);
  const Tensor x1_2 = separable_conv_block(p, filters, 3, 1, "normal_right1_" + id);
  const Tensor x1 = add(x1_1, x1_2, "normal_add_1_" + id);

  const Tensor x2_1 = separable_conv_block(p, filters, 5, 1, "normal_left2_" + id);
  const Tensor x2_2 = separable_conv_block(p, filters, 3, 1, "normal_right2_" + id);
  const Tensor x2 = add(x2_1, x2_2, "normal_add_2_" + id);

  Tensor x3 = avg_pool(3, 1, "same", "normal_left3_" + id, h);
  x3 = add(x3, p, "normal_add_3_" + id);

  const Tensor x4_1 = avg_pool(3, 1, "same", "normal_left4_" + id, p);
  const Tensor x4_2 = avg_pool(3, 1, "same", "normal_right4_" + id, p);
  const Tensor x4 = add(x4_1, x4_2, "normal_add_4_" + id);

  Tensor x5 = separable_conv_block(h, filters, 3, 1, "normal_left5_" + id);
  x5 = add(x5, h, "normal_add_5_" + id);

  const Tensor x = L::Concatenate({.axis = -1, .name = "normal_concat_" + id})({p, x1, x2, x3, x4, x5});
  return {x, ip};
}

/// _reduction_a_cell (Fig. 4 of the paper): halves the spatial size.
Cell reduction_a_cell(const Tensor& ip, const std::optional<Tensor>& previous, int64_t filters,
                      const std::string& id) {
  const Tensor p = adjust_block(previous, ip, filters, id);
  Tensor h = relu(ip);
  h = conv1x1(filters, "reduction_conv_1_" + id, h);
  h = bn("reduction_bn_1_" + id, h);
  const auto [pad_h, pad_w] = detail::correct_pad(h, 3);
  const Tensor h3 = L::ZeroPadding2D(pad_h, pad_w, {.name = "reduction_pad_1_" + id})(h);

  const Tensor x1_1 = separable_conv_block(h, filters, 5, 2, "reduction_left1_" + id);
  const Tensor x1_2 = separable_conv_block(p, filters, 7, 2, "reduction_right1_" + id);
  const Tensor x1 = add(x1_1, x1_2, "reduction_add_1_" + id);

  const Tensor x2_1 = max_pool_valid("reduction_left2_" + id, h3);
  const Tensor x2_2 = separable_conv_block(p, filters, 7, 2, "reduction_right2_" + id);
  const Tensor x2 = add(x2_1, x2_2, "reduction_add_2_" + id);

  const Tensor x3_1 = avg_pool(3, 2, "valid", "reduction_left3_" + id, h3);
  const Tensor x3_2 = separable_conv_block(p, filters, 5, 2, "reduction_right3_" + id);
  const Tensor x3 = add(x3_1, x3_2, "reduction_add3_" + id);

  Tensor x4 = avg_pool(3, 1, "same", "reduction_left4_" + id, x1);
  x4 = add(x2, x4);

  const Tensor x5_1 = separable_conv_block(x1, filters, 3, 1, "reduction_left4_" + id);
  const Tensor x5_2 = max_pool_valid("reduction_right5_" + id, h3);
  const Tensor x5 = add(x5_1, x5_2, "reduction_add4_" + id);

  const Tensor x = L::Concatenate({.axis = -1, .name = "reduction_concat_" + id})({x2, x3, x4, x5});
  return {x, ip};
}

/// Keras's NASNet(): the stem, then num_blocks normal cells at each of three
/// widths, a reduction cell between widths.
ModelPtr nasnet(const std::string& cls, const ApplicationOptions& o, const NASNetArgs& a,
                const std::string& default_name) {
  Tensor input = Input(detail::obtain_input_shape(cls, o, a.default_size, 32));
  const int64_t m = a.filter_multiplier;
  if (a.penultimate_filters % (24 * m * m) != 0)
    throw ValueError(cls + ": For NASNet-A models, the `penultimate_filters` must be a multiple of 24 * "
                           "(`filter_multiplier` ** 2). Current value: " + std::to_string(a.penultimate_filters));
  const int64_t filters = a.penultimate_filters / 24;
  const int64_t n = a.num_blocks;

  Tensor x = L::Conv2D(a.stem_block_filters, 3,
                       {.strides = 2, .padding = "valid", .use_bias = false, .kernel_initializer = "he_normal",
                        .name = "stem_conv1"})(input);
  x = bn("stem_bn1", x);
  std::optional<Tensor> p;
  std::tie(x, p) = reduction_a_cell(x, p, filters / (m * m), "stem_1");
  std::tie(x, p) = reduction_a_cell(x, p, filters / m, "stem_2");
  const int64_t widths[] = {filters, filters * m, filters * m * m};
  for (int64_t stack = 0; stack < 3; ++stack) {
    if (stack > 0) {
      // skip_reduction: the next cell's previous path stays the one from before this reduction.
      Tensor p0;
      std::tie(x, p0) = reduction_a_cell(x, p, widths[stack], "reduce_" + std::to_string(stack * n));
      if (!a.skip_reduction) p = p0;
    }
    // Block ids 0 .. n-1, then n+1 .. 2n, then 2n+1 .. 3n (the reductions take n and 2n).
    for (int64_t i = 0; i < n; ++i)
      std::tie(x, p) = normal_a_cell(x, p, widths[stack], std::to_string(stack == 0 ? i : stack * n + 1 + i));
  }
  x = relu(x);
  return detail::finish(input, x, o, default_name, {});
}

}  // namespace

ModelPtr NASNetMobile(const ApplicationOptions& options) {
  ApplicationOptions o = options;
  if (!o.include_top && !o.input_shape) o.input_shape = Shape{224, 224, 3};
  return nasnet("NASNetMobile", o, {1056, 4, 32, false, 2, 224}, "nasnet_mobile");
}

ModelPtr NASNetLarge(const ApplicationOptions& options) {
  return nasnet("NASNetLarge", options, {4032, 6, 96, true, 2, 331}, "nasnet_large");
}

}  // namespace kiln::applications
