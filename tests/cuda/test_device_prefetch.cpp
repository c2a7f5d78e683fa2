// The worker that makes a GPU model's batches ahead of their steps
// (training/device_prefetch.h, prefetch_to_device): batches arrive on the device in order, no
// more are pulled than the epoch may use, a failure reaches the training
// thread after the batches made before it, and leaving early stops the worker.
#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>

#include "gpu_test_util.h"
#include "kiln/ops/ops.h"
#include "training/device_prefetch.h"

namespace k = kiln;
using k::Tensor;
using kiln::training::BatchPull;
using kiln::training::prefetch_to_device;
using namespace kiln::cudatest;

namespace {

/// Batch i holds i in x and 10·i in y; `fail_at` makes pull number fail_at throw.
BatchPull counting_pull(std::atomic<int>& pulls, int total, int fail_at = -1) {
  return [&pulls, total, fail_at]() -> std::optional<k::Batch> {
    const int i = pulls++;
    if (i == fail_at) throw std::runtime_error("pull " + std::to_string(i) + " failed");
    if (total >= 0 && i >= total) return std::nullopt;
    return k::Batch{{k::fill({2, 3}, i, k::float32)}, {k::fill({2}, 10 * i, k::float32)}, Tensor()};
  };
}

}  // namespace

TEST_CASE("device prefetch: batches reach the device in order, within the step limit") {
  KILN_REQUIRE_GPU("device prefetch");
  std::atomic<int> pulls{0};
  {
    auto ahead = prefetch_to_device(counting_pull(pulls, 7), gpu(), std::nullopt);
    for (int i = 0; i < 7; ++i) {
      auto b = ahead();
      REQUIRE(b.has_value());
      CHECK(b->x[0].device() == gpu());
      CHECK(b->y[0].device() == gpu());
      CHECK(b->x[0].to(k::Device::cpu()).to_vector<float>() == std::vector<float>(6, float(i)));
      CHECK(b->y[0].to(k::Device::cpu()).to_vector<float>() == std::vector<float>(2, float(10 * i)));
    }
    CHECK_FALSE(ahead().has_value());
    CHECK_FALSE(ahead().has_value());
  }
  CHECK(pulls == 8);  // seven batches and the end

  pulls = 0;
  {
    auto ahead = prefetch_to_device(counting_pull(pulls, 100), gpu(), 3);
    for (int i = 0; i < 3; ++i) CHECK(ahead().has_value());
    CHECK_FALSE(ahead().has_value());
  }
  CHECK(pulls == 3);  // steps_per_epoch: the fourth batch is never made
}

TEST_CASE("device prefetch: a failed pull arrives after the batches before it; leaving early stops the worker") {
  KILN_REQUIRE_GPU("device prefetch");
  std::atomic<int> pulls{0};
  {
    auto ahead = prefetch_to_device(counting_pull(pulls, 100, 2), gpu(), std::nullopt);
    CHECK(ahead().has_value());
    CHECK(ahead().has_value());
    CHECK_THROWS_WITH_AS(ahead(), "pull 2 failed", std::runtime_error);
  }
  pulls = 0;
  {
    auto ahead = prefetch_to_device(counting_pull(pulls, -1), gpu(), std::nullopt, 2);  // endless
    CHECK(ahead().has_value());
  }  // joins without waiting for the data to end
  CHECK(pulls <= 4);  // the one taken, two queued ahead and one in flight
}
