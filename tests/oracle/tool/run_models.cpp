// Whole models trained step by step: Kiln loads a compiled .keras file that
// Keras wrote and runs train_on_batch over the same batches Keras used.
#include "kiln/kiln.h"
#include "oracle_io.h"

namespace oracle {

// {"path", "xs": [...], "ys": [...], "save"?}: load_model (compiled, with any
// optimizer state), one train_on_batch per batch; writes "losses", the loss of
// every step, and saves the trained model to "save" when given.
int run_models(const Group& g) {
  g.for_each_case([&](const json& c) {
    auto model = kiln::models::load_model((g.dir() / c.at("path").get<std::string>()).string());
    const auto xs = g.arrays(c.at("xs")), ys = g.arrays(c.at("ys"));
    std::vector<double> losses;
    for (std::size_t i = 0; i < xs.size(); ++i) losses.push_back(model->train_on_batch(xs[i], ys.at(i)).at("loss"));
    g.save(c, "losses", kiln::Tensor(losses, kiln::Shape{static_cast<int64_t>(losses.size())}));
    if (c.contains("save")) model->save((g.dir() / c.at("save").get<std::string>()).string());
  });
  return 0;
}

}  // namespace oracle
