#pragma once
// Shared helpers for the saving suite: fixture paths, a scratch folder, and
// the bridge from the layers registry to the framework one (see note below).
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "kiln/kiln.h"
#include "kiln/nn/layer_registry.h"
#include "kiln/layers/register.h"
#include "kiln/losses/losses.h"
#include "kiln/metrics/metrics.h"
#include "kiln/optimizers.h"

namespace saving_test {

inline std::string data(const std::string& rel) { return std::string(KILN_SOURCE_DIR) + "/tests/saving/data/" + rel; }

/// A fresh scratch folder per test process, removed when the process exits.
inline std::string tmp(const std::string& name) {
  static const std::string dir = [] {
    std::string d = std::filesystem::temp_directory_path().string() + "/kiln_saving_" + std::to_string(::getpid());
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    static const pid_t owner = ::getpid();  // forked children must not delete it
    std::atexit([] {
      if (::getpid() == owner) {
        std::error_code ec;
        std::filesystem::remove_all(std::filesystem::temp_directory_path() / ("kiln_saving_" + std::to_string(owner)), ec);
      }
    });
    return d;
  }();
  return dir + "/" + name;
}

/// Makes sure every built-in layer is in the framework registry that
/// Model::from_config uses (layers/ registers there; the loop is a no-op then
/// and only guards against a build where the two tables drift apart again).
inline void ensure_layers() {
  static bool done = [] {
    kiln::layers::register_builtins();
    for (const auto& n : kiln::layers::registered_names())
      if (!kiln::is_layer_class_registered(n))
        kiln::register_layer_class(n, [n](const kiln::Config& c) { return kiln::layers::from_config(n, c); });
    return true;
  }();
  (void)done;
}

inline double max_abs_diff(const kiln::Tensor& a, const kiln::Tensor& b) {
  auto x = a.cast(kiln::DType::float64).to_vector<double>();
  auto y = b.cast(kiln::DType::float64).to_vector<double>();
  if (x.size() != y.size()) return INFINITY;
  double m = 0;
  for (std::size_t i = 0; i < x.size(); ++i) m = std::max(m, std::abs(x[i] - y[i]));
  return m;
}

}  // namespace saving_test
