#pragma once
// The class name Keras writes in configs. It is the name keras.layers exports,
// which for a few classes differs from the Python class's own __name__ (the
// name that makes the default layer name and the weights-file key):
// GroupedQueryAttention is exported, and serialized, as GroupQueryAttention.
#include <string>

namespace kiln::detail {

inline std::string keras_export_name(const std::string& class_name) {
  if (class_name == "GroupedQueryAttention") return "GroupQueryAttention";
  return class_name;
}

/// The inverse: legacy .h5 configs (tf.keras 2 layout) name the class by its __name__.
inline std::string keras_class_name(const std::string& export_name) {
  if (export_name == "GroupQueryAttention") return "GroupedQueryAttention";
  return export_name;
}

}  // namespace kiln::detail
