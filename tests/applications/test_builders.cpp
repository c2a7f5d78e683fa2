// kiln::applications builders without Keras: each class's default model has
// the parameter count and layer count Keras 3.15's has (the figures come from
// keras.applications with weights=None), and bad arguments fail with errors
// that name the class, what was expected and what was received. The Keras
// oracle (keras_oracle_applications) compares configs and predictions.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "kiln/applications.h"
#include "kiln/core/error.h"
#include "kiln/kiln.h"

namespace test_builders {

namespace A = kiln::applications;
using kiln::Shape;

TEST_CASE("applications: default models have Keras's parameter and layer counts and names") {
  struct Case {
    const char* cls;
    int64_t params;
    std::size_t layers;
    const char* name;
  };
  // Keras 3.15, keras.applications.<cls>(weights=None): count_params(), len(model.layers), model.name.
  const Case cases[] = {
      {"MobileNet", 4253864, 91, "mobilenet_1.00_224"},
      {"MobileNetV2", 3538984, 156, "mobilenetv2_1.00_224"},
      {"MobileNetV3Small", 2554968, 164, "MobileNetV3Small"},
      {"NASNetMobile", 5326716, 771, "nasnet_mobile"},
      {"EfficientNetB0", 5330571, 240, "efficientnetb0"},
      {"EfficientNetV2B0", 7200312, 273, "efficientnetv2-b0"},
      {"DenseNet121", 8062504, 429, "densenet121"},
  };
  for (const Case& c : cases) {
    INFO(c.cls);
    kiln::clear_session();
    auto model = A::build(c.cls);
    CHECK(model->count_params() == c.params);
    CHECK(model->layers().size() == c.layers);
    CHECK(model->name() == c.name);
  }
}

TEST_CASE("applications: every class build() knows builds") {
  CHECK(A::names().size() == 40);
  CHECK_THROWS_WITH_AS(A::build("ResNet51"), doctest::Contains("ResNet51"), kiln::NotFoundError);
}

TEST_CASE("applications: bad arguments name the class, the expectation and the value") {
  auto fails = [](const std::string& cls, const A::ApplicationOptions& o, const std::string& message) {
    INFO(cls, ": ", message);
    CHECK_THROWS_WITH_AS(A::build(cls, o), doctest::Contains(message.c_str()), kiln::ValueError);
  };
  fails("ResNet50", {.input_shape = Shape{32, 32}}, "ResNet50: `input_shape` must be a tuple of three integers");
  fails("MobileNetV2", {.input_shape = Shape{31, 64, 3}}, "Input size must be at least 32x32");
  fails("InceptionResNetV2", {.input_shape = Shape{74, 80, 3}}, "Input size must be at least 75x75");
  fails("EfficientNetB0", {.include_top = true, .input_shape = Shape{kiln::None, kiln::None, 3}},
        "you should specify a static `input_shape`");
  fails("DenseNet121", {.include_top = false, .pooling = "mean"}, "`pooling` must be \"\" (None), \"avg\" or \"max\"");
  fails("NASNetMobile", {.weights = "imagenet"}, "pass its path as `weights`");
  fails("MobileNet", {.alpha = 0}, "MobileNet: `alpha` must be positive");
  fails("MobileNetV3Large", {.alpha = -1}, "MobileNetV3Large: `alpha` must be positive");
  fails("MobileNet", {.depth_multiplier = 0}, "`depth_multiplier` must be at least 1");
}

TEST_CASE("applications: a weights file for another model is refused, naming the layer") {
  const auto dir = std::filesystem::temp_directory_path() / "kiln_test_builders";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "mobilenet.weights.h5").string();
  A::MobileNet({.include_top = false, .input_shape = Shape{32, 32, 3}})->save_weights(path);
  // Same class, other width: every kernel has a different shape.
  CHECK_THROWS_AS(A::MobileNet({.include_top = false, .weights = path, .input_shape = Shape{32, 32, 3}, .alpha = 0.5}),
                  kiln::Error);
  // The same model loads its own file back and predicts as before.
  kiln::clear_session();
  auto a = A::MobileNet({.include_top = false, .input_shape = Shape{32, 32, 3}, .pooling = "avg"});
  a->save_weights(path);
  kiln::clear_session();
  auto b = A::MobileNet({.include_top = false, .weights = path, .input_shape = Shape{32, 32, 3}, .pooling = "avg"});
  const kiln::Tensor x = kiln::random::uniform(Shape{2, 32, 32, 3}, -1, 1, kiln::float32, 3);
  const auto ya = a->predict(kiln::Data(x), {.verbose = 0}).to_vector<float>();
  const auto yb = b->predict(kiln::Data(x), {.verbose = 0}).to_vector<float>();
  CHECK(ya == yb);
  std::filesystem::remove_all(dir);
}

}  // namespace test_builders
