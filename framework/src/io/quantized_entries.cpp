#include "io/quantized_entries.h"

#include <string>

#include "kiln/core/error.h"
#include "kiln/nn/quantizers.h"
#include "kiln/nn/stored_variables.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln::io {

// The kernel is the first entry, as Keras's quantized layers save it: int8 of the
// float kernel's shape for "int8", two values a byte (another shape) for "int4".
// Grouped int4 adds zero points and each row's group index (the last entry) to the
// scales, so the group size is the count of rows in group 0.
void quantize_as_stored(Layer& layer, const H5Group& vars) {
  auto* q = dynamic_cast<quantizers::Quantizable*>(&layer);
  if (!q || !layer.dtype_policy().quantization_mode().empty() || !vars.is_dataset("0")) return;
  const auto stored = stored_variables_of(layer);
  if (stored.empty() || !is_floating(stored[0].variable.dtype()) || vars.dataset_dtype("0") != "int8") return;
  if (vars.dataset_shape("0") == stored[0].variable.shape()) {
    q->quantize("int8");
    return;
  }
  std::size_t entries = 0;
  for (const auto& k : vars.keys())
    if (vars.is_dataset(k)) ++entries;
  int block = -1;
  if (entries == stored.size() + 3) {
    const Tensor groups = cast(vars.read(std::to_string(entries - 1)), DType::float32);
    block = static_cast<int>(sum(cast(equal(groups, Tensor(0.0f)), DType::int64)).item<int64_t>());
    if (block < 1)
      throw ValueError(vars.where() + ": layer '" + layer.name() + "' (" + layer.class_name() +
                       ") holds a grouped int4 kernel whose group indices (entry " + std::to_string(entries - 1) +
                       ", shape " + groups.shape().to_string() + ") put no row in group 0");
  }
  q->quantize("int4", quantizers::int4_config(block));
}

}  // namespace kiln::io
