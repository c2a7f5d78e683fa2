// The keras.ops table's lookups (keras_op_table.h).
#include "nn/keras_op_table.h"

#include <map>
#include <stdexcept>

namespace kiln::detail {

namespace {

const std::map<std::string, keras_op_api::OpFn>& keras_op_map() {
  static const std::map<std::string, keras_op_api::OpFn> table = [] {
    std::map<std::string, keras_op_api::OpFn> t;
    for (auto group : {keras_ops_core_table, keras_ops_math_table, keras_ops_reduce_table, keras_ops_array_table,
                       keras_ops_bitwise_table, keras_ops_linalg_table, keras_ops_nn_table,
                       keras_ops_fft_table})
      for (auto& [name, fn] : group())
        if (!t.emplace(name, std::move(fn)).second)
          throw std::logic_error(std::string("keras.ops table: '") + name + "' twice");
    return t;
  }();
  return table;
}

}  // namespace

const keras_op_api::OpFn* find_keras_op(const std::string& name) {
  const auto& t = keras_op_map();
  auto it = t.find(name);
  return it == t.end() ? nullptr : &it->second;
}

const KerasOpClass* find_keras_op_class(const std::string& class_name) {
  static const std::map<std::string, const KerasOpClass*> by_name = [] {
    std::map<std::string, const KerasOpClass*> m;
    for (const auto& c : keras_op_classes()) m.emplace(c.class_name, &c);
    return m;
  }();
  auto it = by_name.find(class_name);
  if (it == by_name.end() || !find_keras_op(it->second->function)) return nullptr;
  return it->second;
}

}  // namespace kiln::detail
