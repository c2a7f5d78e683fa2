#pragma once
// Which library runs the CPU's convolutions. Kiln's own kernels (direct
// kernels for small patches, im2col + GEMM otherwise) are always there; a
// build with oneDNN (Debian's libdnnl-dev) hands it the shapes where its JIT
// kernels are faster, through a plugin loaded on first use. The automatic choice follows shape-by-shape
// measurements (bench/conv_shapes.cpp).
#include <string>

namespace kiln {

/// The library behind CPU convolutions (see set_conv_library()).
enum class ConvLibrary {
  automatic,        ///< oneDNN where it measured faster (Winograd for the 3x3 layers where that was faster
                    ///< still), Kiln's kernels for the rest
  kiln,             ///< Kiln's kernels only
  onednn,           ///< oneDNN's direct convolutions for every float32 convolution
  onednn_winograd,  ///< oneDNN for every float32 convolution, with Winograd's algorithm wherever oneDNN has it
};

/// Selects the library for every CPU convolution that follows (process-wide;
/// default automatic, or KILN_CONV_LIBRARY=automatic|kiln|onednn|onednn_winograd
/// at start-up). Winograd's F(4x4, 3x3) does about half the arithmetic of a
/// direct 3x3 convolution and rounds differently: results agree with the
/// direct ones to 1e-5-1e-4 relative in outputs and input gradients, and to
/// about 1e-3 in filter gradients summed over a large batch
/// (tests/framework/test_conv_library.cpp).
/// The reference kernels (set_cpu_kernels) take precedence over all of them.
void set_conv_library(ConvLibrary library);
ConvLibrary conv_library();  ///< The current convolution library.

/// oneDNN's version ("2.6.3") when this build has it and its plugin
/// (libkiln_onednn.so, beside libkiln) loads, else empty.
std::string onednn_version();

}  // namespace kiln
