#pragma once
// All built-in metrics (Keras's catalogue), one class per header.
//
//   model.compile("adam", "sparse_categorical_crossentropy",
//                 {"acc", kiln::metrics::SparseCategoricalAccuracy({.name = "my_accuracy"}), kiln::metrics::AUC()});
//   auto m = kiln::metrics::get("precision");
//   m->update_state(y_true, y_pred); m->result(); m->reset_state();
//
// To add a metric:
//   1. A per-sample function? Derive from MeanMetricWrapper and pass the
//      function (see accuracy.h). Otherwise derive from kiln::Metric, create
//      the state in the constructor with add_state(name, shape, init) (it is
//      reset to `init` by reset_state), implement update_state and result.
//   2. Options struct with the metric's own fields (KILN_FIELDS, under Keras's
//      keyword names), then `name` and `dtype`; the class says
//      `using Options = ...;` and keeps them in o_; get_config() is
//      `detail::with_fields(base_config(), o_)` (metrics/src/metric_config.h);
//      clone() = same options.
//   3. One line in its .cpp registers the class name, snake_case name and
//      aliases: KILN_REGISTER_METRIC(Foo, "Foo", "foo").
//   4. Tests in tests/metrics/: the Keras docstring numbers, sample weights,
//      reset_state and the config round trip.
#include "kiln/training/metric.h"
#include "kiln/metrics/accuracy.h"
#include "kiln/metrics/auc.h"
#include "kiln/metrics/binary_accuracy.h"
#include "kiln/metrics/categorical_accuracy.h"
#include "kiln/metrics/confusion_counts.h"
#include "kiln/metrics/cosine_similarity.h"
#include "kiln/metrics/f_score.h"
#include "kiln/metrics/log_cosh_error.h"
#include "kiln/metrics/mean.h"
#include "kiln/metrics/mean_absolute_error.h"
#include "kiln/metrics/mean_absolute_percentage_error.h"
#include "kiln/metrics/mean_iou.h"
#include "kiln/metrics/mean_metric_wrapper.h"
#include "kiln/metrics/mean_squared_error.h"
#include "kiln/metrics/mean_squared_logarithmic_error.h"
#include "kiln/metrics/precision.h"
#include "kiln/metrics/recall.h"
#include "kiln/metrics/root_mean_squared_error.h"
#include "kiln/metrics/sparse_categorical_accuracy.h"
#include "kiln/metrics/sparse_top_k_categorical_accuracy.h"
#include "kiln/metrics/sum.h"
#include "kiln/metrics/top_k_categorical_accuracy.h"

namespace kiln::metrics {

/// Registers every built-in metric under its Keras names (class name,
/// snake_case name, aliases such as "acc", "mse", "rmse") plus the loss names
/// ("binary_crossentropy", "sparse_categorical_crossentropy", ...) as
/// MeanMetricWrappers around the registered losses, and points the framework
/// hooks (metrics::detail::builtins_hook, function_metric_factory) here.
/// Safe to call any number of times; kiln::init() calls it. Loss-name metrics
/// look the loss up when created, so kiln::losses::register_builtins() must
/// have run by then (kiln::init does both).
void register_builtins();

/// Including this header registers the built-ins at start-up (as kiln/layers.h does).
inline const bool builtins_registered = (register_builtins(), true);

}  // namespace kiln::metrics
