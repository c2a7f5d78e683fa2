// conv_shapes: every convolution of the real-size models (bench/cnn_models.h),
// pass by pass, with Kiln's own kernels, oneDNN's direct convolutions and
// oneDNN with Winograd (where it has it), alternately in one process. The
// automatic ConvLibrary choice (conv2d_onednn.cpp) follows these numbers.
// One JSON line per shape and pass:
//   {"shape":"resnet 32x32x64 3x3/1 ->64","pass":"forward","kiln_ms":...,"onednn_ms":...,"winograd_ms":...}
//
//   conv_shapes [--rounds N]   (median of N timed calls per library; default 5)
//
// forward: conv2d_bias with relu, as Conv2D runs it. input / filter: the
// backward pass for that gradient alone (a tape watching only x, or only the
// kernel), minus the forward time measured in the same round.
#include <kiln/kiln.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace k = kiln;

namespace {

using Clock = std::chrono::steady_clock;

struct ConvShape {
  std::string model;
  int64_t n, h, c_in, k, c_out;
  int stride;
  std::string padding;
};

std::vector<ConvShape> shapes() {
  return {
      {"resnet", 128, 32, 3, 3, 64, 1, "same"},     {"resnet", 128, 32, 64, 3, 64, 1, "same"},
      {"resnet", 128, 32, 64, 3, 128, 2, "same"},   {"resnet", 128, 16, 128, 3, 128, 1, "same"},
      {"resnet", 128, 32, 64, 1, 128, 2, "valid"},  {"resnet", 128, 16, 128, 3, 256, 2, "same"},
      {"resnet", 128, 8, 256, 3, 256, 1, "same"},   {"resnet", 128, 16, 128, 1, 256, 2, "valid"},
      {"vgg", 64, 64, 3, 3, 64, 1, "same"},         {"vgg", 64, 64, 64, 3, 64, 1, "same"},
      {"vgg", 64, 32, 64, 3, 128, 1, "same"},       {"vgg", 64, 32, 128, 3, 128, 1, "same"},
      {"vgg", 64, 16, 128, 3, 256, 1, "same"},      {"vgg", 64, 16, 256, 3, 256, 1, "same"},
      {"bigcnn", 128, 28, 1, 3, 32, 1, "valid"},    {"bigcnn", 128, 13, 32, 3, 64, 1, "valid"},
      {"bigcnn", 128, 5, 64, 3, 64, 1, "valid"},
  };
}

std::string label(const ConvShape& s) {
  return s.model + " " + std::to_string(s.h) + "x" + std::to_string(s.h) + "x" + std::to_string(s.c_in) + " " +
         std::to_string(s.k) + "x" + std::to_string(s.k) + "/" + std::to_string(s.stride) + " ->" +
         std::to_string(s.c_out);
}

double ms_of(const std::function<void()>& fn) {
  const auto t0 = Clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Times {
  std::vector<double> forward, input, filter;
};

void one_round(const ConvShape& s, const k::Tensor& x, const k::Tensor& w, const k::Tensor& b, Times& t) {
  const k::Conv2DOptions opt{.strides = {s.stride, s.stride}, .padding = s.padding};
  k::Tensor y;
  const double fwd = ms_of([&] { y = k::conv2d_bias(x, w, b, opt, true); });
  const k::Tensor dy = k::ones_like(y);
  const double in = ms_of([&] {
    k::GradientTape tape;
    tape.watch(x);
    k::Tensor out = k::conv2d(x, w, opt);
    (void)tape.gradient(out, std::vector<k::Source>{x}, dy);
  });
  const double fil = ms_of([&] {
    k::GradientTape tape;
    tape.watch(w);
    k::Tensor out = k::conv2d(x, w, opt);
    (void)tape.gradient(out, std::vector<k::Source>{w}, dy);
  });
  t.forward.push_back(fwd);
  t.input.push_back(std::max(0.0, in - fwd));
  t.filter.push_back(std::max(0.0, fil - fwd));
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = std::max(1, std::atoi(argv[++i]));
  }
  if (k::onednn_version().empty()) {
    std::fprintf(stderr, "conv_shapes: this build has no oneDNN (configure with -DKILN_ONEDNN=ON)\n");
    return 1;
  }
  k::random::set_seed(7);
  for (const auto& s : shapes()) {
    const k::Tensor x = k::random::uniform({s.n, s.h, s.h, s.c_in});
    const k::Tensor w = k::random::uniform({s.k, s.k, s.c_in, s.c_out}, -0.1, 0.1);
    const k::Tensor b = k::zeros({s.c_out});
    const k::ConvLibrary libraries[3] = {k::ConvLibrary::kiln, k::ConvLibrary::onednn, k::ConvLibrary::onednn_winograd};
    Times t[3];
    for (int r = 0; r <= rounds; ++r) {  // round 0 warms them up (buffers, oneDNN's JIT)
      for (int lib = 0; lib < 3; ++lib) {
        k::set_conv_library(libraries[lib]);
        Times scratch;
        one_round(s, x, w, b, r == 0 ? scratch : t[lib]);
      }
    }
    k::set_conv_library(k::ConvLibrary::automatic);
    const char* passes[3] = {"forward", "input", "filter"};
    for (int p = 0; p < 3; ++p) {
      double ms[3];
      for (int lib = 0; lib < 3; ++lib)
        ms[lib] = median(p == 0 ? t[lib].forward : p == 1 ? t[lib].input : t[lib].filter);
      std::printf("{\"shape\":\"%s\",\"pass\":\"%s\",\"kiln_ms\":%.3f,\"onednn_ms\":%.3f,\"winograd_ms\":%.3f}\n",
                  label(s).c_str(), passes[p], ms[0], ms[1], ms[2]);
      std::fflush(stdout);
    }
  }
  return 0;
}
