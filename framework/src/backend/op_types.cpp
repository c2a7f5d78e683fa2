#include "backend/op_types.h"

#include <array>

namespace kiln::backend {

const char* op_type(UnaryOp op) {
  static constexpr std::array<const char*, 22> names{
      "Neg", "Abs",  "Sign", "Exp",     "Log",  "Log1p",    "Expm1", "Sqrt",  "Rsqrt", "Square",   "Sin",
      "Cos", "Tanh", "Erf",  "Sigmoid", "Relu", "Softplus", "Floor", "Round", "IsNan", "IsFinite", "LogicalNot"};
  const auto i = static_cast<std::size_t>(op);
  return i < names.size() ? names[i] : "Unary";
}

const char* op_type(BinaryOp op) {
  static constexpr std::array<const char*, 18> names{
      "AddV2", "Sub",       "Mul",     "RealDiv",      "Pow",        "Maximum",   "Minimum",  "Equal",   "NotEqual",
      "Less",  "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "ReluGrad", "FloorMod", "Atan2"};
  const auto i = static_cast<std::size_t>(op);
  return i < names.size() ? names[i] : "Binary";
}

const char* op_type(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "Sum";
    case ReduceOp::max: return "Max";
    case ReduceOp::min: return "Min";
    case ReduceOp::prod: return "Prod";
  }
  return "Reduce";
}

}  // namespace kiln::backend
