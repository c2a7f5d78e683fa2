#pragma once
// get_config and from_config of the built-in optimizers and learning-rate
// schedules, generated from field tables (kiln/core/fields.h), and the one
// registration line of each class:
//
//   Config Adam::get_config() const { return detail::with_fields(base_config(), o_); }
//   KILN_REGISTER_OPTIMIZER(Adam, "Adam", "adam")
//   KILN_REGISTER_SCHEDULE(ExponentialDecay, "ExponentialDecay")
//
// An optimizer names its options struct `Options`; the struct's KILN_FIELDS
// lists learning_rate, its own keys and `base` (the shared OptimizerOptions,
// written flat as Keras does). A schedule lists its constructor arguments with
// KILN_ARGS. Only .cpp files include this (it pulls in nlohmann/json).
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kiln/core/error.h"
#include "kiln/training/optimizer.h"
#include "nn/config_io.h"
#include "training/learning_rate_config.h"

namespace kiln::optimizers::detail {

// Declared here so that lookup from this namespace sees the general codecs
// next to the ones argument-dependent lookup adds (LearningRate, StepCount).
using config_io::config_value;
using config_io::read_value;

/// The options as given, under the optimizer's live name and learning rate
/// (base_config, which wins where both write a key).
template <class O>
Config with_fields(const Config& base, const O& o) {
  Config c = Config::object();
  config_io::write_fields(c, o);
  c.update(base);
  return c;
}

/// Keras's `cls(**config)` for an optimizer.
template <class T>
OptimizerPtr optimizer_from_fields(const std::string& cls, const Config& config) {
  config_io::ConfigReader r(cls, config);
  // Keras writes these two as null; Kiln has neither feature.
  for (const char* k : {"loss_scale_factor", "gradient_accumulation_steps"})
    if (r.has(k))
      throw ValueError(cls + ".from_config: `" + k + "` is not supported by Kiln (received " + config[k].dump() +
                       ")");
  typename T::Options o;
  config_io::read_fields(r, o);
  return std::make_shared<T>(std::move(o));
}

using OptimizerFactory = std::function<OptimizerPtr(const Config&)>;

/// Registers a built-in optimizer under its names (the first is the class name).
template <class T>
void register_builtin_optimizer(std::initializer_list<const char*> names, OptimizerFactory make = nullptr) {
  const std::string canonical = *names.begin();
  if (!make) make = [canonical](const Config& c) { return optimizer_from_fields<T>(canonical, c); };
  for (const char* n : names) register_optimizer(n, make);
}

template <class S>
using ScheduleArgs = decltype(std::apply(
    [](const auto&... f) { return std::tuple<typename std::remove_cvref_t<decltype(f)>::Type...>{}; }, S::args().tuple()));

template <class S, class Args, std::size_t... I>
constexpr bool constructible_from_prefix(std::index_sequence<I...>) {
  return std::is_constructible_v<S, std::tuple_element_t<I, Args>...>;
}

/// How many leading arguments the schedule's constructor requires.
template <class S, std::size_t K = 0>
constexpr std::size_t required_args() {
  using Args = ScheduleArgs<S>;
  if constexpr (K == std::tuple_size_v<Args> || constructible_from_prefix<S, Args>(std::make_index_sequence<K>{}))
    return K;
  else
    return required_args<S, K + 1>();
}

/// Keras's `cls(**config)` for a schedule: the required arguments must be
/// present; the others keep the constructor's defaults where absent or null
/// (read back from an instance built with the required ones only).
template <class S>
SchedulePtr schedule_from_args(const std::string& cls, const Config& config) {
  config_io::ConfigReader r(cls, config);
  using Args = ScheduleArgs<S>;
  constexpr std::size_t n = std::tuple_size_v<Args>, k = required_args<S>();
  constexpr auto fields = S::args().tuple();
  Args args;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((r.require(config_io::key_of(std::get<I>(fields)).c_str()),
      read_value(r, config_io::key_of(std::get<I>(fields)).c_str(), std::get<I>(args))),
     ...);
  }(std::make_index_sequence<k>{});
  const S defaults = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return S(std::get<I>(args)...);
  }(std::make_index_sequence<k>{});
  [&]<std::size_t... J>(std::index_sequence<J...>) {
    ((J >= k ? (std::get<J>(args) = defaults.*(std::get<J>(fields).member),
                read_value(r, config_io::key_of(std::get<J>(fields)).c_str(), std::get<J>(args)))
             : void()),
     ...);
  }(std::make_index_sequence<n>{});
  return std::apply([](auto&... a) { return std::make_shared<S>(std::move(a)...); }, args);
}

/// A schedule's config: its constructor arguments under their keys.
template <class S>
Config args_config(const S& s) {
  Config c = Config::object();
  std::apply([&](const auto&... f) { ((c[config_io::key_of(f)] = config_value(s.*(f.member))), ...); }, S::args().tuple());
  return c;
}

template <class S>
void register_builtin_schedule(std::initializer_list<const char*> names) {
  const std::string canonical = *names.begin();
  auto make = [canonical](const Config& c) -> SchedulePtr { return schedule_from_args<S>(canonical, c); };
  for (const char* n : names) register_schedule(n, make);
}

}  // namespace kiln::optimizers::detail

/// The registration line of a built-in optimizer, in its own .cpp. The build
/// collects these lines into kiln_register_builtins_optimizer()
/// (cmake/builtin_registrations.cmake), so static builds keep every one.
#define KILN_REGISTER_OPTIMIZER(T, ...)                                                                 \
  extern "C" void kiln_register_optimizer_##T() {                                                      \
    ::kiln::optimizers::detail::register_builtin_optimizer<T>({__VA_ARGS__});                          \
  }
/// The same for an optimizer built by a free function `factory(const Config&)`.
#define KILN_REGISTER_OPTIMIZER_FACTORY(T, factory, ...)                                                \
  extern "C" void kiln_register_optimizer_##T() {                                                      \
    ::kiln::optimizers::detail::register_builtin_optimizer<T>(                                         \
        {__VA_ARGS__}, [](const ::kiln::Config& c) -> ::kiln::OptimizerPtr { return factory(c); });    \
  }
/// The registration line of a built-in learning-rate schedule.
#define KILN_REGISTER_SCHEDULE(S, ...)                                               \
  extern "C" void kiln_register_schedule_##S() {                                     \
    ::kiln::optimizers::detail::register_builtin_schedule<S>({__VA_ARGS__});         \
  }
