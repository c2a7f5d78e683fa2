// Losses and metrics, built from Keras's own serialized configs.
#include <optional>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/losses/losses.h"
#include "kiln/metrics/metrics.h"
#include "kiln/ops/ops.h"
#include "oracle_io.h"

namespace oracle {

// A loss case: {"loss": keras.losses.serialize(...), "y_true", "y_pred",
// "sample_weight"?}. Writes the reduced value and d(sum of value)/d(y_pred).
int run_losses(const Group& g) {
  g.for_each_case([&](const json& c) {
    kiln::LossPtr loss = kiln::losses::from_config(c.at("loss"));
    const kiln::Tensor y_true = g.array(c.at("y_true"));
    const kiln::Tensor y_pred = g.array(c.at("y_pred"));
    const kiln::Tensor sw = g.optional_array(c, "sample_weight");
    kiln::GradientTape tape;
    tape.watch(y_pred);
    const kiln::Tensor value = (*loss)(y_true, y_pred, sw);
    g.save(c, "value", value);
    std::optional<kiln::Tensor> grad = tape.gradient(kiln::sum(value), y_pred);
    if (grad) g.save(c, "grad", *grad);
  });
  return 0;
}

// A metric case: {"metric": keras.metrics.serialize(...), "updates": [{"y_true",
// "y_pred", "sample_weight"?}, ...]}. Writes result_<i> after each update.
int run_metrics(const Group& g) {
  g.for_each_case([&](const json& c) {
    kiln::MetricPtr metric = kiln::metrics::from_config(c.at("metric"));
    int i = 0;
    for (const auto& u : c.at("updates")) {
      metric->update_state(g.array(u.at("y_true")), g.array(u.at("y_pred")), g.optional_array(u, "sample_weight"));
      g.save(c, "result_" + std::to_string(i++), metric->result());
    }
  });
  return 0;
}

}  // namespace oracle
