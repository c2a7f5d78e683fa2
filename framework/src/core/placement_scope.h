#pragma once
// Private: places the tensors that library code creates (zeros, constants,
// index ranges) on a given device for the length of a scope, as TensorFlow
// places an op's helper tensors beside its inputs. Layers' calls use the
// device of their inputs and gradient rules the device of their op, so a
// model on a GPU never makes a helper tensor on the CPU. Unlike the public
// kiln::DeviceScope it does not check that the device exists: the device
// comes from a tensor that already lives there.
#include <optional>

#include "kiln/core/device.h"

namespace kiln {

class PlacementScope {
 public:
  explicit PlacementScope(Device device) : previous_(exchange_scoped_device(device)) {}
  ~PlacementScope() { exchange_scoped_device(previous_); }
  PlacementScope(const PlacementScope&) = delete;
  PlacementScope& operator=(const PlacementScope&) = delete;

 private:
  std::optional<Device> previous_;
};

}  // namespace kiln
