#pragma once
// Private (framework/src/training): compile()'s arguments resolved per model
// output, as Keras's compile_utils does: which loss, loss weight and metrics
// apply to each output, and what "accuracy" means for it.
#include <cstddef>
#include <string>
#include <vector>

#include "kiln/training/loss.h"
#include "kiln/training/metric.h"
#include "kiln/training/model.h"

namespace kiln::training {

/// A metrics::Mean named `name` (the "loss" and "<output>_loss" trackers).
MetricPtr make_mean_tracker(const std::string& name);

/// Resolves every loss name, so that unknown names fail in compile() as in
/// Keras, and checks that losses given by name name outputs of `model`.
void check_losses(const LossConfig& losses, const Model& model);

/// The loss for output `index` (named `output_name`) of `n_outputs`; empty when none applies.
LossArg loss_for_output(const LossConfig& losses, const std::string& output_name, std::size_t index,
                        std::size_t n_outputs);

/// The weight for output `index`: by name, else by position, else 1.
double loss_weight_for_output(const CompileOptions& options, const std::string& output_name, std::size_t index);

/// The metric arguments that apply to output `output_name`.
std::vector<MetricArg> metrics_for_output(const MetricsConfig& metrics, const std::string& output_name);

/// A fresh metric for `arg`. "accuracy"/"acc" and "crossentropy"/"ce" become
/// the binary, sparse or categorical variant that the shapes call for.
MetricPtr resolve_metric(const MetricArg& arg, const Tensor& y_true, const Tensor& y_pred);

}  // namespace kiln::training
