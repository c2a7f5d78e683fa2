#pragma once
// Model = Layer + training. Three ways to build one:
//   * Sequential (kiln/training/sequential.h);
//   * functional: kiln::Model model(inputs, outputs);
//   * subclassing: derive from kiln::Model, track sublayers, override call().
// fit() is only the loop around train_step(); override train_step/test_step to
// customise training, as in Keras's "customizing fit" guide.
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kiln/training/callback.h"
#include "kiln/data/data.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/quantizers.h"
#include "kiln/training/logs.h"
#include "kiln/training/loss.h"
#include "kiln/training/metric.h"
#include "kiln/training/optimizer.h"

namespace kiln {

class Dataset;

/// Arguments of Model::compile() (Keras's model.compile()).
struct CompileOptions {
  OptimizerArg optimizer = "rmsprop";  ///< The optimizer: a name ("adam") or an object; "rmsprop" by default.
  LossConfig loss;  ///< The loss: one for all outputs, or per output by name or position.
  /// Per-output weights, by output name or by position.
  std::map<std::string, double> loss_weights;
  std::vector<double> loss_weights_list;  ///< Per-output loss weights, by position.
  MetricsConfig metrics;  ///< Metrics per output (each computed without sample weights).
  MetricsConfig weighted_metrics;  ///< Metrics computed with the sample and class weights.
  bool run_eagerly = false;  ///< Runs every step eagerly, never traced (for debugging).
  /// fit, evaluate and predict run train_step, test_step and predict_step as
  /// kiln::functions (traced once per batch shape, then replayed), as Keras
  /// compiles its train_function; on by default, as in Keras. A step that
  /// cannot be traced (a metric that computes on the host, such as AUC) runs
  /// eagerly after a warning that says why. run_eagerly = true or
  /// jit_compile = false turns tracing off.
  bool jit_compile = true;
  int steps_per_execution = 1;  ///< Batches per train_function() call; > 1 traces that many steps as one.
  /// Under a "mixed_float16" model policy, wraps the optimizer in a
  /// LossScaleOptimizer (dynamic loss scaling), as Keras's compile does.
  bool auto_scale_loss = true;
};

/// Validation arrays for fit() (Keras's validation_data tuple).
struct ValidationData {
  Data x;  ///< Validation inputs.
  Data y;  ///< Validation targets.
  Tensor sample_weight;  ///< Optional per-sample weights.
};

/// fit()'s validation_data: arrays (a ValidationData) or a Dataset, as Keras's
/// validation_data takes a tuple or a dataset: `.validation_data = ValidationData{x, y}`
/// or `.validation_data = val_ds`.
class ValidationArg {
 public:
  /// Validation arrays.
  ValidationArg(ValidationData arrays) : arrays_(std::move(arrays)) {}
  /// A validation dataset (copied: a Dataset is a cheap description of its pipeline).
  ValidationArg(const Dataset& dataset);
  /// A validation dataset, shared.
  ValidationArg(std::shared_ptr<Dataset> dataset) : dataset_(std::move(dataset)) {}
  /// The arrays, or nullptr for a dataset.
  const ValidationData* arrays() const { return arrays_ ? &*arrays_ : nullptr; }
  /// The dataset, or nullptr for arrays.
  const std::shared_ptr<Dataset>& dataset() const { return dataset_; }

