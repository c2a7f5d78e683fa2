// torch_realsize_bench: libtorch (C++, Debian's libtorch-dev 1.13) on the real-size cases of
// bench/realsize.sh, as its "libtorch" implementation: the models of bench/cnn_models.h and
// bench/peers/models.py (NCHW), the same protocol as realsize_bench.cpp and peer.py (synthetic
// uniform images and labels, Adam(1e-3), cross entropy on logits, two untimed warm-up batches,
// then 8 timed training batches or 16 of inference; bigcnn 40), and its JSON line:
//   {"impl":"libtorch","case":"resnet_train","batch":128,"samples":1024,"seconds":...,"samples_per_s":...,
//    "warmup_s":...,"peak_rss_mb":...,"version":"libtorch 1.13.1"}
// One case per process, so that the peak RSS is the case's own. Threads come from the environment
// (bench/realsize.sh sets OMP_NUM_THREADS). Built only when libtorch is found.
//
//   torch_realsize_bench --case resnet_train|resnet_infer|vgg_train|vgg_infer|bigcnn_train|bigcnn_infer
#include <sys/resource.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>

namespace nn = torch::nn;

namespace {

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

// Keras's BatchNormalization defaults: momentum 0.99 (PyTorch's 0.01), epsilon 1e-3.
nn::BatchNorm2d bn(int64_t ch) { return nn::BatchNorm2d(nn::BatchNorm2dOptions(ch).eps(1e-3).momentum(0.01)); }

nn::Conv2d conv(int64_t cin, int64_t cout, int64_t k, int64_t stride, int64_t pad, bool bias) {
  return nn::Conv2d(nn::Conv2dOptions(cin, cout, k).stride(stride).padding(pad).bias(bias));
}

struct BlockImpl : nn::Module {
  nn::Sequential body{nullptr};
  nn::Conv2d shortcut{nullptr};
  BlockImpl(int64_t cin, int64_t ch, int64_t stride) {
    body = register_module("body", nn::Sequential(conv(cin, ch, 3, stride, 1, false), bn(ch), nn::ReLU(),
                                                   conv(ch, ch, 3, 1, 1, false), bn(ch)));
    if (stride != 1) shortcut = register_module("shortcut", conv(cin, ch, 1, stride, 0, false));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::relu(body->forward(x) + (shortcut ? shortcut->forward(x) : x));
  }
};
TORCH_MODULE(Block);

nn::Sequential resnet(int64_t w0 = 64) {
  nn::Sequential m(conv(3, w0, 3, 1, 1, false), bn(w0), nn::ReLU());
  int64_t cin = w0, ch = w0;
  for (int stage = 0; stage < 3; ++stage, ch *= 2)
    for (int block = 0; block < 2; ++block) {
      m->push_back(Block(cin, ch, stage > 0 && block == 0 ? 2 : 1));
      cin = ch;
    }
  m->push_back(nn::AdaptiveAvgPool2d(1));
  m->push_back(nn::Flatten());
  m->push_back(nn::Linear(cin, 10));
  return m;
}

nn::Sequential vgg() {
  nn::Sequential m;
  int64_t cin = 3;
  for (int64_t ch : {64, 128, 256}) {
    m->push_back(conv(cin, ch, 3, 1, 1, true));
    m->push_back(nn::ReLU());
    m->push_back(conv(ch, ch, 3, 1, 1, true));
    m->push_back(nn::ReLU());
    m->push_back(nn::MaxPool2d(2));
    cin = ch;
  }
  m->push_back(nn::Flatten());
  m->push_back(nn::Linear(256 * 8 * 8, 256));
  m->push_back(nn::ReLU());
  m->push_back(nn::Linear(256, 10));
  return m;
}

nn::Sequential bigcnn() {
  return nn::Sequential(conv(1, 32, 3, 1, 0, true), nn::ReLU(), nn::MaxPool2d(2), conv(32, 64, 3, 1, 0, true),
                        nn::ReLU(), nn::MaxPool2d(2), conv(64, 64, 3, 1, 0, true), nn::ReLU(), nn::Flatten(),
                        nn::Linear(64 * 3 * 3, 64), nn::ReLU(), nn::Linear(64, 10));
}

void run(const std::string& name) {
  const auto cut = name.rfind('_');
  if (cut == std::string::npos) throw std::runtime_error("unknown case '" + name + "'");
  const std::string model = name.substr(0, cut), mode = name.substr(cut + 1);
  if (mode != "train" && mode != "infer") throw std::runtime_error("unknown case '" + name + "'");
  nn::Sequential m{nullptr};
  int64_t c = 3, hw = 32, batch = 128, steps = mode == "train" ? 8 : 16;
  if (model == "resnet") {
    m = resnet();
  } else if (model == "vgg") {
    m = vgg();
    hw = 64;
    batch = 64;
  } else if (model == "bigcnn") {
    m = bigcnn();
    c = 1;
    hw = 28;
    steps = 40;
  } else {
    throw std::runtime_error("unknown model '" + model + "'");
  }
  torch::manual_seed(0);
  const int64_t n = batch * steps;
  const torch::Tensor x = torch::rand({n, c, hw, hw});
  const torch::Tensor y = torch::randint(0, 10, {n}, torch::kLong);
  torch::optim::Adam opt(m->parameters(), torch::optim::AdamOptions(1e-3).eps(1e-7));
  auto one = [&](int64_t i) {
    const torch::Tensor xb = x.narrow(0, i * batch, batch), yb = y.narrow(0, i * batch, batch);
    if (mode == "train") {
      opt.zero_grad();
      torch::Tensor loss = torch::nn::functional::cross_entropy(m->forward(xb), yb);
      loss.backward();
      opt.step();
    } else {
      torch::NoGradGuard no_grad;
      (void)m->forward(xb);
    }
  };
  if (mode == "train") m->train();
  else m->eval();
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  for (int64_t i = 0; i < 2; ++i) one(i % steps);
  const double warm = std::chrono::duration<double>(Clock::now() - t0).count();
  t0 = Clock::now();
  for (int64_t i = 0; i < steps; ++i) one(i);
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf(
      "{\"impl\":\"libtorch\",\"case\":\"%s\",\"batch\":%lld,\"samples\":%lld,\"seconds\":%.4f,\"samples_per_s\":%.2f,"
      "\"warmup_s\":%.3f,\"peak_rss_mb\":%.1f,\"version\":\"libtorch %d.%d.%d\"}\n",
      name.c_str(), static_cast<long long>(batch), static_cast<long long>(n), seconds, n / seconds, warm,
      peak_rss_mb(), TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, TORCH_VERSION_PATCH);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || std::string(argv[1]) != "--case") {
    std::cerr << "usage: torch_realsize_bench --case NAME\n";
    return 2;
  }
  try {
    run(argv[2]);
  } catch (const std::exception& e) {
    std::cerr << "torch_realsize_bench --case " << argv[2] << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
