#pragma once
// keras.applications in C++: each builder makes the model Keras 3 builds, with
// the same layer names, configs and weight order, so a weights file Keras saved
// for that model (.weights.h5, or the legacy .h5 of keras.applications) loads
// with load_weights, and the model saves to files Keras reads.
//
//   namespace A = kiln::applications;
//   auto base = A::MobileNetV2({.include_top = false, .input_shape = kiln::Shape{96, 96, 3}, .alpha = 0.35});
//   auto net = A::ResNet50({.weights = "resnet50.weights.h5", .classes = 10});
//   kiln::Tensor x = A::preprocess_input(images, "resnet");          // RGB in [0, 255]
//   auto top5 = A::decode_predictions(net->predict(x), "imagenet_class_index.json");
//
// Models: ResNet50, ResNet101, ResNet152, ResNet50V2, ResNet101V2, ResNet152V2,
// VGG16, VGG19, MobileNet, MobileNetV2, MobileNetV3Small, MobileNetV3Large,
// DenseNet121, DenseNet169, DenseNet201, Xception, InceptionV3,
// InceptionResNetV2, ConvNeXtTiny, ConvNeXtSmall, ConvNeXtBase, ConvNeXtLarge,
// ConvNeXtXLarge, NASNetMobile, NASNetLarge, EfficientNetB0 to EfficientNetB7,
// EfficientNetV2B0 to EfficientNetV2B3, EfficientNetV2S, EfficientNetV2M,
// EfficientNetV2L. This header is not part of <kiln/kiln.h>.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/shape.h"
#include "kiln/core/tensor.h"
#include "kiln/training/model.h"

