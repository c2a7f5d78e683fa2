// Xception, as keras.applications builds it (xception.py): entry flow, eight
// middle-flow blocks, exit flow. Unnamed layers (the residual projections, the
// additions) take Keras's automatic names, so they are created in its order.
#include "app_builder.h"

namespace kiln::applications {

namespace L = kiln::layers;

namespace {

Tensor bn(const Tensor& x, const std::string& name = "") { return L::BatchNormalization({.name = name})(x); }

Tensor sepconv(int filters, const std::string& name, const Tensor& x) {
  return L::SeparableConv2D(filters, 3, {.padding = "same", .use_bias = false, .name = name})(x);
}

Tensor relu(const std::string& name, const Tensor& x) { return L::Activation("relu", {.name = name})(x); }

Tensor projection(int filters, const Tensor& x) {
  return bn(L::Conv2D(filters, 1, {.strides = 2, .padding = "same", .use_bias = false})(x));
}

/// Entry- and exit-flow block: [relu] sepconv-bn, relu, sepconv-bn, max pool, plus a strided 1x1 projection.
/// Block 2 starts without the relu (its input is already activated).
Tensor down_block(Tensor x, const std::string& block, int f1, int f2, bool first_relu) {
  const Tensor residual = projection(f2, x);
  if (first_relu) x = relu(block + "_sepconv1_act", x);
  x = bn(sepconv(f1, block + "_sepconv1", x), block + "_sepconv1_bn");
  x = relu(block + "_sepconv2_act", x);
  x = bn(sepconv(f2, block + "_sepconv2", x), block + "_sepconv2_bn");
  x = L::MaxPooling2D(3, {.strides = 2, .padding = "same", .name = block + "_pool"})(x);
  return L::Add()({x, residual});
}

}  // namespace

ModelPtr Xception(const ApplicationOptions& o) {
  Tensor input = Input(detail::obtain_input_shape("Xception", o, 299, 71));
  Tensor x = L::Conv2D(32, 3, {.strides = 2, .use_bias = false, .name = "block1_conv1"})(input);
  x = relu("block1_conv1_act", bn(x, "block1_conv1_bn"));
  x = L::Conv2D(64, 3, {.use_bias = false, .name = "block1_conv2"})(x);
  x = relu("block1_conv2_act", bn(x, "block1_conv2_bn"));
  x = down_block(x, "block2", 128, 128, false);
  x = down_block(x, "block3", 256, 256, true);
  x = down_block(x, "block4", 728, 728, true);
  for (int i = 0; i < 8; ++i) {
    const std::string p = "block" + std::to_string(i + 5);
    const Tensor residual = x;
    for (int k = 1; k <= 3; ++k) {
      const std::string s = p + "_sepconv" + std::to_string(k);
      x = bn(sepconv(728, s, relu(s + "_act", x)), s + "_bn");
    }
    x = L::Add()({x, residual});
  }
  x = down_block(x, "block13", 728, 1024, true);
  x = relu("block14_sepconv1_act", bn(sepconv(1536, "block14_sepconv1", x), "block14_sepconv1_bn"));
  x = relu("block14_sepconv2_act", bn(sepconv(2048, "block14_sepconv2", x), "block14_sepconv2_bn"));
  return detail::finish(input, x, o, "xception", {"avg_pool", "", ""});
}

}  // namespace kiln::applications
