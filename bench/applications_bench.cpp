// applications_bench: kiln::applications models' inference, the case where
// depthwise and grouped convolutions dominate (MobileNet, EfficientNet,
// ConvNeXt). Prints one JSON line: the best of `rounds` predict() calls on one
// batch of uniform images, after one untimed call.
//
//   applications_bench CLASS [BATCH] [SIZE] [ROUNDS]   (defaults: 16 128 5)
#include <kiln/applications.h>
#include <kiln/kiln.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

namespace k = kiln;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: applications_bench CLASS [BATCH] [SIZE] [ROUNDS]\n");
    return 2;
  }
  const std::string cls = argv[1];
  const int64_t batch = argc > 2 ? std::stoll(argv[2]) : 16, size = argc > 3 ? std::stoll(argv[3]) : 128;
  const int rounds = argc > 4 ? std::stoi(argv[4]) : 5;
  k::applications::ApplicationOptions o;
  o.input_shape = k::Shape{size, size, 3};
  o.classes = 10;
  auto model = k::applications::build(cls, o);
  const k::Tensor x = k::random::uniform(k::Shape{batch, size, size, 3}, 0, 1, k::float32, 1);
  model->predict(k::Data(x), {.verbose = 0});
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    model->predict(k::Data(x), {.verbose = 0});
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::printf("{\"class\":\"%s\",\"batch\":%lld,\"size\":%lld,\"predict_ms\":%.2f}\n", cls.c_str(),
              static_cast<long long>(batch), static_cast<long long>(size), best * 1e3);
}
