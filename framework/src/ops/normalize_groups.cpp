// normalize_groups: the backend's group_norm kernel with its gradient rule.
#include "ops/normalize_groups.h"

#include "backend/portable_trace.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "ops/op_util.h"

namespace kiln::ops {

namespace {

backend::GroupNormDims dims_of(const NormGroups& g) {
  return backend::GroupNormDims{g.batch, g.spatial, g.groups, g.per_group, g.center};
}

// The gradient written with differentiable ops, for a tape recording this backward pass.
Grads composed_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma, const Tensor& beta, const NormGroups& g,
                        double eps) {
  const Shape view{g.batch, g.spatial, g.groups, g.per_group};
  const Tensor xv = reshape(x, view), dyv = reshape(dy, view);
  const Axes per_group{1, 3};
  const Tensor c = g.center ? subtract(xv, mean(xv, per_group, true)) : xv;
  const Tensor r = rsqrt(add(mean(square(c), per_group, true), scalar_like(eps, x)));
  const Tensor xhat = multiply(c, r);
  const Tensor gd = gamma.defined() ? multiply(dyv, reshape(gamma, Shape{1, 1, g.groups, g.per_group})) : dyv;
  Tensor inner = subtract(gd, multiply(xhat, mean(multiply(gd, xhat), per_group, true)));
  if (g.center) inner = subtract(inner, mean(gd, per_group, true));
  Grads out{reshape(multiply(r, inner), x.shape())};
  if (gamma.defined()) out.push_back(reshape(sum(multiply(dyv, xhat), Axes{0, 1}), gamma.shape()));
  if (beta.defined()) out.push_back(reshape(sum(dyv, Axes{0, 1}), beta.shape()));
  return out;
}

}  // namespace

std::optional<Tensor> normalize_groups(const Tensor& x, const Tensor& gamma, const Tensor& beta, const NormGroups& g,
                                       double epsilon) {
  const DType d = x.dtype();
  if ((d != DType::float32 && d != DType::float64) || backend::portable_trace()) return std::nullopt;
  check_concrete("normalize_groups", x);
  const int64_t channels = g.groups * g.per_group;
  for (const Tensor* p : {&gamma, &beta})
    if (p->defined() && (p->dtype() != d || p->size() != channels || p->device() != x.device()))
      return std::nullopt;
  if (x.size() != g.batch * g.spatial * channels || !be(x).has_fused(backend::Backend::Fused::group_norm, epsilon))
    return std::nullopt;
  const backend::GroupNormDims dims = dims_of(g);
  const Shape stats{g.batch * g.groups};
  Tensor y = Tensor::empty(x.shape(), d, x.device());
  Tensor m = Tensor::empty(stats, d, x.device()), r = Tensor::empty(stats, d, x.device());
  const Tensor* gp = gamma.defined() ? &gamma : nullptr;
  const Tensor* bp = beta.defined() ? &beta : nullptr;
  if (!be(x).group_norm(x, gp, bp, dims, epsilon, y, m, r)) return std::nullopt;
  if (autodiff::active()) {
    std::vector<Tensor> inputs{x};
    if (gp) inputs.push_back(gamma);
    if (bp) inputs.push_back(beta);
    autodiff::record("GroupNorm", inputs, {y}, [x, gamma, beta, g, dims, epsilon, m, r](const Grads& dy, const Needs&) {
      if (autodiff::active()) return composed_backward(dy[0], x, gamma, beta, g, epsilon);
      Tensor dx = Tensor::empty(x.shape(), x.dtype(), x.device());
      Tensor dg, db;
      if (gamma.defined()) dg = Tensor::empty(gamma.shape(), x.dtype(), x.device());
      if (beta.defined()) db = Tensor::empty(beta.shape(), x.dtype(), x.device());
      if (!be(x).group_norm_backward(dy[0], x, m, r, gamma.defined() ? &gamma : nullptr, dims, dx,
                                     dg.defined() ? &dg : nullptr, db.defined() ? &db : nullptr))
        return composed_backward(dy[0], x, gamma, beta, g, epsilon);
      Grads out{dx};
      if (gamma.defined()) out.push_back(dg);
      if (beta.defined()) out.push_back(db);
      return out;
    });
  }
  return y;
}

}  // namespace kiln::ops
