#pragma once
// Which library runs the CPU's convolutions. Kiln's own kernels (direct
// kernels for small patches, im2col + GEMM otherwise) are always there; a
// build with oneDNN (Debian's libdnnl-dev) hands it the shapes where its JIT
// kernels are faster, through a plugin loaded on first use. The automatic choice follows shape-by-shape
// measurements (bench/conv_shapes.cpp).
#include <string>

namespace kiln {

enum class ConvLibrary {
  automatic,  ///< oneDNN for the shapes where it measured faster, Kiln's kernels for the rest
  kiln,       ///< Kiln's kernels only
  onednn,     ///< oneDNN for every float32 convolution it supports (Kiln's kernels for the rest)
};

/// Selects the library for every CPU convolution that follows (process-wide;
/// default automatic, or KILN_CONV_LIBRARY=kiln|onednn|automatic at start-up).
/// The reference kernels (set_cpu_kernels) take precedence over both.
void set_conv_library(ConvLibrary library);
ConvLibrary conv_library();

/// oneDNN's version ("2.6.3") when this build has it and its plugin
/// (libkiln_onednn.so, beside libkiln) loads, else empty.
std::string onednn_version();

}  // namespace kiln
