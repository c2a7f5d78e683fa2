// Epochs, evaluation runs and fit()'s validation runs as sequences of batches.
#include "training/epoch_iterator.h"

#include "core/number_text.h"
#include "kiln/core/error.h"
#include "training/device_prefetch.h"

namespace kiln::training {

EpochIterator::EpochIterator(std::shared_ptr<const DataAdapter> adapter, std::optional<int> steps, bool resume)
    : adapter_(std::move(adapter)), steps_(steps), resume_(resume) {}

EpochIterator EpochIterator::for_training(std::shared_ptr<const DataAdapter> adapter,
                                          std::optional<int> steps_per_epoch) {
  // Only an epoch cut short by steps_per_epoch leaves a pass to continue.
  const bool resume = adapter->resumes_across_epochs() && steps_per_epoch.has_value();
  return EpochIterator(std::move(adapter), steps_per_epoch, resume);
}

EpochIterator EpochIterator::for_runs(std::shared_ptr<const DataAdapter> adapter, std::optional<int> steps) {
  return EpochIterator(std::move(adapter), steps, false);
}

int EpochIterator::run_epoch(const std::function<bool(int, const Batch&)>& step) {
  // A pass that carries over must not lose the batches a worker made ahead.
  const bool upload = prefetch_to_ && !prefetch_to_->is_cpu() && !resume_;
  if (!resume_ || !pass_) pass_ = upload ? adapter_->start_pass_for_upload() : adapter_->start_pass();
  BatchPull ahead;
  if (upload) ahead = prefetch_to_device(std::move(pass_), *prefetch_to_, steps_);
  int done = 0;
  while (!steps_ || done < *steps_) {
    std::optional<Batch> batch = ahead ? ahead() : pass_();
    if (!batch) {
      // Releasing the pass stops a prefetching Dataset's thread now.
      pass_ = nullptr;
      break;
    }
    const bool go_on = step(done, *batch);
    ++done;
    if (!go_on) break;
  }
  if (!resume_) pass_ = nullptr;
  return done;
}

int EpochIterator::run_epoch_in_groups(int k, const std::function<bool(int, int, const std::vector<Batch>&)>& step) {
  std::vector<Batch> group;
  int first = 0;
  bool go_on = true;
  const int done = run_epoch([&](int i, const Batch& b) {
    if (group.empty()) first = i;
    group.push_back(b);
    if (static_cast<int>(group.size()) < k) return true;
    go_on = step(first, i, group);
    group.clear();
    return go_on;
  });
  if (!group.empty() && go_on) step(first, first + static_cast<int>(group.size()) - 1, group);
  return done;
}

namespace {

/// The validation dataset of fit(): validation_data's, or validation_dataset.
std::shared_ptr<Dataset> validation_dataset(const FitOptions& o) {
  return o.validation_data && o.validation_data->dataset() ? o.validation_data->dataset() : o.validation_dataset;
}

}  // namespace

std::optional<Arrays> take_validation_arrays(const Model& model, const FitOptions& o, Arrays* train) {
  if (o.validation_data && o.validation_dataset)
    throw ValueError("fit(): pass validation_data or validation_dataset, not both");
  if (train && (o.validation_split < 0 || o.validation_split >= 1))
    throw ValueError("fit(): validation_split must be in [0, 1), got " + kiln::detail::number_text(o.validation_split));
  if (const ValidationData* v = o.validation_data ? o.validation_data->arrays() : nullptr)
    return make_arrays(model, v->x, v->y, v->sample_weight, "fit() validation_data");
  // As in Keras, validation data given outright takes precedence over validation_split.
  if (validation_dataset(o) || o.validation_split == 0) return std::nullopt;
  if (!train)
    throw ValueError("fit(): validation_split is only supported for arrays, not for a Dataset; "
                     "pass validation_data or validation_dataset");
  auto [rest, tail] = split_tail(*train, o.validation_split);
  *train = std::move(rest);
  return std::move(tail);
}

std::optional<EpochIterator> validation_iterator(const Model& model, const FitOptions& o,
                                                 std::optional<Arrays> arrays) {
  std::shared_ptr<const DataAdapter> adapter;
  if (arrays) {
    const int bs = checked_batch_size(o.validation_batch_size ? o.validation_batch_size : o.batch_size, "fit()",
                                      o.validation_batch_size ? "validation_batch_size" : "batch_size");
    adapter = std::make_shared<ArrayDataAdapter>(std::move(*arrays), bs, false);
  } else if (const auto dataset = validation_dataset(o)) {
    adapter = std::make_shared<DatasetAdapter>(*dataset, model);
    require_finite(*adapter, o.validation_steps, "fit(): the validation dataset is infinite; pass validation_steps");
  } else {
    return std::nullopt;
  }
  return EpochIterator::for_runs(std::move(adapter), o.validation_steps);
}

void require_finite(const DataAdapter& adapter, const std::optional<int>& steps, const std::string& message) {
  if (adapter.infinite() && !steps) throw ValueError(message);
}

}  // namespace kiln::training

namespace kiln {

ValidationArg::ValidationArg(const Dataset& dataset) : dataset_(std::make_shared<Dataset>(dataset)) {}

}  // namespace kiln
