// InceptionV3, as keras.applications builds it (inception_v3.py). Its
// convolutions and batch norms are unnamed (Keras's automatic names), so they
// are created in Keras's order, branch by branch.
#include "app_builder.h"

namespace kiln::applications {

namespace L = kiln::layers;

namespace {

/// conv2d_bn: a bias-free convolution, a batch norm without scale, relu.
Tensor conv_bn(const Tensor& x, int filters, int rows, int cols, int stride = 1, const std::string& padding = "same") {
  Tensor y = L::Conv2D(filters, L::Size2(rows, cols), {.strides = stride, .padding = padding, .use_bias = false})(x);
  y = L::BatchNormalization({.axis = 3, .scale = false})(y);
  return L::Activation("relu")(y);
}

Tensor avg_pool_same(const Tensor& x) { return L::AveragePooling2D(3, {.strides = 1, .padding = "same"})(x); }

Tensor concat(const std::vector<Tensor>& xs, const std::string& name = "") {
  return L::Concatenate({.axis = 3, .name = name})(xs);
}

/// mixed0..2: 1x1, 5x5, double 3x3 and pooled branches.
Tensor block35(const Tensor& x, int pool_filters, const std::string& name) {
  const Tensor b1 = conv_bn(x, 64, 1, 1);
  const Tensor b5 = conv_bn(conv_bn(x, 48, 1, 1), 64, 5, 5);
  const Tensor b3 = conv_bn(conv_bn(conv_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3);
  const Tensor bp = conv_bn(avg_pool_same(x), pool_filters, 1, 1);
  return concat({b1, b5, b3, bp}, name);
}

/// mixed4..7: factorised 7x7 branches of width c.
Tensor block17(const Tensor& x, int c, const std::string& name) {
  const Tensor b1 = conv_bn(x, 192, 1, 1);
  Tensor b7 = conv_bn(conv_bn(conv_bn(x, c, 1, 1), c, 1, 7), 192, 7, 1);
  Tensor bd = conv_bn(conv_bn(conv_bn(x, c, 1, 1), c, 7, 1), c, 1, 7);
  bd = conv_bn(conv_bn(bd, c, 7, 1), 192, 1, 7);
  const Tensor bp = conv_bn(avg_pool_same(x), 192, 1, 1);
  return concat({b1, b7, bd, bp}, name);
}

/// mixed9, mixed10: expanded 3x3 branches.
Tensor block8(const Tensor& x, int i) {
  const Tensor b1 = conv_bn(x, 320, 1, 1);
  const Tensor b3 = conv_bn(x, 384, 1, 1);
  const Tensor b3_cat = concat({conv_bn(b3, 384, 1, 3), conv_bn(b3, 384, 3, 1)}, "mixed9_" + std::to_string(i));
  const Tensor bd = conv_bn(conv_bn(x, 448, 1, 1), 384, 3, 3);
  const Tensor bd_cat = concat({conv_bn(bd, 384, 1, 3), conv_bn(bd, 384, 3, 1)});
  const Tensor bp = conv_bn(avg_pool_same(x), 192, 1, 1);
  return concat({b1, b3_cat, bd_cat, bp}, "mixed" + std::to_string(9 + i));
}

}  // namespace

ModelPtr InceptionV3(const ApplicationOptions& o) {
  Tensor input = Input(detail::obtain_input_shape("InceptionV3", o, 299, 75));
  Tensor x = conv_bn(input, 32, 3, 3, 2, "valid");
  x = conv_bn(x, 32, 3, 3, 1, "valid");
  x = conv_bn(x, 64, 3, 3);
  x = L::MaxPooling2D(3, {.strides = 2})(x);
  x = conv_bn(x, 80, 1, 1, 1, "valid");
  x = conv_bn(x, 192, 3, 3, 1, "valid");
  x = L::MaxPooling2D(3, {.strides = 2})(x);
  x = block35(x, 32, "mixed0");
  x = block35(x, 64, "mixed1");
  x = block35(x, 64, "mixed2");
  {  // mixed3: a stride-2 reduction
    const Tensor b3 = conv_bn(x, 384, 3, 3, 2, "valid");
    const Tensor bd = conv_bn(conv_bn(conv_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3, 2, "valid");
    const Tensor bp = L::MaxPooling2D(3, {.strides = 2})(x);
    x = concat({b3, bd, bp}, "mixed3");
  }
  x = block17(x, 128, "mixed4");
  x = block17(x, 160, "mixed5");
  x = block17(x, 160, "mixed6");
  x = block17(x, 192, "mixed7");
  {  // mixed8: the second reduction
    const Tensor b3 = conv_bn(conv_bn(x, 192, 1, 1), 320, 3, 3, 2, "valid");
    Tensor b7 = conv_bn(conv_bn(conv_bn(x, 192, 1, 1), 192, 1, 7), 192, 7, 1);
    b7 = conv_bn(b7, 192, 3, 3, 2, "valid");
    const Tensor bp = L::MaxPooling2D(3, {.strides = 2})(x);
    x = concat({b3, b7, bp}, "mixed8");
  }
  x = block8(x, 0);
  x = block8(x, 1);
  return detail::finish(input, x, o, "inception_v3", {"avg_pool", "", ""});
}

}  // namespace kiln::applications
