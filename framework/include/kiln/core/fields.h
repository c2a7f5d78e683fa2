#pragma once
// Field tables: a config-bearing struct names its keys once, and get_config,
// from_config and the defaults (the members' own initialisers) all follow
// from that one list.
//
//   struct DropoutOptions {
//     std::vector<int64_t> noise_shape;
//     std::optional<int64_t> seed;
//     KILN_FIELDS(DropoutOptions, noise_shape, seed)
//   };
//
// A key is the member's name without a trailing underscore, so a layer's
// private `units_` is written as Keras's "units". Members keep Keras's keyword
// names, which makes the table the single place the key names appear.
#include <string_view>
#include <tuple>

namespace kiln {

template <class C, class M>
struct Field {
  std::string_view member_name;
  M C::*member;
  using Type = M;
  /// The config key: the member name without its trailing underscore.
  constexpr std::string_view key() const {
    std::string_view k = member_name;
    if (!k.empty() && k.back() == '_') k.remove_suffix(1);
    return k;
  }
};

template <class C, class M>
constexpr Field<C, M> field(std::string_view member_name, M C::*member) {
  return {member_name, member};
}

}  // namespace kiln

// KILN_FOR_EACH(m, T, a, b, c) -> m(T, a), m(T, b), m(T, c): the __VA_OPT__
// recursion; the rescans allow up to 256 items.
#define KILN_PARENS ()
#define KILN_EXPAND(...) KILN_EXPAND4(KILN_EXPAND4(KILN_EXPAND4(KILN_EXPAND4(__VA_ARGS__))))
#define KILN_EXPAND4(...) KILN_EXPAND3(KILN_EXPAND3(KILN_EXPAND3(KILN_EXPAND3(__VA_ARGS__))))
#define KILN_EXPAND3(...) KILN_EXPAND2(KILN_EXPAND2(KILN_EXPAND2(KILN_EXPAND2(__VA_ARGS__))))
#define KILN_EXPAND2(...) KILN_EXPAND1(KILN_EXPAND1(KILN_EXPAND1(KILN_EXPAND1(__VA_ARGS__))))
#define KILN_EXPAND1(...) __VA_ARGS__
#define KILN_FOR_EACH(m, T, ...) __VA_OPT__(KILN_EXPAND(KILN_FOR_EACH_STEP(m, T, __VA_ARGS__)))
#define KILN_FOR_EACH_STEP(m, T, a, ...) m(T, a) __VA_OPT__(, KILN_FOR_EACH_AGAIN KILN_PARENS(m, T, __VA_ARGS__))
#define KILN_FOR_EACH_AGAIN() KILN_FOR_EACH_STEP
#define KILN_FIELD_ENTRY(T, member) ::kiln::field(#member, &T::member)

/// The option fields of a struct, in Keras's key order.
#define KILN_FIELDS(T, ...) \
  static constexpr auto fields() { return std::tuple{KILN_FOR_EACH(KILN_FIELD_ENTRY, T, __VA_ARGS__)}; }
/// A layer's positional constructor arguments (Dense's units), in order: the
/// members that hold them. from_config passes them before the options struct.
#define KILN_ARGS(T, ...) \
  static constexpr auto args() { return std::tuple{KILN_FOR_EACH(KILN_FIELD_ENTRY, T, __VA_ARGS__)}; }
