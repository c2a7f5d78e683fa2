#pragma once
// keras.ops' functional loops over an axis (scan, associative_scan, map,
// vectorized_map, vectorize) and forward-mode differentiation (jvp). The
// value-dependent ones, fori_loop and switch_, are in kiln/graph/control_flow.h
// beside cond and while_loop.
//
//   auto [last, sums] = kiln::scan([](const Tensor& c, const Tensor& x) { return std::pair{c + x, c + x}; },
//                                  Tensor(0.0f), xs);                                    // cumulative sums
//   Tensor rows = kiln::map([](const Tensor& r) { return kiln::sum(r); }, m);           // one sum per row
//
// Each loops over an axis whose length is part of the shape, which a
// kiln::function trace fixes anyway, so they unroll into ordinary ops, eagerly
// and inside a trace alike: nothing they decide depends on tensor values.
// Gradients flow through all of them (GradientTape records what runs).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// scan's step: (carry, x slices) -> (new carry, y slices).
using ScanFn = std::function<std::pair<std::vector<Tensor>, std::vector<Tensor>>(const std::vector<Tensor>& carry,
                                                                                 const std::vector<Tensor>& x)>;
/// Options of scan(), Keras's keyword arguments.
struct ScanOptions {
  std::optional<int64_t> length;  ///< The number of steps; needed when xs is empty, else must equal xs' first axis.
  bool reverse = false;           ///< Run from the last slice to the first (ys stay in xs' order).
  int unroll = 1;                 ///< Accepted for Keras's signature (at least 1); the loop is always unrolled.
};
/// keras.ops.scan (jax.lax.scan): carry = init; for each slice x[t] along axis
/// 0 of every xs tensor, (carry, y[t]) = f(carry, x[t]). Returns (the final
/// carry, each y stacked along a new axis 0). f must keep the carry's shapes
/// and dtypes and give ys of one shape and dtype at every step.
std::pair<std::vector<Tensor>, std::vector<Tensor>> scan(const ScanFn& f, std::vector<Tensor> init,
                                                         const std::vector<Tensor>& xs = {}, ScanOptions options = {});
/// scan with one carry, one xs tensor and one y: f(carry, x) -> {carry, y}.
template <class F>
  requires std::is_invocable_r_v<std::pair<Tensor, Tensor>, F&, const Tensor&, const Tensor&>
std::pair<Tensor, Tensor> scan(F&& f, const Tensor& init, const Tensor& xs, ScanOptions options = {}) {
  auto r = scan(
      ScanFn([&](const std::vector<Tensor>& c, const std::vector<Tensor>& x) {
        std::pair<Tensor, Tensor> out = f(c.at(0), x.at(0));
        return std::pair{std::vector<Tensor>{out.first}, std::vector<Tensor>{out.second}};
      }),
      std::vector<Tensor>{init}, std::vector<Tensor>{xs}, options);
  return {r.first.at(0), r.second.at(0)};
}

/// associative_scan's operator: (earlier elements, later elements) -> combined,
/// each tensor keeping the scanned axis (of size 1 here, as JAX allows any size).
using AssociativeFn =
    std::function<std::vector<Tensor>(const std::vector<Tensor>& a, const std::vector<Tensor>& b)>;
/// keras.ops.associative_scan: the inclusive prefix "sums" under the
/// associative f along `axis` of every elems tensor (all of one length there):
/// out[0] = elems[0], out[t] = f(out[t-1], elems[t]); reverse runs from the end,
/// out[t] = f(out[t+1], elems[t]).
std::vector<Tensor> associative_scan(const AssociativeFn& f, const std::vector<Tensor>& elems, bool reverse = false,
                                     int axis = 0);
/// associative_scan over one tensor: f(a, b) -> Tensor.
template <class F>
  requires std::is_invocable_r_v<Tensor, F&, const Tensor&, const Tensor&>
Tensor associative_scan(F&& f, const Tensor& elems, bool reverse = false, int axis = 0) {
  return associative_scan(AssociativeFn([&](const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
                            return std::vector<Tensor>{f(a.at(0), b.at(0))};
                          }),
                          std::vector<Tensor>{elems}, reverse, axis)
      .at(0);
}

/// map's function: the slices of each xs tensor at one index -> outputs.
using MapFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& x)>;
/// keras.ops.map: f applied to each slice along axis 0 of xs (all of one
/// length there), the outputs stacked along a new axis 0.
std::vector<Tensor> map(const MapFn& f, const std::vector<Tensor>& xs);
/// map over one tensor with f(Tensor) -> Tensor.
template <class F>
  requires std::is_invocable_r_v<Tensor, F&, const Tensor&>
Tensor map(F&& f, const Tensor& xs) {
  return map(MapFn([&](const std::vector<Tensor>& x) { return std::vector<Tensor>{f(x.at(0))}; }),
             std::vector<Tensor>{xs})
      .at(0);
}
/// keras.ops.vectorized_map: the same result as map(f, xs) (JAX vectorizes it;
/// Kiln runs f once per slice).
std::vector<Tensor> vectorized_map(const MapFn& f, const std::vector<Tensor>& xs);
/// vectorized_map over one tensor.
template <class F>
  requires std::is_invocable_r_v<Tensor, F&, const Tensor&>
Tensor vectorized_map(F&& f, const Tensor& xs) {
  return map(std::forward<F>(f), xs);
}

/// vectorize's function: core slices of each argument -> one output.
using VectorizeFn = std::function<Tensor(const std::vector<Tensor>& args)>;
/// keras.ops.vectorize (numpy.vectorize): a function that broadcasts the
/// arguments' loop axes and calls `f` once per loop index. Without a
/// signature every argument's core is a scalar; with one such as
/// "(m,n),(n)->(m)" each argument's last axes are its core, named as given.
/// f returns one tensor (a signature naming several outputs is a ValueError).
/// Keras's `excluded` has no counterpart: f captures its non-tensor arguments.
std::function<Tensor(const std::vector<Tensor>&)> vectorize(VectorizeFn f, const std::string& signature = "");

/// keras.ops.jvp's function: primals -> outputs.
using JvpFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& primals)>;
/// keras.ops.jvp: (fun(primals), J(primals) · tangents), the forward-mode
/// product. Computed exactly by reverse mode twice: u -> J^T u is linear in u,
/// so differentiating <J^T u, t> with respect to u gives J t. Needs the
/// function's ops to have differentiable gradient rules (Kiln's do).
std::pair<std::vector<Tensor>, std::vector<Tensor>> jvp(const JvpFn& fun, const std::vector<Tensor>& primals,
                                                        const std::vector<Tensor>& tangents);

/// jvp's function with auxiliary data (Keras's has_aux=True): primals -> (outputs, aux).
using JvpAuxFn =
    std::function<std::pair<std::vector<Tensor>, std::vector<Tensor>>(const std::vector<Tensor>& primals)>;
/// What jvp gives for a function with auxiliary data.
struct JvpAuxResult {
  std::vector<Tensor> outputs;   ///< fun(primals)'s outputs.
  std::vector<Tensor> tangents;  ///< J(primals) · tangents, one per output.
  std::vector<Tensor> aux;       ///< fun(primals)'s auxiliary data, returned as computed.
};
/// keras.ops.jvp(fun, primals, tangents, has_aux=True): the function returns
/// (outputs, aux); only the outputs get tangents.
JvpAuxResult jvp(const JvpAuxFn& fun, const std::vector<Tensor>& primals, const std::vector<Tensor>& tangents);

}  // namespace kiln
