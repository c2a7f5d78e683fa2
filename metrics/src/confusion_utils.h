#pragma once
// Private: keras.metrics.metrics_utils for the confusion-matrix metrics
// (TruePositives..., Precision, Recall, AUC). Computed on the host: metrics
// need no gradients and these loops are O(N + T) or O(N * T).
#include <optional>
#include <vector>

#include "kiln/core/tensor.h"
#include "kiln/autodiff/variable.h"

namespace kiln::metrics::detail {

/// metrics_utils.NEG_INF: the threshold used with top_k, and the value given to
/// predictions outside the top k.
inline constexpr double kNegInf = -1e10;

/// The accumulators to update; null ones are skipped.
struct ConfusionVariables {
  Variable* tp = nullptr;
  Variable* fp = nullptr;
  Variable* tn = nullptr;
  Variable* fn = nullptr;
};

/// Thresholds given by the user (checked to lie in [0, 1]), or {default_threshold}.
std::vector<double> parse_init_thresholds(const std::vector<double>& thresholds, double default_threshold,
                                          const std::string& who);
/// True when there are >= 3 thresholds equal to i / (n - 1) (within 1e-7).
bool is_evenly_distributed_thresholds(const std::vector<double>& thresholds);

/// For each threshold t: a prediction is positive when y_pred > t; y_true != 0
/// is a positive label. Adds the (weighted) counts to the variables. top_k keeps
/// only the k largest predictions of the last axis; class_id keeps one class.
/// With evenly distributed thresholds it uses Keras's bucketed O(N + T) method.
void update_confusion_matrix_variables(const ConfusionVariables& vars, const Tensor& y_true, const Tensor& y_pred,
                                       const std::vector<double>& thresholds, bool thresholds_distributed_evenly,
                                       std::optional<int> top_k, std::optional<int> class_id,
                                       const Tensor& sample_weight, const std::string& who);

/// Host copy of a variable's values as doubles.
std::vector<double> values_of(const Variable& v);
/// A float tensor of the metric's dtype from doubles (rank 1), or a scalar when scalar=true.
Tensor make_result(const std::vector<double>& values, DType dtype, bool scalar);

}  // namespace kiln::metrics::detail
