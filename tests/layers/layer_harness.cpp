// The shared layer harness (see layer_harness.h).
#include "layer_harness.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "kiln/autodiff/gradient_check.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/io/saving.h"
#include "kiln/layers/register.h"
#include "kiln/nn/input_layer.h"
#include "kiln/ops/ops.h"
#include "kiln/training/model.h"

namespace kiln::testing {

Tensor call_layer(Layer& layer, const std::vector<Tensor>& xs, bool list_input, bool training) {
  return list_input ? layer(xs, training).at(0) : layer(xs.at(0), training);
}

namespace {

std::vector<Tensor> make_inputs(const LayerCase& c, DType dtype) {
  std::vector<Tensor> xs;
  for (const auto& s : c.input_shapes) {
    if (!c.string_pool.empty()) {
      const auto picks = random::uniform(s, 0, static_cast<double>(c.string_pool.size()), DType::int64).to_vector<int64_t>();
      std::vector<std::string> text;
      for (int64_t p : picks) text.push_back(c.string_pool[static_cast<std::size_t>(p)]);
      xs.push_back(Tensor(text, s));
      continue;
    }
    xs.push_back(c.integer_input ? random::uniform(s, 0, static_cast<double>(c.int_high), DType::int64)
                                 : random::normal(s, 0.0, 1.0, dtype));
  }
  return xs;
}

Shape with_none_batch(Shape s) {
  if (s.rank() > 0) s[0] = None;
  return s;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  if (a.dtype() == DType::string || b.dtype() == DType::string)
    return a.dtype() == b.dtype() && a.to_vector<std::string>() == b.to_vector<std::string>() ? 0.0 : 1e300;
  auto va = a.to_vector<double>(), vb = b.to_vector<double>();
  REQUIRE(va.size() == vb.size());
  double m = 0;
  for (std::size_t i = 0; i < va.size(); ++i) m = std::max(m, std::abs(va[i] - vb[i]));
  return m;
}

void check_shapes(const LayerCase& c, Layer& layer, const std::vector<Tensor>& xs, const Tensor& y) {
  if (c.list_input) {
    std::vector<Shape> concrete, none;
    for (const auto& x : xs) {
      concrete.push_back(x.shape());
      none.push_back(with_none_batch(x.shape()));
    }
    CHECK(layer.compute_output_shape(concrete).at(0) == y.shape());
    CHECK(layer.compute_output_shape(none).at(0) == with_none_batch(y.shape()));
  } else {
    CHECK(layer.compute_output_shape(xs[0].shape()) == y.shape());
    CHECK(layer.compute_output_shape(with_none_batch(xs[0].shape())) == with_none_batch(y.shape()));
  }
}

void check_weights(const LayerCase& c, Layer& layer) {
  auto ws = layer.weights();
  REQUIRE(ws.size() == c.weight_names.size());
  for (std::size_t i = 0; i < ws.size(); ++i) CHECK(ws[i].path() == layer.name() + "/" + c.weight_names[i]);
  int64_t n = 0;
  for (const auto& w : ws) n += w.shape().num_elements();
  CHECK(layer.count_params() == n);
}

void check_round_trip(const LayerCase& c, Layer& layer, const std::vector<Tensor>& xs, const Tensor& y) {
  Config cfg = layer.get_config();
  LayerPtr copy = layers::from_config(Config{{"class_name", layer.class_name()}, {"config", cfg}});
  CHECK(copy->class_name() == layer.class_name());
  // Same config + same weights -> same inference output.
  call_layer(*copy, xs, c.list_input, false);
  // Compared once the copy is built too: building can change a config as in Keras (LayerNormalization's axis).
  CHECK_MESSAGE(copy->get_config() == cfg, "before: ", cfg.dump(), "\nafter:  ", copy->get_config().dump());
  copy->set_weights(layer.get_weights());
  Tensor y2 = call_layer(*copy, xs, c.list_input, false);
  REQUIRE(y2.shape() == y.shape());
  // Equal up to float rounding (BLAS may pick different kernels for different buffers).
  CHECK(max_abs_diff(y, y2) <= 1e-5);
}

// The layer inside a functional model, saved as .keras and as .h5 and loaded
// back: the loaded layer has the same config and computes the same output.
void check_save_round_trip(const LayerCase& c, const LayerPtr& layer, const std::vector<Tensor>& xs, const Tensor& y) {
  std::vector<Tensor> inputs;
  for (const auto& x : xs) inputs.push_back(Input(x.shape().slice(1), {.dtype = x.dtype()}));
  const bool list = c.list_input || inputs.size() > 1;
  Tensor out = list ? (*layer)(inputs, false).at(0) : (*layer)(inputs.at(0), false);
  auto model = std::make_shared<Model>(inputs, std::vector<Tensor>{out});
  const auto dir = std::filesystem::temp_directory_path() / ("kiln_harness_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const std::string ext : {".keras", ".h5"}) {
    const std::string path = (dir / (layer->name() + ext)).string();
    model->save(path);
    auto loaded = models::load_model(path, {.compile = false});
    REQUIRE(loaded->layers().size() == inputs.size() + 1);  // the InputLayers, then the layer
    const LayerPtr back = loaded->layers().back();
    CHECK_MESSAGE(back->class_name() == layer->class_name(), ext);
    CHECK_MESSAGE(back->get_config() == layer->get_config(), "saved:  ", layer->get_config().dump(),
                  "\nloaded: ", back->get_config().dump());
    Tensor y2 = list ? (*loaded)(xs, false).at(0) : (*loaded)(xs.at(0), false);
    REQUIRE(y2.shape() == y.shape());
    CHECK_MESSAGE(max_abs_diff(y, y2) <= 1e-6, ext);
  }
  std::filesystem::remove_all(dir);
}

void check_grads(const LayerCase& c) {
  LayerPtr layer = c.make(DType::float64);
  std::vector<Tensor> xs = make_inputs(c, DType::float64);
  Tensor y = call_layer(*layer, xs, c.list_input, c.training);  // builds
  CHECK(y.dtype() == (c.float_output ? DType::float64 : y.dtype()));
  if (c.check_input_gradient && !c.integer_input && c.string_pool.empty()) {
    auto r = check_gradients([&](const std::vector<Tensor>& in) { return call_layer(*layer, in, c.list_input, c.training); },
                             xs);
    CHECK_MESSAGE(r.ok, c.label, " input gradient: ", r.report);
  }
  auto vars = layer->trainable_variables();
  if (!vars.empty()) {
    auto r = check_gradients([&]() { return call_layer(*layer, xs, c.list_input, c.training); }, vars);
    CHECK_MESSAGE(r.ok, c.label, " weight gradient: ", r.report);
  }
}

void check_sgd_step(const LayerCase& c) {
  LayerPtr layer = c.make(DType::float64);
  std::vector<Tensor> xs = make_inputs(c, DType::float64);
  Tensor y0 = call_layer(*layer, xs, c.list_input, c.training);
  auto vars = layer->trainable_variables();
  if (vars.empty()) return;
  Tensor target = random::normal(y0.shape(), 0.0, 1.0, DType::float64);
  auto loss_fn = [&] {
    Tensor y = call_layer(*layer, xs, c.list_input, c.training);
    Tensor loss = mean(square(y - target));
    for (const auto& p : layer->losses()) loss = loss + p;
    return loss;
  };
  double before = 0;
  {
    GradientTape tape;
    Tensor loss = loss_fn();
    before = loss.item<double>();
    auto grads = tape.gradient(loss, vars);
    for (std::size_t i = 0; i < vars.size(); ++i) {
      REQUIRE_MESSAGE(grads[i].has_value(), c.label, ": no gradient for ", vars[i].path());
      vars[i].assign_sub(*grads[i] * c.learning_rate);
    }
  }
  double after = loss_fn().item<double>();
  CHECK_MESSAGE(after < before, c.label, ": loss ", before, " -> ", after);
}

}  // namespace

void check_layer(const LayerCase& c) {
  INFO("layer case: ", c.label);
  random::set_seed(1234);
  LayerPtr layer = c.make(DType::float32);
  std::vector<Tensor> xs = make_inputs(c, DType::float32);
  Tensor y = call_layer(*layer, xs, c.list_input, false);
  check_shapes(c, *layer, xs, y);
  check_weights(c, *layer);
  if (c.config_round_trip) {
    check_round_trip(c, *layer, xs, y);
    check_save_round_trip(c, layer, xs, y);
  }
  check_grads(c);
  check_sgd_step(c);
}

}  // namespace kiln::testing
