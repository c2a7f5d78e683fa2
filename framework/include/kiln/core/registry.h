#pragma once
// Names to classes: one registry per kind (layers, optimizers, losses,
// metrics, activations...). Unknown names give an error listing close matches.
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kiln {

/// Up to `n` candidates closest to `name`: case-insensitive Levenshtein distance at most
/// max(2, len(name) / 3), closest first (ties keep the candidates' order).
std::vector<std::string> close_matches(const std::string& name, const std::vector<std::string>& candidates,
                                       std::size_t n = 3);
/// Throws NotFoundError "Unknown optimizer: 'nadamm'. Did you mean 'nadam' or 'adam'?";
/// with no close match: "Unknown optimizer: 'xyz'. Known names: 'adam', 'nadam', 'sgd'."
[[noreturn]] void throw_unknown(const std::string& kind, const std::string& name,
                                const std::vector<std::string>& candidates);
/// Keras 3 name normalisation (keras/src/utils/naming.py): drop non-word characters, then
/// split before capitalised words and between a lower- and an upper-case letter.
/// "SparseCategoricalCrossentropy" -> "sparse_categorical_crossentropy", "Conv2D" -> "conv2d",
/// "GlobalAveragePooling2D" -> "global_average_pooling2d", "ReLU" -> "re_lu".
std::string to_snake_case(const std::string& s);

template <class Factory>
class Registry {
 public:
  explicit Registry(std::string kind) : kind_(std::move(kind)) {}
  void add(const std::string& name, Factory f) { items_[name] = std::move(f); }
  bool contains(const std::string& name) const { return items_.count(name) > 0; }
  const Factory& get(const std::string& name) const {
    auto it = items_.find(name);
    if (it == items_.end()) throw_unknown(kind_, name, names());
    return it->second;
  }
  const Factory* find(const std::string& name) const {
    auto it = items_.find(name);
    return it == items_.end() ? nullptr : &it->second;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& [k, v] : items_) n.push_back(k);
    return n;
  }

 private:
  std::string kind_;
  std::map<std::string, Factory> items_;
};

}  // namespace kiln
