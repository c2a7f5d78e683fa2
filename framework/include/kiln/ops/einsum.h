#pragma once
// Einstein summation, as keras.ops.einsum / numpy.einsum.
//
//   kiln::einsum("ij,jk->ik", {a, b});          // matmul
//   kiln::einsum("bqhd,bkhd->bhqk", {q, k});    // attention scores, one batched GEMM
//   kiln::einsum("...ij->...ji", {x});           // ellipsis: broadcast batch axes
//   kiln::einsum("ii->i", {x});                  // diagonal
//   kiln::einsum("ij,jk", {a, b});               // implicit output: "ik"
//
// Labels are ASCII letters; "..." stands for the remaining leading axes and
// broadcasts as NumPy does. Operands are contracted left to right, each pair
// as one batched matrix product, so the gradient follows from matmul,
// transpose, reshape and sum.
#include <string>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// Einstein summation (keras.ops.einsum): einsum("ij,jk->ik", {a, b}) is a matmul.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);

}  // namespace kiln
