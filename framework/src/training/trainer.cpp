// fit / evaluate / predict: the loops that call train_step / test_step /
// predict_step on the batches an EpochIterator hands out, and the callbacks
// around them. The data side lives in data_adapter and epoch_iterator.
#include <algorithm>
#include <memory>

#include "kiln/ops/array_ops.h"
#include "kiln/data/dataset.h"
#include "kiln/core/error.h"
#include "kiln/training/model.h"
#include "core/profiler_events.h"
#include "training/data_adapter.h"
#include "training/distributed.h"
#include "training/epoch_iterator.h"

namespace kiln {

namespace training {
namespace {

using Callbacks = std::vector<CallbackPtr>;

/// The callbacks of one fit / evaluate / predict call, led by a progress bar
/// when verbose (unless one was given) and ended by `history` when given.
Callbacks make_callbacks(Model& model, const std::vector<CallbackArg>& args, const CallbackParams& params,
                         const std::shared_ptr<History>& history = nullptr) {
  Callbacks cbs;
  auto is_progbar = [](const CallbackPtr& c) { return dynamic_cast<ProgbarLogger*>(c.get()) != nullptr; };
  // Only the chief of a multi-process run prints and writes files.
  const bool chief = distribute::is_chief();
  for (const auto& a : args)
    if (chief || !a.ptr()->chief_only()) cbs.push_back(a.ptr());
  if (chief && params.verbose && std::none_of(cbs.begin(), cbs.end(), is_progbar))
    cbs.insert(cbs.begin(), std::make_shared<ProgbarLogger>());
  if (history) cbs.push_back(history);
  for (auto& c : cbs) {
    c->set_model(&model);
    c->set_params(params);
  }
  return cbs;
}

/// Validation inside fit reports to fit's own callbacks (already set up by
/// fit), except the progress bar, which draws only the training epochs.
Callbacks validation_callbacks(const std::vector<CallbackArg>& args) {
  Callbacks cbs;
  const bool chief = distribute::is_chief();
  for (const auto& a : args)
    if (!dynamic_cast<ProgbarLogger*>(a.ptr().get()) && (chief || !a.ptr()->chief_only())) cbs.push_back(a.ptr());
  return cbs;
}

/// One call of `run` (model.train_function or test_function) per run of
/// global batches with the same row count, each cut to this rank's share
/// (which, for one call, must be the same for all its steps). The last logs,
/// or none when no batch was usable.
template <class Run>
std::optional<Logs> run_steps(Model& model, const std::vector<Batch>& global, Run&& run) {
  std::optional<Logs> logs;
  std::vector<Batch> local;
  for (std::size_t i = 0; i < global.size(); ++i) {
    if (!batch_usable(global[i])) continue;
    local.push_back(local_shard(global[i]));
    const bool flush = i + 1 == global.size() || global[i + 1].x.empty() || global[i].x.empty() ||
                       global[i + 1].x[0].shape()[0] != global[i].x[0].shape()[0];
    if (flush) {
      logs = global_logs(model, run(local));
      local.clear();
    }
  }
  return logs;
}

int steps_per_execution(const Model& model) { return std::max(1, model.compile_options().steps_per_execution); }

/// One evaluation run: evaluate(), and each of fit()'s validation runs.
/// A GPU model's batches are made and uploaded ahead of their steps. Under a
/// data-parallel strategy each rank takes its shard of the global batch on
/// the host first, so there they are not.
void prefetch_for(const Model& model, EpochIterator& batches) {
  if (!active_strategy()) batches.prefetch_to(model.device());
}

Logs test_loop(Model& model, EpochIterator& batches, const Callbacks& cbs) {
  prefetch_for(model, batches);
  const Logs empty;
  for (auto& c : cbs) c->on_test_begin(empty);
  // Starting from fresh metric state keeps training's numbers out of the
  // evaluation; fit resets them again at each epoch start.
  model.reset_metrics();
  Logs logs;
  const int steps = batches.run_epoch_in_groups(steps_per_execution(model), [&](int first, int last, const auto& group) {
    for (auto& c : cbs) c->on_test_batch_begin(first, empty);
    std::optional<Logs> out;
    {
      profiler::detail::Scope step(profiler::detail::Kind::step, "test_step");
      out = run_steps(model, group, [&](const std::vector<Batch>& b) { return model.test_function(b); });
    }
    if (!out) return true;
    logs = *out;
    for (auto& c : cbs) c->on_test_batch_end(last, logs);
    return true;
  });
  if (steps == 0) throw ValueError("evaluate(): the data produced no batches (empty dataset?)");
  for (auto& c : cbs) c->on_test_end(logs);
  return logs;
}

History fit_epochs(Model& model, EpochIterator& train, std::optional<EpochIterator>& val, const FitOptions& o) {
  if (!model.compiled()) throw ValueError("You must call compile() before fit() on model '" + model.name() + "'");
  if (o.epochs < 0) throw ValueError("fit(): epochs must be >= 0, got " + std::to_string(o.epochs));
  auto history = std::make_shared<History>();
  const Callbacks cbs = make_callbacks(model, o.callbacks, {o.epochs, train.num_steps(), o.verbose}, history);
  const Callbacks val_cbs = validation_callbacks(o.callbacks);
  const Logs empty;
  model.stop_training = false;
  model.initial_epoch_override.reset();
  for (auto& c : cbs) c->on_train_begin(empty);
  int first_epoch = model.initial_epoch_override.value_or(o.initial_epoch);
  model.initial_epoch_override.reset();
  sync_at_fit_start(model, o, train.num_steps(), first_epoch);
  prefetch_for(model, train);
  Logs epoch_logs;
  for (int epoch = first_epoch; epoch < o.epochs; ++epoch) {
    model.reset_metrics();
    for (auto& c : cbs) c->on_epoch_begin(epoch, empty);
    Logs logs;
    // Keras's steps_per_execution: the callbacks see each group of steps as one batch.
    const int steps = train.run_epoch_in_groups(steps_per_execution(model), [&](int first, int last, const auto& group) {
      for (auto& c : cbs) c->on_train_batch_begin(first, empty);
      std::optional<Logs> out;
      {
        profiler::detail::Scope step(profiler::detail::Kind::step, "train_step");
        out = run_steps(model, group, [&](const std::vector<Batch>& b) { return model.train_function(b); });
      }
      if (!out) return true;
      logs = *out;
      for (auto& c : cbs) c->on_train_batch_end(last, logs);
      // Keras leaves the epoch right after the batch that set stop_training.
      return !model.stop_training;
    });
    if (steps == 0)
      throw ValueError("fit(): the training data produced no batches (is the dataset empty, or steps_per_epoch 0?)");
    epoch_logs = logs;
    if (val && (epoch + 1 - first_epoch) % std::max(o.validation_freq, 1) == 0)
      for (const auto& [k, v] : test_loop(model, *val, val_cbs)) epoch_logs.set("val_" + k, v);
    for (auto& c : cbs) c->on_epoch_end(epoch, epoch_logs);
    if (model.stop_training) break;
  }
  // With use_ema, the model keeps the moving averages once training ends (Keras).
  const OptimizerPtr& opt = model.optimizer();
  if (opt && opt->options().use_ema) opt->finalize_variable_values(model.trainable_variables());
  for (auto& c : cbs) c->on_train_end(epoch_logs);
  return *history;
}

/// fit's loop; a failure on this rank is reported to the others before it propagates.
History fit_loop(Model& model, EpochIterator& train, std::optional<EpochIterator>& val, const FitOptions& o) {
  try {
    return fit_epochs(model, train, val, o);
  } catch (const std::exception& e) {
    report_failure(e);
    throw;
  }
}

Logs evaluate_loop(Model& model, EpochIterator& batches, const EvaluateOptions& o) {
  if (!model.compiled())
    throw ValueError("You must call compile() before evaluate() on model '" + model.name() + "'");
  try {
    return test_loop(model, batches, make_callbacks(model, o.callbacks, {1, batches.num_steps(), o.verbose}));
  } catch (const std::exception& e) {
    report_failure(e);
    throw;
  }
}

/// Every output of the model over all batches (on the CPU); empty without batches.
std::vector<Tensor> predict_loop(Model& model, EpochIterator& batches, const PredictOptions& o) {
  prefetch_for(model, batches);
  const Callbacks cbs = make_callbacks(model, o.callbacks, {1, batches.num_steps(), o.verbose});
  const Logs empty;
  for (auto& c : cbs) c->on_predict_begin(empty);
  std::vector<std::vector<Tensor>> parts;
  // A batch's outputs come back to the host only after the next batch has been
  // queued: on a GPU the host then prepares batch i+1 (its upload) while the
  // device still computes batch i, instead of each waiting for the other.
  std::vector<Tensor> pending;
  auto collect_pending = [&] {
    for (std::size_t k = 0; k < pending.size(); ++k) parts[k].push_back(pending[k].to(Device::cpu()));
    pending.clear();
  };
  batches.run_epoch([&](int step, const Batch& b) {
    for (auto& c : cbs) c->on_predict_batch_begin(step, empty);
    std::vector<Tensor> out;
    {
      profiler::detail::Scope step(profiler::detail::Kind::step, "predict_step");
      out = model.predict_function(b.x);
    }
    if (parts.empty()) parts.resize(out.size());
    collect_pending();
    pending = std::move(out);
    for (auto& c : cbs) c->on_predict_batch_end(step, empty);
    return true;
  });
  collect_pending();
  for (auto& c : cbs) c->on_predict_end(empty);
  std::vector<Tensor> result;
  for (auto& p : parts) result.push_back(p.size() == 1 ? p[0] : concat(p, 0));
  return result;
}

std::vector<float> to_floats(const Logs& logs) {
  std::vector<float> out;
  for (const auto& [k, v] : logs) out.push_back(static_cast<float>(v));
  return out;
}

}  // namespace
}  // namespace training

using training::ArrayDataAdapter;
using training::DatasetAdapter;
using training::EpochIterator;

// ---------------- fit ----------------
History Model::fit(const Data& x, const Data& y, FitOptions o) {
  training::Arrays train = training::make_arrays(*this, x, y, o.sample_weight, "fit()");
  training::apply_class_weight(train, o.class_weight);
  auto val_arrays = training::take_validation_arrays(*this, o, &train);
  const int bs = training::checked_batch_size(o.batch_size, "fit()");
  auto batches = EpochIterator::for_training(std::make_shared<ArrayDataAdapter>(std::move(train), bs, o.shuffle),
                                             o.steps_per_epoch);
  auto val = training::validation_iterator(*this, o, std::move(val_arrays));
  return training::fit_loop(*this, batches, val, o);
}

History Model::fit(const Dataset& ds, FitOptions o) {
  auto adapter = std::make_shared<DatasetAdapter>(ds, *this);
  training::require_finite(*adapter, o.steps_per_epoch, "fit(): the dataset is infinite; pass steps_per_epoch");
  auto batches = EpochIterator::for_training(std::move(adapter), o.steps_per_epoch);
  auto val = training::validation_iterator(*this, o, training::take_validation_arrays(*this, o, nullptr));
  return training::fit_loop(*this, batches, val, o);
}

// ---------------- evaluate ----------------
Logs Model::evaluate_logs(const Data& x, const Data& y, EvaluateOptions o) {
  training::Arrays a = training::make_arrays(*this, x, y, o.sample_weight, "evaluate()");
  const int bs = training::checked_batch_size(o.batch_size, "evaluate()");
  auto batches = EpochIterator::for_runs(std::make_shared<ArrayDataAdapter>(std::move(a), bs, false), o.steps);
  return training::evaluate_loop(*this, batches, o);
}

std::vector<float> Model::evaluate(const Data& x, const Data& y, EvaluateOptions o) {
  return training::to_floats(evaluate_logs(x, y, std::move(o)));
}

std::vector<float> Model::evaluate(const Dataset& ds, EvaluateOptions o) {
  auto adapter = std::make_shared<DatasetAdapter>(ds, *this);
  training::require_finite(*adapter, o.steps, "evaluate(): the dataset is infinite; pass steps");
  auto batches = EpochIterator::for_runs(std::move(adapter), o.steps);
  return training::to_floats(training::evaluate_loop(*this, batches, o));
}

// ---------------- predict ----------------
std::vector<Tensor> Model::predict_outputs(const Data& x, PredictOptions o) {
  training::Arrays a = training::make_input_arrays(*this, x);
  const int bs = training::checked_batch_size(o.batch_size, "predict()");
  auto batches = EpochIterator::for_runs(std::make_shared<ArrayDataAdapter>(std::move(a), bs, false), o.steps);
  return training::predict_loop(*this, batches, o);
}

Tensor Model::predict(const Data& x, PredictOptions o) {
  auto outs = predict_outputs(x, std::move(o));
  if (outs.size() != 1)
    throw ValueError("predict(): model '" + name() + "' has " + std::to_string(outs.size()) +
                     " outputs; use predict_outputs()");
  return outs[0];
}

Tensor Model::predict(const Dataset& ds, PredictOptions o) {
  auto adapter = std::make_shared<DatasetAdapter>(ds, *this);
  training::require_finite(*adapter, o.steps, "predict(): the dataset is infinite; pass steps");
  auto batches = EpochIterator::for_runs(std::move(adapter), o.steps);
  auto outs = training::predict_loop(*this, batches, o);
  if (outs.empty()) throw ValueError("predict(): the dataset produced no batches");
  return outs[0];
}

// ---------------- single batches ----------------
Logs Model::train_on_batch(const Data& x, const Data& y, const Tensor& sw) {
  training::Arrays a = training::make_arrays(*this, x, y, sw, "train_on_batch()");
  reset_metrics();
  return train_function(Batch{a.x, a.y, a.sample_weight});
}

Logs Model::test_on_batch(const Data& x, const Data& y, const Tensor& sw) {
  training::Arrays a = training::make_arrays(*this, x, y, sw, "test_on_batch()");
  reset_metrics();
  return test_function(Batch{a.x, a.y, a.sample_weight});
}

Tensor Model::predict_on_batch(const Data& x) {
  auto out = predict_function(training::order_by_names(x, input_names(), "input"));
  return out.at(0);
}

}  // namespace kiln
