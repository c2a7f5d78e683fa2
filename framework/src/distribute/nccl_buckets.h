#pragma once
// Private: gradient buckets that live on the GPU and are summed by NCCL on its
// own stream (DataParallelOptions::communication "nccl", or "auto" for a
// model on a GPU when the CUDA plugin has NCCL). One process per GPU; the
// NCCL communicator is made once per process and device, bootstrapped over
// the MPI communicator (rank 0's unique id broadcast to the others).
#include <cstddef>
#include <memory>
#include <string>

#include "kiln/core/tensor.h"

namespace kiln::distribute {

/// Whether NCCL can reduce tensors on `device` ("" if so, else why not).
std::string nccl_unavailable_reason(Device device);

class NcclBucket {
 public:
  /// A bucket of `count` elements of `dtype` on `device`.
  NcclBucket(std::size_t count, DType dtype, Device device);
  /// Copies `g` (flattened) into the bucket at element `offset`, scaled by `share`.
  void stage(const Tensor& g, std::size_t offset, double share);
  /// Zeros `count` elements at `offset` (a variable without a gradient here).
  void zero(std::size_t offset, std::size_t count);
  /// Starts the sum across ranks.
  void launch(const std::string& what);
  /// Waits (polling, with the communicator's timeout) until the sum is done
  /// and the device's compute stream is ordered after it.
  void join();
  /// Copies `out.size()` elements at `offset` into `out`.
  void read(std::size_t offset, Tensor& out) const;

 private:
  Tensor data_;
  void* comm_ = nullptr;
  void* pending_ = nullptr;
  std::string what_;
};

}  // namespace kiln::distribute
