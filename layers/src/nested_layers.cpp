#include "nested_layers.h"

#include <nlohmann/json.hpp>

#include "nn/keras_export_name.h"

namespace kiln::layers::detail {

Config serialize_nested(const Layer& l) {
  Config c = l.get_config();
  if (c.contains("dtype") && c["dtype"].is_string())
    c["dtype"] = Config{{"module", "keras"},
                        {"class_name", "DTypePolicy"},
                        {"config", {{"name", c["dtype"]}}},
                        {"registered_name", nullptr}};
  const std::string cls = l.class_name();
  const bool builtin = cls.find('>') == std::string::npos;
  return Config{{"module", builtin ? Config("keras.layers") : Config(nullptr)},
                {"class_name", builtin ? ::kiln::detail::keras_export_name(cls) : cls.substr(cls.find('>') + 1)},
                {"config", c},
                {"registered_name", builtin ? Config(nullptr) : Config(cls)}};
}

void prefix_weight_paths(const Layer& child, const std::string& owner) {
  for (Variable v : child.weights()) v.set_path(owner + "/" + v.path());
}

}  // namespace kiln::layers::detail
