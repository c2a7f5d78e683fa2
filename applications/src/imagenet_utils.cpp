// Builders by name, and keras.applications' preprocess_input and decode_predictions.
#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>

#include "app_builder.h"
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"

namespace kiln::applications {

namespace {
const std::map<std::string, std::function<ModelPtr(const ApplicationOptions&)>>& builders() {
  static const std::map<std::string, std::function<ModelPtr(const ApplicationOptions&)>> b = {
      {"ResNet50", ResNet50},       {"ResNet101", ResNet101},     {"ResNet152", ResNet152},
      {"ResNet50V2", ResNet50V2},   {"ResNet101V2", ResNet101V2}, {"ResNet152V2", ResNet152V2},
      {"VGG16", VGG16},             {"VGG19", VGG19},             {"MobileNetV2", MobileNetV2},
      {"DenseNet121", DenseNet121}, {"DenseNet169", DenseNet169}, {"DenseNet201", DenseNet201},
      {"Xception", Xception},       {"InceptionV3", InceptionV3}, {"InceptionResNetV2", InceptionResNetV2},
      {"MobileNet", MobileNet},     {"MobileNetV3Small", MobileNetV3Small}, {"MobileNetV3Large", MobileNetV3Large},
      {"ConvNeXtTiny", ConvNeXtTiny}, {"ConvNeXtSmall", ConvNeXtSmall}, {"ConvNeXtBase", ConvNeXtBase},
      {"ConvNeXtLarge", ConvNeXtLarge}, {"ConvNeXtXLarge", ConvNeXtXLarge},
      {"NASNetMobile", NASNetMobile},   {"NASNetLarge", NASNetLarge},
      {"EfficientNetB0", EfficientNetB0}, {"EfficientNetB1", EfficientNetB1}, {"EfficientNetB2", EfficientNetB2},
      {"EfficientNetB3", EfficientNetB3}, {"EfficientNetB4", EfficientNetB4}, {"EfficientNetB5", EfficientNetB5},
      {"EfficientNetB6", EfficientNetB6}, {"EfficientNetB7", EfficientNetB7},
      {"EfficientNetV2B0", EfficientNetV2B0}, {"EfficientNetV2B1", EfficientNetV2B1},
      {"EfficientNetV2B2", EfficientNetV2B2}, {"EfficientNetV2B3", EfficientNetV2B3},
      {"EfficientNetV2S", EfficientNetV2S}, {"EfficientNetV2M", EfficientNetV2M}, {"EfficientNetV2L", EfficientNetV2L}};
  return b;
}

std::string mode_of(const std::string& m) {
  static const std::map<std::string, std::string> family = {
      {"resnet", "caffe"}, {"resnet50", "caffe"},        {"vgg16", "caffe"},   {"vgg19", "caffe"},
      {"resnet_v2", "tf"}, {"mobilenet_v2", "tf"},       {"mobilenet", "tf"},  {"xception", "tf"},
      {"inception_v3", "tf"}, {"inception_resnet_v2", "tf"}, {"nasnet", "tf"},
      {"densenet", "torch"}, {"efficientnet", "none"}, {"efficientnet_v2", "none"}, {"mobilenet_v3", "none"}};
  if (m == "caffe" || m == "tf" || m == "torch" || m == "none") return m;
  auto it = family.find(m);
  if (it == family.end())
    throw ValueError("preprocess_input: unknown mode or family '" + m +
                     "'; expected \"caffe\", \"tf\", \"torch\", \"none\" or a family such as \"resnet\" or "
                     "\"mobilenet_v2\"");
  return it->second;
}
}  // namespace

ModelPtr build(const std::string& class_name, const ApplicationOptions& options) {
  auto it = builders().find(class_name);
  if (it == builders().end()) {
    std::string known;
    for (const auto& [n, f] : builders()) known += (known.empty() ? "" : ", ") + n;
    throw NotFoundError("kiln::applications: no builder for '" + class_name + "'; Kiln builds " + known);
  }
  return it->second(options);
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const auto& [n, f] : builders()) out.push_back(n);
  return out;
}

Tensor preprocess_input(const Tensor& images, const std::string& mode_or_family) {
  const std::string mode = mode_of(mode_or_family);
  if (mode == "none") return images;
  if (images.rank() < 1 || images.shape()[-1] != 3)
    throw ShapeError("preprocess_input: expected RGB images with 3 channels last, but received shape " +
                     images.shape().to_string());
  Tensor x = is_floating(images.dtype()) ? images : images.cast(DType::float32);
  if (mode == "tf") return x / 127.5 - 1.0;
  Shape per_channel(std::vector<int64_t>(static_cast<std::size_t>(x.rank()), 1));
  per_channel[-1] = 3;
  auto channels = [&](std::vector<double> v) { return reshape(Tensor(v, Shape{3}).cast(x.dtype()), per_channel); };
  if (mode == "torch") return (x / 255.0 - channels({0.485, 0.456, 0.406})) / channels({0.229, 0.224, 0.225});
  // caffe: RGB -> BGR, then the ImageNet mean of each BGR channel.
  const Tensor bgr = gather(x, Tensor(std::vector<int64_t>{2, 1, 0}, Shape{3}), static_cast<int>(x.rank()) - 1);
  return bgr - channels({103.939, 116.779, 123.68});
}

std::vector<std::vector<Prediction>> decode_predictions(const Tensor& predictions, const std::string& path, int top) {
  if (predictions.rank() != 2)
    throw ShapeError("decode_predictions expects a batch of predictions (a 2D array of shape (samples, classes)); "
                     "received shape " + predictions.shape().to_string());
  std::ifstream in(path);
  if (!in) throw IOError("decode_predictions: cannot open the class index file " + path);
  nlohmann::json index;
  try {
    in >> index;
  } catch (const nlohmann::json::exception& e) {
    throw IOError("decode_predictions: " + path + " is not a JSON class index: " + e.what());
  }
  const int64_t classes = predictions.shape()[1];
  if (!index.is_object() || static_cast<int64_t>(index.size()) < classes)
    throw ValueError("decode_predictions: " + path + " names " + std::to_string(index.size()) +
                     " classes, but the predictions have " + std::to_string(classes));
  const std::vector<float> p = predictions.cast(DType::float32).to_vector<float>();
  std::vector<std::vector<Prediction>> out;
  for (int64_t r = 0; r < predictions.shape()[0]; ++r) {
    std::vector<int64_t> order(static_cast<std::size_t>(classes));
    std::iota(order.begin(), order.end(), 0);
    const float* row = p.data() + r * classes;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return row[a] > row[b]; });
    std::vector<Prediction> best;
    for (int k = 0; k < top && k < classes; ++k) {
      const auto& entry = index.at(std::to_string(order[static_cast<std::size_t>(k)]));
      best.push_back({entry.at(0).get<std::string>(), entry.at(1).get<std::string>(), row[order[static_cast<std::size_t>(k)]]});
    }
    out.push_back(best);
  }
  return out;
}

}  // namespace kiln::applications
