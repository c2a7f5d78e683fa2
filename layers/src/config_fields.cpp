// The layer-only value codecs: the per-axis sizes (config_fields.h).
#include "config_fields.h"

namespace kiln::layers {

void read_value(const config_io::ConfigReader& r, const char* key, Size1& v) {
  v = static_cast<int>(r.integer_or_first(key, v));
}

void read_value(const config_io::ConfigReader& r, const char* key, Size2& v) {
  if (!r.has(key)) return;
  const auto& j = r.raw()[key];
  if (j.is_number_integer()) v = Size2(j.get<int>());
  else if (j.is_array() && j.size() == 2 && j[0].is_number_integer() && j[1].is_number_integer())
    v = Size2(j[0].get<int>(), j[1].get<int>());
  else if (j.is_array() && j.size() == 1 && j[0].is_number_integer()) v = Size2(j[0].get<int>());
  else r.fail(key, "an integer or a list of two integers");
}

}  // namespace kiln::layers

namespace kiln::quantizers {

Config config_value(const QuantizationConfig& v) { return to_config(v); }

void read_value(const config_io::ConfigReader& r, const char* key, QuantizationConfig& v) {
  if (!r.has(key)) return;
  if (auto c = config_from(r.raw()[key], std::string("layer config key '") + key + "'")) v = *c;
}

}  // namespace kiln::quantizers
