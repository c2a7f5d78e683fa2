#pragma once
// Variable: a named, mutable tensor with a `trainable` flag. Reading it inside
// a GradientTape watches it (if trainable). Copies of a Variable handle alias
// the same variable; constructing one from a tensor copies the tensor.
//
//   kiln::Variable w(kiln::ones({3, 2}), {.name = "w"});
//   w.assign_sub(0.1 * grad);
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "kiln/core/tensor.h"

namespace kiln {

/// Options of a Variable (tf.Variable's and Keras's variable arguments).
struct VariableOptions {
  std::string name = "Variable";  ///< The variable's name.
  bool trainable = true;  ///< Whether optimizers and tapes treat it as trainable.
  /// Applied by optimizers after each update (Keras's `constraint`).
  std::function<Tensor(const Tensor&)> constraint = nullptr;
  /// Whether reads inside an AutocastScope give the scope's dtype (Keras's
  /// `autocast`); false keeps normalization statistics in float32 under mixed policies.
  bool autocast = true;
};

struct VariableImpl;

/// A named, mutable tensor (tf.Variable, keras.Variable). Copies of the handle alias
/// the same variable; constructing one from a tensor copies the tensor. Reading a
/// trainable variable inside a GradientTape watches it.
class Variable {
 public:
  /// An undefined variable (no storage); defined() is false.
  Variable() = default;
  /// A variable holding a copy of `initial_value`.
  explicit Variable(const Tensor& initial_value, VariableOptions options = {});

  /// Whether the variable has storage.
  bool defined() const { return impl_ != nullptr; }
  /// The variable's name ("kernel").
  const std::string& name() const;
  /// Keras's variable path, e.g. "dense/kernel" (defaults to the name).
  const std::string& path() const;
  /// Sets the variable path.
  void set_path(const std::string& path);
  /// Whether optimizers update it and tapes watch it automatically.
  bool trainable() const;
  /// Sets trainable().
  void set_trainable(bool trainable);
  /// Whether value() inside an AutocastScope casts a float variable to the scope's dtype.
  bool autocast() const;
  /// The constraint applied after each optimizer update; empty for none.
  const std::function<Tensor(const Tensor&)>& constraint() const;
  /// The value's shape.
  Shape shape() const;
  /// The element type.
  DType dtype() const;
  /// Where the storage lives.
  Device device() const;
  /// A process-unique id.
  uint64_t id() const;

  /// The current value; inside an active tape this watches a trainable variable.
  /// Inside an AutocastScope a float variable with autocast() reads as the
  /// scope's dtype, through a cast that gradients pass back through.
  /// The result is a snapshot, as in TF: a later assign does not change it (the
  /// variable moves to fresh storage when a snapshot still shares its buffer).
  Tensor value() const;
  /// The current value (value()).
  operator Tensor() const { return value(); }
  /// The current value without telling any tape: a live view that follows later assigns.
  Tensor read_value_untracked() const;
  /// For fused optimizer updates that write the buffer in place: the live view,
  /// after moving the variable to its own storage if any snapshot shares it.
  Tensor value_for_update();

  /// Updates. The shape must match; errors name the variable and both shapes. They
  /// write in place unless a snapshot (value()) still shares the buffer, and
  /// return this variable so that updates chain as in TF:
  ///   v.assign_add(1).assign_sub(2);
  Variable& assign(const Tensor& v);
  /// Adds `v` in place (tf's assign_add).
  Variable& assign_add(const Tensor& v);
  /// Subtracts `v` in place (tf's assign_sub).
  Variable& assign_sub(const Tensor& v);
  /// A number takes the variable's dtype (TF's weak typing of Python numbers);
  /// like a scalar tensor, it fits only a scalar variable.
  template <class N>
    requires std::is_arithmetic_v<N>
  Variable& assign(N v) { return assign(Tensor(static_cast<double>(v), dtype()).to(device())); }
  /// Adds a number of the variable's dtype.
  template <class N>
    requires std::is_arithmetic_v<N>
  Variable& assign_add(N v) { return assign_add(Tensor(static_cast<double>(v), dtype()).to(device())); }
  /// Subtracts a number of the variable's dtype.
  template <class N>
    requires std::is_arithmetic_v<N>
  Variable& assign_sub(N v) { return assign_sub(Tensor(static_cast<double>(v), dtype()).to(device())); }
  /// Moves storage to another device in place (model.to(device)).
  void move_to(Device device);

  /// Whether both handles refer to the same variable.
  bool same_as(const Variable& o) const { return impl_ == o.impl_; }
  /// The shared state (for ops and backends).
  const std::shared_ptr<VariableImpl>& impl() const { return impl_; }

 private:
  std::shared_ptr<VariableImpl> impl_;
};

/// While alive, reads of `variable` (value()) on this thread return `value` itself,
/// with its tape identity, as Keras's StatelessScope maps a variable to a value. A
/// wrapper can so run a layer on a function of its weights (SpectralNormalization's
/// kernel / sigma) and gradients flow through that function to the variable. Scopes
/// nest; the innermost wins. The variable itself is not written.
class VariableValueScope {
 public:
  /// Maps `variable` to `value` (same shape and dtype) until destruction.
  VariableValueScope(const Variable& variable, const Tensor& value);
  ~VariableValueScope();  ///< Ends the mapping.
  VariableValueScope(const VariableValueScope&) = delete;  ///< Not copyable: a scope is a stack entry.
  VariableValueScope& operator=(const VariableValueScope&) = delete;  ///< Not copy-assignable.
};

/// While alive, value() of a float variable with autocast() on this thread is cast
/// to `dtype` (Keras's AutocastScope, which a layer under a mixed policy enters for
/// its call). No dtype turns casting off inside an outer scope. Scopes nest.
class AutocastScope {
 public:
  /// Reads cast to `dtype` (a float dtype), or left alone when none, until destruction.
  explicit AutocastScope(std::optional<DType> dtype);
  ~AutocastScope();  ///< Restores the enclosing scope.
  AutocastScope(const AutocastScope&) = delete;  ///< Not copyable: a scope is a stack entry.
  AutocastScope& operator=(const AutocastScope&) = delete;  ///< Not copy-assignable.
  /// The dtype reads are cast to on this thread, if any.
  static std::optional<DType> current();

 private:
  std::optional<DType> saved_;
};

}  // namespace kiln
