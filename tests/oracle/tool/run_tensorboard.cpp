// A short fit() with the TensorBoard callback; the driver reads the event
// files with the tensorboard package's EventAccumulator.
#include <fstream>

#include "kiln/callbacks/lambda_callback.h"
#include "kiln/callbacks/tensorboard.h"
#include "kiln/kiln.h"
#include "oracle_io.h"

namespace oracle {

// {"x", "y", "val_x", "val_y", "epochs", "batch_size", "log_dir"}: writes
// out/<id>/history.json ({"history": {key: [...]}, "weights": {path: [[epoch
// values...], ...]}}), the weights as TensorBoard saw them at each epoch end.
int run_tensorboard(const Group& g) {
  g.for_each_case([&](const json& c) {
    namespace L = kiln::layers;
    kiln::random::set_seed(7);
    auto model = std::make_shared<kiln::Sequential>(std::vector<kiln::LayerPtr>{
        L::Input({3}), L::Dense(4, {.activation = "tanh"}), L::Dense(1)});
    model->compile({.optimizer = "sgd", .loss = "mse", .metrics = {"mae"}});
    json weights = json::object();
    kiln::callbacks::LambdaCallback probe({.on_epoch_end = [&](int, kiln::Logs&) {
      for (const auto& w : model->weights()) weights[w.path()].push_back(w.value().to_vector<double>());
    }});
    auto tb = std::make_shared<kiln::callbacks::TensorBoard>(
        (g.dir() / c.at("log_dir").get<std::string>()).string(), kiln::callbacks::TensorBoardOptions{.histogram_freq = 1});
    kiln::History h = model->fit(
        g.array(c.at("x")), g.array(c.at("y")),
        {.batch_size = c.at("batch_size").get<int>(), .epochs = c.at("epochs").get<int>(), .verbose = 0,
         .callbacks = {probe, tb},
         .validation_data = kiln::ValidationData{g.array(c.at("val_x")), g.array(c.at("val_y"))}, .shuffle = false});
    tb->on_train_end({});  // closes the files before the driver reads them (fit has already called it)
    json out = {{"history", h.history}, {"weights", weights}};
    const fs::path d = g.dir() / "out" / c.at("id").get<std::string>();
    fs::create_directories(d);
    std::ofstream(d / "history.json") << out.dump();
  });
  return 0;
}

}  // namespace oracle
