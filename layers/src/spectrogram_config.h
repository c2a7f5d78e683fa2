#pragma once
// Private: a Window option (kiln/ops/fft_ops.h) in a layer config, found by argument-dependent
// lookup from the field tables (layers/src/config_fields.h): "hann", a list of values, or null.
#include "kiln/ops/fft_ops.h"
#include "nn/config_io.h"

namespace kiln {

Config config_value(const Window& w);
/// An absent key keeps the default; null is no window.
void read_value(const config_io::ConfigReader& r, const char* key, Window& w);

}  // namespace kiln
