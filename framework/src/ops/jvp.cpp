// keras.ops.jvp (kiln/ops/functional_ops.h) from reverse mode twice. For
// y = fun(x) with Jacobian J, the vector-Jacobian product g(u) = J^T u is
// linear in the cotangent u, so d<g(u), t>/du = J t exactly: one backward pass
// recorded by an outer tape, then a backward pass through that. This costs
// about three passes where a forward-mode rule would cost one, but it needs no
// second rule per op and is exact (no finite differences), which is why Kiln
// uses it.
#include <string>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/core/error.h"
#include "kiln/ops/creation_ops.h"
#include "kiln/ops/functional_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "ops/functional_util.h"

namespace kiln {

namespace {

void check_tangents(const std::vector<Tensor>& primals, const std::vector<Tensor>& tangents) {
  if (primals.size() != tangents.size())
    throw ValueError("jvp: expected one tangent per primal, but received " + std::to_string(primals.size()) +
                     " primals and " + std::to_string(tangents.size()) + " tangents");
  for (std::size_t i = 0; i < primals.size(); ++i)
    if (primals[i].shape() != tangents[i].shape() || primals[i].dtype() != tangents[i].dtype())
      throw ValueError("jvp: primal and tangent arguments to jax.jvp must have equal types and shapes; primal " +
                       std::to_string(i) + " is " + functional::spec(primals[i]) + " but its tangent is " +
                       functional::spec(tangents[i]));
}

/// sum_i sum(a_i * b_i) over the floating pairs.
Tensor inner_product(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  Tensor total;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!is_floating(a[i].dtype()) || !b[i].defined()) continue;
    Tensor term = sum(multiply(a[i], b[i]));
    total = total.defined() ? add(total, term) : term;
  }
  return total;
}

}  // namespace

std::pair<std::vector<Tensor>, std::vector<Tensor>> jvp(const JvpFn& fun, const std::vector<Tensor>& primals,
                                                        const std::vector<Tensor>& tangents) {
  check_tangents(primals, tangents);
  GradientTape outer;
  std::vector<Tensor> outputs, cotangents;
  std::vector<std::optional<Tensor>> vjps;
  {
    GradientTape inner;
    for (const auto& p : primals) inner.watch(p);
    outputs = fun(primals);
    for (const auto& y : outputs) {
      // u: any value works (J t does not depend on it); zeros keep it cheap.
      cotangents.push_back(is_floating(y.dtype()) ? zeros_like(y) : Tensor());
      if (cotangents.back().defined()) outer.watch(cotangents.back());
    }
    Tensor weighted = inner_product(outputs, cotangents);
    std::vector<Source> sources(primals.begin(), primals.end());
    if (weighted.defined()) vjps = inner.gradient(weighted, sources, UnconnectedGradients::Zero);
  }
  std::vector<Tensor> out_tangents;
  std::vector<Tensor> g;
  for (const auto& v : vjps) g.push_back(v ? *v : Tensor());
  Tensor projected = g.empty() ? Tensor() : inner_product(g, tangents);
  std::vector<Source> us;
  for (const auto& u : cotangents)
    if (u.defined()) us.push_back(u);
  std::vector<std::optional<Tensor>> jt;
  if (projected.defined() && !us.empty()) jt = outer.gradient(projected, us, UnconnectedGradients::Zero);
  std::size_t k = 0;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (!cotangents[i].defined()) {
      out_tangents.push_back(zeros_like(outputs[i]));
      continue;
    }
    out_tangents.push_back(k < jt.size() && jt[k] ? *jt[k] : zeros_like(outputs[i]));
    ++k;
  }
  return {outputs, out_tangents};
}

JvpAuxResult jvp(const JvpAuxFn& fun, const std::vector<Tensor>& primals, const std::vector<Tensor>& tangents) {
  std::vector<Tensor> aux;
  auto [outputs, out_tangents] = jvp(
      JvpFn([&](const std::vector<Tensor>& p) {
        auto r = fun(p);
        aux = std::move(r.second);
        return std::move(r.first);
      }),
      primals, tangents);
  return {std::move(outputs), std::move(out_tangents), std::move(aux)};
}

}  // namespace kiln
