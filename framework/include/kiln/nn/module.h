#pragma once
// kiln::Module: the tf.Module analogue, for plain variable tracking without
// the Layer machinery (no build, no input spec).
//
//   class Dense : public kiln::Module {
//    public:
//     Dense(int64_t in, int64_t out) : Module("dense") {
//       w = add_variable(kiln::random::normal({in, out}), {.name = "w"});
//       b = add_variable(kiln::zeros({out}), {.name = "b"});
//     }
//     kiln::Tensor operator()(const kiln::Tensor& x) { return kiln::relu(kiln::matmul(x, w) + b); }
//     kiln::Variable w, b;
//   };
//
// Order (stable and documented): variables() lists this module's own
// variables in creation order, then each tracked submodule's variables
// (recursively, depth-first) in tracking order; a variable reachable twice is
// listed once. submodules() is every descendant, depth-first pre-order.
#include <memory>
#include <string>
#include <vector>

#include "kiln/autodiff/variable.h"

namespace kiln {

/// Plain variable tracking without the Layer machinery (tf.Module). variables() lists
/// this module's own variables in creation order, then each tracked submodule's
/// (depth-first), each variable once.
class Module {
 public:
  /// A module named `name`.
  explicit Module(std::string name = "");
  virtual ~Module() = default;
  /// The module's name.
  const std::string& name() const { return name_; }

  /// Own variables, then submodules', depth-first (tf.Module.variables).
  std::vector<Variable> variables() const;
  /// The trainable ones of variables().
  std::vector<Variable> trainable_variables() const;
  /// Every descendant module, depth-first pre-order.
  std::vector<std::shared_ptr<Module>> submodules() const;

 protected:
  /// Creates a variable owned by this module (path "<module>/<name>").
  Variable add_variable(const Tensor& initial_value, VariableOptions options = {});
  /// Tracks an existing variable.
  Variable track(Variable v);
  /// Tracks a submodule.
  template <class M>
  std::shared_ptr<M> track(std::shared_ptr<M> m) {
    track_module(m);
    return m;
  }
  /// Tracks a submodule (the non-template form of track()).
  void track_module(std::shared_ptr<Module> m);

 private:
  void collect(std::vector<Variable>& out, std::vector<const void*>& seen) const;
  std::string name_;
  std::vector<Variable> variables_;
  std::vector<std::shared_ptr<Module>> modules_;
};

}  // namespace kiln
