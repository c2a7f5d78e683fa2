#pragma once
// TensorFlow's `with tf.device("GPU:0"):` as a scope object.
//
//   {
//     kiln::DeviceScope gpu("GPU:0");          // or kiln::DeviceScope gpu(kiln::Device::cuda(0));
//     kiln::Tensor a = kiln::ones({2, 2});     // on GPU:0
//     kiln::Variable v(kiln::zeros({3}));      // on GPU:0
//     {
//       kiln::DeviceScope cpu("/device:CPU:0");
//       kiln::Tensor b({1.f, 2.f});            // on CPU:0
//     }                                        // GPU:0 again
//   }                                          // the CPU again
//
// Inside a scope, tensor literals, the creation functions (zeros, ones, fill,
// eye, range, linspace, the random ones) and new Variables are placed on the
// scope's device; ops keep running on the device of their inputs. The scope is
// per thread, like TensorFlow's. As with soft placement off, a device that is
// not there is an error when the scope is made, not a silent fallback to the CPU.
#include <optional>
#include <string>

#include "kiln/core/device.h"

namespace kiln {

/// TensorFlow's `with tf.device("GPU:0"):` as a scope object: inside it (on this
/// thread) new tensors and variables are placed on the scope's device; ops run on
/// their inputs' device. A device that does not exist is an error.
class DeviceScope {
 public:
  /// Throws kiln::ValueError naming the device when it does not exist (no GPU, or no GPU with that index).
  explicit DeviceScope(Device device);
  /// A TensorFlow device specification, see Device::parse.
  explicit DeviceScope(const std::string& spec);
  /// A TensorFlow device specification, see Device::parse.
  explicit DeviceScope(const char* spec) : DeviceScope(std::string(spec)) {}
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

  /// The scope's device.
  Device device() const { return device_; }

 private:
  Device device_;
  std::optional<Device> previous_;
};

}  // namespace kiln
