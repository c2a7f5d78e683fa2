// fit()'s validation: validation_steps bounds the validation batches the same
// way whatever the training data (arrays, Dataset) and wherever the validation
// data comes from (arrays, a Dataset, validation_split).
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <string>
#include <vector>

namespace k = kiln;
namespace L = kiln::layers;

namespace {

/// Counts the batches of each validation run fit() makes (one entry per run).
class ValidationBatchCounter : public k::Callback {
 public:
  std::vector<int> batches_per_run;
  void on_test_begin(const k::Logs&) override { batches_per_run.push_back(0); }
  void on_test_batch_end(int, const k::Logs&) override {
    REQUIRE_FALSE(batches_per_run.empty());
    ++batches_per_run.back();
  }
};

enum class Train { arrays, dataset };
enum class Val { arrays, dataset, split, dataset_as_data };

std::string name(Train t) { return t == Train::arrays ? "arrays" : "dataset"; }
std::string name(Val v) {
  return v == Val::arrays ? "arrays" : v == Val::dataset ? "dataset" : v == Val::split ? "validation_split"
                                                                                       : "a Dataset as validation_data";
}

/// Fits for two epochs with validation_steps = 2 on 40 samples in batches of 4,
/// so every validation source holds more than 2 batches (10, 10 or 5).
/// Returns the batches of each validation run, e.g. "2 2".
std::string validation_runs(Train train, Val val) {
  k::clear_session();
  k::random::set_seed(11);
  const int64_t n = 40;
  k::Tensor x = k::random::normal({n, 4});
  k::Tensor y = k::random::uniform({n}, 0, 3, k::int64);
  k::Sequential model({L::Input({4}), L::Dense(3)});
  model.compile({.optimizer = "sgd", .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true})});

  auto counter = std::make_shared<ValidationBatchCounter>();
  k::FitOptions o{.batch_size = 4, .epochs = 2, .verbose = 0, .callbacks = {counter}, .validation_steps = 2};
  if (val == Val::arrays) o.validation_data = k::ValidationData{x, y};
  if (val == Val::dataset) o.validation_dataset = std::make_shared<k::Dataset>(k::Dataset::from_tensor_slices({x, y}).batch(4));
  if (val == Val::split) o.validation_split = 0.5;
  if (val == Val::dataset_as_data) o.validation_data = k::Dataset::from_tensor_slices({x, y}).batch(4);

  k::History h = train == Train::arrays ? model.fit(x, y, o) : model.fit(k::Dataset::from_tensor_slices({x, y}).batch(4), o);
  CHECK(h.history.count("val_loss") == 1);
  std::string runs;
  for (int b : counter->batches_per_run) runs += (runs.empty() ? "" : " ") + std::to_string(b);
  return runs;
}

}  // namespace

TEST_CASE("validation_steps = 2 runs exactly 2 validation batches per epoch, whatever the data") {
  for (Train train : {Train::arrays, Train::dataset}) {
    for (Val val : {Val::arrays, Val::dataset, Val::split, Val::dataset_as_data}) {
      // fit() refuses this one: a Dataset cannot be split by samples (next test case).
      if (train == Train::dataset && val == Val::split) continue;
      INFO("training data: ", name(train), ", validation data: ", name(val));
      CHECK(validation_runs(train, val) == "2 2");
    }
  }
}

TEST_CASE("fit() refuses validation it cannot honour") {
  k::clear_session();
  k::Tensor x = k::random::normal({8, 4});
  k::Tensor y = k::random::uniform({8}, 0, 3, k::int64);
  k::Sequential model({L::Input({4}), L::Dense(3)});
  model.compile({.optimizer = "sgd", .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true})});
  auto ds = k::Dataset::from_tensor_slices({x, y}).batch(4);

  // A Dataset cannot be split by samples, as in Keras.
  CHECK_THROWS_WITH_AS(model.fit(ds, {.verbose = 0, .validation_split = 0.5}),
                       doctest::Contains("validation_split is only supported for arrays"), k::ValueError);
  // validation_data takes precedence over validation_split, so nothing needs splitting.
  CHECK_NOTHROW(model.fit(ds, {.verbose = 0, .validation_split = 0.5, .validation_data = k::ValidationData{x, y}}));

  auto vds = std::make_shared<k::Dataset>(ds);
  CHECK_THROWS_WITH_AS(model.fit(x, y, {.verbose = 0, .validation_data = k::ValidationData{x, y}, .validation_dataset = vds}),
                       doctest::Contains("not both"), k::ValueError);
  CHECK_THROWS_WITH_AS(model.fit(x, y, {.verbose = 0, .validation_data = ds, .validation_dataset = vds}),
                       doctest::Contains("not both"), k::ValueError);
  // A Dataset given as validation_data also takes precedence over validation_split.
  CHECK_NOTHROW(model.fit(x, y, {.verbose = 0, .validation_split = 0.5, .validation_data = ds}));
  auto endless = std::make_shared<k::Dataset>(ds.repeat());
  CHECK_THROWS_WITH_AS(model.fit(x, y, {.verbose = 0, .validation_dataset = endless}),
                       doctest::Contains("pass validation_steps"), k::ValueError);
  CHECK_NOTHROW(model.fit(x, y, {.verbose = 0, .validation_dataset = endless, .validation_steps = 3}));
}
