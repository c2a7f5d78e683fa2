// Keras 3 weight constraints (keras/src/constraints/constraints.py).
#include "kiln/nn/constraints.h"

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>

#include "core/number_text.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "kiln/core/registry.h"

namespace kiln::constraints {
namespace {

// Keras's backend.epsilon(), added to the norm before dividing by it.
constexpr double kEpsilon = 1e-7;

// sqrt(sum(w^2)) over the axes, kept as size-1 axes so it broadcasts against w.
Tensor norms(const Tensor& w, const std::vector<int>& axes) { return sqrt(sum(square(w), Axes(axes), true)); }

// Keras writes a single axis as an int and several as a list.
Config axis_config(const std::vector<int>& axes) {
  if (axes.size() == 1) return axes[0];
  return Config(axes);
}

class MaxNormC : public Constraint {
 public:
  MaxNormC(double max_value, std::vector<int> axes) : max_value_(max_value), axes_(std::move(axes)) {}
  Tensor operator()(const Tensor& w) const override {
    Tensor n = norms(w, axes_);
    Tensor desired = clip(n, 0.0, max_value_);
    return w * (desired / (n + kEpsilon));
  }
  std::string class_name() const override { return "MaxNorm"; }
  Config get_config() const override { return {{"max_value", max_value_}, {"axis", axis_config(axes_)}}; }

 private:
  double max_value_;
  std::vector<int> axes_;
};

class MinMaxNormC : public Constraint {
 public:
  MinMaxNormC(double min_value, double max_value, double rate, std::vector<int> axes)
      : min_value_(min_value), max_value_(max_value), rate_(rate), axes_(std::move(axes)) {
    if (min_value_ > max_value_)
      throw ValueError("MinMaxNorm: min_value (" + kiln::detail::number_text(min_value_) + ") is above max_value (" +
                       kiln::detail::number_text(max_value_) + ")");
  }
  Tensor operator()(const Tensor& w) const override {
    Tensor n = norms(w, axes_);
    Tensor desired = clip(n, min_value_, max_value_) * rate_ + n * (1.0 - rate_);
    return w * (desired / (n + kEpsilon));
  }
  std::string class_name() const override { return "MinMaxNorm"; }
  Config get_config() const override {
    return {{"min_value", min_value_}, {"max_value", max_value_}, {"rate", rate_}, {"axis", axis_config(axes_)}};
  }

 private:
  double min_value_, max_value_, rate_;
  std::vector<int> axes_;
};

class NonNegC : public Constraint {
 public:
  Tensor operator()(const Tensor& w) const override { return maximum(w, scalar_like(0.0, w)); }
  std::string class_name() const override { return "NonNeg"; }
  Config get_config() const override { return Config::object(); }
};

class UnitNormC : public Constraint {
 public:
  explicit UnitNormC(std::vector<int> axes) : axes_(std::move(axes)) {}
  Tensor operator()(const Tensor& w) const override { return w / (norms(w, axes_) + kEpsilon); }
  std::string class_name() const override { return "UnitNorm"; }
  Config get_config() const override { return {{"axis", axis_config(axes_)}}; }

 private:
  std::vector<int> axes_;
};

// Reads a class's config, rejecting keys it does not take (as Keras's cls(**config)).
class Args {
 public:
  Args(const std::string& cls, const Config& c, std::initializer_list<const char*> allowed) : cls_(cls), c_(c) {
    if (c_.is_null()) return;
    if (!c_.is_object()) throw ValueError(cls_ + ".from_config: expected a JSON object config, got " + c_.dump());
    for (const auto& [k, v] : c_.items()) {
      bool ok = false;
      for (const char* a : allowed) ok = ok || k == a;
      if (!ok) throw ValueError(cls_ + ".from_config: unexpected config key '" + k + "' in " + c_.dump());
    }
  }
  double num(const char* key, double def) const {
    if (!has(key)) return def;
    if (!c_[key].is_number())
      throw ValueError(cls_ + ".from_config: '" + key + "' must be a number, got " + c_[key].dump());
    return c_[key].get<double>();
  }
  std::vector<int> axes() const {
    if (!has("axis")) return {0};
    const auto& a = c_["axis"];
    if (a.is_number_integer()) return {a.get<int>()};
    if (a.is_array() && !a.empty() && std::all_of(a.begin(), a.end(), [](const Config& x) { return x.is_number_integer(); }))
      return a.get<std::vector<int>>();
    throw ValueError(cls_ + ".from_config: 'axis' must be an integer or a list of integers, got " + a.dump());
  }

 private:
  bool has(const char* key) const { return !c_.is_null() && c_.contains(key) && !c_[key].is_null(); }
  std::string cls_;
  const Config& c_;
};

using Factory = std::function<ConstraintPtr(const Config&)>;

const Registry<Factory>& registry() {
  static const Registry<Factory> r = [] {
    Registry<Factory> t("constraint");
    auto add = [&t](const std::string& cls, Factory f) {
      t.add(cls, f);
      t.add(to_snake_case(cls), f);
    };
    add("MaxNorm", [](const Config& c) {
      Args a("MaxNorm", c, {"max_value", "axis"});
      return MaxNorm(a.num("max_value", 2.0), a.axes());
    });
    add("MinMaxNorm", [](const Config& c) {
      Args a("MinMaxNorm", c, {"min_value", "max_value", "rate", "axis"});
      return MinMaxNorm(a.num("min_value", 0.0), a.num("max_value", 1.0), a.num("rate", 1.0), a.axes());
    });
    add("NonNeg", [](const Config& c) {
      Args("NonNeg", c, {});
      return NonNeg();
    });
    add("UnitNorm", [](const Config& c) { return UnitNorm(Args("UnitNorm", c, {"axis"}).axes()); });
    return t;
  }();
  return r;
}

}  // namespace

ConstraintPtr MaxNorm(double max_value, int axis) { return MaxNorm(max_value, std::vector<int>{axis}); }
ConstraintPtr MaxNorm(double max_value, std::vector<int> axes) {
  return std::make_shared<MaxNormC>(max_value, std::move(axes));
}
ConstraintPtr MinMaxNorm(double min_value, double max_value, double rate, int axis) {
  return MinMaxNorm(min_value, max_value, rate, std::vector<int>{axis});
}
ConstraintPtr MinMaxNorm(double min_value, double max_value, double rate, std::vector<int> axes) {
  return std::make_shared<MinMaxNormC>(min_value, max_value, rate, std::move(axes));
}
ConstraintPtr NonNeg() { return std::make_shared<NonNegC>(); }
ConstraintPtr UnitNorm(int axis) { return UnitNorm(std::vector<int>{axis}); }
ConstraintPtr UnitNorm(std::vector<int> axes) { return std::make_shared<UnitNormC>(std::move(axes)); }

ConstraintPtr get(const std::string& name) { return registry().get(name)(Config(nullptr)); }

ConstraintPtr from_config(const Config& c) {
  if (c.is_string()) return get(c.get<std::string>());
  if (!c.is_object() || !c.contains("class_name") || !c["class_name"].is_string())
    throw ValueError("constraints::from_config: expected {\"class_name\": ..., \"config\": {...}}, got " + c.dump());
  Config cfg = c.contains("config") ? c["config"] : Config(nullptr);
  return registry().get(c["class_name"].get<std::string>())(cfg);
}

Config serialize(const Constraint& c) {
  return {{"module", "keras.constraints"},
          {"class_name", c.class_name()},
          {"config", c.get_config()},
          {"registered_name", nullptr}};
}

}  // namespace kiln::constraints
