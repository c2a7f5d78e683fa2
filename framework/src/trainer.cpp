// fit / evaluate / predict and the default train_step / test_step.
// fit() is only the loop: batches -> train_step -> callbacks.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "kiln/array_ops.h"
#include "kiln/dataset.h"
#include "kiln/error.h"
#include "kiln/gradient_tape.h"
#include "kiln/math_ops.h"
#include "kiln/model.h"
#include "kiln/random.h"
#include "kiln/reduce_ops.h"
#include "kiln/registry.h"

namespace kiln {

namespace {

/// Reorders named data to match `names`, or returns it unchanged when given by position.
std::vector<Tensor> order_by_names(const Data& d, const std::vector<std::string>& names, const char* what) {
  if (d.names().empty()) return d.tensors();
  std::vector<Tensor> out;
  for (const auto& n : names) {
    auto it = std::find(d.names().begin(), d.names().end(), n);
    if (it == d.names().end()) {
      std::string given;
      for (const auto& g : d.names()) given += (given.empty() ? "" : ", ") + g;
      throw ValueError(std::string("No data provided for ") + what + " '" + n + "'. Expected names: received {" + given + "}");
    }
    out.push_back(d.tensors()[static_cast<std::size_t>(it - d.names().begin())]);
  }
  return out;
}

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

Tensor take_rows(const Tensor& t, const Tensor& idx) { return gather(t, idx, 0); }

/// Builds per-sample weights from class_weight (labels sparse or one-hot).
Tensor class_weights_to_sample_weights(const std::map<int, double>& cw, const Tensor& y) {
  Tensor labels = y;
  if (y.rank() >= 2 && y.shape()[-1] > 1) labels = argmax(y, -1);
  std::vector<int64_t> lv = labels.to_vector<int64_t>();
  std::vector<float> w(lv.size(), 1.0f);
  for (std::size_t i = 0; i < lv.size(); ++i) {
    auto it = cw.find(static_cast<int>(lv[i]));
    if (it != cw.end()) w[i] = static_cast<float>(it->second);
  }
  return Tensor(w, Shape{static_cast<int64_t>(w.size())});
}

struct StopEpoch {};

struct Callbacks {
  std::vector<CallbackPtr> list;
  void set(Model* m, const CallbackParams& p) {
    for (auto& c : list) {
      c->set_model(m);
      c->set_params(p);
    }
  }
};

}  // namespace

// ---------------- steps ----------------
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
      Tensor lh = l.to(Device::cpu());
      ol.tracker->update_state(Tensor(), lh, scalar_like(static_cast<double>(y_pred[i].shape()[0]), lh));
    }
    if (ol.weight != 1.0) l = l * ol.weight;
    total = total.defined() ? total + l : l;
  }
  if (!total.defined()) throw ValueError("compile(): no loss applies to any output of model '" + name() + "'");
  for (const auto& r : losses()) total = total + cast(r, total.dtype());
  return total;
}

namespace {
/// Metric state lives on the host; device values are copied there (the one
/// place a training step waits for the device).
std::vector<Tensor> to_host(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  for (const auto& t : ts) out.push_back(t.defined() ? t.to(Device::cpu()) : t);
  return out;
}
Batch batch_to(const Batch& b, Device d) {
  if (d.is_cpu()) {
    bool all_cpu = true;
    for (const auto& t : b.x) all_cpu = all_cpu && t.device().is_cpu();
    for (const auto& t : b.y) all_cpu = all_cpu && t.device().is_cpu();
    if (all_cpu) return b;
  }
  Batch o;
  for (const auto& t : b.x) o.x.push_back(t.to(d));
  for (const auto& t : b.y) o.y.push_back(t.to(d));
  if (b.sample_weight.defined()) o.sample_weight = b.sample_weight.to(d);
  return o;
}
}  // namespace