namespace kiln::applications {

/// Keras's arguments of every application builder.
struct ApplicationOptions {
  /// The classifier on top (global pooling and a Dense of `classes`).
  bool include_top = true;
  /// "" for random initialisation (Keras's None), or the path of a weights file
  /// (.weights.h5 or a legacy .h5). "imagenet" needs the download Keras does,
  /// which Kiln does not: pass the file's path instead.
  std::string weights;
  /// (height, width, channels) without the batch axis; the default is the
  /// model's own size (224x224x3) with the top, and (None, None, 3) without.
  std::optional<Shape> input_shape;
  /// Without the top: "" (the last feature map), "avg" or "max" (global pooling).
  std::string pooling;
  int64_t classes = 1000;  ///< Number of classes of the top (with include_top).
  /// The top's activation; "" or "linear" gives logits.
  std::string classifier_activation = "softmax";
  /// The model's name; empty: Keras's default for the class ("resnet50").
  std::string name;
  /// MobileNet width multiplier (MobileNet, MobileNetV2, MobileNetV3).
  double alpha = 1.0;
  /// MobileNet: the depthwise convolutions' depth multiplier.
  int depth_multiplier = 1;
  /// The rate of the Dropout before the classifier: MobileNet's `dropout`
  /// (default 1e-3) and MobileNetV3's `dropout_rate` (default 0.2); empty
  /// takes the class's default.
  std::optional<double> dropout;
  /// MobileNetV3: the minimalistic form (no squeeze-excite, ReLU, 3x3 kernels).
  bool minimalistic = false;
  /// ConvNeXt, EfficientNetV2 and MobileNetV3: take RGB inputs in [0, 255] and
  /// rescale (and, for ConvNeXt, normalise) them inside the model, as Keras does by default.
  bool include_preprocessing = true;
};

/// A built application model.
using ModelPtr = std::shared_ptr<Model>;

/// @name Builders
//@{
/// Builds keras.applications' model of the same name (ResNet50: keras.applications.ResNet50), loading
/// options.weights when given. Throws ValueError for weights = "imagenet", an input_shape that is not
/// three dimensions or is below the model's minimum size, a top without a static input_shape, or an
/// unknown pooling (the MobileNets also for alpha <= 0, MobileNet for depth_multiplier < 1).
ModelPtr ResNet50(const ApplicationOptions& options = {});
ModelPtr ResNet101(const ApplicationOptions& options = {});
ModelPtr ResNet152(const ApplicationOptions& options = {});
ModelPtr ResNet50V2(const ApplicationOptions& options = {});
ModelPtr ResNet101V2(const ApplicationOptions& options = {});
ModelPtr ResNet152V2(const ApplicationOptions& options = {});
ModelPtr VGG16(const ApplicationOptions& options = {});
ModelPtr VGG19(const ApplicationOptions& options = {});
ModelPtr MobileNet(const ApplicationOptions& options = {});
ModelPtr MobileNetV2(const ApplicationOptions& options = {});
ModelPtr MobileNetV3Small(const ApplicationOptions& options = {});
ModelPtr MobileNetV3Large(const ApplicationOptions& options = {});
ModelPtr DenseNet121(const ApplicationOptions& options = {});
ModelPtr DenseNet169(const ApplicationOptions& options = {});
ModelPtr DenseNet201(const ApplicationOptions& options = {});
ModelPtr Xception(const ApplicationOptions& options = {});
ModelPtr InceptionV3(const ApplicationOptions& options = {});
ModelPtr InceptionResNetV2(const ApplicationOptions& options = {});
ModelPtr ConvNeXtTiny(const ApplicationOptions& options = {});
ModelPtr ConvNeXtSmall(const ApplicationOptions& options = {});
ModelPtr ConvNeXtBase(const ApplicationOptions& options = {});
ModelPtr ConvNeXtLarge(const ApplicationOptions& options = {});
ModelPtr ConvNeXtXLarge(const ApplicationOptions& options = {});
/// NASNet's top needs 224x224 (Mobile) or 331x331 (Large) unless input_shape says
/// otherwise; NASNetMobile without the top and an input_shape takes 224x224 too.
ModelPtr NASNetMobile(const ApplicationOptions& options = {});
ModelPtr NASNetLarge(const ApplicationOptions& options = {});
ModelPtr EfficientNetB0(const ApplicationOptions& options = {});
ModelPtr EfficientNetB1(const ApplicationOptions& options = {});
ModelPtr EfficientNetB2(const ApplicationOptions& options = {});
ModelPtr EfficientNetB3(const ApplicationOptions& options = {});
ModelPtr EfficientNetB4(const ApplicationOptions& options = {});
ModelPtr EfficientNetB5(const ApplicationOptions& options = {});
ModelPtr EfficientNetB6(const ApplicationOptions& options = {});
ModelPtr EfficientNetB7(const ApplicationOptions& options = {});
ModelPtr EfficientNetV2B0(const ApplicationOptions& options = {});
ModelPtr EfficientNetV2B1(const ApplicationOptions& options = {});
ModelPtr EfficientNetV2B2(const ApplicationOptions& options = {});
ModelPtr EfficientNetV2B3(const ApplicationOptions& options = {});
ModelPtr EfficientNetV2S(const ApplicationOptions& options = {});
ModelPtr EfficientNetV2M(const ApplicationOptions& options = {});
ModelPtr EfficientNetV2L(const ApplicationOptions& options = {});
//@}

/// Builds a model by its Keras class name ("ResNet50", "MobileNetV2", ...);
/// NotFoundError for a class Kiln does not build.
ModelPtr build(const std::string& class_name, const ApplicationOptions& options = {});
/// The class names build() accepts.
std::vector<std::string> names();

/// keras.applications' preprocess_input for a family's mode, on RGB images
/// in [0, 255], channels last:
///   "caffe" (ResNet, VGG): RGB -> BGR, minus the ImageNet mean per channel;
///   "tf" (ResNetV2, MobileNet, Xception, Inception, NASNet): x / 127.5 - 1;
///   "torch" (DenseNet): x / 255, minus the mean, divided by the std per channel;
///   "none" (EfficientNet, EfficientNetV2, MobileNetV3, whose models rescale
///   inside): the images unchanged, of any shape.
/// A family name ("resnet", "resnet_v2", "vgg16", "vgg19", "mobilenet_v2",
/// "efficientnet", "efficientnet_v2", "mobilenet_v3") stands for its mode.
Tensor preprocess_input(const Tensor& images, const std::string& mode_or_family);

/// One entry of decode_predictions(): Keras's (class_id, class_name, score) tuple.
struct Prediction {
  std::string class_id;     ///< The WordNet id, e.g. "n02123045".
  std::string class_name;   ///< The readable name, e.g. "tabby".
  double score = 0;  ///< The prediction's value for that class.
};
/// keras.applications' decode_predictions: the `top` highest scores of each
/// row of `predictions` (batch, classes), best first, named from a class-index
/// JSON file ({"0": ["n01440764", "tench"], ...}, Keras's
/// imagenet_class_index.json). The file must cover every class.
std::vector<std::vector<Prediction>> decode_predictions(const Tensor& predictions, const std::string& class_index_path,
                                                        int top = 5);

}  // namespace kiln::applications
