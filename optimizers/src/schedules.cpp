// Learning-rate schedules: the formulas of
// keras/src/optimizers/schedules/learning_rate_schedule.py, in double.
#include "kiln/optimizers/schedules.h"

#include <cmath>
#include <numbers>
#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "optimizer_config.h"

namespace kiln::optimizers::schedules {
namespace {

// Keras writes step counts as ints: keep 100000 rather than 100000.0.
Config number(double v) {
  if (std::floor(v) == v && std::abs(v) < 9.0e15) return Config(static_cast<int64_t>(v));
  return Config(v);
}

void check_positive(const char* cls, const char* arg, double v) {
  if (!(v > 0))
    throw ValueError(std::string(cls) + ": argument `" + arg + "` must be > 0. Received: " + arg + "=" +
                     std::to_string(v));
}

}  // namespace

Config config_value(StepCount s) { return number(s.value); }
void read_value(const config_io::ConfigReader& r, const char* key, StepCount& s) { s.value = r.number(key, s.value); }
Config config_value(const StepList& v) {
  Config j = Config::array();
  for (double x : v) j.push_back(number(x));
  return j;
}
void read_value(const config_io::ConfigReader& r, const char* key, StepList& v) {
  std::vector<double> list;
  config_io::read_value(r, key, list);
  if (r.has(key)) v = StepList(std::move(list));
}

// ---------------------------------------------------------------- ExponentialDecay

ExponentialDecay::ExponentialDecay(double initial_learning_rate, double decay_steps, double decay_rate, bool staircase,
                                   std::string name)
    : initial_learning_rate_(initial_learning_rate),
      decay_steps_(decay_steps),
      decay_rate_(decay_rate),
      staircase_(staircase),
      name_(std::move(name)) {
  check_positive("ExponentialDecay", "decay_steps", decay_steps);
}

double ExponentialDecay::operator()(int64_t step) const {
  double p = static_cast<double>(step) / decay_steps_;
  if (staircase_) p = std::floor(p);
  return initial_learning_rate_ * std::pow(decay_rate_, p);
}

Config ExponentialDecay::get_config() const { return detail::args_config(*this); }

KILN_REGISTER_SCHEDULE(ExponentialDecay, "ExponentialDecay")

// ---------------------------------------------------------------- PiecewiseConstantDecay

PiecewiseConstantDecay::PiecewiseConstantDecay(std::vector<double> boundaries, std::vector<double> values,
                                               std::string name)
    : boundaries_(std::move(boundaries)), values_(std::move(values)), name_(std::move(name)) {
  if (boundaries_.size() + 1 != values_.size())
    throw ValueError("PiecewiseConstantDecay: the length of boundaries should be 1 less than the length of values. "
                     "Received: boundaries of length " +
                     std::to_string(boundaries_.size()) + ", and values of length " + std::to_string(values_.size()));
  for (std::size_t i = 1; i < boundaries_.size(); ++i)
    if (!(boundaries_[i] > boundaries_[i - 1]))
      throw ValueError("PiecewiseConstantDecay: boundaries must be strictly increasing; boundaries[" +
                       std::to_string(i) + "] = " + std::to_string(boundaries_[i]) + " follows " +
                       std::to_string(boundaries_[i - 1]));
}

double PiecewiseConstantDecay::operator()(int64_t step) const {
  const double s = static_cast<double>(step);
  for (std::size_t i = 0; i < boundaries_.size(); ++i)
    if (s <= boundaries_[i]) return values_[i];
  return values_.back();
}

Config PiecewiseConstantDecay::get_config() const { return detail::args_config(*this); }

KILN_REGISTER_SCHEDULE(PiecewiseConstantDecay, "PiecewiseConstantDecay")

// ---------------------------------------------------------------- PolynomialDecay

PolynomialDecay::PolynomialDecay(double initial_learning_rate, double decay_steps, double end_learning_rate,
                                 double power, bool cycle, std::string name)
    : initial_learning_rate_(initial_learning_rate),
      decay_steps_(decay_steps),
      end_learning_rate_(end_learning_rate),
      power_(power),
      cycle_(cycle),
      name_(std::move(name)) {
  check_positive("PolynomialDecay", "decay_steps", decay_steps);
}

double PolynomialDecay::operator()(int64_t step) const {
  double s = static_cast<double>(step);
  double steps = decay_steps_;
  if (cycle_) {
    // The first multiple of decay_steps above step (1 at step 0).
    const double multiplier = s == 0 ? 1.0 : std::ceil(s / decay_steps_);
    steps *= multiplier;
  } else {
    s = std::min(s, steps);
  }
  const double p = s / steps;
  return (initial_learning_rate_ - end_learning_rate_) * std::pow(1 - p, power_) + end_learning_rate_;
}

Config PolynomialDecay::get_config() const { return detail::args_config(*this); }

KILN_REGISTER_SCHEDULE(PolynomialDecay, "PolynomialDecay")

// ---------------------------------------------------------------- InverseTimeDecay

InverseTimeDecay::InverseTimeDecay(double initial_learning_rate, double decay_steps, double decay_rate, bool staircase,
                                   std::string name)
    : initial_learning_rate_(initial_learning_rate),
      decay_steps_(decay_steps),
      decay_rate_(decay_rate),
      staircase_(staircase),
      name_(std::move(name)) {
  check_positive("InverseTimeDecay", "decay_steps", decay_steps);
}

double InverseTimeDecay::operator()(int64_t step) const {
  double p = static_cast<double>(step) / decay_steps_;
  if (staircase_) p = std::floor(p);
  return initial_learning_rate_ / (1.0 + decay_rate_ * p);
}

Config InverseTimeDecay::get_config() const { return detail::args_config(*this); }

KILN_REGISTER_SCHEDULE(InverseTimeDecay, "InverseTimeDecay")

// ---------------------------------------------------------------- CosineDecay

CosineDecay::CosineDecay(double initial_learning_rate, double decay_steps, double alpha, std::string name,
                         std::optional<double> warmup_target, double warmup_steps)
    : initial_learning_rate_(initial_learning_rate),
      decay_steps_(decay_steps),
      alpha_(alpha),
      name_(std::move(name)),
      warmup_target_(warmup_target),
      warmup_steps_(warmup_steps) {
  check_positive("CosineDecay", "decay_steps", decay_steps);
}

double CosineDecay::operator()(int64_t step) const {
  auto decay = [this](double s, double from_lr) {
    const double cosine = 0.5 * (1.0 + std::cos(std::numbers::pi * (s / decay_steps_)));
    return from_lr * ((1 - alpha_) * cosine + alpha_);
  };
  double s = static_cast<double>(step);
  if (!warmup_target_) return decay(std::min<double>(s, decay_steps_), initial_learning_rate_);
  s = std::min<double>(s, decay_steps_ + warmup_steps_);
  if (s < warmup_steps_) return (*warmup_target_ - initial_learning_rate_) * (s / warmup_steps_) + initial_learning_rate_;
  return decay(s - warmup_steps_, *warmup_target_);
}

Config CosineDecay::get_config() const { return detail::args_config(*this); }

KILN_REGISTER_SCHEDULE(CosineDecay, "CosineDecay")

// ---------------------------------------------------------------- CosineDecayRestarts

CosineDecayRestarts::CosineDecayRestarts(double initial_learning_rate, double first_decay_steps, double t_mul,
                                         double m_mul, double alpha, std::string name)
    : initial_learning_rate_(initial_learning_rate),
      first_decay_steps_(first_decay_steps),
      t_mul_(t_mul),
      m_mul_(m_mul),
      alpha_(alpha),
      name_(std::move(name)) {
  check_positive("CosineDecayRestarts", "first_decay_steps", first_decay_steps);
}

double CosineDecayRestarts::operator()(int64_t step) const {
  double fraction = static_cast<double>(step) / first_decay_steps_;
  double i_restart;
  if (t_mul_ == 1.0) {
    i_restart = std::floor(fraction);
    fraction -= i_restart;
  } else {
    // Periods grow geometrically: sum_{k<i} t_mul^k = (1 - t_mul^i) / (1 - t_mul).
    i_restart = std::floor(std::log(1.0 - fraction * (1.0 - t_mul_)) / std::log(t_mul_));
    const double sum_r = (1.0 - std::pow(t_mul_, i_restart)) / (1.0 - t_mul_);
    fraction = (fraction - sum_r) / std::pow(t_mul_, i_restart);
  }
  const double m_fac = std::pow(m_mul_, i_restart);
  const double cosine = 0.5 * m_fac * (1.0 + std::cos(std::numbers::pi * fraction));
  return initial_learning_rate_ * ((1 - alpha_) * cosine + alpha_);
}

Config CosineDecayRestarts::get_config() const { return detail::args_config(*this); }

KILN_REGISTER_SCHEDULE(CosineDecayRestarts, "CosineDecayRestarts")

Config serialize(const LearningRateSchedule& s) {
  return {{"module", "keras.optimizers.schedules"},
          {"class_name", s.class_name()},
          {"config", s.get_config()},
          {"registered_name", nullptr}};
}

}  // namespace kiln::optimizers::schedules
