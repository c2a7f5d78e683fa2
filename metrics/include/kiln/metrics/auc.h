#pragma once
/// @class kiln::metrics::AUC
/// AUC (keras.metrics.AUC): area under the ROC or precision-recall curve,
/// approximated with a Riemann sum over `num_thresholds` thresholds.
///
/// Thresholds: [-1e-7, 1/(T-1), 2/(T-1), ..., 1 + 1e-7] (or the given ones
/// with those two end points added). ROC: x = fp rate, y = recall; PR: x =
/// recall, y = precision. summation_method "interpolation" takes the mid
/// point for ROC and, for PR, Keras's closed form of Davis & Goadrich (2006)
/// (tp and fp vary linearly inside each interval, not precision);
/// "minoring"/"majoring" take the lower/upper of the two end heights.
///
/// @code{.unparsed}
///   kiln::metrics::AUC m({.num_thresholds = 3});
///   m.update_state(Tensor({0.f, 0.f, 1.f, 1.f}), Tensor({0.f, 0.5f, 0.3f, 0.9f}));  // 0.75
/// @endcode
/// result(): a float32 scalar. multi_label / label_weights are not supported.
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/training/metric.h"

namespace kiln::metrics {

/// Options of AUC (keras.metrics.AUC's arguments and defaults; no multi_label, num_labels, label_weights).
struct AUCOptions {
  int num_thresholds = 200;  ///< Number of evenly spaced thresholds; must be > 1 (ValueError otherwise).
  std::string curve = "ROC";                      ///< "ROC" or "PR" (precision-recall).
  std::string summation_method = "interpolation";  ///< "interpolation", "minoring" or "majoring".
  std::vector<double> thresholds;                  ///< Explicit thresholds; if set, num_thresholds is ignored.
  bool from_logits = false;                        ///< Apply a sigmoid to y_pred first.
  std::string name;  ///< Empty gives "auc".
  DType dtype = DType::float32;  ///< The dtype of the result.
  KILN_FIELDS(AUCOptions, num_thresholds, curve, summation_method, thresholds, from_logits)
};

class AUC : public Metric {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = AUCOptions;
  /// Throws ValueError for an unknown curve or summation_method, or num_thresholds < 2.
  explicit AUC(AUCOptions options = {});
  void update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight = Tensor()) override;
  Tensor result() const override;
  std::string class_name() const override { return "AUC"; }
  bool runs_on_device() const override { return false; }  // counts on the host
  Config get_config() const override;
  std::shared_ptr<Metric> clone() const override;
  /// The thresholds used, end points included.
  const std::vector<double>& thresholds() const { return thresholds_; }
  /// The number of thresholds used, end points included.
  int num_thresholds() const { return num_thresholds_; }

 private:
  double interpolate_pr_auc() const;
  AUCOptions o_;
  int num_thresholds_;
  std::vector<double> thresholds_;
  bool evenly_;
  Variable tp_, fp_, tn_, fn_;
};

}  // namespace kiln::metrics
