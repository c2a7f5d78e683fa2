// A subclassed model registered as Keras's register_keras_serializable does
// ("package>Name"): Kiln's .keras names that registered_name, so Keras finds the
// class, and Kiln reads the sublayers of a Keras file saved under the model's
// attribute names (Keras's layout for subclassed models).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "../../framework/src/io/hdf5_file.h"
#include "../../framework/src/io/zip_reader.h"
#include "saving_util.h"

using namespace kiln;
using saving_test::tmp;

namespace {

// Keras: self.left = Dense(3, name="left"); self.head = Dense(2, name="head").
class LeftHead : public Model {
 public:
  explicit LeftHead(LayerOptions o = {}) : Model(std::move(o)) {
    left_ = track(layers::Dense(3, {.name = "left"}).ptr());
    head_ = track(layers::Dense(2, {.name = "head"}).ptr());
  }
  std::string class_name() const override { return "LeftHead"; }
  std::shared_ptr<Layer> left() const { return left_; }
  std::shared_ptr<Layer> head() const { return head_; }

 protected:
  Tensor call(const Tensor& x, bool training) override { return (*head_)((*left_)(x, training), training); }

 private:
  std::shared_ptr<Layer> left_, head_;
};

void register_left_head() {
  if (!is_layer_class_registered("tests_pkg>LeftHead"))
    register_layer_class("tests_pkg>LeftHead", [](const Config& c) -> LayerPtr {
      return std::make_shared<LeftHead>(LayerOptions{.name = c.value("name", "")});
    });
}

}  // namespace

TEST_CASE("a registered subclassed model's .keras names its registered \"package>Name\"") {
  saving_test::ensure_layers();
  register_left_head();
  auto m = std::make_shared<LeftHead>();
  (*m)(ones({1, 4}));
  const std::string path = tmp("left_head.keras");
  m->save(path);
  const auto bytes = io::ZipReader(path).extract("config.json");
  const auto config = nlohmann::json::parse(std::string(bytes.begin(), bytes.end()));
  CHECK(config["class_name"] == "LeftHead");
  CHECK(config["registered_name"] == "tests_pkg>LeftHead");
  auto again = models::load_model(path, {.compile = false});
  CHECK(again->class_name() == "LeftHead");
  CHECK(saving_test::max_abs_diff(again->predict(ones({2, 4})), m->predict(ones({2, 4}))) == 0);
}

TEST_CASE("weights saved under a subclassed model's attribute names load into the sublayers of those names") {
  register_left_head();
  auto m = std::make_shared<LeftHead>();
  (*m)(ones({1, 4}));
  // Keras's layout: /head/vars/{0,1}, /left/vars/{0,1}, /vars (no /layers group).
  const std::string path = tmp("left_head_attrs.weights.h5");
  {
    auto f = io::H5File::create(path);
    f.root().require_group("vars");
    f.root().require_group("left/vars").write("0", fill({4, 3}, 0.25f));
    f.root().require_group("left/vars").write("1", fill({3}, -1.0f));
    f.root().require_group("head/vars").write("0", fill({3, 2}, 2.0f));
    f.root().require_group("head/vars").write("1", fill({2}, 0.5f));
    f.close();
  }
  m->load_weights(path);
  CHECK(m->left()->get_weights()[0].to_vector<float>() == std::vector<float>(12, 0.25f));
  CHECK(m->left()->get_weights()[1].to_vector<float>() == std::vector<float>(3, -1.0f));
  CHECK(m->head()->get_weights()[0].to_vector<float>() == std::vector<float>(6, 2.0f));
  // ones(4) -> left: 4 * 0.25 - 1 = 0 per unit -> head: 0 * 2 + 0.5.
  CHECK(m->predict(ones({1, 4})).to_vector<float>() == std::vector<float>{0.5f, 0.5f});
}

TEST_CASE("a nested Sequential without an Input writes each sublayer's own build shape") {
  // ConvNeXt's stem: Sequential([Conv2D, LayerNormalization]) called on a tensor.
  // Its config lists a synthesised InputLayer first; the Conv2D's build_config
  // is its own input, (None, 32, 32, 3), not the next layer's.
  Tensor x = Input({32, 32, 3});
  auto stem = std::make_shared<Sequential>(
      std::vector<LayerPtr>{layers::Conv2D(8, 4, {.strides = 4, .name = "stem_conv"}),
                            layers::LayerNormalization({.name = "stem_ln"})},
      LayerOptions{.name = "stem"});
  Model m(x, (*stem)(x));
  const std::string path = tmp("nested_stem.keras");
  m.save(path);
  const auto bytes = io::ZipReader(path).extract("config.json");
  const auto config = nlohmann::json::parse(std::string(bytes.begin(), bytes.end()));
  const auto& sub = config["config"]["layers"][1]["config"]["layers"];
  REQUIRE(sub.size() == 3);
  CHECK(sub[0]["class_name"] == "InputLayer");
  CHECK(sub[1]["build_config"]["input_shape"] == nlohmann::json::parse("[null, 32, 32, 3]"));
  CHECK(sub[2]["build_config"]["input_shape"] == nlohmann::json::parse("[null, 8, 8, 8]"));
  auto again = models::load_model(path, {.compile = false});
  CHECK(saving_test::max_abs_diff(again->predict(ones({2, 32, 32, 3})), m.predict(ones({2, 32, 32, 3}))) == 0);
}
