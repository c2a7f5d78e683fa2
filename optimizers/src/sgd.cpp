#include "kiln/optimizers/sgd.h"

#include <nlohmann/json.hpp>

#include "core/number_text.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/fused_updates.h"
#include "optimizer_config.h"

namespace kiln::optimizers {

SGD::SGD(SGDOptions o)
    : Optimizer("SGD", o.learning_rate, o.base),
      momentum_(o.momentum),
      nesterov_(o.nesterov),
      o_(std::move(o)) {
  if (momentum_ < 0 || momentum_ > 1)
    throw ValueError("SGD: `momentum` must be a float between [0, 1]. Received: momentum=" +
                     kiln::detail::number_text(momentum_));
}

void SGD::build_slots(const std::vector<Variable>& vars) {
  if (momentum_ == 0) return;
  for (const auto& v : vars) add_slot(v, "momentum");
}

void SGD::update_step(const Tensor& g, Variable& var, double, std::size_t index) {
  fused::sgd_update(var, momentum_ == 0 ? nullptr : &slot(index, 0), g, step_size(index), momentum_, nesterov_);
}

Config SGD::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_OPTIMIZER(SGD, "SGD", "sgd")

}  // namespace kiln::optimizers
