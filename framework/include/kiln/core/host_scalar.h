#pragma once
// A number the host computes afresh for every call of a step, such as an
// optimizer's step size, that a kernel takes as a parameter.

namespace kiln {

/// A kernel parameter computed on the host. Eagerly only its value matters.
/// A kernel recorded into a kiln::function's trace keeps `live`, when given,
/// and reads `*live` at each replay, so host logic that refreshes that double
/// before the kernel runs (a host node) changes the parameter without a retrace.
/// `live` must outlive every trace that records it.
struct HostScalar {
  /// A frozen scalar: `v` at every replay.
  HostScalar(double v) : value(v) {}  // NOLINT: a plain number is a frozen scalar
  /// A live scalar: `v` now, `*live_value` at each replay.
  HostScalar(double v, const double* live_value) : value(v), live(live_value) {}
  /// The value now: `*live` when live, else `value`.
  double current() const { return live ? *live : value; }
  /// current().
  operator double() const { return current(); }  // NOLINT: kernels use it as the number

  double value = 0;  ///< The value given at construction.
  const double* live = nullptr;  ///< The host double replays read; null for a frozen scalar.
};

}  // namespace kiln
