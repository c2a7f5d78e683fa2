#pragma once
// kiln::cond and kiln::while_loop: the tf.cond / tf.while_loop analogues, for
// control flow that depends on tensor values.
//
//   auto simple_relu = kiln::function([](const Tensor& x) {
//     return kiln::cond(kiln::greater(x, Tensor(0)), [&] { return x; }, [&] { return kiln::zeros_like(x); });
//   });
//   auto r = kiln::while_loop([](const auto& v) { return kiln::less(v[0], Tensor(10)); },
//                             [](const auto& v) { return std::vector<Tensor>{v[0] + Tensor(1)}; },
//                             {Tensor(0)});                                  // r[0] == 10
//
// Eagerly (and under run_functions_eagerly) they read the predicate and run
// the chosen C++ code, so a GradientTape records what ran. Inside a
// kiln::function trace they become one "If" / "While" op of the graph: each
// branch, loop condition and loop body is traced once into a graph of its
// own, and every call of the function decides again from the values it gets.
// Branches take no arguments and use what they capture, as in TensorFlow.
//
// Gradients inside a trace: a GradientTape in the traced function (a whole
// train step) differentiates through both: an If's gradient is an If over the
// two branches' gradients, and a While's gradient runs the body's gradient
// backwards over the iterations the forward loop did, from the loop values
// and body intermediates it keeps for each iteration (preallocated for
// `maximum_iterations` of them when it is given, grown on demand otherwise).
// Side effects in a branch (a Variable's assign) happen only when it is taken.
//
// keras.ops.fori_loop and keras.ops.switch are built on them, so a tensor
// bound or index stays live inside a trace too:
//   Tensor s = kiln::fori_loop(0, 10, [](const Tensor& i, const Tensor& s) { return s + i; }, Tensor(0));  // 45
//   auto r = kiln::switch_(index, {add_fn, sub_fn}, {x, y});    // branches[clamp(index, 0, 1)]({x, y})
#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// Options of while_loop().
struct WhileOptions {
  /// At most this many iterations of the body (TensorFlow's maximum_iterations).
  std::optional<int64_t> maximum_iterations;
};

namespace graph {
using BranchFn = std::function<std::vector<Tensor>()>;  ///< A branch of cond(): returns a list of tensors.
/// A while_loop condition: loop values -> scalar bool.
using LoopCondFn = std::function<Tensor(const std::vector<Tensor>&)>;
/// A while_loop body: loop values -> new loop values.
using LoopBodyFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
/// The untyped cond: both branches return lists of tensors.
std::vector<Tensor> cond_list(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn);
}  // namespace graph

/// Runs `true_fn()` if the scalar `pred` is true, else `false_fn()`. Both must
/// return a Tensor, or both a std::vector<Tensor>, with the same shapes and dtypes.
template <class TrueFn, class FalseFn>
auto cond(const Tensor& pred, TrueFn&& true_fn, FalseFn&& false_fn) {
  using R = std::decay_t<std::invoke_result_t<TrueFn&>>;
  static_assert(std::is_same_v<R, std::decay_t<std::invoke_result_t<FalseFn&>>>,
                "kiln::cond: true_fn and false_fn must return the same type");
  if constexpr (std::is_same_v<R, Tensor>) {
    return graph::cond_list(
               pred, [&] { return std::vector<Tensor>{true_fn()}; }, [&] { return std::vector<Tensor>{false_fn()}; })
        .at(0);
  } else {
    static_assert(std::is_same_v<R, std::vector<Tensor>>,
                  "kiln::cond: branches must return a Tensor or a std::vector<Tensor>");
    return graph::cond_list(pred, graph::BranchFn(std::ref(true_fn)), graph::BranchFn(std::ref(false_fn)));
  }
}

/// Repeats `loop_vars = body_fn(loop_vars)` while `cond_fn(loop_vars)` is true
/// (and fewer than `maximum_iterations` times). The body must return as many
/// tensors as it gets, with the same shapes and dtypes.
std::vector<Tensor> while_loop(const graph::LoopCondFn& cond_fn, const graph::LoopBodyFn& body_fn,
                               std::vector<Tensor> loop_vars, WhileOptions options = {});

/// A bound of fori_loop: a number (an int32 scalar, as JAX makes of a Python
/// int) or a scalar integer tensor.
struct LoopBound {
  LoopBound(int64_t v);           ///< A number.
  LoopBound(int v);               ///< A number.
  LoopBound(const Tensor& t);     ///< A scalar integer tensor (its value may change between calls of a trace).
  Tensor value;                   ///< The bound as a scalar tensor.
};

/// fori_loop's body: (loop index, state) -> new state.
using ForiBody = std::function<std::vector<Tensor>(const Tensor& i, const std::vector<Tensor>& state)>;
/// keras.ops.fori_loop: for i in [lower, upper): state = body(i, state). The
/// index is a scalar in the bounds' promoted integer dtype (int32 for numbers).
/// The body must keep each state tensor's shape and dtype.
std::vector<Tensor> fori_loop(const LoopBound& lower, const LoopBound& upper, const ForiBody& body,
                              std::vector<Tensor> init_val);
/// fori_loop with one state tensor: body(i, state) -> state.
template <class Body>
  requires std::is_invocable_r_v<Tensor, Body&, const Tensor&, const Tensor&>
Tensor fori_loop(const LoopBound& lower, const LoopBound& upper, Body&& body, const Tensor& init_val) {
  return fori_loop(
             lower, upper,
             ForiBody([&](const Tensor& i, const std::vector<Tensor>& s) { return std::vector<Tensor>{body(i, s.at(0))}; }),
             std::vector<Tensor>{init_val})
      .at(0);
}

/// A branch of switch_: operands -> outputs.
using SwitchBranch = std::function<std::vector<Tensor>(const std::vector<Tensor>& operands)>;
/// keras.ops.switch (C++ reserves `switch`): branches[clamp(index, 0, n - 1)](operands).
/// `index` is a scalar integer tensor; every branch must give the same number
/// of outputs with the same shapes and dtypes (it is an If chain in a trace).
std::vector<Tensor> switch_(const Tensor& index, const std::vector<SwitchBranch>& branches,
                            const std::vector<Tensor>& operands);

}  // namespace kiln
