// keras.ops reductions, sorting and searching, cumulative ops, statistics and segment
// reductions by name; the ops_reduce oracle group (tests/oracle/oracle_ops_reduce.py)
// compares them with Keras.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/ops/ops.h"
#include "nn/keras_op_table.h"

namespace kiln::detail::keras_ops_reduce {

using namespace keras_op_api;

namespace {

namespace k = kiln;

/// keras's axis=None | int | list as kiln::Axes.
k::Axes axes_of(const json& p, const char* key = "axis") {
  if (!p.contains(key) || p.at(key).is_null()) return {};
  if (p.at(key).is_number()) return k::Axes(p.at(key).get<int>());
  return k::Axes(p.at(key).get<std::vector<int>>());
}

std::optional<int> opt_int(const json& p, const char* key) {
  if (!p.contains(key) || p.at(key).is_null()) return std::nullopt;
  return p.at(key).get<int>();
}

std::optional<k::DType> opt_dtype(const json& p) {
  if (!p.contains("dtype") || p.at("dtype").is_null()) return std::nullopt;
  return k::dtype_from_name(p.at("dtype").get<std::string>());
}

bool keepdims(const json& p) { return param(p, "keepdims", false); }

Outputs pair_out(const std::pair<k::Tensor, k::Tensor>& r) { return Outputs{r.first, r.second}; }

using QuantileFn = k::Tensor (*)(const k::Tensor&, const std::vector<double>&, k::Axes, const std::string&, bool);
using QuantileScalarFn = k::Tensor (*)(const k::Tensor&, double, k::Axes, const std::string&, bool);

Outputs quantile_call(QuantileScalarFn one, QuantileFn many, const Inputs& x, const json& p) {
  const std::string method = param<std::string>(p, "method", "linear");
  if (p.at("q").is_array()) return Outputs{many(x[0], p.at("q").get<std::vector<double>>(), axes_of(p), method, keepdims(p))};
  return Outputs{one(x[0], p.at("q").get<double>(), axes_of(p), method, keepdims(p))};
}

#define KILN_REDUCE_ENTRY(name) \
  {#name, [](const Inputs& x, const json& p) { return Outputs{k::name(x[0], axes_of(p), keepdims(p))}; }}
#define KILN_CUMULATIVE_ENTRY(name) \
  {#name, [](const Inputs& x, const json& p) { return Outputs{k::name(x[0], opt_int(p, "axis"), opt_dtype(p))}; }}
#define KILN_SEGMENT_ENTRY(name)                                                                                  \
  {#name, [](const Inputs& x, const json& p) {                                                                    \
     std::optional<int64_t> n;                                                                                    \
     if (p.contains("num_segments") && !p.at("num_segments").is_null()) n = p.at("num_segments").get<int64_t>(); \
     return Outputs{k::name(x[0], x[1], n, param(p, "sorted", false))};                                           \
   }}

}  // namespace

const OpEntries reduce_entries{
    KILN_REDUCE_ENTRY(all), KILN_REDUCE_ENTRY(any), KILN_REDUCE_ENTRY(amax), KILN_REDUCE_ENTRY(amin),
    KILN_REDUCE_ENTRY(ptp), KILN_REDUCE_ENTRY(nansum), KILN_REDUCE_ENTRY(nanprod), KILN_REDUCE_ENTRY(nanmax),
    KILN_REDUCE_ENTRY(nanmin), KILN_REDUCE_ENTRY(nanmean), KILN_REDUCE_ENTRY(nanvar), KILN_REDUCE_ENTRY(nanstd),
    KILN_REDUCE_ENTRY(median), KILN_REDUCE_ENTRY(nanmedian),
    KILN_CUMULATIVE_ENTRY(cumsum), KILN_CUMULATIVE_ENTRY(cumprod), KILN_CUMULATIVE_ENTRY(nancumsum),
    KILN_CUMULATIVE_ENTRY(nancumprod),
    KILN_SEGMENT_ENTRY(segment_sum), KILN_SEGMENT_ENTRY(segment_max), KILN_SEGMENT_ENTRY(segment_min),
    KILN_SEGMENT_ENTRY(segment_prod),
    {"count_nonzero", [](const Inputs& x, const json& p) { return Outputs{k::count_nonzero(x[0], axes_of(p))}; }},
    {"nanargmax",
     [](const Inputs& x, const json& p) { return Outputs{k::nanargmax(x[0], opt_int(p, "axis"), keepdims(p))}; }},
    {"nanargmin",
     [](const Inputs& x, const json& p) { return Outputs{k::nanargmin(x[0], opt_int(p, "axis"), keepdims(p))}; }},
    {"sort", [](const Inputs& x, const json& p) { return Outputs{k::sort(x[0], param(p, "axis", -1))}; }},
    {"argsort", [](const Inputs& x, const json& p) { return Outputs{k::argsort(x[0], param(p, "axis", -1))}; }},
    {"top_k", [](const Inputs& x, const json& p) {
       return pair_out(k::top_k(x[0], p.at("k").get<int64_t>(), param(p, "sorted", true)));
     }},
    {"in_top_k", [](const Inputs& x, const json& p) {
       return Outputs{k::in_top_k(x[0], x[1], p.at("k").get<int64_t>())};
     }},
    {"searchsorted", [](const Inputs& x, const json& p) {
       return Outputs{k::searchsorted(x[0], x[1], param<std::string>(p, "side", "left"))};
     }},
    {"digitize", [](const Inputs& x, const json&) { return Outputs{k::digitize(x[0], x[1])}; }},
    {"isin", [](const Inputs& x, const json& p) {
       return Outputs{k::isin(x[0], x[1], param(p, "assume_unique", false), param(p, "invert", false))};
     }},
    {"quantile", [](const Inputs& x, const json& p) { return quantile_call(k::quantile, k::quantile, x, p); }},
    {"percentile", [](const Inputs& x, const json& p) { return quantile_call(k::percentile, k::percentile, x, p); }},
    {"nanquantile", [](const Inputs& x, const json& p) { return quantile_call(k::nanquantile, k::nanquantile, x, p); }},
    {"nanpercentile",
     [](const Inputs& x, const json& p) { return quantile_call(k::nanpercentile, k::nanpercentile, x, p); }},
    {"average", [](const Inputs& x, const json& p) {
       std::optional<k::Tensor> w;
       if (x.size() > 1) w = x[1];
       return Outputs{k::average(x[0], opt_int(p, "axis"), w)};
     }},
    {"moments", [](const Inputs& x, const json& p) {
       return pair_out(k::moments(x[0], axes_of(p, "axes"), keepdims(p)));
     }},
    {"bincount", [](const Inputs& x, const json& p) {
       std::optional<k::Tensor> w;
       if (x.size() > 1) w = x[1];
       return Outputs{k::bincount(x[0], w, param<int64_t>(p, "minlength", 0))};
     }},
    {"histogram", [](const Inputs& x, const json& p) {
       std::optional<std::pair<double, double>> range;
       if (p.contains("range") && !p.at("range").is_null()) range = {{p.at("range")[0], p.at("range")[1]}};
       return pair_out(k::histogram(x[0], param<int64_t>(p, "bins", 10), range));
     }},
    {"argpartition", [](const Inputs& x, const json& p) {
       std::optional<int> axis = -1;
       if (p.contains("axis")) axis = opt_int(p, "axis");
       return Outputs{k::argpartition(x[0], p.at("kth").get<int64_t>(), axis)};
     }},
    {"correlate", [](const Inputs& x, const json& p) {
       return Outputs{k::correlate(x[0], x[1], param<std::string>(p, "mode", "valid"))};
     }},
    {"corrcoef", [](const Inputs& x, const json&) { return Outputs{k::corrcoef(x[0])}; }},
    {"diff", [](const Inputs& x, const json& p) {
       return Outputs{k::diff(x[0], param(p, "n", 1), param(p, "axis", -1))};
     }},
    {"trapezoid", [](const Inputs& x, const json& p) {
       std::optional<k::Tensor> xs;
       if (x.size() > 1) xs = x[1];
       return Outputs{k::trapezoid(x[0], xs, param(p, "dx", 1.0), param(p, "axis", -1))};
     }},
};

}  // namespace kiln::detail::keras_ops_reduce

namespace kiln::detail {

keras_op_api::OpEntries keras_ops_reduce_table() {
  keras_op_api::OpEntries all;
  for (const auto* group : {&keras_ops_reduce::reduce_entries})
    all.insert(all.end(), group->begin(), group->end());
  return all;
}

}  // namespace kiln::detail
