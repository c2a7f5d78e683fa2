// keras.ops.dot_product_attention as jax.nn.dot_product_attention's XLA path runs it:
// logits = q·kᵀ·scale (+ bias), masked logits set to -0.7·max(float32), softmax over
// the keys, then the weighted sum of the values. Grouped heads (N = G·K query heads
// over K key/value heads) use key/value head n / G for query head n.
#include <cmath>
#include <limits>

#include "autodiff/autodiff.h"
#include "backend/backend.h"
#include "core/op_log.h"
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/creation_ops.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/shape_ops.h"
#include "ops/half_compute.h"

namespace kiln {

namespace {

void check_inputs(const Tensor& q, const Tensor& k, const Tensor& v) {
  const auto text = [&] {
    return " (query " + q.shape().to_string() + ", key " + k.shape().to_string() + ", value " + v.shape().to_string() + ")";
  };
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4)
    throw ValueError("`dot_product_attention` only supports 4D inputs (batch, length, heads, head_dim)" + text());
  if (!is_floating(q.dtype()) || k.dtype() != q.dtype() || v.dtype() != q.dtype())
    throw TypeError("dot_product_attention: query, key and value must share one float dtype, but received " +
                    dtype_name(q.dtype()) + ", " + dtype_name(k.dtype()) + " and " + dtype_name(v.dtype()) + text());
  const Shape qs = q.shape(), ks = k.shape(), vs = v.shape();
  // The values' head size may differ from the keys' (Keras's XLA fallback takes them; JAX's own check does not).
  if (ks[0] != qs[0] || vs[0] != qs[0] || ks[1] != vs[1] || ks[2] != vs[2] || ks[3] != qs[3] || ks[2] <= 0 ||
      qs[2] % ks[2] != 0)
    throw ShapeError("dot_product_attention: expected key (B, S, K, H) and value (B, S, K, Hv) with the query's "
                     "batch, key of the query's head_dim H, and K dividing the query's heads N" + text());
}

/// keep, broadcast to (B, N, T, S) from the right, without copying it there.
bool broadcasts_to(const Tensor& keep, const Shape& to) {
  if (keep.rank() > to.rank()) return false;
  for (int i = 1; i <= keep.rank(); ++i)
    if (keep.shape()[-i] != 1 && keep.shape()[-i] != to[-i]) return false;
  return true;
}

/// The one-pass kernel, where the backend has it: float32, no bias, no gradient to record.
/// Returns an undefined tensor where it does not apply.
Tensor fused(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& keep, double scale, const Tensor& bias) {
  const Shape logits{q.shape()[0], q.shape()[2], q.shape()[1], k.shape()[1]};
  if (q.dtype() != DType::float32 || bias.defined() || autodiff::active() ||
      (keep.defined() && (keep.dtype() != DType::bool_ || !broadcasts_to(keep, logits))))
    return {};
  auto& be = backend::backend_for(q.device());
  if (!be.has_fused(backend::Backend::Fused::attention, 0)) return {};
  const backend::AttentionDims d{.batch = logits[0], .queries = logits[2], .keys = logits[3], .heads = logits[1],
                                 .kv_heads = k.shape()[2], .head_dim = q.shape()[3], .value_dim = v.shape()[3],
                                 .scale = scale};
  Tensor out = Tensor::empty({q.shape()[0], q.shape()[1], q.shape()[2], v.shape()[3]}, q.dtype(), q.device());
  return be.attention(q, k, v, keep.defined() ? &keep : nullptr, d, out) ? out : Tensor();
}

/// Query t sees key s when s <= t (jnp.tril of ones (T, S)), as (1, 1, T, S).
Tensor causal_mask(int64_t t_len, int64_t s_len, Device device) {
  return greater_equal(reshape(arange(0.0, static_cast<double>(t_len), 1.0, DType::int32), {1, 1, t_len, 1}).to(device),
                       reshape(arange(0.0, static_cast<double>(s_len), 1.0, DType::int32), {1, 1, 1, s_len}).to(device));
}

}  // namespace

// A 16-bit bias is widened with the query, key and value (ops/half_compute.h).
static AttentionArgs widen(const AttentionArgs& a) {
  AttentionArgs w = a;
  w.bias = half_compute::widen(a.bias);
  return w;
}

Tensor dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value, const AttentionArgs& args) {
  KILN_LOG_OP(dot_product_attention, query, key, value, args);
  KILN_HALF_IN_FLOAT32(dot_product_attention, query, key, value, args);
  if (args.flash_attention.value_or(false))
    throw ValueError("dot_product_attention: flash_attention=true is not supported on this backend; pass nullopt or "
                     "false");
  const Tensor& q = query;
  const Tensor& k0 = key;
  const Tensor& v0 = value;
  check_inputs(q, k0, v0);
  if (args.mask.defined() && args.mask.dtype() != DType::bool_)
    throw TypeError("dot_product_attention: `mask` must be bool, but received " + dtype_name(args.mask.dtype()) +
                    " with shape " + args.mask.shape().to_string());
  const int64_t n = q.shape()[2], groups = n / k0.shape()[2], t_len = q.shape()[1], s_len = k0.shape()[1];
  const double scale = args.scale.value_or(1.0 / std::sqrt(static_cast<double>(q.shape()[3])));
  Tensor keep = args.mask;
  if (args.is_causal) {
    const Tensor causal = causal_mask(t_len, s_len, q.device());
    keep = keep.defined() ? logical_and(keep, causal) : causal;
  }
  if (Tensor out = fused(q, k0, v0, keep, scale, args.bias); out.defined()) return out;
  const Tensor k = groups == 1 ? k0 : repeat(k0, {groups}, 2), v = groups == 1 ? v0 : repeat(v0, {groups}, 2);
  // (B, N, T, H) x (B, N, S, H)ᵀ -> (B, N, T, S)
  Tensor logits = matmul(transpose(q, {0, 2, 1, 3}), transpose(k, {0, 2, 1, 3}), false, true) * scale;
  if (args.bias.defined()) logits = logits + (args.bias.dtype() == logits.dtype() ? args.bias : cast(args.bias, logits.dtype()));
  if (keep.defined()) {
    const Tensor masked = fill({}, -0.7 * static_cast<double>(std::numeric_limits<float>::max()), logits.dtype());
    logits = where(broadcast_to(keep, logits.shape()), logits, masked.to(q.device()));
  }
  const Tensor probs = softmax(logits, -1);
  return transpose(matmul(probs, transpose(v, {0, 2, 1, 3})), {0, 2, 1, 3});
}

}  // namespace kiln
