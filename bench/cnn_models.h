#pragma once
// The real-size CNNs of the CPU benchmarks, as Kiln models. bench/peers/models.py
// builds the same networks in Keras 3 and PyTorch; both sides must change together.
//
//   resnet: 32x32x3 -> Conv(w0, 3x3) + BN + relu, then 3 stages of 2 residual
//           blocks (w0, 2·w0, 4·w0 channels; the first block of stages 2 and 3
//           halves the size and takes a 1x1 strided projection shortcut),
//           global average pooling, Dense(10). Convolutions carry no bias (BN follows).
//   vgg:    64x64x3 -> [Conv(64) Conv(64) MaxPool] [Conv(128) Conv(128) MaxPool]
//           [Conv(256) Conv(256) MaxPool], 3x3 "same" convolutions with relu,
//           Flatten, Dense(256, relu), Dense(10).
//   bigcnn: the TF CNN tutorial's model on 28x28x1 (3 valid convolutions).
// Every model ends in logits for 10 classes.
#include <kiln/kiln.h>

#include <memory>
#include <vector>

namespace kiln::bench {

inline std::shared_ptr<Model> resnet(int w0 = 64) {
  namespace L = kiln::layers;
  Tensor in = Input({32, 32, 3});
  auto conv_bn = [](const Tensor& x, int ch, int stride, bool relu) {
    Tensor y = L::Conv2D(ch, 3, {.strides = stride, .padding = "same", .use_bias = false})(x);
    y = L::BatchNormalization()(y);
    return relu ? L::Activation("relu")(y) : y;
  };
  Tensor x = conv_bn(in, w0, 1, true);
  int ch = w0;
  for (int stage = 0; stage < 3; ++stage, ch *= 2)
    for (int block = 0; block < 2; ++block) {
      const int stride = stage > 0 && block == 0 ? 2 : 1;
      Tensor shortcut = x;
      if (stride != 1) shortcut = L::Conv2D(ch, 1, {.strides = stride, .use_bias = false})(x);
      Tensor y = conv_bn(conv_bn(x, ch, stride, true), ch, 1, false);
      x = L::Activation("relu")(L::Add()({y, shortcut}));
    }
  Tensor out = L::Dense(10)(L::GlobalAveragePooling2D()(x));
  return std::make_shared<Model>(in, out);
}

inline std::shared_ptr<Model> vgg() {
  namespace L = kiln::layers;
  std::vector<std::shared_ptr<Layer>> layers{L::Input({64, 64, 3})};
  for (int ch : {64, 128, 256}) {
    layers.push_back(L::Conv2D(ch, 3, {.padding = "same", .activation = "relu"}));
    layers.push_back(L::Conv2D(ch, 3, {.padding = "same", .activation = "relu"}));
    layers.push_back(L::MaxPooling2D());
  }
  layers.push_back(L::Flatten());
  layers.push_back(L::Dense(256, {.activation = "relu"}));
  layers.push_back(L::Dense(10));
  return std::make_shared<Sequential>(layers);
}

inline std::vector<std::shared_ptr<Layer>> bigcnn_layers() {
  namespace L = kiln::layers;
  return {
      L::Input({28, 28, 1}),
      L::Conv2D(32, 3, {.activation = "relu"}),
      L::MaxPooling2D(),
      L::Conv2D(64, 3, {.activation = "relu"}),
      L::MaxPooling2D(),
      L::Conv2D(64, 3, {.activation = "relu"}),
      L::Flatten(),
      L::Dense(64, {.activation = "relu"}),
      L::Dense(10),
  };
}

inline std::shared_ptr<Model> bigcnn() { return std::make_shared<Sequential>(bigcnn_layers()); }

}  // namespace kiln::bench
