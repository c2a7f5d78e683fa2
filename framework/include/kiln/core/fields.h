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
#include <cstddef>
#include <string_view>
#include <tuple>
#include <utility>

namespace kiln {

/// One entry of a field table: a member of C and its config key.
template <class C, class M>
struct Field {
  std::string_view member_name;  ///< The member's name as written in KILN_FIELDS or KILN_ARGS.
  M C::*member;  ///< Pointer to the member.
  using Type = M;  ///< The member's type.
  /// The config key: the member name without its trailing underscore.
  constexpr std::string_view key() const {
    std::string_view k = member_name;
    if (!k.empty() && k.back() == '_') k.remove_suffix(1);
    return k;
  }
};

/// A Field for `member`, named `member_name` (what KILN_FIELD_ENTRY writes).
template <class C, class M>
constexpr Field<C, M> field(std::string_view member_name, M C::*member) {
  return {member_name, member};
}

namespace detail {
template <std::size_t I, class F>
struct FieldSlot {
  F field;
};
template <class Seq, class... F>
struct FieldSlots;
template <std::size_t... I, class... F>
struct FieldSlots<std::index_sequence<I...>, F...> : FieldSlot<I, F>... {
  constexpr std::tuple<F...> tuple() const { return {static_cast<const FieldSlot<I, F>&>(*this).field...}; }
};
}  // namespace detail

/// A constructor-argument table. Not a std::tuple: deducing a std::tuple's
/// type instantiates its constrained constructors, and every layer handle
/// needs this table's type where its header is included. `tuple()` gives the
/// std::tuple where a config is read or written.
template <class... F>
struct FieldTable : detail::FieldSlots<std::index_sequence_for<F...>, F...> {};
template <class... F>
FieldTable(F...) -> FieldTable<F...>;  ///< Deduces a FieldTable's entry types from its fields.

}  // namespace kiln

// KILN_FOR_EACH(m, T, a, b, c) -> m(T, a), m(T, b), m(T, c): the __VA_OPT__
// recursion; the 64 rescans allow up to 64 items (ConvLSTM has 27). Every use
// pays for all 64 whatever its length, and a table of 256 made the
// preprocessor a tenth of <kiln/kiln.h>'s compile time. More items leave
// KILN_FOR_EACH_AGAIN unexpanded: a compile error at the table.
#define KILN_PARENS ()
#define KILN_EXPAND(...) KILN_EXPAND3(KILN_EXPAND3(KILN_EXPAND3(KILN_EXPAND3(__VA_ARGS__))))
#define KILN_EXPAND3(...) KILN_EXPAND2(KILN_EXPAND2(KILN_EXPAND2(KILN_EXPAND2(__VA_ARGS__))))
#define KILN_EXPAND2(...) KILN_EXPAND1(KILN_EXPAND1(KILN_EXPAND1(KILN_EXPAND1(__VA_ARGS__))))
#define KILN_EXPAND1(...) __VA_ARGS__
#define KILN_FOR_EACH(m, T, ...) __VA_OPT__(KILN_EXPAND(KILN_FOR_EACH_STEP(m, T, __VA_ARGS__)))
#define KILN_FOR_EACH_STEP(m, T, a, ...) m(T, a) __VA_OPT__(, KILN_FOR_EACH_AGAIN KILN_PARENS(m, T, __VA_ARGS__))
#define KILN_FOR_EACH_AGAIN() KILN_FOR_EACH_STEP
#define KILN_FIELD_ENTRY(T, member) ::kiln::field(#member, &T::member)

/// The option fields of a struct, in Keras's key order. A template whose body
/// depends on its parameter, so the tuple is instantiated only where a config
/// is read or written (in .cpp files), not by every includer of the header.
#define KILN_FIELDS(T, ...)      \
  template <class KilnSelf_ = T> \
  static constexpr auto fields() { return std::tuple{KILN_FOR_EACH(KILN_FIELD_ENTRY, KilnSelf_, __VA_ARGS__)}; }
/// A layer's positional constructor arguments (Dense's units), in order: the
/// members that hold them. from_config passes them before the options struct.
#define KILN_ARGS(T, ...) \
  static constexpr auto args() { return ::kiln::FieldTable{KILN_FOR_EACH(KILN_FIELD_ENTRY, T, __VA_ARGS__)}; }
