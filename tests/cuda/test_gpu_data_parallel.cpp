// The NCCL path of kiln::distribute on a real GPU: with one rank (no launcher)
// a DataParallel that asks for NCCL puts every gradient through
// ncclAllReduce on its own stream, and the training must equal the one with
// no strategy at all.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <algorithm>
#include <cmath>

#include "gpu_test_util.h"

namespace L = kiln::layers;

namespace {
std::vector<kiln::Variable> train_on_gpu(bool nccl) {
  std::optional<kiln::distribute::DataParallel> strategy;
  if (nccl) strategy.emplace(kiln::distribute::DataParallelOptions{.communication = "nccl"});
  kiln::random::set_seed(4);
  kiln::Tensor x = kiln::random::normal(kiln::Shape({256, 20}));
  kiln::Tensor y = kiln::cast(kiln::argmax(kiln::matmul(x, kiln::random::normal(kiln::Shape({20, 4}))), -1), kiln::int64);
  kiln::Tensor in = kiln::Input({20});
  auto model = std::make_shared<kiln::Model>(in, L::Dense(4)(L::Dense(32, {.activation = "relu"})(in)));
  model->to(kiln::cudatest::gpu());
  model->compile({.optimizer = "adam", .loss = kiln::losses::SparseCategoricalCrossentropy({.from_logits = true})});
  model->fit(x, y, {.batch_size = 32, .epochs = 2, .verbose = 0});
  return model->weights();
}
}  // namespace

TEST_CASE("distribute: NCCL with one rank trains as without a strategy") {
  KILN_REQUIRE_REAL_GPU("the NCCL path");
  std::string why;
  if (!kiln::distribute::nccl_available(&why)) {
    MESSAGE("NCCL not available: skipping (" << why << ")");
    return;
  }
  const auto plain = train_on_gpu(false), reduced = train_on_gpu(true);
  REQUIRE(plain.size() == reduced.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    const auto a = plain[i].read_value_untracked().to(kiln::Device::cpu()).to_vector<double>();
    const auto b = reduced[i].read_value_untracked().to(kiln::Device::cpu()).to_vector<double>();
    double worst = 0;
    for (std::size_t k = 0; k < a.size(); ++k) worst = std::max(worst, std::abs(a[k] - b[k]));
    CAPTURE(plain[i].path());
    CHECK(worst < 1e-6);
  }
}
