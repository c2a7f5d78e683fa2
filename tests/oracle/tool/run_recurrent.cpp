// Recurrent models with masks from compiled files Keras wrote: predictions,
// the masked loss and metric on the same weights, and a few training steps.
#include "kiln/kiln.h"
#include "oracle_io.h"

namespace oracle {

namespace {
kiln::Tensor vec(const std::vector<double>& v) { return kiln::Tensor(v, kiln::Shape{static_cast<int64_t>(v.size())}); }
}  // namespace

// {"path", "x", "y"?, "steps"?, "resave"?}: load_model; writes "pred" (and, with
// resave, saves the model it loaded there for Keras to read); with y,
// "eval" (test_on_batch: loss, then the metrics in the logs' order), "losses"
// (one train_on_batch per step) and "pred_after" (the prediction after training).
int run_recurrent(const Group& g) {
  g.for_each_case([&](const json& c) {
    const bool train = c.contains("y");
    auto model = kiln::models::load_model((g.dir() / c.at("path").get<std::string>()).string(), {.compile = train});
    const kiln::Tensor x = g.array(c.at("x"));
    g.save(c, "pred", model->predict(x, {.verbose = 0}));
    if (c.contains("resave")) model->save((g.dir() / c.at("resave").get<std::string>()).string());
    if (!train) return;
    const kiln::Tensor y = g.array(c.at("y"));
    std::vector<double> eval;
    for (const auto& [name, value] : model->test_on_batch(x, y).items()) eval.push_back(value);
    g.save(c, "eval", vec(eval));
    std::vector<double> losses;
    for (int i = 0; i < c.value("steps", 0); ++i) losses.push_back(model->train_on_batch(x, y).at("loss"));
    g.save(c, "losses", vec(losses));
    g.save(c, "pred_after", model->predict(x, {.verbose = 0}));
  });
  return 0;
}

}  // namespace oracle
