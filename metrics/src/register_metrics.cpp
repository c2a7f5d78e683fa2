// The metrics module's registration entry point. Each built-in metric
// registers with one KILN_REGISTER_METRIC line in its own .cpp (loss names used
// as metrics with KILN_REGISTER_METRIC_FACTORY in mean_metric_wrapper.cpp); the
// build collects those lines into kiln_register_builtins_metric().
#include <mutex>

#include "kiln/metrics/metrics.h"

extern "C" void kiln_register_builtins_metric();

namespace kiln::metrics {

namespace {

MetricPtr make_function_metric(MetricFn fn, const std::string& name) {
  return std::make_shared<MeanMetricWrapper>(std::move(fn), name);
}

// Runs when this object file is linked in (it is whenever register_builtins is
// referenced), so the framework's lookups can fill the registry lazily.
const bool hooks_installed = [] {
  detail::builtins_hook = &register_builtins;
  detail::function_metric_factory = &make_function_metric;
  return true;
}();

}  // namespace

void register_builtins() {
  static std::once_flag once;
  detail::builtins_hook = &register_builtins;
  detail::function_metric_factory = &make_function_metric;
  std::call_once(once, kiln_register_builtins_metric);
}

}  // namespace kiln::metrics
