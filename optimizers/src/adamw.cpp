#include "kiln/optimizers/adamw.h"
#include "optimizer_config.h"

namespace kiln::optimizers {

namespace {
AdamOptions to_adam(AdamWOptions o) {
  OptimizerOptions base = std::move(o.base);
  base.weight_decay = o.weight_decay;  // the base optimizer applies the decoupled decay
  return AdamOptions{.learning_rate = std::move(o.learning_rate),
                     .beta_1 = o.beta_1,
                     .beta_2 = o.beta_2,
                     .epsilon = o.epsilon,
                     .amsgrad = o.amsgrad,
                     .base = std::move(base)};
}

// Keras's AdamW requires a float weight_decay: null is an error, not the default.
OptimizerPtr adamw_from_config(const Config& c) {
  if (c.is_object() && c.contains("weight_decay") && c["weight_decay"].is_null())
    throw ValueError("AdamW: argument `weight_decay` must be a float. Received: weight_decay=None");
  return detail::optimizer_from_fields<AdamW>("AdamW", c);
}
}  // namespace

AdamW::AdamW(AdamWOptions o) : Adam(to_adam(std::move(o)), "adamw") {}

KILN_REGISTER_OPTIMIZER_FACTORY(AdamW, adamw_from_config, "AdamW", "adamw")

}  // namespace kiln::optimizers
