#pragma once
// Private: a stand-in for the CUDA plugin that runs "cuda:0" on the CPU.
//
// With KILN_EMULATE_CUDA=1 in the environment, the loader hands out this table
// instead of loading libkiln_cuda.so: one device, cuda:0, whose tensors live in
// host memory and whose kernels are the CPU backend's. Its tensors still say
// cuda:0, so everything that separates devices behaves as on a real GPU:
// Tensor::data() refuses them, mixing them with CPU tensors in one op is an
// error, and Tensor::to() copies. The GPU parity suite runs on it on machines
// without a GPU, where it finds the code paths that create a tensor on the
// wrong device (every comparison is then CPU arithmetic on both sides).
namespace kiln::cuda {

struct PluginApi;

/// True when KILN_EMULATE_CUDA=1 asked for the emulated device (read once).
bool emulation_requested();
/// The emulated device's plugin table.
const PluginApi* emulated_plugin();

}  // namespace kiln::cuda
