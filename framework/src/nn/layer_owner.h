#pragma once
// Sublayers tracked by calling them, as Keras tracks them by assignment: a layer
// that runs inside another layer's call() or build() becomes that layer's
// sublayer (its weights and losses join the owner's), so a custom layer keeps
// its weights whether or not it called track().
#include <cstdint>

#include "kiln/nn/layer.h"

namespace kiln::detail {

/// Marks `layer` as the owner of the layers called until the scope ends; on
/// entry, `layer` itself is adopted by the enclosing owner, if any.
class OwnerScope {
 public:
  explicit OwnerScope(Layer& layer);
  ~OwnerScope();
  OwnerScope(const OwnerScope&) = delete;
  OwnerScope& operator=(const OwnerScope&) = delete;

 private:
  Layer* previous_;
  uint64_t previous_since_;
};

/// A process-wide increasing number: layers take one when made, owners when entered.
uint64_t next_layer_serial();

}  // namespace kiln::detail
