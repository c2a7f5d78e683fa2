// kiln::cond and kiln::while_loop traced in a kiln::function against the same
// code run eagerly: the guide's simple_relu (per-call overhead of an If), a
// while_loop summing 0..999 (per-iteration cost of a While), and a train step
// that runs a 20-step tanh recurrence (32x64 state, 64x64 weight) in a
// while_loop and differentiates through it. One JSON line per case.
#include <kiln/kiln.h>

#include "eager_vs_traced.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace k = kiln;

namespace {

using kiln::bench::report;
using kiln::bench::time_us;

k::Tensor simple_relu(const k::Tensor& x) {
  return k::cond(k::greater(x, k::Tensor(0)), [&] { return x; }, [&] { return k::zeros_like(x); });
}

std::vector<k::Tensor> sum_below(const k::Tensor& n) {
  return k::while_loop([&](const std::vector<k::Tensor>& v) { return k::less(v[0], n); },
                       [](const std::vector<k::Tensor>& v) {
                         return std::vector<k::Tensor>{v[0] + k::Tensor(1), v[1] + v[0]};
                       },
                       {k::Tensor(0), k::Tensor(0)});
}

}  // namespace

int main() {
  auto relu_graph = k::function(simple_relu, {.name = "simple_relu"});
  const k::Tensor one(1), minus_one(-1);
  report("simple_relu cond, both signs (per call)", time_us([&] { simple_relu(one); simple_relu(minus_one); }, 5000) / 2,
         time_us([&] { relu_graph(one); relu_graph(minus_one); }, 5000) / 2);

  auto sum_graph = k::function(sum_below, {.name = "sum_below"});
  const k::Tensor n(1000);
  report("while_loop sum of 0..999", time_us([&] { sum_below(n); }, 20), time_us([&] { sum_graph(n); }, 20));

  k::random::set_seed(1);
  k::Variable w(k::random::normal({64, 64}, 0.0, 0.05), {.name = "w"});
  auto step = [&](const k::Tensor& x0, const k::Tensor& steps) {
    k::GradientTape tape;
    k::Tensor h = k::while_loop(
        [&](const std::vector<k::Tensor>& v) { return k::less(v[0], steps); },
        [&](const std::vector<k::Tensor>& v) {
          return std::vector<k::Tensor>{v[0] + k::Tensor(1), k::tanh(k::matmul(v[1], w.value()))};
        },
        {k::Tensor(0), x0}, {.maximum_iterations = 20})[1];
    k::Tensor loss = k::mean(k::square(h));
    w.assign_sub(*tape.gradient(loss, w) * 0.01f);
    return loss;
  };
  auto step_graph = k::function(step, {.name = "rnn_step"});
  const k::Tensor x0 = k::random::normal({32, 64}), steps(20);
  report("train step through a 20-iteration while_loop", time_us([&] { step(x0, steps); }, 20),
         time_us([&] { step_graph(x0, steps); }, 20));
}