 private:
  std::optional<ValidationData> arrays_;
  std::shared_ptr<Dataset> dataset_;
};

/// Arguments of Model::fit() (Keras's model.fit() keywords).
struct FitOptions {
  std::optional<int> batch_size;  ///< 32 when unset (arrays only)
  int epochs = 1;  ///< The epoch index to stop at (passes run from initial_epoch).
  int verbose = 1;                 ///< 0 silent, 1 progress bar, 2 one line per epoch
  std::vector<CallbackArg> callbacks;  ///< Callbacks; History and ProgbarLogger are added automatically.
  double validation_split = 0.0;   ///< the LAST fraction, taken before shuffling
  std::optional<ValidationArg> validation_data;  ///< Validation arrays or a Dataset, evaluated after each epoch.
  std::shared_ptr<Dataset> validation_dataset;  ///< A validation dataset, evaluated at the end of each epoch.
  bool shuffle = true;  ///< Shuffles the arrays each epoch (ignored for datasets).
  std::map<int, double> class_weight;  ///< Class index -> weight, multiplied into the sample weights.
  Tensor sample_weight;  ///< Per-sample weights of the training arrays.
  int initial_epoch = 0;  ///< The epoch to start at (to resume a run).
  std::optional<int> steps_per_epoch;  ///< Batches per epoch; by default all (needed for endless datasets).
  std::optional<int> validation_steps;  ///< Validation batches per evaluation; by default all.
  std::optional<int> validation_batch_size;  ///< Validation batch size; defaults to batch_size.
  int validation_freq = 1;  ///< Validates every this many epochs.
};

/// Arguments of Model::evaluate() (Keras's model.evaluate() keywords).
struct EvaluateOptions {
  std::optional<int> batch_size;  ///< Batch size; 32 when unset (arrays only).
  int verbose = 1;  ///< 0 silent, 1 progress bar.
  Tensor sample_weight;  ///< Per-sample weights.
  std::optional<int> steps;  ///< Batches to evaluate; by default all.
  std::vector<CallbackArg> callbacks;  ///< Callbacks for the evaluation.
};

/// Arguments of Model::predict() (Keras's model.predict() keywords).
struct PredictOptions {
  std::optional<int> batch_size;  ///< Batch size; 32 when unset (arrays only).
  int verbose = 0;  ///< 0 silent (default), 1 progress bar.
  std::optional<int> steps;  ///< Batches to predict; by default all.
  std::vector<CallbackArg> callbacks;  ///< Callbacks for the prediction.
};

/// A Layer with training (Keras's keras.Model). Built three ways: Sequential
/// (kiln/training/sequential.h); functional, `kiln::Model model(inputs, outputs)`;
/// or subclassing, deriving from kiln::Model and overriding call(). fit() is the
/// loop around train_step(); override train_step()/test_step() to customise training.
class Model : public Layer {
 public:
  /// For subclassed models.
  explicit Model(LayerOptions options = {});
  /// Functional model from symbolic inputs to outputs (any DAG).
  Model(const Tensor& input, const Tensor& output, LayerOptions options = {});
  /// Functional model with several inputs and outputs.
  Model(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs, LayerOptions options = {});
  /// Functional model with several inputs and one output.
  Model(const std::vector<Tensor>& inputs, const Tensor& output, LayerOptions options = {});
  /// Functional model with one input and several outputs.
  Model(const Tensor& input, const std::vector<Tensor>& outputs, LayerOptions options = {});
  ~Model() override;

  std::string class_name() const override;
  /// A functional model leaves its inputs as given (each layer casts its own),
  /// as Keras's Functional does; Sequential and subclassed models cast.
  bool converts_inputs() const override { return !is_functional(); }

  // ---- training configuration ----
  /// The loss may be left out when train_step computes its own, or when the
  /// model's add_loss penalties are the whole loss (as in Keras).
  void compile(CompileOptions options);
  /// Whether compile() has been called.
  bool compiled() const { return compiled_; }
  /// The compiled optimizer; null before compile().
  const OptimizerPtr& optimizer() const { return optimizer_; }

  // ---- the loops ----
  /// Trains on arrays `x` and `y` (Keras's fit()); returns the History of epoch logs.
  History fit(const Data& x, const Data& y = {}, FitOptions options = {});
  /// Trains on a dataset yielding (x, y) or (x, y, sample_weight) batches.
  History fit(const Dataset& dataset, FitOptions options = {});
  /// The loss, then the metrics in compile order.
  std::vector<float> evaluate(const Data& x, const Data& y = {}, EvaluateOptions options = {});
  /// Evaluates on a dataset.
  std::vector<float> evaluate(const Dataset& dataset, EvaluateOptions options = {});
  /// Same as evaluate, as name -> value.
  Logs evaluate_logs(const Data& x, const Data& y = {}, EvaluateOptions options = {});
  /// Single-output models: the predictions as one tensor (on the CPU).
  Tensor predict(const Data& x, PredictOptions options = {});
  /// Predicts on a dataset.
  Tensor predict(const Dataset& dataset, PredictOptions options = {});
  /// All outputs, in output order.
  std::vector<Tensor> predict_outputs(const Data& x, PredictOptions options = {});
  /// Keras's model.quantize: every layer that can be quantized (Dense, EinsumDense,
  /// Embedding, ReversibleEmbedding) and whose name matches one of `filters` (regular expressions searched in
  /// the name; none: all) converts its weights to `mode` ("int8" or "int4"; empty: the
  /// config's), with `config` or the mode's default one. The model must be built.
  void quantize(const std::string& mode, const std::optional<quantizers::QuantizationConfig>& config = std::nullopt,
                const std::vector<std::string>& filters = {});
  /// The same, quantizing the layers for which `filter` returns true.
  void quantize(const std::string& mode, const std::optional<quantizers::QuantizationConfig>& config,
                const std::function<bool(const Layer&)>& filter);
  /// One training step on one batch; returns the logs (Keras's train_on_batch()).
  Logs train_on_batch(const Data& x, const Data& y = {}, const Tensor& sample_weight = Tensor());
  /// Evaluates one batch; returns the logs (Keras's test_on_batch()).
  Logs test_on_batch(const Data& x, const Data& y = {}, const Tensor& sample_weight = Tensor());
  /// Predicts one batch (Keras's predict_on_batch()).
  Tensor predict_on_batch(const Data& x);

