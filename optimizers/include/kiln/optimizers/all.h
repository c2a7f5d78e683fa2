#pragma once
// Every built-in optimizer and learning-rate schedule.
//
// To add an optimizer:
//   1. optimizers/include/kiln/optimizers/foo.h: `struct FooOptions { LearningRate learning_rate = ...;
//      ...; OptimizerOptions base; };` and `class Foo : public Optimizer`.
//   2. optimizers/src/foo.cpp: build_slots() adds the slots per variable, in
//      Keras's order; update_step() is Keras's formula with kiln ops.
//   3. Register "foo" and "Foo" in optimizers/src/register_optimizers.cpp, include it here.
#include "kiln/optimizers/adadelta.h"
#include "kiln/optimizers/adagrad.h"
#include "kiln/optimizers/adam.h"
#include "kiln/optimizers/adamax.h"
#include "kiln/optimizers/adamw.h"
#include "kiln/optimizers/ftrl.h"
#include "kiln/optimizers/lion.h"
#include "kiln/optimizers/nadam.h"
#include "kiln/optimizers/register.h"
#include "kiln/optimizers/rmsprop.h"
#include "kiln/optimizers/schedules.h"
#include "kiln/optimizers/sgd.h"

namespace kiln::optimizers::detail {
// Registers the built-ins in every program that includes this header (a static
// library would otherwise drop an unreferenced registration object).
inline const bool builtins_registered = (register_builtins(), true);
}  // namespace kiln::optimizers::detail
