#pragma once
// get_config and from_config generated from field tables (kiln/core/fields.h),
// and the one registration line of a built-in layer:
//
//   Config DenseImpl::get_config() const { return layer_config(*this); }
//   KILN_REGISTER_LAYER(DenseImpl, "Dense")
//
// A layer class lists its positional constructor arguments with KILN_ARGS,
// names its options struct `Options` and returns it from options(); the
// options struct lists its keys with KILN_FIELDS and ends with
// KILN_LAYER_BASE_OPTIONS. Optional static members of the class become its
// registry hooks (kiln/nn/layer_registry.h): upgrade_entry,
// upgrade_legacy_weights, to_keras3_config, records_build_config and keras_module.
// Only .cpp files include this (it pulls in nlohmann/json).
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/nn/quantizers.h"
#include "kiln/nn/layer_registry.h"
#include "layer_utils.h"
#include "nn/config_io.h"

namespace kiln::layers::detail {

using namespace config_io;

}  // namespace kiln::layers::detail

namespace kiln::layers {
// Keras writes both as lists: (3,) and (3, 5). Found by argument-dependent lookup.
inline Config config_value(Size1 v) { return Config::array({v.value}); }
inline Config config_value(Size2 v) { return detail::size2_json(v); }
void read_value(const config_io::ConfigReader& r, const char* key, Size1& v);
void read_value(const config_io::ConfigReader& r, const char* key, Size2& v);
}  // namespace kiln::layers

namespace kiln::quantizers {
// Keras writes a quantized layer's quantization_config as a serialized
// Int8QuantizationConfig. Found by argument-dependent lookup.
Config config_value(const QuantizationConfig& v);
void read_value(const config_io::ConfigReader& r, const char* key, QuantizationConfig& v);
}  // namespace kiln::quantizers

namespace kiln::layers::detail {

// Declared here so that lookup from this namespace sees the general codecs
// next to the Size1/Size2 ones that argument-dependent lookup adds.
using config_io::config_value;
using config_io::read_value;

/// A layer's full config: the base keys, its positional arguments, its options
/// and the declared input shape.
template <class Impl>
Config layer_config(const Impl& l) {
  Config c = l.base_config();
  std::apply([&](const auto&... f) { ((c[key_of(f)] = config_value(l.*(f.member))), ...); }, Impl::args().tuple());
  write_fields(c, l.options());
  add_declared_shape(l, c);
  return c;
}

template <class Impl, class Args, std::size_t... I>
std::shared_ptr<Impl> construct_from_prefix(const ConfigReader& r, Args& args, typename Impl::Options& o,
                                            std::size_t present, std::index_sequence<I...>) {
  constexpr std::size_t k = sizeof...(I);
  if (present == k) {
    if constexpr (k == std::tuple_size_v<Args>) {
      return std::make_shared<Impl>(std::move(std::get<I>(args))..., std::move(o));
    } else if constexpr (std::is_constructible_v<Impl, std::tuple_element_t<I, Args>...>) {
      // The absent trailing arguments take the constructor's defaults, read back
      // from an instance built with only the present ones.
      const Impl defaults(std::get<I>(args)...);
      constexpr auto fields = Impl::args().tuple();
      [&]<std::size_t... J>(std::index_sequence<J...>) {
        ((J >= k ? void(std::get<J>(args) = defaults.*(std::get<J>(fields).member)) : void()), ...);
      }(std::make_index_sequence<std::tuple_size_v<Args>>{});
      return std::apply([&](auto&... a) { return std::make_shared<Impl>(std::move(a)..., std::move(o)); }, args);
    }
  }
  if constexpr (k > 0) {
    return construct_from_prefix<Impl>(r, args, o, present, std::make_index_sequence<k - 1>{});
  } else {
    // No constructor takes only the keys present: the first absent one is required.
    std::string missing;
    std::size_t i = 0;
    std::apply([&](const auto&... f) { ((i++ == present ? void(missing = key_of(f)) : void()), ...); }, Impl::args().tuple());
    r.require(missing.c_str());
    return nullptr;
  }
}

/// Keras's `cls(**config)`: the positional arguments, then the options struct.
/// Trailing positional arguments may be absent when the constructor has
/// defaults for them (MaxPooling2D's pool_size).
template <class Impl>
std::shared_ptr<Impl> layer_from_fields(const std::string& cls, const Config& config) {
  ConfigReader r(cls, config);
  typename Impl::Options o;
  r.base(o);
  read_fields(r, o);
  using Args = std::remove_cvref_t<decltype(std::apply(
      [](const auto&... f) { return std::tuple<typename std::remove_cvref_t<decltype(f)>::Type...>{}; },
      Impl::args().tuple()))>;
  constexpr std::size_t n = std::tuple_size_v<Args>;
  Args args;
  std::size_t present = 0;  // the leading positional keys present in the config
  bool gap = false;
  auto read_arg = [&](const auto& fld, auto& slot) {
    const std::string key = key_of(fld);
    gap = gap || !r.has(key.c_str());
    if (gap) return;
    read_value(r, key.c_str(), slot);
    ++present;
  };
  constexpr auto fields = Impl::args().tuple();
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (read_arg(std::get<I>(fields), std::get<I>(args)), ...);
  }(std::make_index_sequence<n>{});
  return construct_from_prefix<Impl>(r, args, o, present, std::make_index_sequence<n>{});
}

/// Registers a built-in class under its names (the first is canonical); a
/// class a user registered first keeps the user's factory. Without a factory,
/// the class's own static from_config, else the generated one.
template <class Impl>
void register_builtin_layer(std::initializer_list<const char*> names, LayerFactory make = nullptr) {
  const std::string canonical = *names.begin();
  if (!make)
    make = [canonical](const Config& c) -> LayerPtr {
      if constexpr (requires { Impl::from_config(c); })
        return Impl::from_config(c);
      else if constexpr (requires { Impl::args(); })
        return layer_from_fields<Impl>(canonical, c);
      else
        return nullptr;  // classes without a field table always come with a factory
    };
  LayerClassHooks h;
  if constexpr (requires { &Impl::upgrade_entry; }) h.upgrade_entry = &Impl::upgrade_entry;
  if constexpr (requires { &Impl::upgrade_legacy_weights; }) h.upgrade_legacy_weights = &Impl::upgrade_legacy_weights;
  if constexpr (requires { &Impl::to_keras3_config; }) h.to_keras3_config = &Impl::to_keras3_config;
  if constexpr (requires { Impl::records_build_config; }) h.records_build_config = Impl::records_build_config;
  if constexpr (requires { Impl::keras_module; }) h.keras_module = Impl::keras_module;
  for (const char* n : names)
    if (!is_layer_class_registered(n)) register_layer_class(n, make, h);
}

}  // namespace kiln::layers::detail

/// The registration line of a built-in layer, in the layer's own .cpp. The
/// build collects these lines into the layers module's registration function
/// (cmake/builtin_registrations.cmake), so static builds keep every layer.
#define KILN_REGISTER_LAYER(Impl, ...) \
  extern "C" void kiln_register_layer_##Impl() { ::kiln::layers::detail::register_builtin_layer<Impl>({__VA_ARGS__}); }
/// The same for a class built by a free function `factory(const Config&)`.
#define KILN_REGISTER_LAYER_FACTORY(Impl, factory, ...)                                          \
  extern "C" void kiln_register_layer_##Impl() {                                                 \
    ::kiln::layers::detail::register_builtin_layer<Impl>(                                        \
        {__VA_ARGS__}, [](const ::kiln::Config& c) -> ::kiln::LayerPtr { return factory(c); });  \
  }
