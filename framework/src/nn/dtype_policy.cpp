// Dtype policies and the process-wide default one.
#include "kiln/nn/dtype_policy.h"

#include <mutex>

#include "kiln/core/error.h"

namespace kiln {

namespace {
std::mutex global_mutex;
DTypePolicy* global_slot() {
  // Built on first use from a dtype, so that its own construction does not read the global.
  static DTypePolicy policy(DType::float32);
  return &policy;
}
}  // namespace

DTypePolicy::DTypePolicy() {
  std::lock_guard<std::mutex> lock(global_mutex);
  *this = *global_slot();
}

DTypePolicy::DTypePolicy(const std::string& name) : name_(name) {
  if (const auto from = name.find("_from_"); from != std::string::npos) {
    *this = quantized(name.substr(0, from), name.substr(from + 6));
    return;
  }
  if (name == "mixed_float16") {
    compute_ = DType::float16;
  } else if (name == "mixed_bfloat16") {
    compute_ = DType::bfloat16;
  } else {
    try {
      compute_ = dtype_from_name(name == "float" ? "float32" : name);
    } catch (const ValueError&) {
      throw ValueError("Cannot convert '" + name +
                       "' to a mixed precision DTypePolicy. Valid policies include 'mixed_float16', "
                       "'mixed_bfloat16', and the name of any float dtype such as 'float32'.");
    }
    name_ = dtype_name(compute_);
    variable_ = compute_;
    return;
  }
  variable_ = DType::float32;
}

DTypePolicy::DTypePolicy(DType dtype) : name_(dtype_name(dtype)), compute_(dtype), variable_(dtype) {}

namespace {

/// The group size of Keras's "int4/<block_size>" mode, with Int4DTypePolicy's errors.
int parse_int4_block_size(const std::string& mode) {
  const std::string format = "Expected format 'int4/<block_size>', but got '" + mode + "'.";
  const std::string digits = mode.substr(5);
  std::size_t used = 0;
  int block = 0;
  try {
    block = std::stoi(digits, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (digits.empty() || used != digits.size())
    throw ValueError("Invalid mode for Int4DTypePolicy. <block_size> must be an integer. " + format);
  if (block < -1 || block == 0)
    throw ValueError("Invalid block_size in mode. Supported values are -1 (per-channel) or a positive integer "
                     "(sub-channel), but got " + std::to_string(block) + " from '" + mode + "'.");
  return block;
}

}  // namespace

DTypePolicy DTypePolicy::quantized(const std::string& mode, const std::string& source) {
  const bool int4_blocked = mode.rfind("int4/", 0) == 0;
  if (mode != "int8" && mode != "int4" && !int4_blocked)
    throw ValueError("Invalid quantization mode. Expected one of ('int8', 'int4'). Received: mode=" + mode);
  DTypePolicy p(source);
  if (!p.mode_.empty()) throw ValueError("A quantized DTypePolicy's source must not be quantized itself. Received: " + source);
  if (mode == "int8" && p.compute_ == DType::float16)
    throw ValueError("Quantization mode='" + mode + "' doesn't work well with compute_dtype='float16'.");
  if (int4_blocked) p.block_size_ = parse_int4_block_size(mode);
  p.name_ = mode + "_from_" + p.name_;
  p.mode_ = int4_blocked ? "int4" : mode;
  return p;
}

std::string DTypePolicy::source_name() const {
  return mode_.empty() ? name_ : name_.substr(name_.find("_from_") + 6);
}

namespace mixed_precision {
void set_global_policy(const DTypePolicy& policy) {
  std::lock_guard<std::mutex> lock(global_mutex);
  *global_slot() = policy;
}
DTypePolicy global_policy() { return DTypePolicy(); }
}  // namespace mixed_precision

}  // namespace kiln
