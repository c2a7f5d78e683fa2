// Registers the built-in metrics by Keras name. Each factory reads the keys
// of a get_config() dict back into the options struct.
#include <mutex>
#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/metrics/metrics.h"

namespace kiln::metrics {

namespace {

using Factory = std::function<MetricPtr(const Config&)>;

bool has(const Config& c, const char* key) { return c.is_object() && c.contains(key) && !c[key].is_null(); }

template <class T>
T value_or(const Config& c, const char* key, T fallback) {
  return has(c, key) ? c[key].get<T>() : fallback;
}

std::string name_of(const Config& c) { return value_or<std::string>(c, "name", ""); }
DType dtype_of(const Config& c) {
  return has(c, "dtype") ? dtype_from_name(c["dtype"].get<std::string>()) : DType::float32;
}
MetricOptions base(const Config& c) { return {name_of(c), dtype_of(c)}; }

std::vector<double> thresholds_of(const Config& c) {
  if (!has(c, "thresholds")) return {};
  if (c["thresholds"].is_array()) return c["thresholds"].get<std::vector<double>>();
  return {c["thresholds"].get<double>()};
}
std::optional<int> opt_int(const Config& c, const char* key) {
  return has(c, key) ? std::optional<int>(c[key].get<int>()) : std::nullopt;
}
std::optional<double> opt_double(const Config& c, const char* key) {
  return has(c, key) ? std::optional<double>(c[key].get<double>()) : std::nullopt;
}

void add(std::initializer_list<const char*> names, const Factory& f) {
  for (const char* n : names) register_metric(n, f);
}

template <class M>
Factory simple() {
  return [](const Config& c) -> MetricPtr { return std::make_shared<M>(base(c)); };
}

template <class M>
Factory confusion_count() {
  return [](const Config& c) -> MetricPtr {
    return std::make_shared<M>(ConfusionCountOptions{thresholds_of(c), name_of(c), dtype_of(c)});
  };
}

// A loss name used as a metric: the running mean of the loss's per-sample values.
Factory loss_metric(const std::string& loss_class, const std::string& default_name) {
  return [loss_class, default_name](const Config& c) -> MetricPtr {
    Config loss_cfg = c.is_object() ? c : Config::object();
    loss_cfg.erase("name");
    loss_cfg.erase("dtype");
    Config ser = Config::object();
    ser["class_name"] = loss_class;
    ser["config"] = loss_cfg;
    std::string n = name_of(c);
    return MeanMetricWrapper::from_loss(losses::from_config(ser), n.empty() ? default_name : n, dtype_of(c));
  };
}

MetricPtr make_function_metric(MetricFn fn, const std::string& name) {
  return std::make_shared<MeanMetricWrapper>(std::move(fn), name);
}

void register_basic_metrics() {
  add({"Mean", "mean"}, simple<Mean>());
  add({"Sum", "sum"}, simple<Sum>());
  add({"MeanMetricWrapper", "mean_metric_wrapper"}, [](const Config& c) -> MetricPtr {
    if (!has(c, "fn"))
      throw ValueError("MeanMetricWrapper.from_config: only wrappers of a loss can be rebuilt (config['fn'] holds "
                       "the serialized loss); received " + c.dump());
    return MeanMetricWrapper::from_loss(losses::from_config(c["fn"]), name_of(c), dtype_of(c));
  });

  // Accuracy family.
  add({"Accuracy", "accuracy", "acc", "ACC"}, simple<Accuracy>());
  add({"BinaryAccuracy", "binary_accuracy"}, [](const Config& c) -> MetricPtr {
    return std::make_shared<BinaryAccuracy>(BinaryAccuracyOptions{value_or(c, "threshold", 0.5), name_of(c), dtype_of(c)});
  });
  add({"CategoricalAccuracy", "categorical_accuracy"}, simple<CategoricalAccuracy>());
  add({"SparseCategoricalAccuracy", "sparse_categorical_accuracy"}, simple<SparseCategoricalAccuracy>());
  add({"TopKCategoricalAccuracy", "top_k_categorical_accuracy"}, [](const Config& c) -> MetricPtr {
    return std::make_shared<TopKCategoricalAccuracy>(
        TopKCategoricalAccuracyOptions{value_or(c, "k", 5), name_of(c), dtype_of(c)});
  });
  add({"SparseTopKCategoricalAccuracy", "sparse_top_k_categorical_accuracy"}, [](const Config& c) -> MetricPtr {
    return std::make_shared<SparseTopKCategoricalAccuracy>(
        SparseTopKCategoricalAccuracyOptions{value_or(c, "k", 5), name_of(c), dtype_of(c)});
  });
}

void register_confusion_metrics() {
  add({"TruePositives", "true_positives"}, confusion_count<TruePositives>());
  add({"TrueNegatives", "true_negatives"}, confusion_count<TrueNegatives>());
  add({"FalsePositives", "false_positives"}, confusion_count<FalsePositives>());
  add({"FalseNegatives", "false_negatives"}, confusion_count<FalseNegatives>());
  add({"Precision", "precision"}, [](const Config& c) -> MetricPtr {
    return std::make_shared<Precision>(
        PrecisionOptions{thresholds_of(c), opt_int(c, "top_k"), opt_int(c, "class_id"), name_of(c), dtype_of(c)});
  });
  add({"Recall", "recall"}, [](const Config& c) -> MetricPtr {
    return std::make_shared<Recall>(
        RecallOptions{thresholds_of(c), opt_int(c, "top_k"), opt_int(c, "class_id"), name_of(c), dtype_of(c)});
  });
  add({"AUC", "auc"}, [](const Config& c) -> MetricPtr {
    AUCOptions o;
    o.num_thresholds = value_or(c, "num_thresholds", 200);
    o.curve = value_or<std::string>(c, "curve", "ROC");
    o.summation_method = value_or<std::string>(c, "summation_method", "interpolation");
    o.thresholds = thresholds_of(c);
    o.from_logits = value_or(c, "from_logits", false);
    if (value_or(c, "multi_label", false)) throw ValueError("AUC: multi_label=True is not supported");
    o.name = name_of(c);
    o.dtype = dtype_of(c);
    return std::make_shared<AUC>(o);
  });
  add({"FBetaScore", "fbeta_score"}, [](const Config& c) -> MetricPtr {
    return std::make_shared<FBetaScore>(FBetaScoreOptions{value_or<std::string>(c, "average", ""),
                                                          value_or(c, "beta", 1.0), opt_double(c, "threshold"),
                                                          name_of(c), dtype_of(c)});
  });
  add({"F1Score", "f1_score"}, [](const Config& c) -> MetricPtr {
    return std::make_shared<F1Score>(
        F1ScoreOptions{value_or<std::string>(c, "average", ""), opt_double(c, "threshold"), name_of(c), dtype_of(c)});
  });
  add({"MeanIoU", "mean_io_u", "mean_iou"}, [](const Config& c) -> MetricPtr {
    if (!has(c, "num_classes"))
      throw ValueError("MeanIoU needs num_classes: create it as an object, kiln::metrics::MeanIoU(num_classes)");
    MeanIoUOptions o;
    if (has(c, "ignore_class")) o.ignore_class = c["ignore_class"].get<int64_t>();
    o.sparse_y_true = value_or(c, "sparse_y_true", true);
    o.sparse_y_pred = value_or(c, "sparse_y_pred", true);
    o.axis = value_or(c, "axis", -1);
    o.name = name_of(c);
    o.dtype = dtype_of(c);
    return std::make_shared<MeanIoU>(c["num_classes"].get<int64_t>(), o);
  });
}

void register_regression_metrics() {
  add({"MeanSquaredError", "mean_squared_error", "mse", "MSE"}, simple<MeanSquaredError>());
  add({"RootMeanSquaredError", "root_mean_squared_error", "rmse", "RMSE"}, simple<RootMeanSquaredError>());
  add({"MeanAbsoluteError", "mean_absolute_error", "mae", "MAE"}, simple<MeanAbsoluteError>());
  add({"MeanAbsolutePercentageError", "mean_absolute_percentage_error", "mape", "MAPE"},
      simple<MeanAbsolutePercentageError>());
  add({"MeanSquaredLogarithmicError", "mean_squared_logarithmic_error", "msle", "MSLE"},
      simple<MeanSquaredLogarithmicError>());
  add({"LogCoshError", "log_cosh_error", "logcosh", "log_cosh"}, simple<LogCoshError>());
  add({"CosineSimilarity", "cosine_similarity"}, [](const Config& c) -> MetricPtr {
    return std::make_shared<CosineSimilarity>(CosineSimilarityOptions{value_or(c, "axis", -1), name_of(c), dtype_of(c)});
  });
}

// Loss names as metrics (Keras's probabilistic and hinge metrics, and loss functions).
void register_loss_metrics() {
  add({"BinaryCrossentropy", "binary_crossentropy", "bce", "BCE"}, loss_metric("BinaryCrossentropy", "binary_crossentropy"));
  add({"CategoricalCrossentropy", "categorical_crossentropy", "cce", "CCE"},
      loss_metric("CategoricalCrossentropy", "categorical_crossentropy"));
  add({"SparseCategoricalCrossentropy", "sparse_categorical_crossentropy", "scce"},
      loss_metric("SparseCategoricalCrossentropy", "sparse_categorical_crossentropy"));
  add({"KLDivergence", "kl_divergence", "kld", "KLD", "kullback_leibler_divergence"},
      loss_metric("KLDivergence", "kl_divergence"));
  add({"Poisson", "poisson"}, loss_metric("Poisson", "poisson"));
  add({"Hinge", "hinge"}, loss_metric("Hinge", "hinge"));
  add({"SquaredHinge", "squared_hinge"}, loss_metric("SquaredHinge", "squared_hinge"));
  add({"CategoricalHinge", "categorical_hinge"}, loss_metric("CategoricalHinge", "categorical_hinge"));
  add({"huber"}, loss_metric("Huber", "huber"));
  add({"binary_focal_crossentropy"}, loss_metric("BinaryFocalCrossentropy", "binary_focal_crossentropy"));
  add({"categorical_focal_crossentropy"}, loss_metric("CategoricalFocalCrossentropy", "categorical_focal_crossentropy"));
}

void register_all() {
  register_basic_metrics();
  register_confusion_metrics();
  register_regression_metrics();
  register_loss_metrics();
}

// Runs when this object file is linked in (it is whenever register_builtins is
// referenced), so the framework's lookups can fill the registry lazily.
const bool hooks_installed = [] {
  detail::builtins_hook = &register_builtins;
  detail::function_metric_factory = &make_function_metric;
  return true;
}();

}  // namespace

void register_builtins() {
  static std::once_flag once;
  detail::builtins_hook = &register_builtins;
  detail::function_metric_factory = &make_function_metric;
  std::call_once(once, register_all);
}

}  // namespace kiln::metrics
