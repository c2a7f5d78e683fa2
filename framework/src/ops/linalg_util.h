#pragma once
// Private: what the linear algebra ops (linalg_*.cpp) share: Keras's input checks,
// batch broadcasting, and running a LAPACK kernel on host copies.
#include <functional>
#include <utility>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln::ops {

/// x as a float tensor (integers and bool as float32), after checking that it is
/// concrete and of rank >= 2 and, when `square`, that its last two axes are equal.
Tensor linalg_input(const char* op, const Tensor& x, bool square);
/// The transpose of the last two axes (jnp's .mT).
Tensor mT(const Tensor& x);
/// The identity matrix of size n in x's dtype, on x's device.
Tensor eye_as(int64_t n, const Tensor& x);
/// v (..., k) as diagonal matrices (..., k, k).
Tensor diag_matrix(const Tensor& v);
/// The diagonals (..., k) of x (..., m, n).
Tensor matrix_diagonal(const Tensor& x);
/// a (..., n, n) and b (..., n, k) in one float dtype, broadcast to one batch shape; a
/// vector b (..., n) first gains a last axis of 1 (the caller squeezes the result).
/// Throws ValueError naming the op and both shapes when b's rows are not a's columns
/// or the batch shapes do not broadcast.
std::pair<Tensor, Tensor> linalg_operands(const char* op, const Tensor& a, const Tensor& b, bool b_is_vector);
/// Runs `kernel` on CPU copies of `inputs` with recording paused and brings its
/// outputs to the inputs' device. No device but the CPU has LAPACK kernels (Kiln
/// links no cuSOLVER), and the small matrices these ops serve cost little to copy.
std::vector<Tensor> on_host(const std::vector<Tensor>& inputs,
                            const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& kernel);

}  // namespace kiln::ops
