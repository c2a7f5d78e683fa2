#pragma once
// Logs: the named scalars passed to callbacks and printed by the progress bar,
// kept in insertion order (loss first, then metrics in compile order), as Keras does.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln {

class Logs {
 public:
  Logs() = default;
  Logs(std::initializer_list<std::pair<std::string, double>> items) {
    for (const auto& [k, v] : items) set(k, v);
  }
  void set(const std::string& key, double v) {
    for (auto& kv : items_)
      if (kv.first == key) { kv.second = v; return; }
    items_.emplace_back(key, v);
  }
  std::optional<double> get(const std::string& key) const {
    for (const auto& kv : items_)
      if (kv.first == key) return kv.second;
    return std::nullopt;
  }
  double at(const std::string& key) const;
  bool contains(const std::string& key) const { return get(key).has_value(); }
  void erase(const std::string& key) {
    for (auto it = items_.begin(); it != items_.end(); ++it)
      if (it->first == key) { items_.erase(it); return; }
  }
  const std::vector<std::pair<std::string, double>>& items() const { return items_; }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  void clear() { items_.clear(); }

 private:
  std::vector<std::pair<std::string, double>> items_;
};

}  // namespace kiln
