#pragma once
// Statistics, named as in keras.ops: quantiles (median, percentile, quantile),
// average, ptp, moments, count_nonzero, bincount, histogram, and the
// reductions that skip NaN (nansum, nanmean, nanmax, ..., nanquantile).
// Axes follow reduce_ops.h: none means all of them.
//   kiln::quantile(x, {0.25, 0.75}, 1)   // (2, x.shape[0], ...)
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/tensor.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln {

// ---- quantiles (methods "linear", "lower", "higher", "midpoint", "nearest", as jnp.quantile) ----

/// keras.ops.quantile(x, q, axis=None, method="linear", keepdims=False): the q-th
/// quantile (q in [0, 1]) over `axis`; a slice holding NaN gives NaN. Integers give float32.
Tensor quantile(const Tensor& x, double q, Axes axis = {}, const std::string& method = "linear",
                bool keepdims = false);
/// keras.ops.quantile with several q: they index a new first axis of the result.
Tensor quantile(const Tensor& x, const std::vector<double>& q, Axes axis = {}, const std::string& method = "linear",
                bool keepdims = false);
/// keras.ops.percentile: quantile of q / 100 (q in [0, 100]).
Tensor percentile(const Tensor& x, double q, Axes axis = {}, const std::string& method = "linear",
                  bool keepdims = false);
/// keras.ops.percentile with several q, along a new first axis.
Tensor percentile(const Tensor& x, const std::vector<double>& q, Axes axis = {}, const std::string& method = "linear",
                  bool keepdims = false);
/// keras.ops.median(x, axis=None, keepdims=False): the middle value (the mean of the
/// two middle ones for an even count); NaN where a slice holds NaN.
Tensor median(const Tensor& x, Axes axis = {}, bool keepdims = false);
/// keras.ops.nanquantile: quantile of the non-NaN values (NaN where all are NaN).
Tensor nanquantile(const Tensor& x, double q, Axes axis = {}, const std::string& method = "linear",
                   bool keepdims = false);
/// keras.ops.nanquantile with several q, along a new first axis.
Tensor nanquantile(const Tensor& x, const std::vector<double>& q, Axes axis = {},
                   const std::string& method = "linear", bool keepdims = false);
/// keras.ops.nanpercentile: nanquantile of q / 100.
Tensor nanpercentile(const Tensor& x, double q, Axes axis = {}, const std::string& method = "linear",
                     bool keepdims = false);
/// keras.ops.nanpercentile with several q, along a new first axis.
Tensor nanpercentile(const Tensor& x, const std::vector<double>& q, Axes axis = {},
                     const std::string& method = "linear", bool keepdims = false);
/// keras.ops.nanmedian: median of the non-NaN values.
Tensor nanmedian(const Tensor& x, Axes axis = {}, bool keepdims = false);

// ---- reductions that skip NaN (integers and bool have none, and reduce as usual) ----

Tensor nansum(const Tensor& x, Axes axis = {}, bool keepdims = false);  ///< keras.ops.nansum: sum with NaN as 0.
Tensor nanprod(const Tensor& x, Axes axis = {}, bool keepdims = false);  ///< keras.ops.nanprod: prod with NaN as 1.
/// keras.ops.nanmax: max of the non-NaN values; NaN where all are NaN.
Tensor nanmax(const Tensor& x, Axes axis = {}, bool keepdims = false);
/// keras.ops.nanmin: min of the non-NaN values; NaN where all are NaN.
Tensor nanmin(const Tensor& x, Axes axis = {}, bool keepdims = false);
/// keras.ops.nanmean: mean of the non-NaN values (NaN where there are none); integers give float32.
Tensor nanmean(const Tensor& x, Axes axis = {}, bool keepdims = false);
/// keras.ops.nanvar: population variance of the non-NaN values.
Tensor nanvar(const Tensor& x, Axes axis = {}, bool keepdims = false);
/// keras.ops.nanstd: population standard deviation of the non-NaN values.
Tensor nanstd(const Tensor& x, Axes axis = {}, bool keepdims = false);
/// keras.ops.nanargmax(x, axis=None, keepdims=False): the int32 index of the largest
/// non-NaN value (over the flattened values when no axis); -1 where all are NaN.
Tensor nanargmax(const Tensor& x, std::optional<int> axis = std::nullopt, bool keepdims = false);
/// keras.ops.nanargmin: the int32 index of the smallest non-NaN value; -1 where all are NaN.
Tensor nanargmin(const Tensor& x, std::optional<int> axis = std::nullopt, bool keepdims = false);

// ---- other statistics ----

/// keras.ops.average(x, axis=None, weights=None): the weighted mean over `axis`
/// (all axes when none); weights have x's shape, or are 1-D along `axis`.
/// Integers give float32.
Tensor average(const Tensor& x, std::optional<int> axis = std::nullopt,
               const std::optional<Tensor>& weights = std::nullopt);
/// keras.ops.ptp: max - min over `axis` (peak to peak).
Tensor ptp(const Tensor& x, Axes axis = {}, bool keepdims = false);
/// keras.ops.moments(x, axes, keepdims=False): the mean and the population variance over `axes`.
std::pair<Tensor, Tensor> moments(const Tensor& x, Axes axes, bool keepdims = false);
/// keras.ops.count_nonzero(x, axis=None): the int32 number of non-zero entries over `axis`.
Tensor count_nonzero(const Tensor& x, Axes axis = {});
/// keras.ops.bincount(x, weights=None, minlength=0): for non-negative integers x
/// (1-D, or 2-D counted per row), how often each value occurs (int32), or the sum of
/// the weights at its occurrences (weights' dtype); the last axis has
/// max(max(x) + 1, minlength) entries.
Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights = std::nullopt, int64_t minlength = 0);
/// keras.ops.histogram(x, bins=10, range=None): the counts (float32) of x's values in
/// `bins` equal bins over range (x's min and max when none), and the bins + 1 edges.
std::pair<Tensor, Tensor> histogram(const Tensor& x, int64_t bins = 10,
                                    std::optional<std::pair<double, double>> range = std::nullopt);

/// keras.ops.correlate(x1, x2, mode="valid"): the 1-D cross-correlation
/// out[k] = sum_n x1[k + n] · x2[n] over x1 zero-padded for mode "valid", "same" or
/// "full" (np.correlate; a shorter x1 swaps the two and reverses the result). Integers give float32.
Tensor correlate(const Tensor& x1, const Tensor& x2, const std::string& mode = "valid");
/// keras.ops.corrcoef(x): the Pearson correlation coefficients of the rows of x (each
/// row a variable, each column an observation), clipped to [-1, 1]; a 1-D x gives 1.
Tensor corrcoef(const Tensor& x);

}  // namespace kiln