  // ---- override points ----
  /// What fit, evaluate and predict run per batch (Keras's train_function,
  /// test_function and predict_function): train_step, test_step and
  /// predict_step, traced as kiln::functions and replayed when compiled with
  /// jit_compile, else called directly. An overridden step is traced too; one
  /// that reads a tensor's value runs eagerly after a warning.
  Logs train_function(const Batch& batch);
  /// test_step() per batch, traced as train_function() is.
  Logs test_function(const Batch& batch);
  /// Several steps in one call, as Keras's train_function with
  /// steps_per_execution > 1: fit and evaluate hand it that many batches at a
  /// time (fewer at an epoch's end). Compiled, the steps are one trace, so a
  /// replay runs them all; the logs are the last step's.
  Logs train_function(const std::vector<Batch>& batches);
  /// Several evaluation steps in one call (see the list train_function()).
  Logs test_function(const std::vector<Batch>& batches);
  /// predict_step() per batch, traced as train_function() is.
  std::vector<Tensor> predict_function(const std::vector<Tensor>& x);
  /// One optimisation step: forward under a tape, compute_loss(), apply gradients,
  /// update metrics. Override to customise fit() (Keras's train_step()).
  virtual Logs train_step(const Batch& batch);
  /// One evaluation step: forward, compute_loss(), update metrics (Keras's test_step()).
  virtual Logs test_step(const Batch& batch);
  /// One prediction step: the outputs for a batch of inputs (Keras's predict_step()).
  virtual std::vector<Tensor> predict_step(const std::vector<Tensor>& x);
  /// Compiled losses (weighted per output) plus this model's regularization losses.
  virtual Tensor compute_loss(const Batch& batch, const std::vector<Tensor>& y_pred);
  /// Updates the loss tracker and compiled metrics; returns the current logs.
  virtual Logs compute_metrics(const Batch& batch, const std::vector<Tensor>& y_pred, const Tensor& loss);
  /// Runs the model (all outputs) on concrete inputs.
  std::vector<Tensor> call_outputs(const std::vector<Tensor>& x, bool training);

  /// Keras's model.metrics: the metrics fit and evaluate reset at the start of
  /// each epoch and of each evaluation. By default the loss tracker, the
  /// per-output loss trackers, the compiled metrics (per output), then those
  /// registered with track_metric(). A model whose train_step updates its own
  /// trackers overrides this to list them (Keras's "customizing fit" guide).
  virtual std::vector<MetricPtr> metrics() const;
  /// The names of metrics() (Keras's metrics_names).
  std::vector<std::string> metrics_names() const;
  /// Resets every metric in metrics() (Keras's reset_metrics()).
  void reset_metrics();
  bool stop_training = false;  ///< Set from a callback to stop fit() after the current batch (Keras's stop_training).
  /// Set by a callback in on_train_begin to resume at that epoch (Keras's
  /// model._initial_epoch, used by BackupAndRestore); fit() clears it.
  std::optional<int> initial_epoch_override;

  // ---- structure ----
  /// Sequential: its layers; functional: every layer in topological order
  /// (inputs included); subclassed: tracked sublayers.
  virtual std::vector<LayerPtr> layers() const;
  /// The layer with this name; throws ValueError when there is none.
  LayerPtr get_layer(const std::string& name) const;
  /// The layer at this index of layers(); throws IndexError when out of range.
  LayerPtr get_layer(int index) const;
  /// The symbolic inputs of a functional model.
  const std::vector<Tensor>& inputs() const { return inputs_; }
  /// The symbolic outputs of a functional model.
  const std::vector<Tensor>& outputs() const { return outputs_; }
  /// The input layers' names.
  std::vector<std::string> input_names() const;
  /// The output layers' names, as used by per-output losses and metrics.
  std::vector<std::string> output_names() const;
  /// Whether this model was built from symbolic inputs and outputs.
  bool is_functional() const { return !outputs_.empty(); }
  /// The number of outputs.
  int num_outputs() const;

  /// Prints the tf.keras summary; line_length 65 (98 with "Connected to").
  void summary(std::ostream& os, int line_length = 0) const;
  /// Prints the summary to std::cout.
  void summary() const;
  /// The summary as a string.
  std::string summary_string(int line_length = 0) const;

  Config get_config() const override;
  /// Rebuilds a model from {"class_name": "Sequential"|"Functional"|..., "config": ...}
  /// (layers by registered class name; see kiln/nn/layer_registry.h).
  static std::shared_ptr<Model> from_config(const Config& config);

