#pragma once
// Quantized kernels in a weights file that the model's config does not announce.
#include "io/hdf5_file.h"
#include "kiln/nn/layer.h"

namespace kiln::io {

/// Quantizes `layer` as its entry `vars` in a weights file was quantized, when the layer
/// is float and the entry holds a quantized kernel. A layer that another builds
/// (MultiHeadAttention's projections) is made in float from the parent's config, which
/// does not carry the projections' policies, while model.quantize quantized them.
/// Throws ValueError, naming the file and the layer, when a grouped int4 entry's group
/// indices give no group size.
void quantize_as_stored(Layer& layer, const H5Group& vars);

}  // namespace kiln::io
