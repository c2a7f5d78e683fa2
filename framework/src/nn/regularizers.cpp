// Keras 3 weight regularizers (keras/src/regularizers/regularizers.py).
#include "kiln/nn/regularizers.h"

#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "kiln/core/registry.h"

namespace kiln::regularizers {
namespace {

double check_factor(const std::string& cls, const char* name, double v) {
  if (!std::isfinite(v) || v < 0)
    throw ValueError(cls + ": invalid value for argument " + name + ": expected a non-negative float. Received: " +
                     name + "=" + std::to_string(v));
  return v;
}

class L1L2Reg : public Regularizer {
 public:
  L1L2Reg(double l1, double l2) : l1_(check_factor("L1L2", "l1", l1)), l2_(check_factor("L1L2", "l2", l2)) {}
  Tensor operator()(const Tensor& w) const override {
    Tensor r = scalar_like(0.0, w);
    if (l1_ != 0.0) r = r + sum(abs(w)) * l1_;
    if (l2_ != 0.0) r = r + sum(square(w)) * l2_;
    return r;
  }
  std::string class_name() const override { return "L1L2"; }
  Config get_config() const override { return {{"l1", l1_}, {"l2", l2_}}; }

 private:
  double l1_, l2_;
};

class L1Reg : public Regularizer {
 public:
  explicit L1Reg(double l1) : l1_(check_factor("L1", "l1", l1)) {}
  Tensor operator()(const Tensor& w) const override { return sum(abs(w)) * l1_; }
  std::string class_name() const override { return "L1"; }
  Config get_config() const override { return {{"l1", l1_}}; }

 private:
  double l1_;
};

class L2Reg : public Regularizer {
 public:
  explicit L2Reg(double l2) : l2_(check_factor("L2", "l2", l2)) {}
  Tensor operator()(const Tensor& w) const override { return sum(square(w)) * l2_; }
  std::string class_name() const override { return "L2"; }
  Config get_config() const override { return {{"l2", l2_}}; }

 private:
  double l2_;
};

// Reads one numeric factor; rejects keys the class does not take.
double factor(const std::string& cls, const Config& c, const char* key, double def,
              std::initializer_list<const char*> allowed) {
  if (c.is_null()) return def;
  if (!c.is_object()) throw ValueError(cls + ".from_config: expected a JSON object config, got " + c.dump());
  for (const auto& [k, v] : c.items()) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || k == a;
    if (!ok) throw ValueError(cls + ".from_config: unexpected config key '" + k + "' in " + c.dump());
  }
  if (!c.contains(key) || c[key].is_null()) return def;
  if (!c[key].is_number()) throw ValueError(cls + ".from_config: '" + key + "' must be a number, got " + c[key].dump());
  return c[key].get<double>();
}

using Factory = std::function<RegularizerPtr(const Config&)>;

// Class names build from a config; the snake_case names are Keras's string
// shortcuts, which take the documented defaults (l1_l2 -> 0.01 each).
const Registry<Factory>& classes() {
  static const Registry<Factory> r = [] {
    Registry<Factory> t("regularizer");
    t.add("L1", [](const Config& c) { return L1(factor("L1", c, "l1", 0.01, {"l1"})); });
    t.add("L2", [](const Config& c) { return L2(factor("L2", c, "l2", 0.01, {"l2"})); });
    t.add("L1L2", [](const Config& c) {
      return L1L2(factor("L1L2", c, "l1", 0.0, {"l1", "l2"}), factor("L1L2", c, "l2", 0.0, {"l1", "l2"}));
    });
    return t;
  }();
  return r;
}

const Registry<std::function<RegularizerPtr()>>& names() {
  static const Registry<std::function<RegularizerPtr()>> r = [] {
    Registry<std::function<RegularizerPtr()>> t("regularizer");
    t.add("l1", [] { return L1(); });
    t.add("l2", [] { return L2(); });
    t.add("l1_l2", [] { return L1L2(0.01, 0.01); });
    t.add("l1l2", [] { return L1L2(0.01, 0.01); });  // Keras 3's to_snake_case("L1L2")
    t.add("L1", [] { return L1(); });
    t.add("L2", [] { return L2(); });
    t.add("L1L2", [] { return L1L2(); });
    return t;
  }();
  return r;
}

}  // namespace

RegularizerPtr L1(double l1) { return std::make_shared<L1Reg>(l1); }
RegularizerPtr L2(double l2) { return std::make_shared<L2Reg>(l2); }
RegularizerPtr L1L2(double l1, double l2) { return std::make_shared<L1L2Reg>(l1, l2); }

RegularizerPtr get(const std::string& name) { return names().get(name)(); }

RegularizerPtr from_config(const Config& c) {
  if (c.is_string()) return get(c.get<std::string>());
  if (!c.is_object() || !c.contains("class_name") || !c["class_name"].is_string())
    throw ValueError("regularizers::from_config: expected {\"class_name\": ..., \"config\": {...}}, got " + c.dump());
  Config cfg = c.contains("config") ? c["config"] : Config(nullptr);
  return classes().get(c["class_name"].get<std::string>())(cfg);
}

Config serialize(const Regularizer& r) {
  return {{"module", "keras.regularizers"},
          {"class_name", r.class_name()},
          {"config", r.get_config()},
          {"registered_name", nullptr}};
}

}  // namespace kiln::regularizers
