#pragma once
// Every built-in optimizer and learning-rate schedule.
//
// To add an optimizer:
//   1. optimizers/include/kiln/optimizers/foo.h: `struct FooOptions { LearningRate learning_rate = ...;
//      ...; OptimizerOptions base; KILN_FIELDS(FooOptions, learning_rate, ..., base) };` (members
//      under Keras's keyword names) and `class Foo : public Optimizer` with `using Options = FooOptions;`
//      and the options as given in `o_`.
//   2. optimizers/src/foo.cpp: build_slots() adds the slots per variable, in
//      Keras's order; update_step() is Keras's formula with kiln ops; get_config()
//      is `detail::with_fields(base_config(), o_)` (optimizer_config.h); and one line
//      registers it: KILN_REGISTER_OPTIMIZER(Foo, "Foo", "foo"). Include the header here.
// A schedule lists its constructor arguments with KILN_ARGS (members named as
// Keras's keywords) and registers with KILN_REGISTER_SCHEDULE(Foo, "Foo").
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
