// The oneDNN plugin (onednn_api.h): float32 2-D convolutions, NHWC
// activations and HWIO kernels, through oneDNN's JIT kernels.
//
// Kiln's tensors stay NHWC and its kernels HWIO: oneDNN reads and writes the
// activations in place (format nhwc) and picks its own blocked layout for the
// kernel, into which the HWIO weights are reordered on each call (a kernel is
// small next to the activations it meets: 2.4 MB for 3x3x256x256, against 9.7
// GFLOP of work at batch 128 on 8x8 images). Primitives are made once per
// shape and kept, with their weight buffers and memory objects, so a call in
// steady state allocates nothing: it only swaps data pointers and executes.
#include <dlfcn.h>

#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "backend/cpu/onednn/onednn_api.h"

namespace kiln::cpu::onednn {
namespace {

enum class Pass { forward, backward_input, backward_filter };

using dnnl::memory;
using tag = memory::format_tag;
constexpr auto f32 = memory::data_type::f32;

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}
dnnl::stream& stream() {
  static dnnl::stream s(engine());
  return s;
}

// oneDNN's OpenMP threads: as many as Kiln's own kernels use. Looked up in
// the OpenMP runtime that oneDNN brought, so the plugin need not link it.
int g_threads = 0;
void match_threads() {
  using SetThreads = void (*)(int);
  static const auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  static thread_local int current = 0;
  if (set && g_threads > 0 && current != g_threads) {
    current = g_threads;
    set(current);
  }
}

struct Shape {
  memory::dims src, wei, dst, strides, dilates, pad_l, pad_r;
  explicit Shape(const backend::Conv2DParams& p)
      : src{p.n, p.c_in, p.h, p.w},
        wei{p.c_out, p.c_in, p.kh, p.kw},
        dst{p.n, p.c_out, p.oh, p.ow},
        strides{p.stride_h, p.stride_w},
        dilates{p.dil_h - 1, p.dil_w - 1},
        pad_l{p.pad_top, p.pad_left},
        pad_r{(p.oh - 1) * p.stride_h + (p.kh - 1) * p.dil_h + 1 - p.h - p.pad_top,
              (p.ow - 1) * p.stride_w + (p.kw - 1) * p.dil_w + 1 - p.w - p.pad_left} {}
  memory::desc src_md() const { return {src, f32, tag::nhwc}; }
  memory::desc dst_md() const { return {dst, f32, tag::nhwc}; }
  memory::desc wei_any() const { return {wei, f32, tag::any}; }
  memory::desc wei_hwio() const { return {wei, f32, tag::hwio}; }
};

dnnl::convolution_forward::primitive_desc forward_pd(const Shape& s, bool bias, bool relu) {
  const auto prop = dnnl::prop_kind::forward_training;
  const auto alg = dnnl::algorithm::convolution_direct;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  const auto d = bias ? dnnl::convolution_forward::desc(prop, alg, s.src_md(), s.wei_any(),
                                                        memory::desc({s.dst[1]}, f32, tag::a), s.dst_md(), s.strides,
                                                        s.dilates, s.pad_l, s.pad_r)
                      : dnnl::convolution_forward::desc(prop, alg, s.src_md(), s.wei_any(), s.dst_md(), s.strides,
                                                        s.dilates, s.pad_l, s.pad_r);
  return dnnl::convolution_forward::primitive_desc(d, attr, engine());
}

// One cached convolution: the primitive, the reorder between Kiln's HWIO
// kernel and oneDNN's layout (none when they agree), and a memory object per
// argument whose data pointer is set on each call.
struct Entry {
  dnnl::primitive conv;
  dnnl::primitive reorder;  // empty when the kernel needs none
  memory src, wei_user, wei, bias, dst, scratch;
  std::size_t scratch_bytes = 0;
  std::vector<dnnl_exec_arg_t> args;
  std::vector<dnnl_exec_arg_t> reorder_args;
};

void make_memories(Entry& e, const memory::desc& wei_md, const Shape& s, const dnnl::primitive_desc_base& pd) {
  e.wei_user = memory(s.wei_hwio(), engine(), DNNL_MEMORY_NONE);
  if (wei_md == s.wei_hwio()) {
    e.wei = e.wei_user;
  } else {
    e.wei = memory(wei_md, engine());  // oneDNN owns this buffer
  }
  e.scratch_bytes = pd.scratchpad_desc().get_size();
  e.scratch = memory(pd.scratchpad_desc(), engine(), DNNL_MEMORY_NONE);
}

// oneDNN's working memory, one buffer for every cached convolution (they run
// one at a time), grown to the largest need and kept.
void* scratchpad(std::size_t bytes) {
  static std::size_t size = 0;
  static void* buffer = nullptr;  // leaked at exit, as the cache is
  if (bytes > size) {
    std::free(buffer);
    size = (bytes + 4095) / 4096 * 4096;
    buffer = std::aligned_alloc(4096, size);
    if (!buffer) throw std::runtime_error("conv2d: cannot allocate oneDNN's scratchpad of " + std::to_string(size) + " bytes");
  }
  return buffer;
}

void run(Entry& e) {
  match_threads();
  e.scratch.set_data_handle(scratchpad(e.scratch_bytes));
  if (e.reorder) {
    const auto st = dnnl_primitive_execute(e.reorder.get(), stream().get(), static_cast<int>(e.reorder_args.size()),
                                           e.reorder_args.data());
    if (st != dnnl_success) throw std::runtime_error("conv2d: oneDNN reorder failed (status " + std::to_string(st) + ")");
  }
  const auto st =
      dnnl_primitive_execute(e.conv.get(), stream().get(), static_cast<int>(e.args.size()), e.args.data());
  if (st != dnnl_success) throw std::runtime_error("conv2d: oneDNN convolution failed (status " + std::to_string(st) + ")");
  stream().wait();
}

using Key = std::tuple<int, bool, bool, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int, int, int, int, int64_t, int64_t>;
Key key_of(Pass pass, bool bias, bool relu, const backend::Conv2DParams& p) {
  return {static_cast<int>(pass), bias, relu, p.n,        p.h,        p.w,     p.c_in,  p.kh,     p.kw,
          p.c_out,               p.oh, p.ow, p.stride_h, p.stride_w, p.dil_h, p.dil_w, p.pad_top, p.pad_left};
}

// Cached primitives, and one lock: Kiln's ops run one at a time, and each
// entry's memory objects are shared by the calls that use it.
std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}
std::map<Key, std::unique_ptr<Entry>>& cache() {
  static auto* c = new std::map<Key, std::unique_ptr<Entry>>;  // leaked: oneDNN may unload first at exit
  return *c;
}

