// matmul: NumPy's matmul semantics (broadcast batch dimensions, optional
// transposes), as one GEMM where the operands allow it.
#include "kiln/ops/math_ops.h"

#include "kiln/ops/array_ops.h"
#include "core/check.h"
#include "core/op_log.h"
#include "core/tensor_impl.h"
#include "ops/op_util.h"
#include "ops/half_compute.h"

namespace kiln {

using namespace ops;

Tensor matmul(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  KILN_LOG_OP(matmul, a, b, ta, tb);
  KILN_HALF_IN_FLOAT32(matmul, a, b, ta, tb);
  check_concrete("matmul", a);
  check_concrete("matmul", b);
  common_device("matmul", {a, b});
  check_same_dtype("matmul", a, b);
  KILN_CHECK(a.dtype() != DType::bool_, TypeError,
             "matmul: not defined for bool tensors, but received " << describe(a) << " and " << describe(b));
  if (a.rank() < 2 || b.rank() < 2)
    throw ShapeError("matmul: expected inputs of rank >= 2, but received shapes " + a.shape().to_string() + " and " +
                     b.shape().to_string());
  const int64_t M = ta ? a.shape()[-1] : a.shape()[-2];
  const int64_t K = ta ? a.shape()[-2] : a.shape()[-1];
  const int64_t Kb = tb ? b.shape()[-1] : b.shape()[-2];
  const int64_t N = tb ? b.shape()[-2] : b.shape()[-1];
  if (K != Kb)
    throw ShapeError("matmul: a and b shapes cannot be multiplied (" + a.shape().to_string() + " and " +
                     b.shape().to_string() + (ta || tb ? ", with transposes" : "") + "): inner dimensions " +
                     std::to_string(K) + " and " + std::to_string(Kb) + " differ");
  Shape abatch = a.shape().slice(0, -2), bbatch = b.shape().slice(0, -2);
  Shape batch;
  try {
    batch = broadcast_shapes(abatch, bbatch, "matmul");
  } catch (const ShapeError&) {
    // Name the full operand shapes, not just their batch parts.
    throw ShapeError("matmul: the batch dimensions of a and b do not broadcast: a has shape " + a.shape().to_string() +
                     " and b has shape " + b.shape().to_string());
  }
  const int64_t B = batch.num_elements();
  Shape out_shape = batch;
  out_shape.push_back(M);
  out_shape.push_back(N);
  // int8 products accumulate in int32, as keras.ops.matmul gives them (JAX's preferred_element_type).
  Tensor y = Tensor::empty(out_shape, a.dtype() == DType::int8 ? DType::int32 : a.dtype(), a.device());
  if (!ta && b.rank() == 2 && a.rank() > 2) {
    // (…, M, K) · (K, N): one GEMM over all rows.
    Tensor a3 = alias_with_shape(a, Shape{1, B * M, K});
    Tensor y3 = alias_with_shape(y, Shape{1, B * M, N});
    be(a).matmul(a3, alias_with_shape(b, Shape{1, b.shape()[0], b.shape()[1]}), y3, false, tb);
  } else {
    auto as3 = [&](const Tensor& t, const Shape& tb_) {
      int64_t tbn = tb_.num_elements();
      Tensor src = t;
      if (tbn != B && tbn != 1) {
        Shape full = batch;
        full.push_back(t.shape()[-2]);
        full.push_back(t.shape()[-1]);
        src = broadcast_to(t, full);
        tbn = B;
      }
      return alias_with_shape(src, Shape{tbn, t.shape()[-2], t.shape()[-1]});
    };
    Tensor y3 = alias_with_shape(y, Shape{B, M, N});
    be(a).matmul(as3(a, abatch), as3(b, bbatch), y3, ta, tb);
  }
  if (autodiff::active())
    autodiff::record("MatMul", {a, b}, {y}, [a, b, ta, tb](const Grads& g, const Needs& n) {
      const Tensor& d = g[0];
      Grads r(2);
      if (!ta && !tb) {
        if (n[0]) r[0] = matmul(d, b, false, true);
        if (n[1]) r[1] = matmul(a, d, true, false);
      } else if (!ta && tb) {
        if (n[0]) r[0] = matmul(d, b, false, false);
        if (n[1]) r[1] = matmul(d, a, true, false);
      } else if (ta && !tb) {
        if (n[0]) r[0] = matmul(b, d, false, true);
        if (n[1]) r[1] = matmul(a, d, false, false);
      } else {
        if (n[0]) r[0] = matmul(b, d, true, true);
        if (n[1]) r[1] = matmul(d, a, true, true);
      }
      // A (K, N) operand used against a batched (B, M, K) one gets a (B, K, N)
      // gradient here; the engine sums it down to (K, N).
      return r;
    });
  return y;
}

}  // namespace kiln
