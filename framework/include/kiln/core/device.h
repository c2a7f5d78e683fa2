#pragma once
#include <string>

namespace kiln {

/// Where a tensor's storage lives: the CPU, or CUDA device n.
struct Device {
  enum class Type { CPU, CUDA };
  Type type = Type::CPU;
  int index = 0;

  static Device cpu() { return {Type::CPU, 0}; }
  static Device cuda(int i = 0) { return {Type::CUDA, i}; }
  bool is_cpu() const { return type == Type::CPU; }
  bool is_cuda() const { return type == Type::CUDA; }
  bool operator==(const Device&) const = default;
  /// "cpu" or "cuda:0"
  std::string to_string() const { return is_cpu() ? "cpu" : "cuda:" + std::to_string(index); }
};

}  // namespace kiln
