#pragma once
// Logs: the named scalars passed to callbacks and printed by the progress bar,
// kept in insertion order (loss first, then metrics in compile order), as Keras does.
//
// A value may be set as a one-element tensor (a metric's result()); it is read
// when the logs are. A train_step that returns its metrics that way can be
// traced (compiled fit), as a Keras train_step returning {m.name: m.result()} is.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// The named scalars passed to callbacks and printed by the progress bar (Keras's logs
/// dict), in insertion order: loss first, then metrics in compile order. A value may be
/// a one-element tensor (a metric's result()), read when the logs are.
class Logs {
 public:
  /// One value of a Logs list: a number, or a one-element tensor read when the logs are.
  struct Value {
    /// A number.
    Value(double v) : number(v) {}
    /// A one-element tensor (a metric's result()).
    Value(const Tensor& v) : tensor(v) {}
    double number = 0;  ///< The number, when tensor is undefined.
    Tensor tensor;      ///< The tensor, when defined.
  };
  /// No entries.
  Logs() = default;
  /// Keras's returned dict, in its order: {{"loss", loss}, {"mae", mae->result()}, {"lr", 0.01}},
  /// numbers and one-element tensors mixed.
  Logs(std::initializer_list<std::pair<std::string, Value>> items) {
    for (const auto& [k, v] : items) {
      if (v.tensor.defined()) {
        set(k, v.tensor);
      } else {
        set(k, v.number);
      }
    }
  }
  /// Sets (or replaces) a value.
  void set(const std::string& key, double v);
  /// A one-element tensor, read (to a double) when the logs are.
  void set(const std::string& key, const Tensor& v);
  /// The value of `key`, or nullopt when absent.
  std::optional<double> get(const std::string& key) const;
  /// The value of `key`; throws ValueError when absent.
  double at(const std::string& key) const;
  /// Whether `key` is set.
  bool contains(const std::string& key) const { return get(key).has_value(); }
  /// Removes `key` if present.
  void erase(const std::string& key);
  /// (key, value) pairs in insertion order.
  const std::vector<std::pair<std::string, double>>& items() const {
    resolve();
    return items_;
  }
  /// Iterates over the (key, value) pairs.
  auto begin() const { return items().begin(); }
  /// End of the pairs.
  auto end() const { return items().end(); }
  /// Whether no key is set.
  bool empty() const { return items_.empty(); }
  /// The number of keys.
  std::size_t size() const { return items_.size(); }
  /// Removes every key.
  void clear() {
    items_.clear();
    pending_.clear();
  }
  /// The values still held as tensors, in order (what a traced train_step returns).
  std::vector<Tensor> tensor_values() const;
  /// The same logs with those tensors replaced by `values`, in order.
  Logs with_tensor_values(const std::vector<Tensor>& values) const;

 private:
  /// Reads the tensor values into items_.
  void resolve() const;
  std::size_t index_of(const std::string& key);
  mutable std::vector<std::pair<std::string, double>> items_;
  mutable std::vector<std::pair<std::string, Tensor>> pending_;  // keys whose value is still a tensor
};

}  // namespace kiln