Entry& make_forward(const backend::Conv2DParams& p, bool bias, bool relu) {
  auto e = std::make_unique<Entry>();
  const Shape s(p);
  const auto pd = forward_pd(s, bias, relu);
  e->conv = dnnl::convolution_forward(pd);
  make_memories(*e, pd.weights_desc(), s, pd);
  if (e->wei != e->wei_user) e->reorder = dnnl::reorder(e->wei_user, e->wei);
  e->src = memory(s.src_md(), engine(), DNNL_MEMORY_NONE);
  e->dst = memory(s.dst_md(), engine(), DNNL_MEMORY_NONE);
  e->args = {{DNNL_ARG_SRC, e->src.get()}, {DNNL_ARG_WEIGHTS, e->wei.get()}, {DNNL_ARG_DST, e->dst.get()},
             {DNNL_ARG_SCRATCHPAD, e->scratch.get()}};
  if (bias) {
    e->bias = memory({{s.dst[1]}, f32, tag::a}, engine(), DNNL_MEMORY_NONE);
    e->args.push_back({DNNL_ARG_BIAS, e->bias.get()});
  }
  e->reorder_args = {{DNNL_ARG_FROM, e->wei_user.get()}, {DNNL_ARG_TO, e->wei.get()}};
  return *cache().emplace(key_of(Pass::forward, bias, relu, p), std::move(e)).first->second;
}

Entry& make_backward_input(const backend::Conv2DParams& p) {
  auto e = std::make_unique<Entry>();
  const Shape s(p);
  const auto hint = forward_pd(s, false, false);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, s.src_md(), s.wei_any(),
                                                s.dst_md(), s.strides, s.dilates, s.pad_l, s.pad_r);
  const dnnl::convolution_backward_data::primitive_desc pd(d, attr, engine(), hint);
  e->conv = dnnl::convolution_backward_data(pd);
  make_memories(*e, pd.weights_desc(), s, pd);
  if (e->wei != e->wei_user) e->reorder = dnnl::reorder(e->wei_user, e->wei);
  e->src = memory(s.src_md(), engine(), DNNL_MEMORY_NONE);  // dx
  e->dst = memory(s.dst_md(), engine(), DNNL_MEMORY_NONE);  // dy
  e->args = {{DNNL_ARG_DIFF_DST, e->dst.get()}, {DNNL_ARG_WEIGHTS, e->wei.get()},
             {DNNL_ARG_DIFF_SRC, e->src.get()}, {DNNL_ARG_SCRATCHPAD, e->scratch.get()}};
  e->reorder_args = {{DNNL_ARG_FROM, e->wei_user.get()}, {DNNL_ARG_TO, e->wei.get()}};
  return *cache().emplace(key_of(Pass::backward_input, false, false, p), std::move(e)).first->second;
}

