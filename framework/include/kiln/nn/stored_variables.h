#pragma once
// How a layer's variables appear in a Keras weights file ("<layer>/vars/<i>").
// Most layers store their variables as Keras's default save_own_variables does:
// trainable ones first, then the rest, each holding its own value. A layer that
// overrides save_own_variables in Keras (LoRA layers save their kernel with the
// low-rank delta merged in, and leave the adapters out; quantized layers keep
// Keras's order of kernel, bias and scales; a tf_idf lookup layer stores its idf
// weights under the name "idf_weights") implements CustomVariableStore, which the
// weights reader and writer look for.
#include <functional>
#include <string>
#include <vector>

#include "kiln/autodiff/variable.h"
#include "kiln/core/tensor.h"

namespace kiln {

class Layer;

/// One "vars/<i>" entry of a layer: the variable it loads into, and how to compute
/// the value saved for it when that is not the variable's own. Computed only when a
/// file is written, so that listing the entries for a load costs nothing.
struct StoredVariable {
  Variable variable;  ///< Where the entry loads.
  std::function<Tensor()> saved;  ///< What is written; empty: the variable's value.
  /// The entry's dataset name under "vars/"; empty: its position ("0", "1", ...). Keras
  /// names a few by attribute (a lookup layer's "idf_weights").
  std::string key;
};

/// The `saved` functions of `n` entries whose values come from one computation (a
/// kernel requantized with its LoRA delta merged in, and the kernel's new scales):
/// `compute` runs once, when the first of them is written, and returns the n values.
std::vector<std::function<Tensor()>> saved_together(std::function<std::vector<Tensor>()> compute, std::size_t n);

/// A layer whose Keras file entries differ from its variables, trainable first.
class CustomVariableStore {
 public:
  virtual ~CustomVariableStore() = default;
  /// The entries in file order.
  virtual std::vector<StoredVariable> stored_variables() const = 0;
  /// Runs after every entry was assigned (LoRA layers zero their adapters, as
  /// Keras's load_own_variables does, since the file's kernel has them merged).
  /// Const as the variables are handles: it changes their values, not the layer.
  virtual void after_load_own_variables() const {}
};

/// Keras's default save_own_variables: the layer's trainable variables, then its
/// non-trainable ones (creation order within each); a frozen layer keeps creation order.
std::vector<StoredVariable> default_stored_variables(const Layer& layer);

/// The entries of any layer: its CustomVariableStore's, or the default ones.
std::vector<StoredVariable> stored_variables_of(const Layer& layer);

}  // namespace kiln
