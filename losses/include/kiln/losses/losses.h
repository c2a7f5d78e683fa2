#pragma once
// All built-in losses (Keras's catalogue), one class per header, each with
// its per-sample function (kiln::losses::mean_squared_error, ...).
//
//   model.compile("adam", kiln::losses::SparseCategoricalCrossentropy({.from_logits = true}));
//   auto mse = kiln::losses::get("mse");            // by Keras name or alias
//   Tensor l = (*mse)(y_true, y_pred, sample_weight);
//
// To add a loss:
//   1. losses/include/kiln/losses/<name>.h: an options struct (its own fields,
//      then `reduction` and `name`) whose KILN_FIELDS lists its own fields
//      under Keras's keyword names, the per-sample function, and the class
//      deriving from kiln::Loss (call, class_name, get_config) with
//      `using Options = <Name>Options;` and the options kept in `o_`.
//   2. losses/src/<name>.cpp: the function from differentiable kiln ops (so
//      gradients flow to y_pred); call() squeezes/expands y_true and y_pred to
//      the same rank first, as Keras's LossFunctionWrapper does; get_config is
//      `detail::with_fields(base_config(), o_)` (loss_config.h); and one line
//      registers the class name, snake_case name and aliases:
//        KILN_REGISTER_LOSS(Huber, "Huber", "huber", "huber_loss")
//   3. Tests in tests/losses/: the Keras docstring numbers, each reduction,
//      sample weights, a float64 gradient check and the config round trip.
#include "kiln/training/loss.h"
#include "kiln/losses/binary_crossentropy.h"
#include "kiln/losses/binary_focal_crossentropy.h"
#include "kiln/losses/categorical_crossentropy.h"
#include "kiln/losses/categorical_focal_crossentropy.h"
#include "kiln/losses/categorical_hinge.h"
#include "kiln/losses/cosine_similarity.h"
#include "kiln/losses/hinge.h"
#include "kiln/losses/huber.h"
#include "kiln/losses/kl_divergence.h"
#include "kiln/losses/log_cosh.h"
#include "kiln/losses/mean_absolute_error.h"
#include "kiln/losses/mean_absolute_percentage_error.h"
#include "kiln/losses/mean_squared_error.h"
#include "kiln/losses/mean_squared_logarithmic_error.h"
#include "kiln/losses/poisson.h"
#include "kiln/losses/sparse_categorical_crossentropy.h"
#include "kiln/losses/squared_hinge.h"

namespace kiln::losses {

/// Registers every built-in loss under its Keras names (class name, snake_case
/// name, aliases such as "mse", "kld", "bce") and points
/// losses::detail::builtins_hook at itself. Safe to call any number of times;
/// kiln::init() calls it. Static registration objects are not used because the
/// linker drops unreferenced objects of a static library.
void register_builtins();

/// Including this header registers the built-ins at start-up (as kiln/layers.h does).
inline const bool builtins_registered = (register_builtins(), true);

}  // namespace kiln::losses
