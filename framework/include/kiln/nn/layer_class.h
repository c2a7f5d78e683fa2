#pragma once
// KILN_LAYER_HANDLE(Dense) declares the user-facing handle `Dense` of the layer
// class `DenseImpl`, with one constructor per way `DenseImpl` can be built from
// its positional arguments (its KILN_ARGS table) followed by its options:
//   Dense(64)   Dense(64, {.activation = "relu"})
// Which prefixes exist follows DenseImpl's own default arguments, so the
// handle never restates a signature. Handles share the layer: copies alias it.
#include <cstddef>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"

namespace kiln {
namespace detail {

/// The handle constructors' parameter types: each KILN_ARGS member's type, then Options.
template <class Impl, class Args = decltype(Impl::args())>
struct HandleParams;
template <class Impl, class... F>
struct HandleParams<Impl, FieldTable<F...>> {
  using type = std::tuple<typename F::Type..., typename Impl::Options>;
};

/// Auto names follow construction order (dense, dense_1), so the name is taken at once.
LayerPtr named_layer(Layer* created);

// Not make_shared: its control block would be a new class per layer class in
// every program that constructs that layer.
template <class Impl, class... A>
LayerPtr make_named_layer(A&&... a) {
  return named_layer(new Impl(std::forward<A>(a)...));
}

// Level K adds the constructor taking the first K parameters, when Impl has one.
template <class Impl, class Params, std::size_t K, class Seq = std::make_index_sequence<K>>
class HandleLevel;

template <class Impl, class Params>
class HandleLevel<Impl, Params, 0, std::index_sequence<>> : public LayerHandle<Impl> {
 public:
  using LayerHandle<Impl>::LayerHandle;
  HandleLevel()
    requires std::is_constructible_v<Impl>
      : LayerHandle<Impl>(make_named_layer<Impl>()) {}
};

template <class Impl, class Params, std::size_t K, std::size_t... I>
class HandleLevel<Impl, Params, K, std::index_sequence<I...>> : public HandleLevel<Impl, Params, K - 1> {
  using Base = HandleLevel<Impl, Params, K - 1>;

 public:
  using Base::Base;
  explicit HandleLevel(std::tuple_element_t<I, Params>... p)
    requires std::is_constructible_v<Impl, std::tuple_element_t<I, Params>...>
      : Base(make_named_layer<Impl>(std::move(p)...)) {}
};

}  // namespace detail

/// The handle base KILN_LAYER_HANDLE derives from.
template <class Impl, class Params = typename detail::HandleParams<Impl>::type>
using LayerClass = detail::HandleLevel<Impl, Params, std::tuple_size_v<Params>>;

}  // namespace kiln

/// Declares the handle class `Name` of the layer class `NameImpl`, with one
/// constructor per prefix of NameImpl's KILN_ARGS followed by its options:
/// `Dense(64)`, `Dense(64, {.activation = "relu"})`. Copies share the layer.
#define KILN_LAYER_HANDLE(Name)                        \
  class Name : public ::kiln::LayerClass<Name##Impl> { \
    using Handle = ::kiln::LayerClass<Name##Impl>;     \
                                                       \
   public:                                             \
    using Handle::Handle;                              \
  }
