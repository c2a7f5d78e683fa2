#pragma once
// CUDA devices: what is there, and a few switches of the CUDA + cuDNN backend.
// Every function exists in every build; a CPU-only build (or a machine with no
// GPU or driver) reports no devices, and the switches do nothing.
//
// The backend is a plugin, libkiln_cuda.so, loaded the first time a CUDA device
// is asked for or probed (any function below but the switches). A program
// that never does so never loads the CUDA libraries, and runs where they are
// missing. KILN_CUDA_PLUGIN=/path/libkiln_cuda.so picks another copy.
//
//   if (kiln::cuda::is_available()) {
//     model.to(kiln::Device::cuda(0));           // variables and optimizer slots move
//     kiln::Tensor y = model(x.to(kiln::Device::cuda(0)));
//     std::cout << kiln::cuda::device_name(0);   // "NVIDIA H100 80GB HBM3"
//   }
//
// Work on a device is queued on one stream per device and runs asynchronously;
// the host waits only where it reads a value (Tensor::to(Device::cpu()),
// item(), to_vector(), printing) or calls synchronize().
#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::cuda {

/// True when Kiln was built with CUDA and at least one device can be used.
bool is_available();
/// Number of usable CUDA devices (0 without CUDA, driver or GPU).
int device_count();
/// Why there is no usable device, "" when there is one: a build without the
/// CUDA backend, a library the loader could not find (quoting it, e.g.
/// "libcudart.so.13: cannot open shared object file"), or the runtime's error.
std::string unavailable_reason();
/// The device's marketing name, e.g. "NVIDIA H100 80GB HBM3"; "" when there is no such device.
std::string device_name(int index);
/// Blocks until all work queued on the device has finished (all devices when index < 0).
/// Errors raised by earlier kernels surface here as kiln::RuntimeError.
void synchronize(int index = -1);
/// Returns the device memory Kiln's caching allocator holds but no tensor uses to the driver.
void empty_cache(int index = 0);
/// Bytes currently held by tensors on the device (by allocator size class); 0 without CUDA.
std::size_t memory_allocated(int index = 0);

/// Allows TensorFloat-32 tensor-core maths in float32 matmuls and convolutions
/// (about 10 bits of mantissa in the products, several times faster on
/// Ampere and Hopper). Off by default, so float32 results match the CPU within
/// float32 rounding; the environment variable KILN_CUDA_TF32=1 turns it on.
void set_allow_tf32(bool allow);
bool allow_tf32();  ///< Whether TensorFloat-32 is allowed (see set_allow_tf32()).
/// Times every cuDNN convolution algorithm once per new shape and keeps the
/// fastest (like torch.backends.cudnn.benchmark). On by default; off uses
/// cuDNN's heuristics. Environment: KILN_CUDNN_BENCHMARK=0 turns it off.
void set_cudnn_benchmark(bool enable);
bool cudnn_benchmark();  ///< Whether cuDNN benchmarking is on (see set_cudnn_benchmark()).

/// CUDA Graphs for traced functions (kiln::function, and compiled fit,
/// evaluate and predict). From a trace's second replay on, each run of GPU
/// work between host steps (an optimizer's bookkeeping, a dropout seed) is
/// captured once and relaunched as one graph, instead of a launch per kernel.
/// On by default; the environment variable KILN_CUDA_GRAPHS=0 turns it off.
void set_graphs(bool enable);
bool graphs_enabled();  ///< Whether CUDA Graphs are on (see set_graphs()).
/// What CUDA Graphs did (see set_graphs()).
struct GraphStats {
  int64_t captures = 0;  ///< graphs recorded (again when a run's buffers moved)
  int64_t launches = 0;  ///< graph launches
  int64_t failures = 0;  ///< runs that could not be captured and run kernel by kernel
};
/// Totals since the program started, over every function and device.
GraphStats graph_stats();

}  // namespace kiln::cuda