  // ---- saving (kiln/io/saving.h has load_model) ----
  /// ".keras" (Keras 3 zip) or ".h5"/".hdf5" (legacy HDF5). Written to a temporary
  /// file in the same folder, synced, then renamed: a failed save never destroys the old file.
  void save(const std::string& path) const;
  /// ".weights.h5" (Keras 3 layout) or other ".h5" (legacy layout).
  void save_weights(const std::string& path) const;
  /// Options of load_weights().
  struct LoadWeightsOptions {
    bool skip_mismatch = false;  ///< Skips weights whose shape does not match instead of throwing.
    bool by_name = false;  ///< Matches legacy HDF5 weights by layer name instead of by order.
    /// false (the default): the file may be hostile, so libhdf5 parses it in
    /// a sandboxed child process; true: it is read in this process. The
    /// environment variable KILN_TRUST_FILES=1 makes every load trusted (see
    /// kiln::models::LoadModelOptions::trusted).
    bool trusted = false;
  };
  /// Loads weights saved by save_weights() (or save()) from `path`.
  void load_weights(const std::string& path, LoadWeightsOptions options);
  /// Loads weights with the default options.
  void load_weights(const std::string& path) { load_weights(path, LoadWeightsOptions{}); }

  void to(Device device) override;
  /// The arguments given to compile().
  const CompileOptions& compile_options() const { return compile_options_; }
  /// Compile arguments as Keras's training_config JSON.
  Config compile_config() const;

  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  using Layer::compute_output_shape;
  bool takes_list() const override { return inputs_.size() > 1; }
  bool returns_list() const override { return outputs_.size() > 1; }

 protected:
  Tensor call(const Tensor& x, bool training) override;
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  void build(const Shape& input_shape) override;
  /// Resolved output-name -> losses/metrics (built at compile or on first data).
  void resolve_compile(const std::vector<Tensor>& y_true, const std::vector<Tensor>& y_pred);
  /// Registers a metric a custom train_step/test_step updates, so that metrics()
  /// lists it and fit resets it each epoch (Keras tracks metric attributes).
  template <class M>
    requires std::is_base_of_v<Metric, M>
  std::shared_ptr<M> track_metric(std::shared_ptr<M> metric) {
    tracked_metrics_.push_back(metric);
    return metric;
  }
  /// The layers summary() shows, with their output-shape text.
  virtual std::vector<std::pair<LayerPtr, std::string>> summary_rows() const;
  /// Whether summary() uses the Sequential layout (a chain with no shared layers).
  virtual bool summary_sequential_like() const;

  /// Functional: the symbolic inputs.
  std::vector<Tensor> inputs_, outputs_;  ///< Functional: the symbolic outputs.
  /// @name Nesting of the inputs and outputs
  /// Functional, loaded from a config whose input_layers or output_layers nest
  /// (a dict, nested lists, a bare reference): that nesting as JSON, each tensor
  /// replaced by its index in inputs_ or outputs_ (Keras's flat order, dicts by
  /// sorted key), so that saving writes it back. Empty for a flat list.
  //@{
  std::string inputs_structure_;
  std::string outputs_structure_;
  //@}
  std::vector<std::shared_ptr<Node>> nodes_;  ///< functional: execution order
  std::vector<LayerPtr> graph_layers_;        ///< functional: topological order

 private:
  void init_graph(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs);

  bool compiled_ = false;
  bool compile_resolved_ = false;
  /// The compiled metrics' state lives on the model's GPU and updates there.
  bool metrics_on_device_ = false;
  /// Resolves the compiled losses and metrics, creating the metrics' state on `place`.
  void resolve_outputs(const std::vector<Tensor>& y_true, const std::vector<Tensor>& y_pred, Device place);
  CompileOptions compile_options_;
  OptimizerPtr optimizer_;
  struct OutputLoss {
    LossPtr loss;
    double weight = 1.0;
    MetricPtr tracker;  // "<output>_loss" mean, multi-output only
  };
  std::vector<OutputLoss> output_losses_;
  std::vector<std::vector<MetricPtr>> output_metrics_;
  std::vector<std::vector<MetricPtr>> output_weighted_metrics_;
  MetricPtr loss_tracker_;
  std::vector<MetricPtr> tracked_metrics_;

  struct CompiledSteps;
  std::shared_ptr<CompiledSteps> compiled_steps_;
  bool compiles_steps() const;
  CompiledSteps& compiled_steps();
  void forward_backward_update(const Batch& b, std::vector<Tensor>& y_pred, Tensor& loss);
};

using ModelPtr = std::shared_ptr<Model>;  ///< A shared model.

}  // namespace kiln
