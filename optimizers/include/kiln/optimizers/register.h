#pragma once
namespace kiln::optimizers {
/// Registers every built-in optimizer ("sgd", "adam", ..., and the Keras class
/// names "SGD", "Adam", ...) and learning-rate schedule with the framework's
/// registries, and installs kiln::optimizers::detail::builtins_hook so that
/// optimizers::get()/from_config()/schedule_from_config() find them.
/// Idempotent. kiln::init (the umbrella) calls it; a static initializer in the
/// same TU also installs the hook when the linker keeps that TU.
void register_builtins();
}  // namespace kiln::optimizers
