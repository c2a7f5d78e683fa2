#pragma once
// Timing shared by the benches that set eager execution against kiln::function.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace kiln::bench {

/// Median over `rounds` of the mean time per call of `calls` calls, in µs.
inline double time_us(const std::function<void()>& fn, int calls, int rounds = 7) {
  fn();  // warm-up (and the trace, for a kiln::function)
  std::vector<double> per_call;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) fn();
    const auto t1 = std::chrono::steady_clock::now();
    per_call.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

/// One JSON line: the case, both times and their ratio.
inline void report(const std::string& name, double eager_us, double traced_us) {
  std::printf("{\"case\": \"%s\", \"eager_us\": %.2f, \"function_us\": %.2f, \"speedup\": %.2f}\n", name.c_str(),
              eager_us, traced_us, eager_us / traced_us);
}

}  // namespace kiln::bench
