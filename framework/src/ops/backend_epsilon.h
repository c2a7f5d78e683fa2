#pragma once
// Private: keras.config.epsilon(), the fuzz factor Keras's ops clip probabilities
// with and default their normalization epsilons to.

namespace kiln::ops {

inline constexpr double kBackendEpsilon = 1e-7;

}  // namespace kiln::ops
