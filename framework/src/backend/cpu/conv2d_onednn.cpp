// Which convolutions go to oneDNN, and the loading of the oneDNN plugin
// (conv2d_onednn.h, onednn/onednn_api.h).
#include "backend/cpu/conv2d_onednn.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "backend/cpu/onednn/onednn_api.h"
#include "backend/cpu/parallel.h"
#include "core/plugin_loader.h"
#include "kiln/backend/cpu_convolutions.h"
#include "kiln/core/error.h"

namespace kiln {

namespace {
ConvLibrary library_from_env() {
  const char* e = std::getenv("KILN_CONV_LIBRARY");
  if (!e || !*e || std::strcmp(e, "automatic") == 0) return ConvLibrary::automatic;
  if (std::strcmp(e, "kiln") == 0) return ConvLibrary::kiln;
  if (std::strcmp(e, "onednn") == 0) return ConvLibrary::onednn;
  if (std::strcmp(e, "onednn_winograd") == 0) return ConvLibrary::onednn_winograd;
  throw ValueError(std::string("KILN_CONV_LIBRARY: expected 'automatic', 'kiln', 'onednn' or 'onednn_winograd', "
                               "received '") + e + "'");
}
std::atomic<ConvLibrary>& library_choice() {
  static std::atomic<ConvLibrary> choice{library_from_env()};
  return choice;
}
}  // namespace

void set_conv_library(ConvLibrary library) { library_choice().store(library, std::memory_order_relaxed); }
ConvLibrary conv_library() { return library_choice().load(std::memory_order_relaxed); }

}  // namespace kiln

namespace kiln::cpu::onednn {

namespace {
// The plugin, loaded on first use; null (with the reason) when this build has
// none or it cannot be loaded.
struct Loaded {
  const PluginV1* plugin = nullptr;
  std::string why;
};
const Loaded& loaded() {
  static const Loaded l = [] {
    Loaded r;
#if defined(KILN_ONEDNN_PLUGIN_FILE)
    // oneDNN runs on OpenMP threads, which by default spin for milliseconds
    // after each convolution, on the cores Kiln's own pool needs for the ops
    // in between (6-8% of a ResNet training step). The runtime reads its
    // settings once, when the plugin brings it in, so they are set here,
    // unless the user set them.
    setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
    auto entry = reinterpret_cast<PluginEntry>(
        plugins::load_entry("KILN_ONEDNN_PLUGIN", KILN_ONEDNN_PLUGIN_FILE, kPluginEntry, r.why));
    if (entry) r.plugin = entry();
#else
    r.why = "this Kiln was built without oneDNN (install libdnnl-dev and reconfigure a shared build)";
#endif
    return r;
  }();
  return l;
}

const PluginV1& plugin() {
  if (!loaded().plugin) throw RuntimeError("conv2d: oneDNN is not available: " + loaded().why);
  park_workers();  // every call below runs on oneDNN's OpenMP threads
  return *loaded().plugin;
}

void check(const char* error) {
  if (error) throw RuntimeError(error);
}

// Where oneDNN measured faster than Kiln's kernels (bench/conv_shapes.cpp; the
// table is in bench/RESULTS.md, "Convolution shapes"). Forward: 2.3-2.8x on
// every 3x3 and 1x1 layer of the ResNet and VGG cases, 2.5-3.6x on their
// 3-channel first layers, but 0.75x on a 1-channel image, where Kiln's direct
// kernel keeps its 9 taps in registers. Gradients: 1.5-1.9x (input and filter)
// from 32 channels up, 1.0-1.2x on the strided 3x3 layers, mixed on 3 channels
// (0.3-1.6x), so those stay with Kiln.
bool wins(const backend::Conv2DParams& p, Pass pass) { return pass == Pass::forward ? p.c_in >= 3 : p.c_in >= 16; }

// Where Winograd measured faster than oneDNN's direct kernels, counting the
// reorders of the activations into and out of its blocked layout (same
// table): 1.4-2.2x in every pass on the 3x3 stride-1 layers of 64 channels
// and more over 8x8 to 64x64 images; mixed on 32 channels (2.2x forward, 0.75x
// input gradient) and slower on a 5x5 image, where 4x4 tiles are mostly padding.
bool winograd_wins(const backend::Conv2DParams& p) {
  return p.kh == 3 && p.kw == 3 && p.stride_h == 1 && p.stride_w == 1 && p.dil_h == 1 && p.dil_w == 1 &&
         p.c_in >= 64 && p.c_out >= 64 && p.c_in % 16 == 0 && p.c_out % 16 == 0 && p.oh >= 8 && p.ow >= 8;
}

bool winograd(const backend::Conv2DParams& p) {
  const ConvLibrary l = conv_library();
  return l == ConvLibrary::onednn_winograd || (l == ConvLibrary::automatic && winograd_wins(p));
}
}  // namespace

bool takes(const backend::Conv2DParams& p, Pass pass) {
  switch (conv_library()) {
    case ConvLibrary::kiln: return false;
    case ConvLibrary::onednn:
    case ConvLibrary::onednn_winograd: return true;  // plugin() then says why when it cannot
    case ConvLibrary::automatic: return wins(p, pass) && loaded().plugin;
  }
  return false;
}

void forward(const float* x, const float* w, const float* bias, bool relu, const backend::Conv2DParams& p,
             float* out) {
  check(plugin().forward(x, w, bias, relu, p, out, winograd(p), num_threads()));
}

void backward_input(const float* dy, const float* w, const backend::Conv2DParams& p, float* dx) {
  check(plugin().backward_input(dy, w, p, dx, winograd(p), num_threads()));
}

void backward_filter(const float* x, const float* dy, const backend::Conv2DParams& p, float* dw) {
  check(plugin().backward_filter(x, dy, p, dw, winograd(p), num_threads()));
}

}  // namespace kiln::cpu::onednn

std::string kiln::onednn_version() {
  const auto* p = cpu::onednn::loaded().plugin;
  return p ? p->version : std::string();
}
