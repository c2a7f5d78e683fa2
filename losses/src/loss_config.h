#pragma once
// get_config and from_config of the built-in losses, generated from the
// options structs' field tables (kiln/core/fields.h), and the one
// registration line each loss has in its own .cpp:
//
//   Config Huber::get_config() const { return detail::with_fields(base_config(), o_); }
//   KILN_REGISTER_LOSS(Huber, "Huber", "huber", "huber_loss")
//
// A loss with keys of its own names its options struct `Options` (fields,
// then `reduction` and `name`) and lists the fields with KILN_FIELDS; the base
// keys reduction and name are read here and written by Loss::base_config.
// Only .cpp files include this (it pulls in nlohmann/json).
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

#include "kiln/training/loss.h"
#include "nn/config_io.h"

namespace kiln::losses::detail {

template <class L>
using OptionsOf = config_io::OptionsOr<L, LossOptions>;

/// Keras's base keys: `reduction` (null is Keras's None, "none") and `name`.
template <class O>
void read_loss_base(const config_io::ConfigReader& r, O& o) {
  if (r.raw().contains("reduction")) o.reduction = r.has("reduction") ? r.string("reduction", o.reduction) : "none";
  o.name = r.string("name", o.name);
}

using config_io::with_fields;

/// Keras's `cls(**config)`: the base keys and the options' fields, then the constructor.
template <class L>
LossPtr loss_from_fields(const std::string& cls, const Config& config) {
  config_io::ConfigReader r(cls, config);
  typename OptionsOf<L>::type o;
  read_loss_base(r, o);
  if constexpr (requires { decltype(o)::fields(); }) config_io::read_fields(r, o);
  return std::make_shared<L>(std::move(o));
}

/// Registers a built-in loss under its names (the first is the class name).
template <class L>
void register_builtin_loss(std::initializer_list<const char*> names) {
  const std::string canonical = *names.begin();
  auto make = [canonical](const Config& c) -> LossPtr { return loss_from_fields<L>(canonical, c); };
  for (const char* n : names) register_loss(n, make);
}

}  // namespace kiln::losses::detail

/// The registration line of a built-in loss, in the loss's own .cpp. The build
/// collects these lines into kiln_register_builtins_loss()
/// (cmake/builtin_registrations.cmake), so static builds keep every loss.
#define KILN_REGISTER_LOSS(L, ...) \
  extern "C" void kiln_register_loss_##L() { ::kiln::losses::detail::register_builtin_loss<L>({__VA_ARGS__}); }
