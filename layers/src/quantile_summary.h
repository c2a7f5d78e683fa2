#pragma once
// Private: Keras's approximate quantile summary (layers/preprocessing/discretization.py),
// in the same float32/float64 steps as its NumPy code so that the boundaries match:
// a summary is (values, weights), both float32, values sorted.
#include <cstdint>
#include <vector>

namespace kiln::layers::detail {

struct QuantileSummary {
  std::vector<float> values, weights;
};

/// summarize(): every step-th sorted value, weighted step, with step = max(n·epsilon, 1).
QuantileSummary summarize(std::vector<float> values, double epsilon);
/// compress_summary(): 1 / epsilon points by np.interp of the cumulative weights
/// (unchanged when the summary has fewer than 1 / epsilon points).
QuantileSummary compress_summary(const QuantileSummary& s, double epsilon);
/// merge_summaries() with an empty summary, then compress_summary(1 / num_bins),
/// all but the last value: the num_bins - 1 boundaries adapt() sets.
std::vector<double> quantile_boundaries(const std::vector<float>& data, double epsilon, int64_t num_bins);

}  // namespace kiln::layers::detail
