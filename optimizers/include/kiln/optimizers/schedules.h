#pragma once
// Learning-rate schedules (keras.optimizers.schedules). Each maps the
// optimizer step (its `iterations`, 0 for the first update) to a learning
// rate; pass one as any optimizer's learning_rate:
//
//   using namespace kiln::optimizers;
//   Adam opt({.learning_rate = schedules::ExponentialDecay(1e-2, 10000, 0.9)});
//
// Computed in double precision (Keras computes in the dtype of
// initial_learning_rate, float32 by default). get_config() returns Keras's keys.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers::schedules {

/// A step count (decay_steps, warmup_steps): a double that get_config writes
/// as an integer when it is whole, as Keras does (decay_steps=100000).
struct StepCount {
  double value = 0;  ///< The step count.
  /// Implicit, so a plain number converts.
  StepCount(double v = 0) : value(v) {}
  /// The step count as a plain number.
  operator double() const { return value; }
};
/// Step boundaries, written as integers where whole (see StepCount).
struct StepList : std::vector<double> {
  using std::vector<double>::vector;
  /// Takes the values of v (lets a std::vector convert implicitly).
  StepList(std::vector<double> v) : std::vector<double>(std::move(v)) {}
};

/// lr = initial * decay_rate ^ (step / decay_steps); with staircase the
/// exponent is floor(step / decay_steps).
class ExponentialDecay : public LearningRateSchedule {
 public:
  /// keras.optimizers.schedules.ExponentialDecay's arguments and defaults. Throws ValueError
  /// unless decay_steps > 0.
  ExponentialDecay(double initial_learning_rate, double decay_steps, double decay_rate, bool staircase = false,
                   std::string name = "ExponentialDecay");
  double operator()(int64_t step) const override;
  std::string class_name() const override { return "ExponentialDecay"; }
  Config get_config() const override;
  KILN_ARGS(ExponentialDecay, initial_learning_rate_, decay_steps_, decay_rate_, staircase_, name_)

 private:
  double initial_learning_rate_;
  StepCount decay_steps_;
  double decay_rate_;
  bool staircase_;
  std::string name_;
};

/// values[0] while step <= boundaries[0], values[i] while
/// boundaries[i-1] < step <= boundaries[i], values.back() after the last boundary.
/// values.size() must be boundaries.size() + 1.
class PiecewiseConstantDecay : public LearningRateSchedule {
 public:
  /// keras.optimizers.schedules.PiecewiseConstantDecay's arguments and defaults. Throws
  /// ValueError unless values has one more entry than boundaries and boundaries increase strictly.
  PiecewiseConstantDecay(std::vector<double> boundaries, std::vector<double> values,
                         std::string name = "PiecewiseConstant");
  double operator()(int64_t step) const override;
  std::string class_name() const override { return "PiecewiseConstantDecay"; }
  Config get_config() const override;
  KILN_ARGS(PiecewiseConstantDecay, boundaries_, values_, name_)

 private:
  StepList boundaries_;
  std::vector<double> values_;
  std::string name_;
};

/// s = min(step, decay_steps) (or, with cycle, decay_steps *= ceil(step / decay_steps),
/// at least 1); lr = (initial - end) * (1 - s / decay_steps) ^ power + end.
class PolynomialDecay : public LearningRateSchedule {
 public:
  /// keras.optimizers.schedules.PolynomialDecay's arguments and defaults. Throws ValueError
  /// unless decay_steps > 0.
  PolynomialDecay(double initial_learning_rate, double decay_steps, double end_learning_rate = 0.0001,
                  double power = 1.0, bool cycle = false, std::string name = "PolynomialDecay");
  double operator()(int64_t step) const override;
  std::string class_name() const override { return "PolynomialDecay"; }
  Config get_config() const override;
  KILN_ARGS(PolynomialDecay, initial_learning_rate_, decay_steps_, end_learning_rate_, power_, cycle_, name_)

 private:
  double initial_learning_rate_;
  StepCount decay_steps_;
  double end_learning_rate_, power_;
  bool cycle_;
  std::string name_;
};

/// lr = initial / (1 + decay_rate * step / decay_steps); with staircase the
/// ratio is floored.
class InverseTimeDecay : public LearningRateSchedule {
 public:
  /// keras.optimizers.schedules.InverseTimeDecay's arguments and defaults. Throws ValueError
  /// unless decay_steps > 0.
  InverseTimeDecay(double initial_learning_rate, double decay_steps, double decay_rate, bool staircase = false,
                   std::string name = "InverseTimeDecay");
  double operator()(int64_t step) const override;
  std::string class_name() const override { return "InverseTimeDecay"; }
  Config get_config() const override;
  KILN_ARGS(InverseTimeDecay, initial_learning_rate_, decay_steps_, decay_rate_, staircase_, name_)

 private:
  double initial_learning_rate_;
  StepCount decay_steps_;
  double decay_rate_;
  bool staircase_;
  std::string name_;
};

/// Without warmup_target: s = min(step, decay_steps),
///   lr = initial * ((1 - alpha) * 0.5 * (1 + cos(pi * s / decay_steps)) + alpha).
/// With warmup_target: s = min(step, decay_steps + warmup_steps); while
/// s < warmup_steps, lr rises linearly from initial to warmup_target, then
/// decays as above from warmup_target over decay_steps (step - warmup_steps).
class CosineDecay : public LearningRateSchedule {
 public:
  /// keras.optimizers.schedules.CosineDecay's arguments and defaults (warmup_target unset:
  /// no warmup). Throws ValueError unless decay_steps > 0.
  CosineDecay(double initial_learning_rate, double decay_steps, double alpha = 0.0,
              std::string name = "CosineDecay", std::optional<double> warmup_target = std::nullopt,
              double warmup_steps = 0);
  double operator()(int64_t step) const override;
  std::string class_name() const override { return "CosineDecay"; }
  Config get_config() const override;
  KILN_ARGS(CosineDecay, initial_learning_rate_, decay_steps_, alpha_, name_, warmup_target_, warmup_steps_)

 private:
  double initial_learning_rate_;
  StepCount decay_steps_;
  double alpha_;
  std::string name_;
  std::optional<double> warmup_target_;
  StepCount warmup_steps_;
};

/// SGDR: cosine decay from 1 to alpha over first_decay_steps, then a warm
/// restart; period i lasts first_decay_steps * t_mul^i steps and starts at
/// initial * m_mul^i. Keras's closed form (i_restart from a log when t_mul != 1).
class CosineDecayRestarts : public LearningRateSchedule {
 public:
  /// keras.optimizers.schedules.CosineDecayRestarts's arguments and defaults. Throws
  /// ValueError unless first_decay_steps > 0.
  CosineDecayRestarts(double initial_learning_rate, double first_decay_steps, double t_mul = 2.0,
                      double m_mul = 1.0, double alpha = 0.0, std::string name = "SGDRDecay");
  double operator()(int64_t step) const override;
  std::string class_name() const override { return "CosineDecayRestarts"; }
  Config get_config() const override;
  KILN_ARGS(CosineDecayRestarts, initial_learning_rate_, first_decay_steps_, t_mul_, m_mul_, alpha_, name_)

 private:
  double initial_learning_rate_;
  StepCount first_decay_steps_;
  double t_mul_, m_mul_, alpha_;
  std::string name_;
};

/// {"module": "keras.optimizers.schedules", "class_name", "config", "registered_name": null}.
Config serialize(const LearningRateSchedule& s);

}  // namespace kiln::optimizers::schedules
