#pragma once
// Private: what the fused recurrence kernels (recurrence_*.cpp) share: the gate
// activations and their derivatives, on one value or on 8 float lanes, and the
// view of a call's tensors as raw arrays.
//
// Derivatives are taken from the activation's value y, not its input: the
// forward pass then keeps one array per gate. Every supported activation allows
// it: tanh' = 1 − y², sigmoid' = y·(1 − y), relu' = [y > 0], hard_sigmoid' =
// [0 < y < 1] / 6 (y = clip(x + 3, 0, 6) / 6 is strictly inside (0, 1) exactly
// where −3 < x < 3), linear' = 1.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/simd.h"

namespace kiln::cpu::recurrence {

using Act = backend::RecurrenceActivation;
using simd::v8f;
using simd::v8i;

// ---- one value (double, and the float tail past the last full vector) ----
template <class T>
inline T sigmoid1(T x) {
  // Split by sign so exp never overflows (as the sigmoid op does).
  if (x >= 0) return T(1) / (T(1) + std::exp(-x));
  const T e = std::exp(x);
  return e / (T(1) + e);
}
template <class T>
inline T activate(Act a, T x) {
  switch (a) {
    case Act::tanh: return std::tanh(x);
    case Act::sigmoid: return sigmoid1(x);
    case Act::hard_sigmoid: return std::clamp(x + T(3), T(0), T(6)) / T(6);
    case Act::relu: return std::max(x, T(0));
    case Act::linear: break;
  }
  return x;
}
template <class T>
inline T derivative(Act a, T y) {
  switch (a) {
    case Act::tanh: return T(1) - y * y;
    case Act::sigmoid: return y * (T(1) - y);
    case Act::hard_sigmoid: return y > T(0) && y < T(1) ? T(1) / T(6) : T(0);
    case Act::relu: return y > T(0) ? T(1) : T(0);
    case Act::linear: break;
  }
  return T(1);
}

// ---- 8 float lanes ----
inline v8f splat(float v) { return simd::splat(v); }
inline v8f select(v8i m, v8f a, v8f b) { return m ? a : b; }
inline v8f vmin(v8f a, v8f b) { return select(a < b, a, b); }
inline v8f vmax(v8f a, v8f b) { return select(a > b, a, b); }

/// e^x for x in [−87, 87] (clamped there): Cephes' expf, within 2 ulp.
inline v8f exp8(v8f x) {
  x = vmin(vmax(x, splat(-87.0f)), splat(87.0f));
  v8f fx = x * 1.44269504088896341f + 0.5f;
  v8f n = __builtin_convertvector(__builtin_convertvector(fx, v8i), v8f);
  n = n + __builtin_convertvector(n > fx, v8f);  // truncation to floor: a true comparison is −1
  const v8f r = x - n * 0.693359375f + n * 2.12194440e-4f;
  v8f p = splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const v8f y = p * r * r + r + 1.0f;
  const v8i scale = (__builtin_convertvector(n, v8i) + 127) << 23;
  v8f s;
  __builtin_memcpy(&s, &scale, sizeof s);
  return y * s;
}
inline v8f sigmoid8(v8f x) { return 1.0f / (1.0f + exp8(-x)); }
/// Cephes' tanhf: an odd polynomial below |x| = 0.625, 1 − 2 / (e^{2|x|} + 1) above, with x's sign.
inline v8f tanh8(v8f x) {
  const v8f ax = select(x < 0.0f, -x, x);
  const v8f s = x * x;
  v8f small = splat(-5.70498872745e-3f);
  small = small * s + 2.06390887954e-2f;
  small = small * s - 5.37397155531e-2f;
  small = small * s + 1.33314422036e-1f;
  small = small * s - 3.33332819422e-1f;
  small = small * s * x + x;
  v8f big = 1.0f - 2.0f / (exp8(ax + ax) + 1.0f);
  big = select(x < 0.0f, -big, big);
  return select(ax < 0.625f, small, big);
}
inline v8f activate(Act a, v8f x) {
  switch (a) {
    case Act::tanh: return tanh8(x);
    case Act::sigmoid: return sigmoid8(x);
    case Act::hard_sigmoid: return vmin(vmax(x + 3.0f, splat(0.0f)), splat(6.0f)) / 6.0f;
    case Act::relu: return vmax(x, splat(0.0f));
    case Act::linear: break;
  }
  return x;
}
inline v8f derivative(Act a, v8f y) {
  const v8f zero = splat(0.0f), one = splat(1.0f);
  switch (a) {
    case Act::tanh: return 1.0f - y * y;
    case Act::sigmoid: return y * (1.0f - y);
    case Act::hard_sigmoid: return select((y > 0.0f) & (y < 1.0f), splat(1.0f / 6.0f), zero);
    case Act::relu: return select(y > 0.0f, one, zero);
    case Act::linear: break;
  }
  return one;
}

/// Loads and stores of one lane type: T itself, or 8 floats.
template <class T>
struct One {
  using V = T;
  static constexpr int64_t width = 1;
  static V load(const T* p) { return *p; }
  static void store(T* p, V v) { *p = v; }
  static V splat(T v) { return v; }
};
struct Eight {
  using V = v8f;
  static constexpr int64_t width = 8;
  static V load(const float* p) { return simd::load8(p); }
  static void store(float* p, V v) { simd::store8(p, v); }
  static V splat(float v) { return simd::splat(v); }
};

/// Runs body.template operator()<Lanes>(u) over u in [0, n): 8 floats at a time where it can, then one by one.
template <class T, class Body>
inline void for_lanes(int64_t n, Body&& body) {
  int64_t u = 0;
  if constexpr (std::is_same_v<T, float>)
    for (; u + 8 <= n; u += 8) body.template operator()<Eight>(u);
  for (; u < n; ++u) body.template operator()<One<T>>(u);
}

/// A call's tensors as arrays (RecurrenceParams gives their order and shapes).
template <class T>
struct Arrays {
  const backend::RecurrenceParams& p;
  int64_t B, Tn, U, G, S;  // batch, steps, units, gates·units, saved width
  const T* kernel = nullptr;  // (U, G)
  const T* bias = nullptr;    // (G) or null
  const bool* mask = nullptr;  // (B, Tn) or null
  explicit Arrays(const backend::RecurrenceParams& q)
      : p(q), B(q.batch), Tn(q.steps), U(q.units), G(q.gates() * q.units), S(q.saved_width()) {}
  bool keep(int64_t b, int64_t t) const { return !mask || mask[b * Tn + t]; }
};

/// Splits the batch over the pool: every example's recurrence is independent of the others',
/// so each thread runs all the steps of its rows, with no barrier between steps.
void for_batch_rows(int64_t batch, int64_t work_per_row, FnRef<void(int64_t, int64_t)> fn);

// The kernels of each cell, on rows [b0, b1) of the batch; backward ones add d h_prev's recurrent part themselves.
// in/out follow Backend::recurrence_forward / recurrence_backward.
template <class T>
void lstm_forward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in, std::vector<Tensor>& out);
template <class T>
void lstm_backward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in, std::vector<Tensor>& out);
template <class T>
void gru_forward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in, std::vector<Tensor>& out);
template <class T>
void gru_backward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in, std::vector<Tensor>& out);
template <class T>
void simple_forward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in, std::vector<Tensor>& out);
template <class T>
void simple_backward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in, std::vector<Tensor>& out);

}  // namespace kiln::cpu::recurrence
