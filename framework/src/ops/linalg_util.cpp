// The linear algebra ops' shared checks and host round trip (ops/linalg_util.h).
#include "ops/linalg_util.h"

#include <algorithm>

#include "core/check.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/matrix_ops.h"
#include "ops/elementwise_promotion.h"
#include "ops/op_util.h"

namespace kiln::ops {

Tensor linalg_input(const char* op, const Tensor& x, bool square) {
  check_concrete(op, x);
  KILN_CHECK(x.rank() >= 2, ValueError,
             op << ": Expected input to have rank >= 2. Received input with shape " << x.shape().to_string());
  KILN_CHECK(!square || x.shape()[-1] == x.shape()[-2], ValueError,
             op << ": Expected a square matrix. Received non-square input with shape " << x.shape().to_string());
  return floating_or_float32(x);
}

Tensor mT(const Tensor& x) {
  std::vector<int> perm;
  for (int i = 0; i < x.rank(); ++i) perm.push_back(i);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return transpose(x, perm);
}

Tensor eye_as(int64_t n, const Tensor& x) { return eye(n, std::nullopt, x.dtype()).to(x.device()); }

Tensor diag_matrix(const Tensor& v) { return expand_dims(v, -1) * eye_as(v.shape()[-1], v); }

Tensor matrix_diagonal(const Tensor& x) {
  const int r = static_cast<int>(x.rank());
  return diagonal(x, 0, r - 2, r - 1);
}

std::pair<Tensor, Tensor> linalg_operands(const char* op, const Tensor& a, const Tensor& b, bool b_is_vector) {
  check_concrete(op, b);
  common_device(op, {a, b});
  auto [fa, fb] = keras_promote_pair_floating(a, b);
  if (b_is_vector) fb = expand_dims(fb, -1);
  KILN_CHECK(fb.rank() >= 2 && fb.shape()[-2] == fa.shape()[-1], ValueError,
             op << ": Incompatible shapes between `a` and `b`: b needs " << fa.shape()[-1]
                << " rows, as a has columns. Received: a.shape=" << a.shape().to_string()
                << ", b.shape=" << b.shape().to_string());
  const std::vector<int64_t>& da = fa.shape().dims();
  const std::vector<int64_t>& db = fb.shape().dims();
  Shape batch_a(std::vector<int64_t>(da.begin(), da.end() - 2));
  Shape batch_b(std::vector<int64_t>(db.begin(), db.end() - 2));
  Shape batch;
  try {
    batch = broadcast_shapes(batch_a, batch_b, op);
  } catch (const Error&) {
    throw ValueError(std::string(op) + ": the batch shapes of `a` and `b` do not broadcast. Received: a.shape=" +
                     a.shape().to_string() + ", b.shape=" + b.shape().to_string());
  }
  std::vector<int64_t> sa = batch.dims(), sb = batch.dims();
  sa.insert(sa.end(), da.end() - 2, da.end());
  sb.insert(sb.end(), db.end() - 2, db.end());
  return {broadcast_to(fa, Shape(sa)), broadcast_to(fb, Shape(sb))};
}

std::vector<Tensor> on_host(const std::vector<Tensor>& inputs,
                            const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& kernel) {
  autodiff::Pause pause;
  const Device device = inputs.front().device();
  std::vector<Tensor> host;
  for (const Tensor& t : inputs) host.push_back(t.device() == Device::cpu() ? t : t.to(Device::cpu()));
  std::vector<Tensor> out = kernel(host);
  if (device != Device::cpu())
    for (Tensor& t : out) t = t.to(device);
  return out;
}

}  // namespace kiln::ops
