// Data-parallel training speed: one model's training steps under whatever
// launch ran this (bench/distribute_bench.sh runs 1 rank, then 2 under
// mpirun), with the time this rank waited on communication, and the ring
// all-reduce cost model of bench/README.md evaluated with the measured
// numbers. Synthetic data: only the speed matters here.
//
//   distribute_bench --model cnn|resnet [--batch 64] [--steps 30]
// Prints one JSON line (rank 0).
#include <kiln/kiln.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "cnn_models.h"
#include "guide_cnn.h"

namespace k = kiln;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

int main(int argc, char** argv) {
  std::string which = "cnn";
  int batch = 64, steps = 30;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--model")) which = argv[i + 1];
    else if (!std::strcmp(argv[i], "--batch")) batch = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--steps")) steps = std::atoi(argv[i + 1]);
  }
  k::distribute::DataParallel strategy;
  k::random::set_seed(1);
  const bool cnn = which == "cnn";
  std::shared_ptr<k::Model> model = cnn ? std::make_shared<k::Sequential>(k::examples::guide_cnn_layers()) : k::bench::resnet(32);
  const int64_t n = static_cast<int64_t>(batch) * steps;
  k::Tensor x = cnn ? k::random::uniform(k::Shape({n, 28, 28, 1})) : k::random::uniform(k::Shape({n, 32, 32, 3}));
  k::Tensor y = k::random::uniform(k::Shape({n}), 0, 10, k::int64);
  model->compile({.optimizer = "adam", .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                  .metrics = {"accuracy"}});
  // Warm-up: traces, buffers and the first all-reduces.
  model->fit(x, y, {.batch_size = batch, .epochs = 1, .verbose = 0, .shuffle = false, .steps_per_epoch = 3});
  const double waited0 = strategy.communication_wait_seconds(), t0 = now();
  model->fit(x, y, {.batch_size = batch, .epochs = 1, .verbose = 0, .shuffle = false});
  const double step = (now() - t0) / steps, wait = (strategy.communication_wait_seconds() - waited0) / steps;
  int64_t grad_bytes = 0;
  for (const auto& v : model->trainable_variables()) grad_bytes += v.shape().num_elements() * 4;
  if (strategy.is_chief())
    std::printf(
        "{\"model\": \"%s\", \"ranks\": %d, \"global_batch\": %d, \"step_ms\": %.3f, \"samples_per_s\": %.1f, "
        "\"wait_ms_per_step\": %.3f, \"gradient_bytes\": %lld}\n",
        which.c_str(), strategy.num_replicas_in_sync(), batch, step * 1e3, batch / step, wait * 1e3,
        static_cast<long long>(grad_bytes));
  return 0;
}
