#pragma once
// MeanIoU (keras.metrics.MeanIoU): the mean over classes of
//   IoU = tp / (tp + fp + fn)
// from a (num_classes, num_classes) confusion matrix of integer labels (rows:
// true class, columns: predicted class). Classes that never occur (zero
// denominator) are left out of the mean.
//
//   kiln::metrics::MeanIoU m(2);
//   m.update_state(Tensor({0, 0, 1, 1}), Tensor({0, 1, 0, 1}));  // 0.33333334
// sparse_y_true/sparse_y_pred = false take the argmax over `axis` first.
// ignore_class: entries with this true label are left out.
// result(): a float32 scalar. State: "total_confusion_matrix".
#include <cstdint>
#include <optional>

#include "kiln/core/fields.h"
#include "kiln/training/metric.h"

namespace kiln::metrics {

struct MeanIoUOptions {
  std::optional<int64_t> ignore_class;
  bool sparse_y_true = true;
  bool sparse_y_pred = true;
  int axis = -1;
  std::string name;
  DType dtype = DType::float32;
  KILN_FIELDS(MeanIoUOptions, ignore_class, sparse_y_true, sparse_y_pred, axis)
};

class MeanIoU : public Metric {
 public:
  using Options = MeanIoUOptions;
  explicit MeanIoU(int64_t num_classes, MeanIoUOptions options = {});
  void update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight = Tensor()) override;
  Tensor result() const override;
  std::string class_name() const override { return "MeanIoU"; }
  bool runs_on_device() const override { return false; }  // counts on the host
  Config get_config() const override;
  std::shared_ptr<Metric> clone() const override;
  int64_t num_classes() const { return num_classes_; }
  KILN_ARGS(MeanIoU, num_classes_)

 private:
  int64_t num_classes_;
  MeanIoUOptions o_;
  Variable total_cm_;
};

}  // namespace kiln::metrics
