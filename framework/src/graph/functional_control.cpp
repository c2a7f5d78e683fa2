// keras.ops.fori_loop and keras.ops.switch (kiln/graph/control_flow.h): their
// value-dependent decisions go through kiln::while_loop and kiln::cond, so a
// kiln::function trace keeps them live.
#include "kiln/graph/control_flow.h"

#include <limits>
#include <string>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/creation_ops.h"
#include "kiln/ops/math_ops.h"
#include "ops/elementwise_promotion.h"
#include "ops/functional_util.h"

namespace kiln {

LoopBound::LoopBound(int64_t v)
    : value(v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()
                ? Tensor(static_cast<int32_t>(v))
                : Tensor(v)) {}
LoopBound::LoopBound(int v) : value(Tensor(static_cast<int32_t>(v))) {}
LoopBound::LoopBound(const Tensor& t) : value(t) {}

namespace {

Tensor loop_bound(const char* what, const LoopBound& b, DType dtype) {
  const Tensor& t = b.value;
  if (!t.defined() || t.size() != 1 || !(t.dtype() == DType::int32 || t.dtype() == DType::int64 ||
                                         t.dtype() == DType::uint8))
    throw TypeError(std::string("fori_loop: `") + what + "` must be an integer or a scalar integer tensor, but "
                    "received " + (t.defined() ? functional::spec(t) : std::string("an undefined tensor")));
  return reshape(cast(t, dtype), Shape{});
}

}  // namespace

std::vector<Tensor> fori_loop(const LoopBound& lower, const LoopBound& upper, const ForiBody& body,
                              std::vector<Tensor> init_val) {
  const DType dtype = ops::keras_result_type(lower.value.dtype(), upper.value.dtype());
  // The index lives where the state does: a number bound starts on the CPU.
  const Device device = init_val.empty() ? upper.value.device() : init_val[0].device();
  Tensor lo = loop_bound("lower", lower, dtype).to(device), hi = loop_bound("upper", upper, dtype).to(device);
  std::vector<Tensor> vars{lo};
  vars.insert(vars.end(), init_val.begin(), init_val.end());
  // The loop index is the first loop value, so the condition reads it, not a
  // C++ counter: inside a trace the bounds and the count stay live.
  auto out = while_loop([hi](const std::vector<Tensor>& v) { return less(v[0], hi); },
                        [&body](const std::vector<Tensor>& v) {
                          std::vector<Tensor> state(v.begin() + 1, v.end());
                          std::vector<Tensor> next = body(v[0], state);
                          functional::check_same_specs("fori_loop", "body_fun's new state", state, next);
                          next.insert(next.begin(), add(v[0], full_like(v[0], 1.0)));
                          return next;
                        },
                        std::move(vars));
  return std::vector<Tensor>(out.begin() + 1, out.end());
}

std::vector<Tensor> switch_(const Tensor& index, const std::vector<SwitchBranch>& branches,
                            const std::vector<Tensor>& operands) {
  if (branches.empty()) throw ValueError("switch: Empty branch sequence (expected at least one branch)");
  if (!index.defined() || index.size() != 1 || is_floating(index.dtype()) || index.dtype() == DType::bool_)
    throw TypeError("switch: the index must be a scalar integer, but received " +
                    (index.defined() ? functional::spec(index) : std::string("an undefined tensor")));
  if (branches.size() == 1) return branches[0](operands);
  const Tensor at = reshape(index, Shape{});
  // branches[clamp(index)] as a chain of conds: index <= 0 takes the first,
  // index <= 1 the second, ..., anything larger the last.
  std::function<std::vector<Tensor>(std::size_t)> from = [&](std::size_t k) -> std::vector<Tensor> {
    if (k + 1 == branches.size()) return branches[k](operands);
    Tensor pred = less_equal(at, full_like(at, static_cast<double>(k)));
    return graph::cond_list(
        pred, [&] { return branches[k](operands); }, [&] { return from(k + 1); });
  };
  return from(0);
}

}  // namespace kiln
