#pragma once
/// @class kiln::metrics::MeanIoU
/// MeanIoU (keras.metrics.MeanIoU): the mean over classes of
/// @code{.unparsed}
///   IoU = tp / (tp + fp + fn)
/// @endcode
/// from a (num_classes, num_classes) confusion matrix of integer labels (rows:
/// true class, columns: predicted class). Classes that never occur (zero
/// denominator) are left out of the mean.
///
/// @code{.unparsed}
///   kiln::metrics::MeanIoU m(2);
///   m.update_state(Tensor({0, 0, 1, 1}), Tensor({0, 1, 0, 1}));  // 0.33333334
/// @endcode
/// sparse_y_true/sparse_y_pred = false take the argmax over `axis` first.
/// ignore_class: entries with this true label are left out.
/// result(): a float32 scalar. State: "total_confusion_matrix".
#include <cstdint>
#include <optional>

#include "kiln/core/fields.h"
#include "kiln/training/metric.h"

namespace kiln::metrics {

/// Options of MeanIoU (keras.metrics.MeanIoU's arguments besides num_classes, and their defaults).
struct MeanIoUOptions {
  std::optional<int64_t> ignore_class;  ///< Entries with this true label are left out; none by default.
  bool sparse_y_true = true;  ///< y_true holds integer labels; false: take the argmax over axis first.
  bool sparse_y_pred = true;  ///< y_pred holds integer labels; false: take the argmax over axis first.
  int axis = -1;  ///< The class axis for the argmax of non-sparse inputs.
  std::string name;  ///< Empty gives "mean_io_u" (Keras's default name).
  DType dtype = DType::float32;  ///< The dtype of the result.
  KILN_FIELDS(MeanIoUOptions, ignore_class, sparse_y_true, sparse_y_pred, axis)
};

class MeanIoU : public Metric {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = MeanIoUOptions;
  /// num_classes: the number of classes (at least 1, else ValueError). update_state throws
  /// ValueError for a label outside [0, num_classes) and ShapeError when y_true and y_pred differ in size.
  explicit MeanIoU(int64_t num_classes, MeanIoUOptions options = {});
  void update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight = Tensor()) override;
  Tensor result() const override;
  std::string class_name() const override { return "MeanIoU"; }
  bool runs_on_device() const override { return false; }  // counts on the host
  Config get_config() const override;
  std::shared_ptr<Metric> clone() const override;
  /// The num_classes given at construction.
  int64_t num_classes() const { return num_classes_; }
  KILN_ARGS(MeanIoU, num_classes_)

 private:
  int64_t num_classes_;
  MeanIoUOptions o_;
  Variable total_cm_;
};

}  // namespace kiln::metrics
