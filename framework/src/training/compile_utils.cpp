// compile(): losses and metrics resolved per output, and the metric list that
// fit / evaluate report (Model::metrics).
#include "training/compile_utils.h"

#include <algorithm>

#include "kiln/backend/device_scope.h"
#include "kiln/core/error.h"
#include "kiln/core/registry.h"
#include "kiln/training/loss_scale_optimizer.h"
#include "training/distributed.h"

namespace kiln {
namespace training {

MetricPtr make_mean_tracker(const std::string& name) {
  auto m = metrics::get("mean");
  m->set_name(name);
  return m;
}

void check_losses(const LossConfig& losses, const Model& model) {
  if (!losses.single().empty()) losses.single().resolve();
  for (const auto& [output, loss] : losses.by_name()) {
    (void)output;
    loss.resolve();
  }
  for (const auto& loss : losses.by_position()) loss.resolve();
  if (losses.by_name().empty() || !model.is_functional()) return;
  const auto names = model.output_names();
  for (const auto& [output, loss] : losses.by_name()) {
    (void)loss;
    if (std::find(names.begin(), names.end(), output) != names.end()) continue;
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw ValueError("compile(): loss given for unknown output '" + output + "'; the model's outputs are: " + known);
  }
}

LossArg loss_for_output(const LossConfig& losses, const std::string& output_name, std::size_t index,
                        std::size_t n_outputs) {
  if (!losses.by_name().empty()) {
    auto it = losses.by_name().find(output_name);
    return it != losses.by_name().end() ? it->second : LossArg();
  }
  if (!losses.by_position().empty()) {
    if (losses.by_position().size() != n_outputs)
      throw ValueError("compile(): " + std::to_string(losses.by_position().size()) + " losses given for a model with " +
                       std::to_string(n_outputs) + " outputs");
    return losses.by_position()[index];
  }
  return losses.single();
}

double loss_weight_for_output(const CompileOptions& options, const std::string& output_name, std::size_t index) {
  auto it = options.loss_weights.find(output_name);
  if (it != options.loss_weights.end()) return it->second;
  if (index < options.loss_weights_list.size()) return options.loss_weights_list[index];
  return 1.0;
}

std::vector<MetricArg> metrics_for_output(const MetricsConfig& metrics, const std::string& output_name) {
  if (metrics.by_name().empty()) return metrics.all();
  auto it = metrics.by_name().find(output_name);
  return it != metrics.by_name().end() ? it->second : std::vector<MetricArg>{};
}

MetricPtr resolve_metric(const MetricArg& arg, const Tensor& y_true, const Tensor& y_pred) {
  if (arg.ptr()) return arg.ptr()->clone();
  const std::string& n = arg.name();
  std::string cls = n;
  if (n == "accuracy" || n == "acc" || n == "crossentropy" || n == "ce") {
    const int64_t yt_rank = y_true.rank(), yp_rank = y_pred.rank();
    const int64_t yt_last = yt_rank ? y_true.shape()[-1] : 1, yp_last = yp_rank ? y_pred.shape()[-1] : 1;
    const bool is_binary = yp_last == 1;
    const bool is_sparse = yt_rank < yp_rank || (yt_last == 1 && yp_last > 1);
    if (n == "accuracy" || n == "acc")
      cls = is_binary ? "binary_accuracy" : is_sparse ? "sparse_categorical_accuracy" : "categorical_accuracy";
    else
      cls = is_binary ? "binary_crossentropy" : is_sparse ? "sparse_categorical_crossentropy" : "categorical_crossentropy";
  }
  // The name given, not the resolved class, is the history key.
  auto m = metrics::get(cls);
  m->set_name(n);
  return m;
}

}  // namespace training

void Model::compile(CompileOptions o) {
  optimizer_ = o.optimizer.resolve();
  // Keras wraps the optimizer for float16 models, whose small gradients would underflow.
  if (o.auto_scale_loss && dtype_policy().name() == "mixed_float16" && optimizer_ &&
      !dynamic_cast<LossScaleOptimizer*>(optimizer_.get()))
    optimizer_ = std::make_shared<LossScaleOptimizer>(optimizer_, LossScaleOptimizerOptions{.name = "loss_scale_optimizer"});
  if (!o.loss.empty()) training::check_losses(o.loss, *this);
  if (o.steps_per_execution < 1)
    throw ValueError("compile(): steps_per_execution must be a positive integer, got " +
                     std::to_string(o.steps_per_execution));
  compile_options_ = std::move(o);
  compiled_ = true;
  compile_resolved_ = false;
  compiled_steps_.reset();
  loss_tracker_ = training::make_mean_tracker("loss");
}

void Model::resolve_compile(const std::vector<Tensor>& y_true, const std::vector<Tensor>& y_pred) {
  if (compile_resolved_) return;
  resolve_outputs(y_true, y_pred, Device::cpu());
  // A GPU model keeps its metrics on the GPU when every one of them can run
  // there, so that a step never waits to copy its predictions to the host.
  // They are made again there rather than moved: a trace may already have
  // recorded the first ones' initial values.
  metrics_on_device_ = false;
  if (device().is_cpu() || training::active_strategy()) return;
  for (const auto& m : metrics())
    if (!m->runs_on_device()) return;
  resolve_outputs(y_true, y_pred, device());
  const DeviceScope on(device());
  loss_tracker_ = training::make_mean_tracker("loss");
  metrics_on_device_ = true;
}

void Model::resolve_outputs(const std::vector<Tensor>& y_true, const std::vector<Tensor>& y_pred, Device place) {
  const DeviceScope on(place);
  const auto names = output_names();
  const std::size_t n_out = y_pred.size();
  const bool multi = n_out > 1;
  output_losses_.assign(n_out, {});
  output_metrics_.assign(n_out, {});
  output_weighted_metrics_.assign(n_out, {});
  for (std::size_t i = 0; i < n_out; ++i) {
    const std::string oname = i < names.size() ? names[i] : "output_" + std::to_string(i + 1);
    OutputLoss& ol = output_losses_[i];
    LossArg arg = training::loss_for_output(compile_options_.loss, oname, i, n_out);
    if (!arg.empty()) ol.loss = arg.resolve();
    ol.weight = training::loss_weight_for_output(compile_options_, oname, i);
    if (multi && ol.loss) ol.tracker = training::make_mean_tracker(oname + "_loss");

    auto add_metrics = [&](const MetricsConfig& mc, std::vector<MetricPtr>& dst) {
      if (i >= y_true.size()) return;
      for (const auto& a : training::metrics_for_output(mc, oname)) {
        MetricPtr m = training::resolve_metric(a, y_true[i], y_pred[i]);
        if (multi) m->set_name(oname + "_" + m->name());
        dst.push_back(m);
      }
    };
    add_metrics(compile_options_.metrics, output_metrics_[i]);
    add_metrics(compile_options_.weighted_metrics, output_weighted_metrics_[i]);
  }
  compile_resolved_ = true;
}

std::vector<MetricPtr> Model::metrics() const {
  std::vector<MetricPtr> out;
  if (loss_tracker_) out.push_back(loss_tracker_);
  for (const auto& ol : output_losses_)
    if (ol.tracker) out.push_back(ol.tracker);
  for (std::size_t i = 0; i < output_metrics_.size(); ++i) {
    for (const auto& m : output_metrics_[i]) out.push_back(m);
    for (const auto& m : output_weighted_metrics_[i]) out.push_back(m);
  }
  out.insert(out.end(), tracked_metrics_.begin(), tracked_metrics_.end());
  return out;
}

std::vector<std::string> Model::metrics_names() const {
  std::vector<std::string> n;
  for (const auto& m : metrics()) n.push_back(m->name());
  return n;
}

void Model::reset_metrics() {
  for (auto& m : metrics()) m->reset_state();
}

}  // namespace kiln
