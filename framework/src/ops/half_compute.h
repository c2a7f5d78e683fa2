#pragma once
// Private: float16 and bfloat16 are storage types. An op given a tensor (or a
// dtype) of either runs on float32 copies, and its float results are rounded
// back to the 16-bit type the arguments promote to. So each op rounds once,
// on its output, as XLA does on CPUs without 16-bit arithmetic, and the casts
// carry gradients like any op. Ops opt in with one line at their top:
//   Tensor exp(const Tensor& x) {
//     KILN_HALF_IN_FLOAT32(exp, x);
//     ...
#include <map>
#include <string>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/core/tensor.h"
#include "kiln/ops/array_ops.h"
#include "ops/elementwise_promotion.h"

namespace kiln::half_compute {

inline bool is_half(const Tensor& t) { return t.defined() && is_half_float(t.dtype()); }
inline bool is_half(const std::optional<Tensor>& t) { return t && is_half(*t); }
inline bool is_half(const std::vector<Tensor>& v) {
  for (const Tensor& t : v)
    if (is_half(t)) return true;
  return false;
}
inline bool is_half(DType d) { return is_half_float(d); }
inline bool is_half(const std::optional<DType>& d) { return d && is_half_float(*d); }
template <class T>
bool is_half(const T&) {
  return false;
}
template <class... A>
bool any_half(const A&... args) {
  return (is_half(args) || ...);
}

/// The float dtype the arguments promote to (float32 when none is floating).
struct Target {
  std::optional<DType> dtype;
  void add(DType d) {
    if (is_floating(d)) dtype = dtype ? ops::keras_result_type(*dtype, d) : d;
  }
};
inline void gather_dtype(Target& t, const Tensor& x) {
  if (x.defined()) t.add(x.dtype());
}
inline void gather_dtype(Target& t, const std::optional<Tensor>& x) {
  if (x) gather_dtype(t, *x);
}
inline void gather_dtype(Target& t, const std::vector<Tensor>& v) {
  for (const Tensor& x : v) gather_dtype(t, x);
}
inline void gather_dtype(Target& t, DType d) { t.add(d); }
inline void gather_dtype(Target& t, const std::optional<DType>& d) {
  if (d) t.add(*d);
}
template <class T>
void gather_dtype(Target&, const T&) {}

inline Tensor widen(const Tensor& x) { return is_half(x) ? kiln::cast(x, DType::float32) : x; }
inline std::optional<Tensor> widen(const std::optional<Tensor>& x) {
  return x ? std::optional<Tensor>(widen(*x)) : std::nullopt;
}
inline std::vector<Tensor> widen(const std::vector<Tensor>& v) {
  std::vector<Tensor> out;
  out.reserve(v.size());
  for (const Tensor& x : v) out.push_back(widen(x));
  return out;
}
inline DType widen(DType d) { return is_half_float(d) ? DType::float32 : d; }
inline std::optional<DType> widen(const std::optional<DType>& d) {
  return d ? std::optional<DType>(widen(*d)) : std::nullopt;
}
template <class T>
const T& widen(const T& x) {
  return x;
}

template <class T>
T narrow(T x, DType) {
  return x;
}
inline Tensor narrow(Tensor x, DType to) { return x.defined() && x.dtype() == DType::float32 ? kiln::cast(x, to) : x; }
inline std::optional<Tensor> narrow(std::optional<Tensor> x, DType to) {
  return x ? std::optional<Tensor>(narrow(std::move(*x), to)) : std::nullopt;
}
template <class T>
std::vector<T> narrow(std::vector<T> v, DType to) {
  for (auto& x : v) x = narrow(std::move(x), to);
  return v;
}
template <class A, class B>
std::pair<A, B> narrow(std::pair<A, B> p, DType to) {
  return {narrow(std::move(p.first), to), narrow(std::move(p.second), to)};
}
template <class... T>
std::tuple<T...> narrow(std::tuple<T...> t, DType to) {
  return std::apply([&](auto&... x) { return std::tuple<T...>(narrow(std::move(x), to)...); }, t);
}

inline void name_dtypes(std::string& out, const Tensor& x) {
  if (x.defined()) out += (out.empty() ? "" : ", ") + dtype_name(x.dtype());
}
inline void name_dtypes(std::string& out, const std::vector<Tensor>& v) {
  for (const Tensor& x : v) name_dtypes(out, x);
}
template <class T>
void name_dtypes(std::string&, const T&) {}
template <class... A>
std::string input_dtypes(const A&... args) {
  std::string out;
  (name_dtypes(out, args), ...);
  return out;
}

/// Runs f on the arguments with every 16-bit float tensor and dtype widened to
/// float32, then rounds its float32 results to the promoted 16-bit type.
template <class F, class... A>
auto run_in_float32(F f, const A&... args) {
  Target target;
  (gather_dtype(target, args), ...);
  auto compute = [&] {
    try {
      return f(widen(args)...);
    } catch (const TypeError& e) {
      // The op saw float32 copies: say what the caller passed.
      throw TypeError(std::string(e.what()) + " (16-bit float inputs are computed as float32; the inputs were " +
                      input_dtypes(args...) + ")");
    }
  };
  auto result = compute();
  if (!target.dtype || !is_half_float(*target.dtype)) return result;
  return narrow(std::move(result), *target.dtype);
}

}  // namespace kiln::half_compute

/// At the top of an op (a free function): given a float16 or bfloat16 tensor or
/// dtype, computes the op in float32 and rounds its float results back.
#define KILN_HALF_IN_FLOAT32(fn, ...)                                                   \
  if (::kiln::half_compute::any_half(__VA_ARGS__))                                      \
  return ::kiln::half_compute::run_in_float32([](const auto&... kiln_args) { return fn(kiln_args...); }, __VA_ARGS__)
