// keras.utils.timeseries_dataset_from_array, with Keras's checks, counts and shuffle.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kiln/core/device.h"
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/random.h"
#include "kiln/utils/sequence.h"

namespace kiln::utils {
namespace {

void check_options(int64_t length, const TimeseriesOptions& o) {
  const std::string of_data = ", for data of length " + std::to_string(length);
  // Keras tests `if start_index:` and `if end_index:`, so 0 skips these checks.
  if (o.start_index && *o.start_index) {
    const int64_t s = *o.start_index;
    if (s < 0) throw ValueError("`start_index` must be 0 or greater. Received: start_index=" + std::to_string(s));
    if (s >= length)
      throw ValueError("`start_index` must be lower than the length of the data. Received: start_index=" +
                       std::to_string(s) + of_data);
  }
  if (o.end_index && *o.end_index) {
    const int64_t e = *o.end_index;
    if (o.start_index && *o.start_index && e <= *o.start_index)
      throw ValueError("`end_index` must be higher than `start_index`. Received: start_index=" +
                       std::to_string(*o.start_index) + ", and end_index=" + std::to_string(e) + " ");
    if (e >= length)
      throw ValueError("`end_index` must be lower than the length of the data. Received: end_index=" +
                       std::to_string(e) + of_data);
    if (e <= 0) throw ValueError("`end_index` must be higher than 0. Received: end_index=" + std::to_string(e));
  }
  auto check_step = [&](int64_t v, const std::string& name) {
    if (v <= 0) throw ValueError("`" + name + "` must be higher than 0. Received: " + name + "=" + std::to_string(v));
    if (v >= length)
      throw ValueError("`" + name + "` must be lower than the length of the data. Received: " + name + "=" +
                       std::to_string(v) + of_data);
  };
  check_step(o.sampling_rate, "sampling_rate");
  check_step(o.sequence_stride, "sequence_stride");
}

}  // namespace

std::vector<int64_t> numpy_legacy_permutation(int64_t n, uint32_t seed) {
  std::vector<int64_t> a(static_cast<std::size_t>(std::max<int64_t>(n, 0)));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int64_t>(i);
  // RandomState(seed) seeds MT19937 as std::mt19937(seed) does; its shuffle is a
  // Fisher-Yates from the back whose bounded draws mask 32-bit outputs and reject.
  std::mt19937 gen(seed);
  for (std::size_t i = a.size() > 0 ? a.size() - 1 : 0; i > 0; --i) {
    uint64_t mask = i;
    for (int s : {1, 2, 4, 8, 16, 32}) mask |= mask >> s;
    uint64_t j;
    do j = gen() & mask; while (j > i);
    std::swap(a[i], a[j]);
  }
  return a;
}

Dataset timeseries_dataset_from_array(const Tensor& data, const std::optional<Tensor>& targets,
                                      int64_t sequence_length, const TimeseriesOptions& options) {
  if (!data.defined() || data.rank() == 0)
    throw ValueError("timeseries_dataset_from_array: `data` must have a time axis first; received a tensor of shape " +
                     (data.defined() ? data.shape().to_string() : std::string("(undefined)")));
  if (sequence_length <= 0)
    throw ValueError("timeseries_dataset_from_array: `sequence_length` must be higher than 0. Received: "
                     "sequence_length=" + std::to_string(sequence_length));
  const int64_t length = data.shape().dims()[0];
  check_options(length, options);
  if (targets && (!targets->defined() || targets->rank() == 0))
    throw ValueError("timeseries_dataset_from_array: `targets` must have one entry per time step; received a tensor "
                     "of shape " + (targets->defined() ? targets->shape().to_string() : std::string("(undefined)")));

  const int64_t start = options.start_index.value_or(0), end = options.end_index.value_or(length);
  const int64_t rate = options.sampling_rate;
  int64_t num_seqs = end - start - (sequence_length - 1) * rate;
  if (targets) num_seqs = std::min(num_seqs, targets->shape().dims()[0]);
  auto positions = std::make_shared<std::vector<int64_t>>();
  for (int64_t p = 0; p < num_seqs; p += options.sequence_stride) positions->push_back(p);
  const uint32_t seed = options.seed.value_or(static_cast<uint32_t>(random::next_seed() % 1000000));
  if (options.shuffle) {
    const auto order = numpy_legacy_permutation(static_cast<int64_t>(positions->size()), seed);
    std::vector<int64_t> shuffled(positions->size());
    for (std::size_t i = 0; i < order.size(); ++i) shuffled[i] = (*positions)[static_cast<std::size_t>(order[i])];
    *positions = std::move(shuffled);
  }

  const Tensor steps = slice(data.to(Device::cpu()), {Slice(start, end)});
  std::optional<Tensor> target_steps;
  if (targets) target_steps = slice(targets->to(Device::cpu()), {Slice(start, end)});
  const int64_t count = static_cast<int64_t>(positions->size());
  auto factory = [=]() -> Dataset::Pull {
    return [=, i = int64_t{0}]() mutable -> std::optional<Element> {
      if (i == count) return std::nullopt;
      const int64_t p = (*positions)[static_cast<std::size_t>(i++)];
      std::vector<int64_t> rows(static_cast<std::size_t>(sequence_length));
      for (int64_t k = 0; k < sequence_length; ++k) rows[static_cast<std::size_t>(k)] = p + k * rate;
      Element e{gather(steps, Tensor(rows, Shape({sequence_length})), 0)};
      if (target_steps) {
        const int64_t have = target_steps->shape().dims()[0];
        if (p >= have)
          throw ValueError("timeseries_dataset_from_array: the window starting at row " + std::to_string(start + p) +
                           " has no target: `targets` from start_index=" + std::to_string(start) + " holds " +
                           std::to_string(have) + " rows (targets of shape " + targets->shape().to_string() + ")");
        e.push_back((*target_steps)[p]);
      }
      return e;
    };
  };
  Dataset ds = Dataset::from_generator(factory, count);
  if (options.batch_size) {
    if (options.shuffle) ds = ds.shuffle(*options.batch_size * 8, seed);
    return ds.batch(*options.batch_size);
  }
  return options.shuffle ? ds.shuffle(1024, seed) : ds;
}

}  // namespace kiln::utils
