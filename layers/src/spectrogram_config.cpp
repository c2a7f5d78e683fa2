#include "spectrogram_config.h"

#include <nlohmann/json.hpp>

#include "nn/window_config.h"

namespace kiln {

Config config_value(const Window& w) { return window_to_config(w); }

void read_value(const config_io::ConfigReader& r, const char* key, Window& w) {
  if (!r.raw().contains(key)) return;
  w = window_from_config(r.raw()[key], r.class_name());
}

}  // namespace kiln
