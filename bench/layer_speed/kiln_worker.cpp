// layer_speed: the Kiln side of bench/layer_speed, a worker the driver talks to
// over stdin/stdout, one JSON line each way (bench/layer_speed/driver.py).
//   layer_speed --list      prints the registered layer classes, one a line
//   layer_speed             serves requests:
//     {"op": "time", "name", "config": keras.layers.serialize(...), "inputs": [{"dtype", "shape", "high"?}],
//      "list_input", "train_fwd", "budget_s", "min_reps", "max_reps"}
//       -> {"fwd_ms", "fwd_reps", "fwdbwd_ms", "fwdbwd_reps"} or {"error"} / {"fwdbwd_error"}
// The layer is built from Keras's serialized config through Kiln's registry,
// with Kiln's own initial weights. Forward: the layer called in inference
// (training for rows timed in training), no tape. Forward+backward: under a
// GradientTape in training mode, the gradient of sum(outputs) with respect to
// every trainable weight and every float input. Timing as the Python workers'
// (worker_io.py): two untimed calls, then calls timed one by one until the
// budget is spent (min_reps..max_reps); the median.
#include <kiln/kiln.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

using json = nlohmann::json;
namespace k = kiln;

struct Case {
  k::LayerPtr layer;
  std::vector<k::Tensor> xs;
  bool list_input = false;
  bool train_fwd = false;
};

std::vector<k::Tensor> make_inputs(const json& specs) {
  std::vector<k::Tensor> xs;
  for (const json& s : specs) {
    const k::Shape shape(s.at("shape").get<std::vector<int64_t>>());
    if (s.at("dtype") == "int")
      xs.push_back(k::cast(k::floor(k::random::uniform(shape, 0.0, s.at("high").get<double>())), k::DType::int32));
    else
      xs.push_back(k::random::normal(shape));
  }
  return xs;
}

std::vector<k::Tensor> call(Case& c, bool training) {
  if (c.list_input) return (*c.layer)(c.xs, training);
  return {(*c.layer)(c.xs.at(0), training)};
}

bool is_float(const k::Tensor& t) { return t.dtype() == k::DType::float32 || t.dtype() == k::DType::float64; }

struct Timing {
  double ms = 0;
  int reps = 0;
};

Timing time_calls(const std::function<void()>& f, double budget_s, int min_reps, int max_reps) {
  using clock = std::chrono::steady_clock;
  const auto seconds = [](clock::time_point a, clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  f();
  const auto t0 = clock::now();
  f();
  if (seconds(t0, clock::now()) > budget_s) min_reps = 1;  // a slow case: fewer calls, not a longer run
  std::vector<double> times;
  const auto start = clock::now();
  while (static_cast<int>(times.size()) < max_reps &&
         (static_cast<int>(times.size()) < min_reps || seconds(start, clock::now()) < budget_s)) {
    const auto t = clock::now();
    f();
    times.push_back(seconds(t, clock::now()) * 1e3);
  }
  std::sort(times.begin(), times.end());
  const std::size_t n = times.size();
  return {n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2, static_cast<int>(n)};
}

/// One forward and backward pass; false when there is nothing to differentiate.
bool forward_backward(Case& c) {
  std::vector<k::Source> sources;
  for (const k::Variable& v : c.layer->trainable_variables()) sources.emplace_back(v);
  k::GradientTape tape;
  for (const k::Tensor& x : c.xs)
    if (is_float(x)) {
      tape.watch(x);
      sources.emplace_back(x);
    }
  std::optional<k::Tensor> loss;
  for (const k::Tensor& y : call(c, true)) {
    if (!is_float(y)) continue;
    const k::Tensor s = k::sum(k::cast(y, k::DType::float32));
    loss = loss ? *loss + s : s;
  }
  if (!loss || sources.empty()) return false;
  tape.gradient(*loss, sources);
  return true;
}

json time_case(Case& c, const json& req) {
  const double budget = req.at("budget_s").get<double>();
  const int lo = req.at("min_reps").get<int>(), hi = req.at("max_reps").get<int>();
  json ans;
  const Timing fwd = time_calls([&] { call(c, c.train_fwd); }, budget, lo, hi);
  ans["fwd_ms"] = fwd.ms;
  ans["fwd_reps"] = fwd.reps;
  try {
    if (!forward_backward(c)) {
      ans["fwdbwd_error"] = "nothing to differentiate";
      return ans;
    }
    const Timing step = time_calls([&] { forward_backward(c); }, budget, lo, hi);
    ans["fwdbwd_ms"] = step.ms;
    ans["fwdbwd_reps"] = step.reps;
  } catch (const std::exception& e) {
    ans["fwdbwd_error"] = std::string(e.what()).substr(0, 200);
  }
  return ans;
}

json handle(const json& req) {
  const std::string op = req.at("op");
  if (op == "list") return {{"classes", k::registered_layer_classes()}};
  if (op != "time") throw std::runtime_error("unknown op '" + op + "'");
  Case c;
  c.layer = k::layers::from_config(req.at("config"));
  c.xs = make_inputs(req.at("inputs"));
  c.list_input = req.value("list_input", false);
  c.train_fwd = req.value("train_fwd", false);
  return time_case(c, req);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--list") {
    for (const std::string& n : k::registered_layer_classes()) std::cout << n << "\n";
    return 0;
  }
  k::random::set_seed(0);
  std::cout << json{{"ready", true}}.dump() << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    json ans;
    try {
      ans = handle(json::parse(line));
    } catch (const std::exception& e) {
      ans = {{"error", std::string(e.what()).substr(0, 200)}};
    }
    std::cout << ans.dump() << std::endl;
  }
  return 0;
}