Logs Model::compute_metrics(const Batch& batch_in, const std::vector<Tensor>& y_pred_in, const Tensor& loss_in) {
  const bool on_host = y_pred_in.empty() || y_pred_in[0].device().is_cpu();
  const Batch b = on_host ? batch_in : batch_to(batch_in, Device::cpu());
  const std::vector<Tensor> y_pred = on_host ? y_pred_in : to_host(y_pred_in);
  const Tensor loss = loss_in.to(Device::cpu());
  resolve_compile(b.y, y_pred);
  const double batch = static_cast<double>(b.x.empty() ? 1 : b.x[0].shape()[0]);
  loss_tracker_->update_state(Tensor(), loss, scalar_like(batch, loss));
  for (std::size_t i = 0; i < y_pred.size() && i < b.y.size(); ++i) {
    for (auto& m : output_metrics_[i]) m->update_state(b.y[i], y_pred[i]);
    for (auto& m : output_weighted_metrics_[i]) m->update_state(b.y[i], y_pred[i], b.sample_weight);
  }
  Logs logs;
  for (const auto& m : metrics()) logs.set(m->name(), m->result().item<double>());
  return logs;
}

Logs Model::train_step(const Batch& batch) {
  if (!compiled_) throw ValueError("You must call compile() before training model '" + name() + "'");
  // Batches follow the model's device (model.to(Device::cuda(0))).
  const Batch b = batch_to(batch, device());
  std::vector<Tensor> y_pred;
  Tensor loss;
  std::vector<std::optional<Tensor>> grads;
  std::vector<Variable> vars;
  {
    GradientTape tape;
    y_pred = call_outputs(b.x, true);
    loss = compute_loss(b, y_pred);
    vars = trainable_variables();
    grads = tape.gradient(loss, vars);
  }
  optimizer_->apply(grads, vars);
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

// ---------------- data plumbing ----------------
namespace {
struct ArrayData {
  std::vector<Tensor> x, y;
  Tensor sw;
  int64_t n = 0;
};

ArrayData make_arrays(const Model& m, const Data& x, const Data& y, const Tensor& sw, const char* where) {
  ArrayData a;
  a.x = order_by_names(x, m.input_names(), "input");
  a.y = order_by_names(y, m.output_names(), "output");
  a.sw = sw;
  if (a.x.empty()) throw ValueError(std::string(where) + ": no input data (x) was given");
  for (const auto& t : a.x)
    if (!t.defined() || t.is_symbolic()) throw ValueError(std::string(where) + ": x must hold concrete tensors");
  std::vector<int64_t> xs, ys;
  for (const auto& t : a.x) xs.push_back(t.rank() ? t.shape()[0] : 1);
  for (const auto& t : a.y) ys.push_back(t.rank() ? t.shape()[0] : 1);
  std::set<int64_t> all(xs.begin(), xs.end());
  all.insert(ys.begin(), ys.end());
  if (sw.defined()) all.insert(sw.shape()[0]);
  if (all.size() > 1) {
    auto list = [](const std::vector<int64_t>& v) {
      std::string s;
      for (auto d : v) s += (s.empty() ? "" : ", ") + std::to_string(d);
      return s;
    };
    throw ValueError(std::string(where) + ": Data cardinality is ambiguous. Make sure all arrays contain the same number of samples. x sizes: " +
                     list(xs) + "; y sizes: " + list(ys));
  }
  a.n = xs[0];
  if (a.n == 0) throw ValueError(std::string(where) + ": the input data is empty (0 samples)");
  return a;
}

Batch slice_batch(const ArrayData& a, const Tensor& idx) {
  Batch b;
  for (const auto& t : a.x) b.x.push_back(take_rows(t, idx));
  for (const auto& t : a.y) b.y.push_back(take_rows(t, idx));
  if (a.sw.defined()) b.sample_weight = take_rows(a.sw, idx);
  return b;
}

ArrayData rows(const ArrayData& a, int64_t start, int64_t stop) {
  ArrayData r;
  Tensor idx = range(static_cast<double>(start), static_cast<double>(stop), 1.0, DType::int64);
  for (const auto& t : a.x) r.x.push_back(take_rows(t, idx));
  for (const auto& t : a.y) r.y.push_back(take_rows(t, idx));
  if (a.sw.defined()) r.sw = take_rows(a.sw, idx);
  r.n = stop - start;
  return r;
}

Batch element_to_batch(const Element& e, const Model& m) {
  Batch b;
  const std::size_t nin = std::max<std::size_t>(m.inputs().size(), 1);
  const std::size_t nout = static_cast<std::size_t>(m.num_outputs());
  if (e.empty()) throw ValueError("Dataset produced an empty element");
  if (e.size() == nin || e.size() < nin) {
    b.x.assign(e.begin(), e.begin() + std::min(e.size(), nin));
  } else {
    b.x.assign(e.begin(), e.begin() + nin);
    std::size_t rest = e.size() - nin;
    std::size_t ny = std::min(rest, nout);
    b.y.assign(e.begin() + nin, e.begin() + nin + ny);
    if (rest > ny) b.sample_weight = e[nin + ny];
  }
  return b;
}

std::vector<CallbackPtr> make_callbacks(const std::vector<CallbackArg>& args, int verbose,
                                        std::shared_ptr<History>* history) {
  std::vector<CallbackPtr> cbs;
  for (const auto& a : args) cbs.push_back(a.ptr());
  if (verbose && std::none_of(cbs.begin(), cbs.end(), [](const CallbackPtr& c) { return dynamic_cast<ProgbarLogger*>(c.get()); }))
    cbs.insert(cbs.begin(), std::make_shared<ProgbarLogger>());
  if (history) {
    *history = std::make_shared<History>();
    cbs.push_back(*history);
  }
  return cbs;
}
}  // namespace

// ---------------- fit ----------------
History Model::run_fit(const std::function<void(int, std::function<void(const Batch&)>)>& epoch_batches, int steps,
                       const FitOptions& o, const std::function<Logs()>& validate) {
  if (!compiled_) throw ValueError("You must call compile() before fit() on model '" + name() + "'");
  if (o.epochs < 0) throw ValueError("fit(): epochs must be >= 0, got " + std::to_string(o.epochs));
  std::shared_ptr<History> history;
  auto cbs = make_callbacks(o.callbacks, o.verbose, &history);
  CallbackParams params{o.epochs, steps, o.verbose};
  for (auto& c : cbs) {
    c->set_model(this);
    c->set_params(params);
  }
  stop_training = false;
  Logs empty;
  initial_epoch_override.reset();
  for (auto& c : cbs) c->on_train_begin(empty);
  const int first_epoch = initial_epoch_override.value_or(o.initial_epoch);
  initial_epoch_override.reset();
  Logs epoch_logs;
  for (int epoch = first_epoch; epoch < o.epochs; ++epoch) {
    reset_metrics();
    for (auto& c : cbs) c->on_epoch_begin(epoch, empty);
    int step = 0;
    Logs logs;
    try {
      epoch_batches(epoch, [&](const Batch& b) {
        for (auto& c : cbs) c->on_train_batch_begin(step, empty);
        logs = train_step(b);
        for (auto& c : cbs) c->on_train_batch_end(step, logs);
        ++step;
        // Keras leaves the epoch right after the batch that set stop_training.
        if (stop_training) throw StopEpoch{};
      });
    } catch (const StopEpoch&) {
    }
    if (step == 0)
      throw ValueError("fit(): the training data produced no batches (is the dataset empty, or steps_per_epoch 0?)");
    epoch_logs = logs;
    if (validate && (epoch + 1 - first_epoch) % std::max(o.validation_freq, 1) == 0) {
      Logs val = validate();
      for (const auto& [k, v] : val) epoch_logs.set("val_" + k, v);
    }
    for (auto& c : cbs) c->on_epoch_end(epoch, epoch_logs);
    if (stop_training) break;
  }
  // With use_ema, the model keeps the moving averages once training ends (Keras).
  if (optimizer_ && optimizer_->options().use_ema) optimizer_->finalize_variable_values(trainable_variables());
  for (auto& c : cbs) c->on_train_end(epoch_logs);
  return *history;
}

History Model::fit(const Data& x, const Data& y, FitOptions o) {
  ArrayData all = make_arrays(*this, x, y, o.sample_weight, "fit()");
  if (!o.class_weight.empty()) {
    if (all.y.size() != 1) throw ValueError("fit(): class_weight is only supported for single-output models");
    Tensor cw = class_weights_to_sample_weights(o.class_weight, all.y[0]);
    all.sw = all.sw.defined() ? multiply(all.sw, cw.cast(all.sw.dtype())) : cw;
  }
  if (o.validation_split < 0 || o.validation_split >= 1)
    throw ValueError("fit(): validation_split must be in [0, 1), got " + std::to_string(o.validation_split));
  ArrayData train = all, val;
  bool has_val = false;
  if (o.validation_data) {
    val = make_arrays(*this, o.validation_data->x, o.validation_data->y, o.validation_data->sample_weight,
                      "fit() validation_data");
    has_val = true;
  } else if (o.validation_split > 0) {
    // Keras takes the LAST fraction, before any shuffling.
    int64_t split_at = static_cast<int64_t>(std::floor(static_cast<double>(all.n) * (1.0 - o.validation_split)));
    if (split_at <= 0 || split_at >= all.n)
      throw ValueError("fit(): validation_split=" + std::to_string(o.validation_split) + " leaves no training or no validation samples out of " + std::to_string(all.n));
    train = rows(all, 0, split_at);
    val = rows(all, split_at, all.n);
    has_val = true;
  }
  const int bs = o.batch_size.value_or(32);
  if (bs <= 0) throw ValueError("fit(): batch_size must be positive, got " + std::to_string(bs));
  int steps = static_cast<int>((train.n + bs - 1) / bs);
  if (o.steps_per_epoch) steps = std::min(steps, *o.steps_per_epoch);
  auto batches = [&](int, std::function<void(const Batch&)> fn) {
    Tensor order = o.shuffle ? random::permutation(train.n) : range(static_cast<double>(train.n), 0, 1, DType::int64);
    if (!o.shuffle) order = range(0.0, static_cast<double>(train.n), 1.0, DType::int64);
    for (int s = 0; s < steps; ++s) {
      int64_t start = static_cast<int64_t>(s) * bs, stop = std::min<int64_t>(start + bs, train.n);
      Tensor idx = slice(order, {Slice(start, stop)});
      fn(slice_batch(train, idx));
    }
  };
  std::function<Logs()> validate;
  if (has_val) {
    const int vbs = o.validation_batch_size.value_or(bs);
    validate = [this, val, vbs, &o]() {
      int vsteps = static_cast<int>((val.n + vbs - 1) / vbs);
      if (o.validation_steps) vsteps = std::min(vsteps, *o.validation_steps);
      EvaluateOptions eo;
      eo.verbose = 0;
      eo.callbacks = o.callbacks;
      return run_evaluate(
          [&](std::function<void(const Batch&)> fn) {
            for (int s = 0; s < vsteps; ++s) {
              int64_t start = static_cast<int64_t>(s) * vbs, stop = std::min<int64_t>(start + vbs, val.n);
              fn(slice_batch(val, range(static_cast<double>(start), static_cast<double>(stop), 1.0, DType::int64)));
            }
          },
          vsteps, eo, true);
    };
  }
  return run_fit(batches, steps, o, validate);
}

History Model::fit(const Dataset& ds, FitOptions o) {
  int64_t card = ds.cardinality();
  int steps = o.steps_per_epoch ? *o.steps_per_epoch : (card >= 0 ? static_cast<int>(card) : 0);
  if (card == Dataset::INFINITE && !o.steps_per_epoch)
    throw ValueError("fit(): the dataset is infinite; pass steps_per_epoch");
  auto iter_holder = std::make_shared<std::function<std::optional<Element>()>>();
  auto batches = [&](int, std::function<void(const Batch&)> fn) {
    // With steps_per_epoch, one iterator continues across epochs, as tf.data does.
    if (!o.steps_per_epoch || !*iter_holder) *iter_holder = ds.make_iterator();
    int s = 0;
    while (!o.steps_per_epoch || s < *o.steps_per_epoch) {
      auto e = (*iter_holder)();
      if (!e) {
        *iter_holder = nullptr;
        break;
      }
      fn(element_to_batch(*e, *this));
      ++s;
    }
  };
  std::function<Logs()> validate;
  if (o.validation_dataset) {
    auto vds = o.validation_dataset;
    validate = [this, vds, &o]() {
      EvaluateOptions eo;
      eo.verbose = 0;
      eo.callbacks = o.callbacks;
      int64_t vc = vds->cardinality();
      int vsteps = o.validation_steps ? *o.validation_steps : (vc >= 0 ? static_cast<int>(vc) : 0);
      return run_evaluate(
          [&](std::function<void(const Batch&)> fn) {
            auto it = vds->make_iterator();
            int s = 0;
            while (!o.validation_steps || s < *o.validation_steps) {
              auto e = it();
              if (!e) break;
              fn(element_to_batch(*e, *this));
              ++s;
            }
          },
          vsteps, eo, true);
    };
  } else if (o.validation_data) {
    ArrayData val = make_arrays(*this, o.validation_data->x, o.validation_data->y, o.validation_data->sample_weight,
                                "fit() validation_data");
    const int vbs = o.validation_batch_size.value_or(o.batch_size.value_or(32));
    validate = [this, val, vbs, &o]() {
      int vsteps = static_cast<int>((val.n + vbs - 1) / vbs);
      EvaluateOptions eo;
      eo.verbose = 0;
      eo.callbacks = o.callbacks;
      eo.callbacks = o.callbacks;
      return run_evaluate(
          [&](std::function<void(const Batch&)> fn) {
            for (int s = 0; s < vsteps; ++s) {
              int64_t start = static_cast<int64_t>(s) * vbs, stop = std::min<int64_t>(start + vbs, val.n);
              fn(slice_batch(val, range(static_cast<double>(start), static_cast<double>(stop), 1.0, DType::int64)));
            }
          },
          vsteps, eo, true);
    };
  }
  return run_fit(batches, steps, o, validate);
}

// ---------------- evaluate ----------------
Logs Model::run_evaluate(const std::function<void(std::function<void(const Batch&)>)>& batches, int steps,
                         const EvaluateOptions& o, bool inside_fit) {
  if (!compiled_) throw ValueError("You must call compile() before evaluate() on model '" + name() + "'");
  std::vector<CallbackPtr> cbs;
  if (!inside_fit) {
    cbs = make_callbacks(o.callbacks, o.verbose, nullptr);
  } else {
    // Validation inside fit tells fit's own callbacks (not the progress bar).
    for (const auto& a : o.callbacks)
      if (!dynamic_cast<ProgbarLogger*>(a.ptr().get())) cbs.push_back(a.ptr());
  }
  CallbackParams params{1, steps, o.verbose};
  if (!inside_fit)
    for (auto& c : cbs) {
      c->set_model(this);
      c->set_params(params);
    }
  Logs empty;
  for (auto& c : cbs) c->on_test_begin(empty);
  // Validation inside fit must not disturb the training metrics' state, so it
  // runs with its own reset; fit resets them again at each epoch start.
  Logs saved;
  reset_metrics();
  int step = 0;
  Logs logs;
  batches([&](const Batch& b) {
    for (auto& c : cbs) c->on_test_batch_begin(step, empty);
    logs = test_step(b);
    for (auto& c : cbs) c->on_test_batch_end(step, logs);
    ++step;
  });
  if (step == 0) throw ValueError("evaluate(): the data produced no batches (empty dataset?)");
  for (auto& c : cbs) c->on_test_end(logs);
  return logs;
}

Logs Model::evaluate_logs(const Data& x, const Data& y, EvaluateOptions o) {
  ArrayData a = make_arrays(*this, x, y, o.sample_weight, "evaluate()");
  const int bs = o.batch_size.value_or(32);
  if (bs <= 0) throw ValueError("evaluate(): batch_size must be positive, got " + std::to_string(bs));
  int steps = static_cast<int>((a.n + bs - 1) / bs);
  if (o.steps) steps = std::min(steps, *o.steps);
  return run_evaluate(
      [&](std::function<void(const Batch&)> fn) {
        for (int s = 0; s < steps; ++s) {
          int64_t start = static_cast<int64_t>(s) * bs, stop = std::min<int64_t>(start + bs, a.n);
          fn(slice_batch(a, range(static_cast<double>(start), static_cast<double>(stop), 1.0, DType::int64)));
        }
      },
      steps, o, false);
}

std::vector<float> Model::evaluate(const Data& x, const Data& y, EvaluateOptions o) {
  Logs l = evaluate_logs(x, y, std::move(o));
  std::vector<float> out;
  for (const auto& [k, v] : l) out.push_back(static_cast<float>(v));
  return out;
}

std::vector<float> Model::evaluate(const Dataset& ds, EvaluateOptions o) {
  int64_t card = ds.cardinality();
  if (card == Dataset::INFINITE && !o.steps) throw ValueError("evaluate(): the dataset is infinite; pass steps");
  int steps = o.steps ? *o.steps : (card >= 0 ? static_cast<int>(card) : 0);
  Logs l = run_evaluate(
      [&](std::function<void(const Batch&)> fn) {
        auto it = ds.make_iterator();
        int s = 0;
        while (!o.steps || s < *o.steps) {
          auto e = it();
          if (!e) break;
          fn(element_to_batch(*e, *this));
          ++s;
        }
      },
      steps, o, false);
  std::vector<float> out;
  for (const auto& [k, v] : l) out.push_back(static_cast<float>(v));
  return out;
}

// ---------------- predict ----------------
std::vector<Tensor> Model::predict_outputs(const Data& x, PredictOptions o) {
  std::vector<Tensor> xs = order_by_names(x, input_names(), "input");
  if (xs.empty()) throw ValueError("predict(): no input data was given");
  const int64_t n = xs[0].shape()[0];
  for (const auto& t : xs)
    if (t.shape()[0] != n) throw ValueError("predict(): all inputs must have the same number of samples");
  if (n == 0) throw ValueError("predict(): the input data is empty (0 samples)");
  const int bs = o.batch_size.value_or(32);
  if (bs <= 0) throw ValueError("predict(): batch_size must be positive, got " + std::to_string(bs));
  int steps = static_cast<int>((n + bs - 1) / bs);
  if (o.steps) steps = std::min(steps, *o.steps);
  auto cbs = make_callbacks(o.callbacks, o.verbose, nullptr);
  CallbackParams params{1, steps, o.verbose};
  for (auto& c : cbs) {
    c->set_model(this);
    c->set_params(params);
  }
  Logs empty;
  for (auto& c : cbs) c->on_predict_begin(empty);
  std::vector<std::vector<Tensor>> parts;
  for (int s = 0; s < steps; ++s) {
    for (auto& c : cbs) c->on_predict_batch_begin(s, empty);
    int64_t start = static_cast<int64_t>(s) * bs, stop = std::min<int64_t>(start + bs, n);
    std::vector<Tensor> bx;
    for (const auto& t : xs) bx.push_back(slice(t, {Slice(start, stop)}));
    auto out = predict_step(bx);
    if (parts.empty()) parts.resize(out.size());
    for (std::size_t k = 0; k < out.size(); ++k) parts[k].push_back(out[k].to(Device::cpu()));
    for (auto& c : cbs) c->on_predict_batch_end(s, empty);
  }
  for (auto& c : cbs) c->on_predict_end(empty);
  std::vector<Tensor> result;
  for (auto& p : parts) result.push_back(p.size() == 1 ? p[0] : concat(p, 0));
  return result;
}

Tensor Model::predict(const Data& x, PredictOptions o) {
  auto outs = predict_outputs(x, std::move(o));
  if (outs.size() != 1)
    throw ValueError("predict(): model '" + name() + "' has " + std::to_string(outs.size()) +
                     " outputs; use predict_outputs()");
  return outs[0];
}

Tensor Model::predict(const Dataset& ds, PredictOptions o) {
  std::vector<Tensor> parts;
  auto it = ds.make_iterator();
  int s = 0;
  while (!o.steps || s < *o.steps) {
    auto e = it();
    if (!e) break;
    Batch b = element_to_batch(*e, *this);
    auto out = predict_step(b.x);
    parts.push_back(out.at(0).to(Device::cpu()));
    ++s;
  }
  if (parts.empty()) throw ValueError("predict(): the dataset produced no batches");
  return parts.size() == 1 ? parts[0] : concat(parts, 0);
}

Logs Model::train_on_batch(const Data& x, const Data& y, const Tensor& sw) {
  ArrayData a = make_arrays(*this, x, y, sw, "train_on_batch()");
  Batch b{a.x, a.y, a.sw};
  reset_metrics();
  return train_step(b);
}

Logs Model::test_on_batch(const Data& x, const Data& y, const Tensor& sw) {
  ArrayData a = make_arrays(*this, x, y, sw, "test_on_batch()");
  Batch b{a.x, a.y, a.sw};
  reset_metrics();
  return test_step(b);
}

Tensor Model::predict_on_batch(const Data& x) {
  auto out = predict_step(order_by_names(x, input_names(), "input"));
  return out.at(0);
}

}  // namespace kiln
