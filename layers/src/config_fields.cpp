// The value codecs behind the generated get_config/from_config (config_fields.h).
#include "config_fields.h"

#include <string_view>

namespace kiln::layers::detail {

// An empty list is Keras's None (PReLU's shared_axes).
Config config_value(const std::vector<int>& v) { return v.empty() ? Config(nullptr) : Config(v); }

Config config_value(const std::vector<int64_t>& v) {
  Config j = Config::array();
  for (int64_t d : v) j.push_back(d < 0 ? Config(nullptr) : Config(d));
  return j;
}

void read_value(const ConfigReader& r, const char* key, std::string& v) {
  // Activation keys also accept null ("linear") and Keras 3's serialized function objects.
  if (std::string_view(key).find("activation") != std::string_view::npos) v = r.activation(key, v);
  else v = r.string(key, v);
}
void read_value(const ConfigReader& r, const char* key, bool& v) { v = r.boolean(key, v); }
void read_value(const ConfigReader& r, const char* key, int& v) {
  v = static_cast<int>(r.integer_or_first(key, v));
}
void read_value(const ConfigReader& r, const char* key, int64_t& v) { v = r.integer_or_first(key, v); }
void read_value(const ConfigReader& r, const char* key, uint64_t& v) {
  v = static_cast<uint64_t>(r.integer_or_first(key, static_cast<int64_t>(v)));
}
void read_value(const ConfigReader& r, const char* key, double& v) { v = r.number(key, v); }
void read_value(const ConfigReader& r, const char* key, Size1& v) {
  v = static_cast<int>(r.integer_or_first(key, v));
}
void read_value(const ConfigReader& r, const char* key, Size2& v) { v = r.size2(key, v); }
void read_value(const ConfigReader& r, const char* key, Axes& v) { v = r.axes(key, v); }
void read_value(const ConfigReader& r, const char* key, InitializerArg& v) { v = r.initializer(key, v); }
void read_value(const ConfigReader& r, const char* key, regularizers::RegularizerPtr& v) {
  if (r.raw().contains(key)) v = r.regularizer(key);
}
void read_value(const ConfigReader& r, const char* key, constraints::ConstraintPtr& v) {
  if (r.raw().contains(key)) v = r.constraint(key);
}
void read_value(const ConfigReader& r, const char* key, Shape& v) {
  if (r.has(key)) v = shape_from_json(r.raw()[key], r.class_name() + ".from_config '" + key + "'");
}
void read_value(const ConfigReader& r, const char* key, std::vector<int>& v) {
  if (!r.has(key)) return;
  v.clear();
  for (int64_t d : r.int_list(key)) v.push_back(static_cast<int>(d));
}
void read_value(const ConfigReader& r, const char* key, std::vector<int64_t>& v) {
  if (r.has(key)) v = r.int_list(key);
}

}  // namespace kiln::layers::detail
