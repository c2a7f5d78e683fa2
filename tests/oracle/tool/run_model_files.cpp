// Whole models both ways (the functional and applications groups): Kiln loads
// a file Keras saved, predicts every output, optionally trains a few steps,
// and saves the model back in each format for Keras to load; and Kiln's own
// keras.applications builders beside Keras's.
#include "kiln/applications.h"
#include "kiln/kiln.h"
#include "oracle_io.h"

namespace oracle {

namespace {

/// {"op": "roundtrip", "path", "x": [...], "weights"?: a .weights.h5 loaded
///  into the file's architecture, "save"?: [paths], "train"?: {"y": [...],
///  "steps", "optimizer", "loss"}, "onnx"?: a path for kiln::export_onnx}.
///  Writes pred<i> for every output, the
///  parameter counts, and, after training, the loss of each step and the
///  predictions again (trained<i>).
void roundtrip(const Group& g, const json& c) {
  auto model = kiln::models::load_model((g.dir() / c.at("path").get<std::string>()).string(), {.compile = false});
  if (c.contains("weights")) model->load_weights((g.dir() / c.at("weights").get<std::string>()).string());
  const kiln::Data x(g.arrays(c.at("x")));
  const auto preds = model->predict_outputs(x);
  for (std::size_t i = 0; i < preds.size(); ++i) g.save(c, "pred" + std::to_string(i), preds[i]);
  int64_t trainable = 0;
  for (const auto& v : model->trainable_weights()) trainable += v.value().size();
  g.save(c, "params", kiln::Tensor(std::vector<double>{static_cast<double>(model->count_params()),
                                                       static_cast<double>(trainable)},
                                   kiln::Shape{2}));
  if (c.contains("onnx")) kiln::export_onnx(*model, (g.dir() / c.at("onnx").get<std::string>()).string());
  if (c.contains("train")) {
    const json& t = c.at("train");
    model->compile({.optimizer = kiln::optimizers::get(t.at("optimizer").get<std::string>()),
                    .loss = t.at("loss").get<std::string>()});
    const kiln::Data y(g.arrays(t.at("y")));
    std::vector<double> losses;
    for (int s = 0; s < t.at("steps").get<int>(); ++s) losses.push_back(model->train_on_batch(x, y).at("loss"));
    g.save(c, "losses", kiln::Tensor(losses, kiln::Shape{static_cast<int64_t>(losses.size())}));
    const auto trained = model->predict_outputs(x);
    for (std::size_t i = 0; i < trained.size(); ++i) g.save(c, "trained" + std::to_string(i), trained[i]);
  }
  for (const auto& p : c.value("save", json::array())) {
    const std::string path = (g.dir() / p.get<std::string>()).string();
    if (path.ends_with(".weights.h5")) model->save_weights(path);
    else model->save(path);
  }
}

/// {"op": "build", "class", "options": {Keras's keyword arguments}, "weights",
///  "x": [...], "save": a .keras path}: kiln::applications builds the class,
///  loads the weights Keras saved for its own model, predicts (pred0), and
///  saves the model, whose config the driver compares with Keras's.
void build(const Group& g, const json& c) {
  const json& k = c.at("options");
  kiln::applications::ApplicationOptions o;
  o.include_top = k.value("include_top", true);
  o.pooling = k.contains("pooling") && k["pooling"].is_string() ? k["pooling"].get<std::string>() : "";
  o.classes = k.value("classes", int64_t{1000});
  o.alpha = k.value("alpha", 1.0);
  o.include_preprocessing = k.value("include_preprocessing", true);
  o.depth_multiplier = k.value("depth_multiplier", 1);
  o.minimalistic = k.value("minimalistic", false);
  for (const char* rate : {"dropout", "dropout_rate"})
    if (k.contains(rate)) o.dropout = k[rate].get<double>();
  if (k.contains("input_shape")) {
    std::vector<int64_t> dims;
    for (const auto& d : k["input_shape"]) dims.push_back(d.is_null() ? kiln::None : d.get<int64_t>());
    o.input_shape = kiln::Shape(dims);
  }
  o.weights = (g.dir() / c.at("weights").get<std::string>()).string();
  kiln::clear_session();  // layer names count from zero, as after Keras's clear_session()
  auto model = kiln::applications::build(c.at("class").get<std::string>(), o);
  g.save(c, "pred0", model->predict(kiln::Data(g.arrays(c.at("x"))), {.verbose = 0}));
  int64_t trainable = 0;
  for (const auto& v : model->trainable_weights()) trainable += v.value().size();
  g.save(c, "params", kiln::Tensor(std::vector<double>{static_cast<double>(model->count_params()),
                                                       static_cast<double>(trainable)},
                                   kiln::Shape{2}));
  model->save((g.dir() / c.at("save").get<std::string>()).string());
}

}  // namespace

int run_model_files(const Group& g) {
  g.for_each_case([&](const json& c) {
    if (c.at("op") == "build") build(g, c);
    else roundtrip(g, c);
  });
  return 0;
}

}  // namespace oracle
