#pragma once
// Private: NCCL through the CUDA plugin, for kiln::distribute's gradient
// all-reduce on GPUs (one process per GPU). Part of the plugin table
// (plugin_api.h): null when the plugin was built without NCCL.
//
// A reduction runs on the communicator's own stream, after the work queued so
// far on the device's compute stream; join() then makes the compute stream
// wait for it, so the host never blocks on the GPU. poll() lets the caller
// wait with a deadline (NCCL's collectives otherwise wait forever for a lost
// peer), and abort() ends the communicator so that nothing stays stuck.
#include <cstddef>
#include <string>

namespace kiln::cuda {

struct NcclApi {
  /// ncclGetUniqueId's bytes, which rank 0 sends the others; false with `error`.
  bool (*unique_id)(std::string* id, std::string* error);
  /// A communicator of `size` ranks on device `index` (ncclCommInitRank), or null with `error`.
  void* (*init)(int index, const std::string& id, int size, int rank, std::string* error);
  /// Starts an in-place sum of `count` elements (dtype 0: float32, 1: float64)
  /// at device pointer `data`; returns a handle for poll/join, or null with `error`.
  void* (*all_reduce)(void* comm, void* data, std::size_t count, int dtype, std::string* error);
  /// 1 when the reduction finished, 0 while it runs, -1 on an error (in `error`).
  int (*poll)(void* handle, std::string* error);
  /// The device's compute stream waits for the reduction; frees the handle.
  void (*join)(void* handle);
  /// ncclCommAbort: stops what is pending; the communicator is then unusable.
  void (*abort)(void* comm);
  /// The NCCL version, for messages ("NCCL 2.27.7").
  std::string (*version)();
};

}  // namespace kiln::cuda
