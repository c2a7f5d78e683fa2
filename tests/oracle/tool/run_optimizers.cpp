// Optimizer trajectories and learning-rate schedules from Keras's configs.
#include <optional>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/autodiff/variable.h"
#include "kiln/ops/ops.h"
#include "kiln/optimizers.h"
#include "oracle_io.h"

namespace oracle {

namespace {

// The two problems, written with the same ops as the Keras driver's
// (tests/oracle/oracle_optimizers.py) so both sides differentiate one function.
//   quadratic: vars [w, b]; sum(h_w * (w - t_w)^2) + sum(h_b * (b - t_b)^2)
//   mlp: vars [W1, b1, W2, b2]; mean((tanh(x W1 + b1) W2 + b2 - y)^2)
kiln::Tensor problem_loss(const std::string& problem, const std::vector<kiln::Variable>& v,
                          const std::vector<kiln::Tensor>& d) {
  if (problem == "quadratic")
    return kiln::sum(d[0] * kiln::square(v[0].value() - d[1])) + kiln::sum(d[2] * kiln::square(v[1].value() - d[3]));
  kiln::Tensor h = kiln::tanh(kiln::matmul(d[0], v[0].value()) + v[1].value());
  return kiln::mean(kiln::square(kiln::matmul(h, v[2].value()) + v[3].value() - d[1]));
}

}  // namespace

// {"optimizer": keras.optimizers.serialize(...), "problem", "init": [npy...],
//  "data": [npy...], "steps"}. Writes traj_<i> (steps, *shape) per variable,
// the loss before each step, and with use_ema final_<i> after finalize_variable_values.
int run_optimizers(const Group& g) {
  g.for_each_case([&](const json& c) {
    kiln::OptimizerPtr opt = kiln::optimizers::from_config(c.at("optimizer"));
    std::vector<kiln::Variable> vars;
    for (const kiln::Tensor& t : g.arrays(c.at("init"))) vars.emplace_back(t);
    const std::vector<kiln::Tensor> data = g.arrays(c.at("data"));
    const std::string problem = c.at("problem");
    std::vector<std::vector<kiln::Tensor>> traj(vars.size());
    std::vector<kiln::Tensor> losses;
    for (int step = 0; step < c.at("steps").get<int>(); ++step) {
      kiln::GradientTape tape;
      kiln::Tensor loss = problem_loss(problem, vars, data);
      losses.push_back(loss);
      opt->apply(tape.gradient(loss, vars), vars);
      for (std::size_t i = 0; i < vars.size(); ++i) traj[i].push_back(vars[i].value().clone());
    }
    for (std::size_t i = 0; i < vars.size(); ++i) g.save(c, "traj_" + std::to_string(i), kiln::stack(traj[i]));
    g.save(c, "loss", kiln::stack(losses));
    if (!c.at("optimizer").at("config").value("use_ema", false)) return;
    opt->finalize_variable_values(vars);
    for (std::size_t i = 0; i < vars.size(); ++i) g.save(c, "final_" + std::to_string(i), vars[i].value());
  });
  return 0;
}

// {"schedule": keras.optimizers.schedules.serialize(...), "steps": [..]}: writes values (float64).
int run_schedules(const Group& g) {
  g.for_each_case([&](const json& c) {
    kiln::optimizers::SchedulePtr s = kiln::optimizers::schedule_from_config(c.at("schedule"));
    std::vector<double> values;
    for (const auto& step : c.at("steps")) values.push_back((*s)(step.get<int64_t>()));
    g.save(c, "values", kiln::Tensor(values, kiln::Shape({static_cast<int64_t>(values.size())})));
  });
  return 0;
}

}  // namespace oracle
