#include "kiln/losses/sparse_categorical_crossentropy.h"

#include <nlohmann/json.hpp>
#include <numeric>

#include "kiln/core/error.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

namespace {

// Labels (N, ..., 1) next to predictions (N, ..., C) lose their last axis; floats become int64.
Tensor standardize_labels(const Tensor& y_true, const Tensor& y_pred) {
  Tensor labels = y_true;
  if (labels.rank() == y_pred.rank() && labels.rank() > 0 && labels.shape()[-1] == 1) labels = squeeze(labels, {-1});
  if (labels.dtype() != DType::int64) labels = cast(labels, DType::int64);
  return labels;
}

Tensor valid_mask(const Tensor& labels, int64_t ignore_class) {
  return not_equal(labels, Tensor(static_cast<int64_t>(ignore_class)));
}

}  // namespace

Tensor sparse_categorical_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits, int axis,
                                       std::optional<int64_t> ignore_class) {
  Tensor output = detail::as_float(y_pred);
  if (output.rank() < 1)
    throw ShapeError("sparse_categorical_crossentropy: y_pred must have a class axis, but received shape " +
                     output.shape().to_string());
  // Move the class axis last: the fused op works on the last axis.
  const int64_t r = output.rank();
  const int64_t ax = axis < 0 ? axis + r : axis;
  if (ax < 0 || ax >= r)
    throw IndexError("sparse_categorical_crossentropy: axis " + std::to_string(axis) + " is out of range for y_pred of shape " +
                     output.shape().to_string());
  if (ax != r - 1) {
    std::vector<int> perm;
    for (int i = 0; i < r; ++i)
      if (i != ax) perm.push_back(i);
    perm.push_back(static_cast<int>(ax));
    output = transpose(output, perm);
  }
  Tensor labels = standardize_labels(y_true, output);
  Tensor valid;
  if (ignore_class) {
    // Ignored labels (e.g. -1 or 255) become class 0 so the op accepts them; their loss is zeroed below.
    valid = valid_mask(labels, *ignore_class);
    labels = where(valid, labels, zeros_like(labels));
    output = output * expand_dims(cast(valid, output.dtype()), -1);
  }
  if (!from_logits) output = log(clip(output, detail::kEpsilon, 1.0 - detail::kEpsilon));
  Tensor res = sparse_softmax_cross_entropy_with_logits(labels, output);
  if (ignore_class) res = where(valid, res, zeros_like(res));
  return res;
}

SparseCategoricalCrossentropy::SparseCategoricalCrossentropy(SparseCategoricalCrossentropyOptions o)
    : Loss("sparse_categorical_crossentropy", LossOptions{o.reduction, o.name}), o_(std::move(o)) {}

Tensor SparseCategoricalCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  return sparse_categorical_crossentropy(y_true, y_pred, o_.from_logits, o_.axis, o_.ignore_class);
}

Tensor SparseCategoricalCrossentropy::compute_mask(const Tensor& y_true, const Tensor& y_pred) const {
  if (!o_.ignore_class) return Tensor();
  return valid_mask(standardize_labels(y_true, detail::as_float(y_pred)), *o_.ignore_class);
}

Config SparseCategoricalCrossentropy::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_LOSS(SparseCategoricalCrossentropy, "SparseCategoricalCrossentropy", "sparse_categorical_crossentropy",
                   "scce", "SCCE")

}  // namespace kiln::losses
