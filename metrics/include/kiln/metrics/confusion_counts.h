#pragma once
/// @class kiln::metrics::ConfusionMatrixConditionCount
/// TruePositives, TrueNegatives, FalsePositives, FalseNegatives
/// (keras.metrics.*): weighted counts at one or more thresholds. A prediction
/// is positive when y_pred > threshold; a label is positive when y_true != 0.
///
/// @code{.unparsed}
///   kiln::metrics::TruePositives m;
///   m.update_state(Tensor({0.f, 1.f, 1.f, 1.f}), Tensor({1.f, 0.f, 1.f, 1.f}));  // 2
///   kiln::metrics::FalsePositives({.thresholds = {0.15, 0.5, 0.85}})  // result shape (3,)
/// @endcode
/// result(): a float32 scalar for one threshold, else shape (num_thresholds,).
#include <utility>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/training/metric.h"

namespace kiln::metrics {

/// Decision thresholds, which Keras writes as null (none given), one number or a list.
struct Thresholds : std::vector<double> {
  using std::vector<double>::vector;
  /// Takes the values of v (lets a std::vector convert implicitly).
  Thresholds(std::vector<double> v) : std::vector<double>(std::move(v)) {}
};

/// Options of TruePositives, FalsePositives, TrueNegatives and FalseNegatives (Keras's arguments).
struct ConfusionCountOptions {
  /// Values in [0, 1]; empty means {0.5}.
  Thresholds thresholds;
  std::string name;  ///< Empty gives the snake_case class name ("true_positives", ...).
  DType dtype = DType::float32;  ///< The dtype of the result.
  KILN_FIELDS(ConfusionCountOptions, thresholds)
};

/// The shared implementation (Keras's _ConfusionMatrixConditionCount).
class ConfusionMatrixConditionCount : public Metric {
 public:
  /// Which count the metric accumulates.
  enum class Condition { true_positives, false_positives, true_negatives, false_negatives };
  /// The options struct (generic code builds Options{...}).
  using Options = ConfusionCountOptions;
  /// default_name is used when options.name is empty. Throws ValueError for a threshold
  /// outside [0, 1]; update_state throws ShapeError when y_true and y_pred differ in shape.
  ConfusionMatrixConditionCount(Condition condition, std::string default_name, ConfusionCountOptions options);
  void update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight = Tensor()) override;
  Tensor result() const override;
  Config get_config() const override;
  /// The thresholds used ({0.5} when none were given).
  const std::vector<double>& thresholds() const { return thresholds_; }
  bool runs_on_device() const override { return false; }  // counts on the host

 protected:
  /// The options a clone is built from: the given thresholds with the current name and dtype.
  ConfusionCountOptions options() const { return {init_thresholds_, name(), dtype()}; }

 private:
  Condition condition_;
  std::vector<double> init_thresholds_, thresholds_;
  bool evenly_;
  Variable accumulator_;
};

// The comment before each use documents the class; the API reference expands this
// macro (docs/Doxyfile, EXPAND_AS_DEFINED), so the comment inside it documents
// every class's constructor.
#define KILN_CONFUSION_COUNT_CLASS(Cls, cond, default_name)                                               \
  class Cls : public ConfusionMatrixConditionCount {                                                        \
   public:                                                                                                  \
    /** Creates the metric; throws ValueError for a threshold outside [0, 1]. */                            \
    explicit Cls(ConfusionCountOptions options = {})                                                        \
        : ConfusionMatrixConditionCount(Condition::cond, default_name, std::move(options)) {}               \
    std::string class_name() const override { return #Cls; }                                                \
    std::shared_ptr<Metric> clone() const override { return std::make_shared<Cls>(options()); }            \
  };

/// The weighted count of true positives (y_true != 0, y_pred > threshold) at each threshold
/// (Keras's `TruePositives`). Users create it directly, e.g. `kiln::metrics::TruePositives()`.
KILN_CONFUSION_COUNT_CLASS(TruePositives, true_positives, "true_positives")
/// The weighted count of false positives (y_true == 0, y_pred > threshold) at each threshold
/// (Keras's `FalsePositives`). Users create it directly, e.g. `kiln::metrics::FalsePositives()`.
KILN_CONFUSION_COUNT_CLASS(FalsePositives, false_positives, "false_positives")
/// The weighted count of true negatives (y_true == 0, y_pred <= threshold) at each threshold
/// (Keras's `TrueNegatives`). Users create it directly, e.g. `kiln::metrics::TrueNegatives()`.
KILN_CONFUSION_COUNT_CLASS(TrueNegatives, true_negatives, "true_negatives")
/// The weighted count of false negatives (y_true != 0, y_pred <= threshold) at each threshold
/// (Keras's `FalseNegatives`). Users create it directly, e.g. `kiln::metrics::FalseNegatives()`.
KILN_CONFUSION_COUNT_CLASS(FalseNegatives, false_negatives, "false_negatives")
#undef KILN_CONFUSION_COUNT_CLASS

}  // namespace kiln::metrics
