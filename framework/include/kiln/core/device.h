#pragma once
#include <iosfwd>
#include <optional>
#include <string>

namespace kiln {

/// Where a tensor's storage lives: the CPU, or CUDA device n.
struct Device {
  /// The kind of device.
  enum class Type { CPU, CUDA };
  Type type = Type::CPU;  ///< The kind of device.
  int index = 0;  ///< The device number within its kind.

  /// The CPU.
  static Device cpu() { return {Type::CPU, 0}; }
  /// CUDA device `i`.
  static Device cuda(int i = 0) { return {Type::CUDA, i}; }
  /// Whether this is the CPU.
  bool is_cpu() const { return type == Type::CPU; }
  /// Whether this is a CUDA device.
  bool is_cuda() const { return type == Type::CUDA; }
  /// Same type and index.
  bool operator==(const Device&) const = default;
  /// "cpu" or "cuda:0"
  std::string to_string() const { return is_cpu() ? "cpu" : "cuda:" + std::to_string(index); }
  /// TensorFlow's short name, as the guides print tensor.device: "CPU:0" or "GPU:0".
  std::string name() const { return (is_cpu() ? "CPU:" : "GPU:") + std::to_string(index); }
  /// TensorFlow's device specification, as tf.device() accepts it, case-insensitively:
  /// "GPU:0", "/GPU:0", "/device:CPU:0", "/job:localhost/replica:0/task:0/device:GPU:1",
  /// "gpu" (index 0) and Kiln's own "cuda:0" and "cpu". Throws kiln::ValueError otherwise.
  static Device parse(const std::string& spec);
};

/// Prints name(): "CPU:0", "GPU:0".
std::ostream& operator<<(std::ostream& os, const Device& d);

/// The device new tensors and variables are created on: the innermost
/// kiln::DeviceScope's (kiln/backend/device_scope.h) on this thread, else the CPU.
Device default_device();
/// The innermost DeviceScope's device on this thread; nullopt outside every scope.
std::optional<Device> scoped_device();
/// Sets this thread's scoped device and returns the previous one (DeviceScope's tool;
/// it checks that the device exists, this does not).
std::optional<Device> exchange_scoped_device(std::optional<Device> device);

}  // namespace kiln
