#pragma once
// KILN_LAYER_HANDLE(Dense) declares the user-facing handle `Dense` of the layer
// class `DenseImpl`, with one constructor per way `DenseImpl` can be built from
// its positional arguments (its KILN_ARGS table) followed by its options:
//   Dense(64)   Dense(64, {.activation = "relu"})
// Which prefixes exist follows DenseImpl's own default arguments, so the
// handle never restates a signature. Handles share the layer: copies alias it.
#include <type_traits>
#include <utility>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"

namespace kiln {

/// The parameter types of a handle's longest constructor, when they are not its
/// KILN_ARGS members' types followed by its Options (Cropping2D takes two Size2).
/// Not a std::tuple: every layer header names one, and a tuple's constrained
/// constructors would be instantiated for each.
template <class... T>
struct ParamList {};

namespace detail {

/// The handle constructors' parameter types: each KILN_ARGS member's type, then Options.
template <class Impl, class Args = decltype(Impl::args())>
struct HandleParams;
template <class Impl, class... F>
struct HandleParams<Impl, FieldTable<F...>> {
  using type = ParamList<typename F::Type..., typename Impl::Options>;
};

/// Auto names follow construction order (dense, dense_1), so the name is taken at once.
LayerPtr named_layer(Layer* created);

// Not make_shared: its control block would be a new class per layer class in
// every program that constructs that layer.
template <class Impl, class... A>
LayerPtr make_named_layer(A&&... a) {
  return named_layer(new Impl(std::forward<A>(a)...));
}

template <class Impl, class... A>
concept Builds = std::is_constructible_v<Impl, A...>;

// The constructors taking each prefix of the parameters, written out per
// parameter count rather than derived by recursion over an index sequence:
// one flat class per layer keeps every includer's compile cheap. A layer
// class has at most three positional arguments before its options.
template <class Impl, class Params>
class HandleCtors;

template <class Impl, class P0>
class HandleCtors<Impl, ParamList<P0>> : public LayerHandle<Impl> {
 public:
  using LayerHandle<Impl>::LayerHandle;
  HandleCtors()
    requires Builds<Impl>
      : LayerHandle<Impl>(make_named_layer<Impl>()) {}
  explicit HandleCtors(P0 a)
    requires Builds<Impl, P0>
      : LayerHandle<Impl>(make_named_layer<Impl>(std::move(a))) {}
};

template <class Impl, class P0, class P1>
class HandleCtors<Impl, ParamList<P0, P1>> : public HandleCtors<Impl, ParamList<P0>> {
  using Base = HandleCtors<Impl, ParamList<P0>>;

 public:
  using Base::Base;
  explicit HandleCtors(P0 a, P1 b)
    requires Builds<Impl, P0, P1>
      : Base(make_named_layer<Impl>(std::move(a), std::move(b))) {}
};

template <class Impl, class P0, class P1, class P2>
class HandleCtors<Impl, ParamList<P0, P1, P2>> : public HandleCtors<Impl, ParamList<P0, P1>> {
  using Base = HandleCtors<Impl, ParamList<P0, P1>>;

 public:
  using Base::Base;
  explicit HandleCtors(P0 a, P1 b, P2 c)
    requires Builds<Impl, P0, P1, P2>
      : Base(make_named_layer<Impl>(std::move(a), std::move(b), std::move(c))) {}
};

template <class Impl, class P0, class P1, class P2, class P3>
class HandleCtors<Impl, ParamList<P0, P1, P2, P3>> : public HandleCtors<Impl, ParamList<P0, P1, P2>> {
  using Base = HandleCtors<Impl, ParamList<P0, P1, P2>>;

 public:
  using Base::Base;
  explicit HandleCtors(P0 a, P1 b, P2 c, P3 d)
    requires Builds<Impl, P0, P1, P2, P3>
      : Base(make_named_layer<Impl>(std::move(a), std::move(b), std::move(c), std::move(d))) {}
};

}  // namespace detail

/// The handle base KILN_LAYER_HANDLE derives from.
template <class Impl, class Params = typename detail::HandleParams<Impl>::type>
using LayerClass = detail::HandleCtors<Impl, Params>;

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
