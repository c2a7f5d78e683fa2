#pragma once
// Private: TensorFlow's op type names for the backend's primitives, used when a
// recorded trace is printed or exported ("Mul", "Relu", "MatMul").
#include "backend/backend.h"

namespace kiln::backend {

const char* op_type(UnaryOp op);
const char* op_type(BinaryOp op);
const char* op_type(ReduceOp op);

}  // namespace kiln::backend
