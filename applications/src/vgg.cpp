// VGG16 and VGG19, as keras.applications builds them (vgg16.py, vgg19.py).
#include "app_builder.h"

namespace kiln::applications {

namespace L = kiln::layers;

namespace {

ModelPtr vgg(const std::string& cls, const std::string& default_name, const std::vector<int>& convs,
             const ApplicationOptions& o) {
  Tensor input = Input(detail::obtain_input_shape(cls, o, 224, 32));
  Tensor x = input;
  const int filters[] = {64, 128, 256, 512, 512};
  for (int b = 0; b < 5; ++b) {
    const std::string block = "block" + std::to_string(b + 1);
    for (int c = 0; c < convs[b]; ++c)
      x = L::Conv2D(filters[b], 3,
                    {.padding = "same", .activation = "relu", .name = block + "_conv" + std::to_string(c + 1)})(x);
    x = L::MaxPooling2D(2, {.strides = 2, .name = block + "_pool"})(x);
  }
  if (o.include_top) {
    x = L::Flatten({.name = "flatten"})(x);
    x = L::Dense(4096, {.activation = "relu", .name = "fc1"})(x);
    x = L::Dense(4096, {.activation = "relu", .name = "fc2"})(x);
    const std::string act = o.classifier_activation.empty() ? "linear" : o.classifier_activation;
    x = L::Dense(o.classes, {.activation = act, .name = "predictions"})(x);
  } else if (o.pooling == "avg") {
    x = L::GlobalAveragePooling2D()(x);
  } else if (o.pooling == "max") {
    x = L::GlobalMaxPooling2D()(x);
  }
  return detail::make_model(input, x, o, default_name);
}

}  // namespace

ModelPtr VGG16(const ApplicationOptions& o) { return vgg("VGG16", "vgg16", {2, 2, 3, 3, 3}, o); }
ModelPtr VGG19(const ApplicationOptions& o) { return vgg("VGG19", "vgg19", {2, 2, 4, 4, 4}, o); }

}  // namespace kiln::applications
