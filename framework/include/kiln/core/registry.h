#pragma once
// Names to classes: one registry per kind (layers, optimizers, losses,
// metrics, activations...). Unknown names give an error listing close matches.
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kiln {

/// Up to `n` candidates closest to `name`: case-insensitive Levenshtein distance at most
/// max(2, len(name) / 3), closest first (ties keep the candidates' order).
std::vector<std::string> close_matches(const std::string& name, const std::vector<std::string>& candidates,
                                       std::size_t n = 3);
/// Throws NotFoundError "Unknown optimizer: 'nadamm'. Did you mean 'nadam' or 'adam'?";
/// with no close match: "Unknown optimizer: 'xyz'. Known names: 'adam', 'nadam', 'sgd'." (up to
/// 12 candidates) or "... The closest known names are 'a', 'b' and 'c'." (more). A non-empty
/// `hint` (how to register a new name) ends the message.
[[noreturn]] void throw_unknown(const std::string& kind, const std::string& name,
                                const std::vector<std::string>& candidates, const std::string& hint = "");
/// Keras 3 name normalisation (keras/src/utils/naming.py): drop non-word characters, then
/// split before capitalised words and between a lower- and an upper-case letter.
/// "SparseCategoricalCrossentropy" -> "sparse_categorical_crossentropy", "Conv2D" -> "conv2d",
/// "GlobalAveragePooling2D" -> "global_average_pooling2d", "ReLU" -> "re_lu".
std::string to_snake_case(const std::string& s);

/// Factories by name for one kind (layer classes, optimizers, losses, metrics,
/// activations...): the one registry mechanism of every kind. Thread-safe.
///
/// A catalogue module registers its built-ins when the library loads, and also
/// points a hook variable the framework owns (`builtins`) at its registration
/// function: the first lookup runs the hook once, so a static library that
/// dropped the module's load-time registration still finds them.
template <class Factory>
class Registry {
 public:
  /// A registry for `kind` ("optimizer"), named in errors; `builtins` points at
  /// the hook the first lookup runs, if any.
  explicit Registry(std::string kind, void (**builtins)() = nullptr) : kind_(std::move(kind)), builtins_(builtins) {}
  /// The same, with a hint that unknown-name errors end with ("register it with ...").
  Registry(std::string kind, void (**builtins)(), std::string unknown_hint)
      : kind_(std::move(kind)), hint_(std::move(unknown_hint)), builtins_(builtins) {}
  /// For tables built once in a function and returned (before anyone else can see them).
  Registry(Registry&& o) noexcept
      : kind_(std::move(o.kind_)), hint_(std::move(o.hint_)), builtins_(o.builtins_), items_(std::move(o.items_)) {}
  /// Registers (or replaces) the factory for `name`.
  void add(const std::string& name, Factory f) {
    std::lock_guard<std::mutex> l(mu_);
    items_[name] = std::move(f);
  }
  /// Whether `name` is registered.
  bool contains(const std::string& name) const { return find(name) != nullptr; }
  /// The factory for `name`; NotFoundError listing the closest names otherwise.
  const Factory& get(const std::string& name) const {
    if (const Factory* f = find(name)) return *f;
    throw_unknown(kind_, name, names(), hint_);
  }
  /// nullptr when absent. Entries are never removed, so the pointer stays valid.
  const Factory* find(const std::string& name) const {
    ensure_builtins();
    std::lock_guard<std::mutex> l(mu_);
    auto it = items_.find(name);
    return it == items_.end() ? nullptr : &it->second;
  }
  /// Runs the builtins hook, once, if it is set (lookups call this themselves).
  void ensure_builtins() const {
    if (!builtins_ || builtins_done_.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> l(builtins_mu_);
    // The hook may be set after a first lookup; until then there is nothing to run.
    if (builtins_done_.load(std::memory_order_relaxed) || *builtins_ == nullptr) return;
    // Done first: the hook registers through add(), and may look names up.
    builtins_done_.store(true, std::memory_order_release);
    (*builtins_)();
  }

  /// Every registered name, sorted.
  std::vector<std::string> names() const {
    ensure_builtins();
    std::lock_guard<std::mutex> l(mu_);
    std::vector<std::string> n;
    for (const auto& [k, v] : items_) n.push_back(k);
    return n;
  }

 private:
  std::string kind_;
  std::string hint_;
  void (**builtins_)();
  mutable std::mutex mu_;
  mutable std::mutex builtins_mu_;
  mutable std::atomic<bool> builtins_done_{false};
  std::map<std::string, Factory> items_;
};

}  // namespace kiln
