// Model files both ways: Kiln loads what Keras saved and predicts; Kiln
// builds, trains briefly and saves a model for Keras to load.
#include "kiln/kiln.h"
#include "oracle_io.h"

namespace oracle {

namespace {

// {"op": "load", "path", "x", "compile"?}: load_model then predict.
// {"op": "load_weights", "path" (a .keras for the architecture), "weights", "x"}.
void load_case(const Group& g, const json& c) {
  const std::string op = c.at("op");
  const std::string path = (g.dir() / c.at("path").get<std::string>()).string();
  auto model = kiln::models::load_model(path, {.compile = c.value("compile", false)});
  if (op == "load_weights") model->load_weights((g.dir() / c.at("weights").get<std::string>()).string());
  g.save(c, "pred", model->predict(g.array(c.at("x")), {.verbose = 0}));
}

// {"op": "save", "x", "y", "paths": [...]}: the same architecture as the
// driver's keras_model(), trained for two epochs (so BatchNormalization's
// moving statistics and Adam's slots are not their initial values), then
// saved to each path; writes the prediction on x.
void save_case(const Group& g, const json& c) {
  namespace L = kiln::layers;
  kiln::random::set_seed(11);
  auto model = std::make_shared<kiln::Sequential>(std::vector<kiln::LayerPtr>{
      L::Input({5}), L::Dense(4, {.activation = "relu"}), L::BatchNormalization(), L::Dense(3, {.activation = "softmax"})});
  model->compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"}});
  model->fit(g.array(c.at("x")), g.array(c.at("y")), {.batch_size = 4, .epochs = 2, .verbose = 0, .shuffle = false});
  for (const auto& p : c.at("paths")) {
    const std::string path = (g.dir() / p.get<std::string>()).string();
    if (path.ends_with(".weights.h5")) model->save_weights(path);
    else model->save(path);
  }
  g.save(c, "pred", model->predict(g.array(c.at("x")), {.verbose = 0}));
}

void save_optimizer_variables(const Group& g, const json& c, const kiln::Model& model) {
  const auto vs = model.optimizer()->variables();
  for (std::size_t i = 0; i < vs.size(); ++i) g.save(c, "opt_" + std::to_string(i), vs[i].value());
}

// {"op": "load_mixed", "path", "x", "resave"}: a mixed_float16 model with its
// LossScaleOptimizer; writes the prediction and every optimizer variable, then
// saves the model again to `resave` for Keras to read back.
void load_mixed_case(const Group& g, const json& c) {
  auto model = kiln::models::load_model((g.dir() / c.at("path").get<std::string>()).string());
  g.save(c, "pred", model->predict(g.array(c.at("x")), {.verbose = 0}));
  save_optimizer_variables(g, c, *model);
  model->save((g.dir() / c.at("resave").get<std::string>()).string());
}

// {"op": "save_mixed", "x", "y", "path"}: the driver's keras_mixed() architecture
// built by Kiln under mixed_float16, trained (targets large enough that the first
// float16 steps overflow), saved; writes the prediction and the optimizer variables.
void save_mixed_case(const Group& g, const json& c) {
  namespace L = kiln::layers;
  kiln::random::set_seed(12);
  kiln::mixed_precision::set_global_policy("mixed_float16");
  auto model = std::make_shared<kiln::Sequential>(std::vector<kiln::LayerPtr>{
      L::Input({5}), L::Dense(8, {.activation = "relu"}), L::BatchNormalization(),
      L::Dense(3, {.activation = "softmax", .dtype = "float32"})});
  kiln::mixed_precision::set_global_policy("float32");
  model->compile({.optimizer = "adam", .loss = "categorical_crossentropy"});
  model->fit(g.array(c.at("x")), g.array(c.at("y")), {.batch_size = 4, .epochs = 2, .verbose = 0, .shuffle = false});
  model->save((g.dir() / c.at("path").get<std::string>()).string());
  g.save(c, "pred", model->predict(g.array(c.at("x")), {.verbose = 0}));
  save_optimizer_variables(g, c, *model);
}

}  // namespace

int run_files(const Group& g) {
  g.for_each_case([&](const json& c) {
    if (c.at("op") == "save") save_case(g, c);
    else if (c.at("op") == "load_mixed") load_mixed_case(g, c);
    else if (c.at("op") == "save_mixed") save_mixed_case(g, c);
    else load_case(g, c);
  });
  return 0;
}

}  // namespace oracle
