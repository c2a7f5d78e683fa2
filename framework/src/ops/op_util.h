#pragma once
// Private helpers shared by the op families.
#include <optional>
#include <string>
#include <vector>

#include "autodiff/autodiff.h"
#include "backend/backend.h"
#include "kiln/core/error.h"
#include "kiln/core/tensor.h"

namespace kiln::ops {

using autodiff::Grads;
using autodiff::Needs;

/// Throws unless t is a concrete (non-symbolic, defined) tensor.
void check_concrete(const char* op, const Tensor& t);
/// Throws a clear error if the tensors are on different devices; returns the device.
Device common_device(const char* op, const std::vector<Tensor>& ts);
/// Throws unless a and b share a dtype.
void check_same_dtype(const char* op, const Tensor& a, const Tensor& b);
/// "a tensor of shape (2, 3) and dtype bool", for messages.
std::string describe(const Tensor& t);
/// The dtype rules of the element-wise primitives, checked once here so that no
/// backend has to: float-only maths needs a float tensor; integers take neg,
/// abs, sign, square, relu, floor and round; bool takes only logical_not,
/// isnan and isfinite; arithmetic (all but comparisons and logical ops) is not
/// defined for bool.
void check_unary_dtype(const char* op, backend::UnaryOp u, const Tensor& x);
void check_binary_dtype(const char* op, backend::BinaryOp b, const Tensor& x, const Tensor& y);
/// Normalises a possibly negative axis against `rank`; throws IndexError naming the op.
int normalize_axis(const char* op, int axis, int64_t rank);
inline backend::Backend& be(const Tensor& t) { return backend::backend_for(t.device()); }
/// Shape of x with the given (normalised) axes set to 1.
Shape keepdims_shape(const Shape& x, const std::vector<int>& axes);
/// Normalised, sorted, unique axes (all axes when none given).
std::vector<int> resolve_axes(const char* op, const std::optional<std::vector<int>>& axes, int64_t rank);

/// Throws unless p (named `what`) is a concrete 1-D tensor with x's dtype and device
/// and one value per channel, the last axis of x (named `x_name` in the message).
void check_per_channel(const char* op, const char* what, const Tensor& p, const Tensor& x, const char* x_name);
/// 0, 1, ..., rank − 2: every axis but the last.
std::vector<int> all_but_last_axis(int64_t rank);

/// dy where x > 0, else 0 (relu's backward), itself differentiable in dy.
Tensor relu_mask_grad(const Tensor& x, const Tensor& dy);

}  // namespace kiln::ops
