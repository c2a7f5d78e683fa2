#pragma once
// Shared fixtures for the callback tests: a tiny subclassed model y = x*w + b,
// a plain SGD optimizer (w -= lr * g) that needs nothing from optimizers/,
// a scratch directory, and a way to run python3 helpers.
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "kiln/training/model.h"
#include "kiln/ops/ops.h"
#include "kiln/training/optimizer.h"
// fit()'s loss tracker is a metrics::Mean looked up by name: linking the
// metrics module in registers it (the header's inline variable does that).
#if __has_include("kiln/metrics/metrics.h")
#include "kiln/metrics/metrics.h"
#endif

namespace cbtest {

namespace fs = std::filesystem;

/// y = x * w + b with scalar weights "w" (init 0) and "b" (init 0).
class Linear : public kiln::Model {
 public:
  Linear() : kiln::Model({.name = "linear"}) {}
  kiln::Variable w, b;

 protected:
  void build(const kiln::Shape&) override {
    w = add_weight("w", kiln::Shape{}, {.initializer = "zeros"});
    b = add_weight("b", kiln::Shape{}, {.initializer = "zeros"});
  }
  kiln::Tensor call(const kiln::Tensor& x, bool) override { return x * w.value() + b.value(); }
};

/// w -= lr * g; no slots.
class PlainSGD : public kiln::Optimizer {
 public:
  explicit PlainSGD(double lr) : kiln::Optimizer("plain_sgd", lr, {}) {}
  std::string class_name() const override { return "PlainSGD"; }

 protected:
  void build_slots(const std::vector<kiln::Variable>&) override {}
  void update_step(const kiln::Tensor& g, kiln::Variable& v, double lr, std::size_t) override {
    v.assign_sub(g * lr);
  }
};

/// A built, compiled Linear model with PlainSGD(lr) and an MSE loss function.
inline std::shared_ptr<Linear> make_model(double lr = 0.1) {
  auto m = std::make_shared<Linear>();
  m->build_for(kiln::Shape{kiln::None, 1});
  m->compile({.optimizer = kiln::OptimizerPtr(std::make_shared<PlainSGD>(lr)),
              .loss = kiln::LossFn([](const kiln::Tensor& t, const kiln::Tensor& p) {
                return kiln::mean(kiln::square(p - t));
              })});
  return m;
}

/// A float32 column (n, 1).
inline kiln::Tensor column(std::vector<float> v) {
  const auto n = static_cast<int64_t>(v.size());
  return kiln::Tensor(v, kiln::Shape{n, 1});
}

/// Sets w = b = v (marks the weights so restores can be checked).
inline void set_wb(kiln::Model& m, float v) { m.set_weights({kiln::Tensor(v), kiln::Tensor(v)}); }
inline float get_w(const kiln::Model& m) { return m.get_weights().at(0).item<float>(); }

/// A fresh directory under the system temp dir, removed at scope exit.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> n{0};
    const auto t = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = fs::temp_directory_path() / ("kiln_cb_" + std::to_string(t) + "_" + std::to_string(n++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

inline std::string read_file(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline bool have_python3() { return std::system("python3 -c 'import json, struct, xml.dom.minidom' >/dev/null 2>&1") == 0; }

/// Runs `python3 <args>`, returns the exit status (0 on success).
inline int run_python(const std::string& args) {
  const int rc = std::system(("python3 " + args).c_str());
  return rc == 0 ? 0 : (rc == -1 ? -1 : (WIFEXITED(rc) ? WEXITSTATUS(rc) : 128));
}

inline std::string quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

}  // namespace cbtest
