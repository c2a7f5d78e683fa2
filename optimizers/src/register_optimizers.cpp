// Registers the built-in optimizers (snake_case and Keras class names) and
// learning-rate schedules. See kiln/optimizers/register.h for why the hook.
#include <mutex>
#include <nlohmann/json.hpp>

#include "kiln/optimizers/all.h"
#include "optimizer_config.h"

namespace kiln::optimizers {

namespace {
using namespace config_util;

void add(const std::string& snake, const std::string& cls, std::function<OptimizerPtr(const Config&)> f) {
  register_optimizer(snake, f);
  register_optimizer(cls, std::move(f));
}

void register_optimizers() {
  add("sgd", "SGD", [](const Config& c) -> OptimizerPtr {
    return std::make_shared<SGD>(SGDOptions{.learning_rate = get_learning_rate(c, 0.01),
                                            .momentum = get_double(c, "momentum", 0.0),
                                            .nesterov = get_bool(c, "nesterov", false),
                                            .base = get_base_options(c)});
  });
  add("adam", "Adam", [](const Config& c) -> OptimizerPtr {
    return std::make_shared<Adam>(AdamOptions{.learning_rate = get_learning_rate(c, 0.001),
                                              .beta_1 = get_double(c, "beta_1", 0.9),
                                              .beta_2 = get_double(c, "beta_2", 0.999),
                                              .epsilon = get_double(c, "epsilon", 1e-7),
                                              .amsgrad = get_bool(c, "amsgrad", false),
                                              .base = get_base_options(c)});
  });
  add("adamw", "AdamW", [](const Config& c) -> OptimizerPtr {
    if (c.contains("weight_decay") && c["weight_decay"].is_null())
      throw ValueError("AdamW: argument `weight_decay` must be a float. Received: weight_decay=None");
    return std::make_shared<AdamW>(AdamWOptions{.learning_rate = get_learning_rate(c, 0.001),
                                                .weight_decay = get_double(c, "weight_decay", 0.004),
                                                .beta_1 = get_double(c, "beta_1", 0.9),
                                                .beta_2 = get_double(c, "beta_2", 0.999),
                                                .epsilon = get_double(c, "epsilon", 1e-7),
                                                .amsgrad = get_bool(c, "amsgrad", false),
                                                .base = get_base_options(c)});
  });
  add("rmsprop", "RMSprop", [](const Config& c) -> OptimizerPtr {
    return std::make_shared<RMSprop>(RMSpropOptions{.learning_rate = get_learning_rate(c, 0.001),
                                                    .rho = get_double(c, "rho", 0.9),
                                                    .momentum = get_double(c, "momentum", 0.0),
                                                    .epsilon = get_double(c, "epsilon", 1e-7),
                                                    .centered = get_bool(c, "centered", false),
                                                    .base = get_base_options(c)});
  });
  add("adagrad", "Adagrad", [](const Config& c) -> OptimizerPtr {
    return std::make_shared<Adagrad>(
        AdagradOptions{.learning_rate = get_learning_rate(c, 0.001),
                       .initial_accumulator_value = get_double(c, "initial_accumulator_value", 0.1),
                       .epsilon = get_double(c, "epsilon", 1e-7),
                       .base = get_base_options(c)});
  });
  add("adadelta", "Adadelta", [](const Config& c) -> OptimizerPtr {
    return std::make_shared<Adadelta>(AdadeltaOptions{.learning_rate = get_learning_rate(c, 0.001),
                                                      .rho = get_double(c, "rho", 0.95),
                                                      .epsilon = get_double(c, "epsilon", 1e-7),
                                                      .base = get_base_options(c)});
  });
  add("adamax", "Adamax", [](const Config& c) -> OptimizerPtr {
    return std::make_shared<Adamax>(AdamaxOptions{.learning_rate = get_learning_rate(c, 0.001),
                                                  .beta_1 = get_double(c, "beta_1", 0.9),
                                                  .beta_2 = get_double(c, "beta_2", 0.999),
                                                  .epsilon = get_double(c, "epsilon", 1e-7),
                                                  .base = get_base_options(c)});
  });
  add("nadam", "Nadam", [](const Config& c) -> OptimizerPtr {
    return std::make_shared<Nadam>(NadamOptions{.learning_rate = get_learning_rate(c, 0.001),
                                                .beta_1 = get_double(c, "beta_1", 0.9),
                                                .beta_2 = get_double(c, "beta_2", 0.999),
                                                .epsilon = get_double(c, "epsilon", 1e-7),
                                                .base = get_base_options(c)});
  });
  add("ftrl", "Ftrl", [](const Config& c) -> OptimizerPtr {
    return std::make_shared<Ftrl>(FtrlOptions{
        .learning_rate = get_learning_rate(c, 0.001),
        .learning_rate_power = get_double(c, "learning_rate_power", -0.5),
        .initial_accumulator_value = get_double(c, "initial_accumulator_value", 0.1),
        .l1_regularization_strength = get_double(c, "l1_regularization_strength", 0.0),
        .l2_regularization_strength = get_double(c, "l2_regularization_strength", 0.0),
        .l2_shrinkage_regularization_strength = get_double(c, "l2_shrinkage_regularization_strength", 0.0),
        .beta = get_double(c, "beta", 0.0),
        .base = get_base_options(c)});
  });
  add("lion", "Lion", [](const Config& c) -> OptimizerPtr {
    return std::make_shared<Lion>(LionOptions{.learning_rate = get_learning_rate(c, 0.001),
                                              .beta_1 = get_double(c, "beta_1", 0.9),
                                              .beta_2 = get_double(c, "beta_2", 0.99),
                                              .base = get_base_options(c)});
  });
}

std::string name_or(const Config& c, const char* fallback) {
  return c.contains("name") && c["name"].is_string() ? c["name"].get<std::string>() : std::string(fallback);
}

double need(const Config& c, const char* cls, const char* key) {
  if (!c.contains(key) || c[key].is_null())
    throw ValueError(std::string(cls) + " config is missing `" + key + "`: " + c.dump());
  return c[key].get<double>();
}

// Schedules under Keras's keyword names and defaults.
void register_schedules() {
  register_schedule("ExponentialDecay", [](const Config& c) -> SchedulePtr {
    return std::make_shared<schedules::ExponentialDecay>(
        need(c, "ExponentialDecay", "initial_learning_rate"), need(c, "ExponentialDecay", "decay_steps"),
        need(c, "ExponentialDecay", "decay_rate"), get_bool(c, "staircase", false), name_or(c, "ExponentialDecay"));
  });
  register_schedule("PiecewiseConstantDecay", [](const Config& c) -> SchedulePtr {
    if (!c.contains("boundaries") || !c.contains("values"))
      throw ValueError("PiecewiseConstantDecay config needs `boundaries` and `values`: " + c.dump());
    return std::make_shared<schedules::PiecewiseConstantDecay>(c["boundaries"].get<std::vector<double>>(),
                                                               c["values"].get<std::vector<double>>(),
                                                               name_or(c, "PiecewiseConstant"));
  });
  register_schedule("PolynomialDecay", [](const Config& c) -> SchedulePtr {
    return std::make_shared<schedules::PolynomialDecay>(
        need(c, "PolynomialDecay", "initial_learning_rate"), need(c, "PolynomialDecay", "decay_steps"),
        get_double(c, "end_learning_rate", 0.0001), get_double(c, "power", 1.0), get_bool(c, "cycle", false),
        name_or(c, "PolynomialDecay"));
  });
  register_schedule("InverseTimeDecay", [](const Config& c) -> SchedulePtr {
    return std::make_shared<schedules::InverseTimeDecay>(
        need(c, "InverseTimeDecay", "initial_learning_rate"), need(c, "InverseTimeDecay", "decay_steps"),
        need(c, "InverseTimeDecay", "decay_rate"), get_bool(c, "staircase", false), name_or(c, "InverseTimeDecay"));
  });
  register_schedule("CosineDecay", [](const Config& c) -> SchedulePtr {
    return std::make_shared<schedules::CosineDecay>(
        need(c, "CosineDecay", "initial_learning_rate"), need(c, "CosineDecay", "decay_steps"),
        get_double(c, "alpha", 0.0), name_or(c, "CosineDecay"), get_opt_double(c, "warmup_target"),
        get_double(c, "warmup_steps", 0.0));
  });
  register_schedule("CosineDecayRestarts", [](const Config& c) -> SchedulePtr {
    return std::make_shared<schedules::CosineDecayRestarts>(
        need(c, "CosineDecayRestarts", "initial_learning_rate"),
        need(c, "CosineDecayRestarts", "first_decay_steps"), get_double(c, "t_mul", 2.0),
        get_double(c, "m_mul", 1.0), get_double(c, "alpha", 0.0), name_or(c, "SGDRDecay"));
  });
}

void register_all() {
  register_optimizers();
  register_schedules();
}

// Installs the hook whenever the linker keeps this TU.
[[maybe_unused]] const bool hook_installed = [] {
  detail::builtins_hook = &register_builtins;
  return true;
}();

}  // namespace

void register_builtins() {
  static std::once_flag once;
  detail::builtins_hook = &register_builtins;
  std::call_once(once, register_all);
}

}  // namespace kiln::optimizers
