// One step of training, evaluation or prediction: the override points that
// fit / evaluate / predict call once per batch, and the loss and metrics they use.
#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/ops/math_ops.h"
#include "kiln/training/model.h"
#include "distribute/gradient_reducer.h"
#include "training/device_prefetch.h"
#include "training/distributed.h"

namespace kiln {

using training::batch_to;

namespace {
/// A GPU model whose metrics cannot all run on the GPU keeps them on the
/// host; device values are copied there (the one place such a step waits for
/// the device).
std::vector<Tensor> to_host(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  for (const auto& t : ts) out.push_back(t.defined() ? t.to(Device::cpu()) : t);
  return out;
}
}  // namespace

Tensor Model::compute_loss(const Batch& b, const std::vector<Tensor>& y_pred) {
  if (!compiled_) throw ValueError("You must call compile() before training or evaluating model '" + name() + "'");
  resolve_compile(b.y, y_pred);
  Tensor total;
  for (std::size_t i = 0; i < y_pred.size(); ++i) {
    auto& ol = output_losses_[i];
    if (!ol.loss) continue;
    if (i >= b.y.size())
      throw ValueError("Model '" + name() + "' has " + std::to_string(y_pred.size()) + " outputs but only " +
                       std::to_string(b.y.size()) + " target(s) were given");
    Tensor l = (*ol.loss)(b.y[i], y_pred[i], b.sample_weight);
    if (ol.tracker) {
      Tensor lh = metrics_on_device_ ? l : l.to(Device::cpu());
      ol.tracker->update_state(Tensor(), lh, scalar_like(static_cast<double>(y_pred[i].shape()[0]), lh));
    }
    if (ol.weight != 1.0) l = l * ol.weight;
    total = total.defined() ? total + l : l;
  }
  for (const auto& r : losses()) total = total.defined() ? total + cast(r, total.dtype()) : r;
  if (!total.defined()) {
    if (compile_options_.loss.empty())
      throw ValueError("No loss to compute. Provide a `loss` argument in `compile()`.");
    throw ValueError("compile(): no loss applies to any output of model '" + name() + "'");
  }
  return total;
}

Logs Model::compute_metrics(const Batch& batch_in, const std::vector<Tensor>& y_pred_in, const Tensor& loss_in) {
  resolve_compile(batch_in.y, y_pred_in);
  // Values stay where they are unless the metrics live on the host and they do not.
  const bool stay = y_pred_in.empty() || y_pred_in[0].device().is_cpu() || metrics_on_device_;
  const Batch b = stay ? batch_in : batch_to(batch_in, Device::cpu());
  const std::vector<Tensor> y_pred = stay ? y_pred_in : to_host(y_pred_in);
  const Tensor loss = stay ? loss_in : loss_in.to(Device::cpu());
  const double batch = static_cast<double>(b.x.empty() ? 1 : b.x[0].shape()[0]);
  loss_tracker_->update_state(Tensor(), loss, scalar_like(batch, loss));
  for (std::size_t i = 0; i < y_pred.size() && i < b.y.size(); ++i) {
    // Metrics compute in their float32 dtype, as Keras converts a mixed policy's 16-bit outputs.
    const DType pd = y_pred[i].dtype();
    const Tensor yp = pd == DType::float16 || pd == DType::bfloat16 ? cast(y_pred[i], DType::float32) : y_pred[i];
    for (auto& m : output_metrics_[i]) m->update_state(b.y[i], yp);
    for (auto& m : output_weighted_metrics_[i]) m->update_state(b.y[i], yp, b.sample_weight);
  }
  Logs logs;
  // Read when the logs are, so a traced step returns them as tensors.
  for (const auto& m : metrics()) logs.set(m->name(), m->result());
  return logs;
}

void Model::forward_backward_update(const Batch& b, std::vector<Tensor>& y_pred, Tensor& loss) {
  std::vector<std::optional<Tensor>> grads;
  std::vector<Variable> vars;
  distribute::DataParallel* strategy = training::active_strategy();
  {
    GradientTape tape;
    y_pred = call_outputs(b.x, true);
    loss = compute_loss(b, y_pred);
    vars = trainable_variables();
    // A LossScaleOptimizer differentiates the scaled loss; the logs keep the loss itself.
    const Tensor target = optimizer_->scale_loss(loss);
    if (!strategy) {
      grads = tape.gradient(target, vars);
    } else {
      // Each bucket's all-reduce starts as the backward pass finishes it.
      const distribute::GradientReducer reducer(vars, strategy->options());
      grads = reducer.finish(tape.gradient(target, vars, reducer.hook()));
    }
  }
  const distribute::ReducedGradientsScope reduced;
  optimizer_->apply(grads, vars);
}

Logs Model::train_step(const Batch& batch) {
  if (!compiled_) throw ValueError("You must call compile() before training model '" + name() + "'");
  // Batches follow the model's device (model.to(Device::cuda(0))).
  const Batch b = batch_to(batch, device());
  std::vector<Tensor> y_pred;
  Tensor loss;
  forward_backward_update(b, y_pred, loss);
  return compute_metrics(b, y_pred, loss);
}

Logs Model::test_step(const Batch& batch) {
  const Batch b = batch_to(batch, device());
  std::vector<Tensor> y_pred = call_outputs(b.x, false);
  Tensor loss = compute_loss(b, y_pred);
  return compute_metrics(b, y_pred, loss);
}

std::vector<Tensor> Model::predict_step(const std::vector<Tensor>& x) {
  if (device().is_cpu()) return call_outputs(x, false);
  std::vector<Tensor> xd;
  for (const auto& t : x) xd.push_back(t.to(device()));
  return call_outputs(xd, false);
}

}  // namespace kiln
