#pragma once
// tf.config.list_physical_devices.
//
//   for (const auto& d : kiln::list_physical_devices()) std::cout << d << "\n";
//   // PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')
//   // PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')   (with CUDA)
#include <iosfwd>
#include <string>
#include <vector>

#include "kiln/core/device.h"

namespace kiln {

/// A device the process can use (tf.config.PhysicalDevice).
struct PhysicalDevice {
  std::string name;         ///< "/physical_device:GPU:0"
  std::string device_type;  ///< "CPU" or "GPU"
  Device device;  ///< The device, for DeviceScope and Tensor::to().

  /// Same name, type and device.
  bool operator==(const PhysicalDevice&) const = default;
  /// "PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')", TensorFlow's repr.
  std::string to_string() const;
};

std::ostream& operator<<(std::ostream& os, const PhysicalDevice& d);  ///< Prints to_string().

/// The CPU, then one entry per usable CUDA device; only those of `device_type`
/// ("CPU" or "GPU", any case) when it is given. Asking for GPUs (or all devices)
/// probes CUDA, loading the plugin as kiln::cuda::device_count() does.
std::vector<PhysicalDevice> list_physical_devices(const std::string& device_type = "");

}  // namespace kiln
