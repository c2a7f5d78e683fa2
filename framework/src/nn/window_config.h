#pragma once
// Private: a Window (kiln/ops/fft_ops.h) as Keras writes it in a config: a name, a list
// of values, or null.
#include <string>

#include "kiln/core/config.h"
#include "kiln/ops/fft_ops.h"

namespace kiln {

/// "hann", [0.5, 1.0, ...] or null.
Config window_to_config(const Window& w);
/// The inverse of window_to_config; `where` names the class and key in errors.
Window window_from_config(const Config& c, const std::string& where);

}  // namespace kiln
