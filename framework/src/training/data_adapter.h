#pragma once
// Private (framework/src/training): data adapters turn what fit / evaluate /
// predict accept into Batches, one pass over the data at a time. Two kinds:
// in-memory arrays (kiln::Data) and a Dataset (which also covers generators,
// through Dataset::from_generator).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/data/data.h"
#include "kiln/data/dataset.h"

namespace kiln {
class Model;
}

namespace kiln::training {

/// In-memory data in the model's input and output order, all with `n` samples.
struct Arrays {
  std::vector<Tensor> x, y;
  Tensor sample_weight;
  int64_t n = 0;
};

/// Named data reordered as `names`; data given by position is returned as it is.
/// `what` ("input" / "output") names the missing entry in the error.
std::vector<Tensor> order_by_names(const Data& d, const std::vector<std::string>& names, const char* what);

/// x, y and sample weights for `model`, checked for a common, non-zero number
/// of samples. `where` ("fit()", ...) starts every error message.
Arrays make_arrays(const Model& model, const Data& x, const Data& y, const Tensor& sample_weight,
                   const std::string& where);

/// predict()'s inputs (no targets), with predict()'s own checks.
Arrays make_input_arrays(const Model& model, const Data& x);

/// Multiplies per-sample weights from class_weight (labels sparse or one-hot) into the sample weights.
void apply_class_weight(Arrays& arrays, const std::map<int, double>& class_weight);

/// Keras's validation_split: the LAST `fraction` of the samples, taken before
/// any shuffling. Returns {training part, validation part}.
std::pair<Arrays, Arrays> split_tail(const Arrays& all, double fraction);

/// `requested`, or Keras's default of 32; throws unless positive. `option`
/// names the argument in the error.
int checked_batch_size(std::optional<int> requested, const std::string& where, const char* option = "batch_size");

/// One pass over the data: each call returns the next batch, std::nullopt at the end.
using BatchPull = std::function<std::optional<Batch>()>;

class DataAdapter {
 public:
  virtual ~DataAdapter() = default;
  /// Starts a pass over the data (shuffled arrays draw their order here).
  virtual BatchPull start_pass() const = 0;
  /// The same pass for batches that are only copied to a device: unshuffled
  /// host arrays then give views of their rows instead of copies.
  virtual BatchPull start_pass_for_upload() const { return start_pass(); }
  /// How many steps an epoch (or an evaluation) asked for `requested` steps
  /// runs, as callbacks are told (CallbackParams::steps); 0 when unknown.
  virtual int steps(std::optional<int> requested) const = 0;
  /// Whether a pass left unfinished at the end of an epoch (steps_per_epoch)
  /// continues in the next one, instead of a new pass starting.
  virtual bool resumes_across_epochs() const = 0;
  /// A Dataset that never ends (steps must then be given).
  virtual bool infinite() const { return false; }
};

/// Arrays cut into batches of `batch_size` rows, in a new random order each
/// pass when `shuffle`. Every pass starts over: one epoch is at most one pass.
class ArrayDataAdapter final : public DataAdapter {
 public:
  ArrayDataAdapter(Arrays arrays, int batch_size, bool shuffle);
  BatchPull start_pass() const override;
  BatchPull start_pass_for_upload() const override;
  int steps(std::optional<int> requested) const override;
  bool resumes_across_epochs() const override { return false; }

 private:
  std::shared_ptr<const Arrays> arrays_;
  int batch_size_;
  bool shuffle_;
};

/// A Dataset whose elements are {x..., y..., sample_weight} batches, split by
/// the model's input and output counts. As in tf.data, with steps_per_epoch one
/// pass runs on across epochs until it ends.
class DatasetAdapter final : public DataAdapter {
 public:
  DatasetAdapter(Dataset dataset, const Model& model);
  BatchPull start_pass() const override;
  int steps(std::optional<int> requested) const override;
  bool resumes_across_epochs() const override { return true; }
  bool infinite() const override { return dataset_.cardinality() == Dataset::INFINITE; }

 private:
  Dataset dataset_;
  const Model* model_;
};

}  // namespace kiln::training