// The filter gradient comes out in oneDNN's layout; the reorder runs after the
// convolution, from it into Kiln's HWIO.
Entry& make_backward_filter(const backend::Conv2DParams& p) {
  auto e = std::make_unique<Entry>();
  const Shape s(p);
  const auto hint = forward_pd(s, false, false);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::convolution_backward_weights::desc d(dnnl::algorithm::convolution_direct, s.src_md(), s.wei_any(),
                                                   s.dst_md(), s.strides, s.dilates, s.pad_l, s.pad_r);
  const dnnl::convolution_backward_weights::primitive_desc pd(d, attr, engine(), hint);
  e->conv = dnnl::convolution_backward_weights(pd);
  make_memories(*e, pd.diff_weights_desc(), s, pd);
  if (e->wei != e->wei_user) e->reorder = dnnl::reorder(e->wei, e->wei_user);
  e->src = memory(s.src_md(), engine(), DNNL_MEMORY_NONE);
  e->dst = memory(s.dst_md(), engine(), DNNL_MEMORY_NONE);
  e->args = {{DNNL_ARG_SRC, e->src.get()}, {DNNL_ARG_DIFF_DST, e->dst.get()},
             {DNNL_ARG_DIFF_WEIGHTS, e->wei.get()}, {DNNL_ARG_SCRATCHPAD, e->scratch.get()}};
  e->reorder_args = {{DNNL_ARG_FROM, e->wei.get()}, {DNNL_ARG_TO, e->wei_user.get()}};
  return *cache().emplace(key_of(Pass::backward_filter, false, false, p), std::move(e)).first->second;
}

template <class Make>
Entry& lookup(Pass pass, bool bias, bool relu, const backend::Conv2DParams& p, Make make) {
  const auto it = cache().find(key_of(pass, bias, relu, p));
  return it != cache().end() ? *it->second : make();
}

void set(memory& m, const void* data) { m.set_data_handle(const_cast<void*>(data)); }

void run_filter(Entry& e) {
  match_threads();
  e.scratch.set_data_handle(scratchpad(e.scratch_bytes));
  const auto st =
      dnnl_primitive_execute(e.conv.get(), stream().get(), static_cast<int>(e.args.size()), e.args.data());
  if (st != dnnl_success) throw std::runtime_error("conv2d: oneDNN filter gradient failed (status " + std::to_string(st) + ")");
  if (e.reorder &&
      dnnl_primitive_execute(e.reorder.get(), stream().get(), static_cast<int>(e.reorder_args.size()),
                             e.reorder_args.data()) != dnnl_success)
    throw std::runtime_error("conv2d: oneDNN reorder of the filter gradient failed");
  stream().wait();
}

const char* plugin_version() {
  static const std::string v = [] {
    const auto* d = dnnl_version();
    return std::to_string(d->major) + "." + std::to_string(d->minor) + "." + std::to_string(d->patch);
  }();
  return v.c_str();
}

void forward(const float* x, const float* w, const float* bias, bool relu, const backend::Conv2DParams& p,
             float* out) {
  Entry& e = lookup(Pass::forward, bias != nullptr, relu, p, [&]() -> Entry& { return make_forward(p, bias, relu); });
  set(e.src, x);
  set(e.wei_user, w);
  set(e.dst, out);
  if (bias) set(e.bias, bias);
  run(e);
}

void backward_input(const float* dy, const float* w, const backend::Conv2DParams& p, float* dx) {
  Entry& e = lookup(Pass::backward_input, false, false, p, [&]() -> Entry& { return make_backward_input(p); });
  set(e.dst, dy);
  set(e.wei_user, w);
  set(e.src, dx);
  run(e);
}

void backward_filter(const float* x, const float* dy, const backend::Conv2DParams& p, float* dw) {
  Entry& e = lookup(Pass::backward_filter, false, false, p, [&]() -> Entry& { return make_backward_filter(p); });
  set(e.src, x);
  set(e.dst, dy);
  set(e.wei_user, dw);
  run_filter(e);
}


// Runs one call under the cache's lock, turning any exception into the message returned.
template <class F>
const char* guarded(int threads, F&& f) {
  static thread_local std::string error;
  try {
    std::lock_guard lock(cache_mutex());
    g_threads = threads;
    f();
    return nullptr;
  } catch (const std::exception& e) {
    error = std::string("conv2d (oneDNN ") + plugin_version() + "): " + e.what();
  } catch (...) {
    error = "conv2d (oneDNN): an unknown error";
  }
  return error.c_str();
}

const PluginV1 kPlugin{
    plugin_version(),
    [](const float* x, const float* w, const float* bias, bool relu, const backend::Conv2DParams& p, float* out,
       int threads) { return guarded(threads, [&] { forward(x, w, bias, relu, p, out); }); },
    [](const float* dy, const float* w, const backend::Conv2DParams& p, float* dx, int threads) {
      return guarded(threads, [&] { backward_input(dy, w, p, dx); });
    },
    [](const float* x, const float* dy, const backend::Conv2DParams& p, float* dw, int threads) {
      return guarded(threads, [&] { backward_filter(x, dy, p, dw); });
    },
};

}  // namespace
}  // namespace kiln::cpu::onednn

extern "C" __attribute__((visibility("default"))) const kiln::cpu::onednn::PluginV1* kiln_onednn_plugin_v1() {
  return &kiln::cpu::onednn::kPlugin;
}
