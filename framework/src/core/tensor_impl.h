#pragma once
// Private: what a Tensor handle points to. Only framework/src includes this.
#include <atomic>
#include <cstdint>
#include <memory>

#include "kiln/core/device.h"
#include "kiln/core/dtype.h"
#include "kiln/core/shape.h"
#include "kiln/core/tensor.h"

namespace kiln {

/// A block of device memory. Freed (or returned to its pool) by the deleter.
struct Storage {
  void* data = nullptr;
  std::size_t nbytes = 0;
  Device device;
  void (*deleter)(void* data, std::size_t nbytes, Device device) = nullptr;
  Storage() = default;
  Storage(const Storage&) = delete;
  ~Storage() {
    if (deleter && data) deleter(data, nbytes, device);
  }
};

struct KerasHistory;  // functional-graph provenance of a symbolic tensor

uint64_t next_tensor_id();

struct TensorImpl {
  std::shared_ptr<Storage> storage;  // null for symbolic tensors
  Shape shape;
  DType dtype = DType::float32;
  Device device;
  uint64_t id = next_tensor_id();
  std::shared_ptr<KerasHistory> keras_history;
  // Keras's `_keras_mask`: the timestep mask a masking layer attached (kiln/nn/masking.h).
  std::shared_ptr<TensorImpl> keras_mask;
};

/// New tensor sharing `t`'s storage under another shape (same element count).
Tensor alias_with_shape(const Tensor& t, const Shape& shape);
/// Rows [start, stop) of `t`'s first axis as a tensor over the same bytes,
/// which it keeps alive: for batches that are only copied to a device, so the
/// rows are not first copied on the host. Writing to it writes to `t`.
Tensor leading_rows_view(const Tensor& t, int64_t start, int64_t stop);
/// Row-major strides of a shape, in elements.
std::vector<int64_t> contiguous_strides(const Shape& s);

}  // namespace kiln
