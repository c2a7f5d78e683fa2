#pragma once
// keras.utils' sequence and time-series helpers.
//
//   auto x = kiln::utils::pad_sequences({{1}, {2, 3}, {4, 5, 6}});   // [[0 0 1] [0 2 3] [4 5 6]], int32
//   auto ds = kiln::utils::timeseries_dataset_from_array(data, targets, 10, {.batch_size = 32});
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kiln/core/dtype.h"
#include "kiln/core/tensor.h"
#include "kiln/data/dataset.h"

namespace kiln::utils {

/// keras.utils.pad_sequences's options, with its defaults.
struct PadSequencesOptions {
  /// Length of every row; by default the longest sequence's length.
  std::optional<int64_t> maxlen = std::nullopt;
  /// Element type of the result.
  DType dtype = DType::int32;
  /// "pre" pads before each sequence, "post" after it.
  std::string padding = "pre";
  /// "pre" drops the start of a sequence longer than maxlen, "post" its end.
  std::string truncating = "pre";
  /// The padding value, converted to dtype as NumPy's np.full does.
  double value = 0.0;
};

/// keras.utils.pad_sequences: a (num_samples, maxlen) tensor of integer sequences,
/// padded with `value` and truncated to maxlen where padding/truncating say.
Tensor pad_sequences(const std::vector<std::vector<int64_t>>& sequences, const PadSequencesOptions& options = {});
/// The same for sequences of samples: each tensor is (length, *sample_shape), all with the
/// sample shape of the first non-empty one; the result is (num_samples, maxlen, *sample_shape).
Tensor pad_sequences(std::span<const Tensor> sequences, const PadSequencesOptions& options = {});

/// keras.utils.timeseries_dataset_from_array's options, with its defaults.
struct TimeseriesOptions {
  /// Rows between the starts of consecutive windows.
  int64_t sequence_stride = 1;
  /// Rows between consecutive steps inside a window.
  int64_t sampling_rate = 1;
  /// Windows per batch; std::nullopt yields single windows.
  std::optional<int64_t> batch_size = 128;
  /// Shuffles the window order (as Keras: the start positions with NumPy's legacy
  /// RandomState(seed).shuffle, then a buffer shuffle of batch_size * 8 windows, or
  /// 1024 unbatched).
  bool shuffle = false;
  /// The shuffle seed; drawn from kiln::random when absent.
  std::optional<uint32_t> seed = std::nullopt;
  /// First row of data used (0 by default).
  std::optional<int64_t> start_index = std::nullopt;
  /// Rows from end_index on are not used (the end of data by default).
  std::optional<int64_t> end_index = std::nullopt;
};

/// keras.utils.timeseries_dataset_from_array: sliding windows over the rows of `data`.
/// Window i holds rows start_index + p_i + k * sampling_rate for k < sequence_length,
/// with p_i = i * sequence_stride; with targets, its target is targets[start_index + p_i].
/// Elements are {window} or {window, target}, batched as batch_size says.
Dataset timeseries_dataset_from_array(const Tensor& data, const std::optional<Tensor>& targets,
                                      int64_t sequence_length, const TimeseriesOptions& options = {});

/// NumPy's legacy np.random.RandomState(seed).shuffle on 0..n-1: the same permutation
/// (Mersenne Twister MT19937 and NumPy's masked rejection sampling).
std::vector<int64_t> numpy_legacy_permutation(int64_t n, uint32_t seed);

}  // namespace kiln::utils
