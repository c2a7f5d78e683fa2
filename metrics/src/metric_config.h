#pragma once
// get_config and from_config of the built-in metrics, generated from the
// options structs' field tables (kiln/core/fields.h), and the one
// registration line of each metric, in its own .cpp:
//
//   Config BinaryAccuracy::get_config() const { return detail::with_fields(base_config(), o_); }
//   KILN_REGISTER_METRIC(BinaryAccuracy, "BinaryAccuracy", "binary_accuracy")
//
// A metric with keys of its own names its options struct `Options` (fields,
// then `name` and `dtype`) and lists the fields with KILN_FIELDS; positional
// constructor arguments (MeanIoU's num_classes) are listed with KILN_ARGS.
// The base keys name and dtype are read here and written by Metric::base_config.
// Only .cpp files include this (it pulls in nlohmann/json).
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kiln/metrics/confusion_counts.h"
#include "kiln/training/metric.h"
#include "kiln/ops/array_ops.h"
#include "nn/config_io.h"

namespace kiln::metrics {
/// Integer labels or predictions as float32, the metrics' arithmetic type; floats as they are.
inline Tensor as_float(const Tensor& x) { return is_floating(x.dtype()) ? x : cast(x, DType::float32); }
// Keras writes thresholds as null, one number, or a list. Found by argument-dependent lookup.
Config config_value(const Thresholds& t);
void read_value(const config_io::ConfigReader& r, const char* key, Thresholds& t);
}  // namespace kiln::metrics

namespace kiln::metrics::detail {

// Declared here so that lookup from this namespace sees the general codecs
// next to the Thresholds ones that argument-dependent lookup adds.
using config_io::config_value;
using config_io::read_value;

template <class M>
using OptionsOf = config_io::OptionsOr<M, MetricOptions>;

using config_io::with_fields;

/// The positional arguments (KILN_ARGS) added to a config.
template <class M>
Config with_args(Config c, const M& m) {
  std::apply([&](const auto&... f) { ((c[config_io::key_of(f)] = config_value(m.*(f.member))), ...); }, M::args().tuple());
  return c;
}

/// Keras's base keys, name and dtype, then the options' own fields.
template <class M>
typename OptionsOf<M>::type read_metric_options(const config_io::ConfigReader& r) {
  typename OptionsOf<M>::type o;
  o.name = r.string("name", o.name);
  if (r.has("dtype")) o.dtype = r.dtype();
  if constexpr (requires { decltype(o)::fields(); }) config_io::read_fields(r, o);
  return o;
}

/// Keras's `cls(**config)`: the positional arguments (required), then the options.
template <class M>
MetricPtr metric_from_fields(const std::string& cls, const Config& config) {
  config_io::ConfigReader r(cls, config);
  auto o = read_metric_options<M>(r);
  if constexpr (requires { M::args(); }) {
    return std::apply(
        [&](const auto&... f) {
          auto arg = [&](const auto& fld) {
            typename std::remove_cvref_t<decltype(fld)>::Type v{};
            const std::string key = config_io::key_of(fld);
            r.require(key.c_str());
            read_value(r, key.c_str(), v);
            return v;
          };
          return std::make_shared<M>(arg(f)..., std::move(o));
        },
        M::args().tuple());
  } else {
    return std::make_shared<M>(std::move(o));
  }
}

using MetricFactory = std::function<MetricPtr(const Config&)>;

inline void register_metric_names(std::initializer_list<const char*> names, const MetricFactory& make) {
  for (const char* n : names) register_metric(n, make);
}

/// Registers a built-in metric under its names (the first is the class name).
template <class M>
void register_builtin_metric(std::initializer_list<const char*> names) {
  const std::string canonical = *names.begin();
  register_metric_names(names, [canonical](const Config& c) { return metric_from_fields<M>(canonical, c); });
}

}  // namespace kiln::metrics::detail

/// The registration line of a built-in metric, in the metric's own .cpp. The
/// build collects these lines into kiln_register_builtins_metric()
/// (cmake/builtin_registrations.cmake), so static builds keep every metric.
#define KILN_REGISTER_METRIC(M, ...) \
  extern "C" void kiln_register_metric_##M() { ::kiln::metrics::detail::register_builtin_metric<M>({__VA_ARGS__}); }
/// Names built by a factory (a MetricFactory expression), not by a class's
/// options: loss names used as metrics, MeanMetricWrapper.
#define KILN_REGISTER_METRIC_FACTORY(Id, factory, ...)                                  \
  extern "C" void kiln_register_metric_##Id() {                                         \
    ::kiln::metrics::detail::register_metric_names({__VA_ARGS__}, factory);             \
  }
