// The oneDNN plugin (onednn_api.h): float32 2-D convolutions, NHWC
// activations and HWIO kernels, through oneDNN's JIT kernels.
//
// Direct convolutions read and write Kiln's NHWC activations in place; only
// the kernel is reordered into oneDNN's blocked layout, on each call (a kernel
// is small next to the activations it meets: 2.4 MB for 3x3x256x256, against
// 9.7 GFLOP of work at batch 128 on 8x8 images). Winograd convolutions work
// in blocked layouts only, so their activations are reordered in and out
// too, through two buffers shared by every convolution (about 1 ms per 33 MB
// activation, against the 2x it saves on a 3x3 layer's arithmetic).
// Primitives are made once per shape and kept, with their memory objects, so
// a call in steady state allocates nothing: it only sets data pointers and executes.
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
void match_threads(int threads) {
  using SetThreads = void (*)(int);
  static const auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  static thread_local int current = 0;
  if (set && threads > 0 && current != threads) {
    current = threads;
    set(current);
  }
}

// Page-aligned memory grown to the largest request and kept: oneDNN's working
// memory (slot 0) and the blocked copies of a Winograd convolution's
// activations (slots 1 and 2), shared by every cached convolution since they
// run one at a time.
void* pooled(int slot, std::size_t bytes) {
  static std::size_t size[3] = {0, 0, 0};
  static void* buffer[3] = {nullptr, nullptr, nullptr};  // kept until exit, as the cache is
  if (bytes > size[slot]) {
    std::free(buffer[slot]);
    buffer[slot] = nullptr;
    const std::size_t want = (bytes + 4095) / 4096 * 4096;
    buffer[slot] = std::aligned_alloc(4096, want);
    if (!buffer[slot]) throw std::runtime_error("cannot allocate " + std::to_string(want) + " bytes of working memory");
    size[slot] = want;
  }
  return buffer[slot];
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
  memory::desc src_nhwc() const { return {src, f32, tag::nhwc}; }
  memory::desc dst_nhwc() const { return {dst, f32, tag::nhwc}; }
  memory::desc wei_hwio() const { return {wei, f32, tag::hwio}; }
  memory::desc bias_md() const { return {{dst[1]}, f32, tag::a}; }
};

// One cached convolution: its primitive; Kiln's buffers (the user memories,
// pointed at the call's data); the reorders between them and oneDNN's layouts,
// run before and after the convolution; and which memories live in pooled slots.
struct Entry {
  struct Step {
    dnnl::primitive prim;
    std::vector<dnnl_exec_arg_t> args;
  };
  dnnl::primitive conv;
  std::vector<dnnl_exec_arg_t> args;
  std::vector<memory> user;  // in the order the call passes its pointers
  std::vector<Step> before, after;
  std::vector<std::tuple<memory, int, std::size_t>> in_pool;  // memory, slot, bytes
  std::vector<memory> owned;                                  // blocked kernels (small; oneDNN allocates them)
  // The batch runs in `chunks` equal parts (see lookup): each user buffer's
  // data moves by its `part_bytes` from one part to the next (0: the kernel),
  // and the filter gradient of every part after the first is added into dW by
  // `accumulate` instead of copied by `after`.
  int64_t chunks = 1;
  std::vector<std::size_t> part_bytes;
  std::vector<Step> accumulate;
};

std::size_t pooled_bytes(const Entry& e) {
  std::size_t total = 0;
  for (const auto& [m, slot, bytes] : e.in_pool) total += bytes;
  return total;
}

// The memory to hand the convolution for Kiln's buffer `user`, which oneDNN
// wants as `want`: the buffer itself when the layouts agree, else a blocked
// copy, made by a reorder before the convolution (an input) or copied back
// after it (an output). Activations' copies live in pool slot `slot`; kernels'
// (slot -1) in memory of their own.
memory bind(Entry& e, const memory& user, const memory::desc& want, bool input, int slot) {
  if (want == user.get_desc()) return user;
  memory m = slot < 0 ? memory(want, engine()) : memory(want, engine(), DNNL_MEMORY_NONE);
  if (slot < 0) e.owned.push_back(m);
  else e.in_pool.emplace_back(m, slot, want.get_size());
  const memory& from = input ? user : m;
  const memory& to = input ? m : user;
  (input ? e.before : e.after)
      .push_back({dnnl::reorder(from, to), {{DNNL_ARG_FROM, from.get()}, {DNNL_ARG_TO, to.get()}}});
  return m;
}

dnnl::primitive_attr attributes(bool relu) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  return attr;
}

dnnl::convolution_forward::primitive_desc forward_pd(const Shape& s, dnnl::algorithm alg, bool bias, bool relu) {
  // Winograd chooses its own activation layouts; direct convolutions take Kiln's NHWC.
  const bool any = alg == dnnl::algorithm::convolution_winograd;
  const memory::desc src(s.src, f32, any ? tag::any : tag::nhwc), dst(s.dst, f32, any ? tag::any : tag::nhwc),
      wei(s.wei, f32, tag::any);
  const auto prop = dnnl::prop_kind::forward_training;
  const auto d = bias ? dnnl::convolution_forward::desc(prop, alg, src, wei, s.bias_md(), dst, s.strides, s.dilates,
                                                        s.pad_l, s.pad_r)
                      : dnnl::convolution_forward::desc(prop, alg, src, wei, dst, s.strides, s.dilates, s.pad_l, s.pad_r);
  return dnnl::convolution_forward::primitive_desc(d, attributes(relu), engine());
}

void add_scratchpad(Entry& e, const dnnl::primitive_desc_base& pd) {
  memory scratch(pd.scratchpad_desc(), engine(), DNNL_MEMORY_NONE);
  e.in_pool.emplace_back(scratch, 0, pd.scratchpad_desc().get_size());
  e.args.push_back({DNNL_ARG_SCRATCHPAD, scratch.get()});
}

std::unique_ptr<Entry> make(Pass pass, dnnl::algorithm alg, bool bias, bool relu, const backend::Conv2DParams& p) {
  auto e = std::make_unique<Entry>();
  const Shape s(p);
  const bool any = alg == dnnl::algorithm::convolution_winograd;
  const memory::desc src(s.src, f32, any ? tag::any : tag::nhwc), dst(s.dst, f32, any ? tag::any : tag::nhwc),
      wei(s.wei, f32, tag::any);
  memory x(s.src_nhwc(), engine(), DNNL_MEMORY_NONE), y(s.dst_nhwc(), engine(), DNNL_MEMORY_NONE),
      w(s.wei_hwio(), engine(), DNNL_MEMORY_NONE);
  if (pass == Pass::forward) {
    const auto pd = forward_pd(s, alg, bias, relu);
    e->conv = dnnl::convolution_forward(pd);
    e->user = {x, w, y};
    e->args = {{DNNL_ARG_SRC, bind(*e, x, pd.src_desc(), true, 1).get()},
               {DNNL_ARG_WEIGHTS, bind(*e, w, pd.weights_desc(), true, -1).get()},
               {DNNL_ARG_DST, bind(*e, y, pd.dst_desc(), false, 2).get()}};
    if (bias) {
      memory b(s.bias_md(), engine(), DNNL_MEMORY_NONE);
      e->user.push_back(b);
      e->args.push_back({DNNL_ARG_BIAS, b.get()});
    }
    add_scratchpad(*e, pd);
  } else if (pass == Pass::backward_input) {
    const auto hint = forward_pd(s, alg, false, false);
    const dnnl::convolution_backward_data::desc d(alg, src, wei, dst, s.strides, s.dilates, s.pad_l, s.pad_r);
    const dnnl::convolution_backward_data::primitive_desc pd(d, attributes(false), engine(), hint);
    e->conv = dnnl::convolution_backward_data(pd);
    e->user = {y, w, x};  // dy, w, dx
    e->args = {{DNNL_ARG_DIFF_DST, bind(*e, y, pd.diff_dst_desc(), true, 1).get()},
               {DNNL_ARG_WEIGHTS, bind(*e, w, pd.weights_desc(), true, -1).get()},
               {DNNL_ARG_DIFF_SRC, bind(*e, x, pd.diff_src_desc(), false, 2).get()}};
    add_scratchpad(*e, pd);
  } else {
    const auto hint = forward_pd(s, alg, false, false);
    const dnnl::convolution_backward_weights::desc d(alg, src, wei, dst, s.strides, s.dilates, s.pad_l, s.pad_r);
    const dnnl::convolution_backward_weights::primitive_desc pd(d, attributes(false), engine(), hint);
    e->conv = dnnl::convolution_backward_weights(pd);
    e->user = {x, y, w};  // x, dy, dw
    e->args = {{DNNL_ARG_SRC, bind(*e, x, pd.src_desc(), true, 1).get()},
               {DNNL_ARG_DIFF_DST, bind(*e, y, pd.diff_dst_desc(), true, 2).get()},
               {DNNL_ARG_DIFF_WEIGHTS, bind(*e, w, pd.diff_weights_desc(), false, -1).get()}};
    add_scratchpad(*e, pd);
    for (const auto& step : e->after) {  // the same reorder, adding into dW (a sum post-op)
      dnnl::primitive_attr add;
      dnnl::post_ops ops;
      ops.append_sum(1.0f);
      add.set_post_ops(ops);
      const memory from = e->owned.back();
      e->accumulate.push_back({dnnl::reorder(from, w, add), step.args});
    }
  }
  const std::size_t x_bytes = s.src_nhwc().get_size(), y_bytes = s.dst_nhwc().get_size();
  if (pass == Pass::forward) e->part_bytes = {x_bytes, 0, y_bytes, 0};
  else if (pass == Pass::backward_input) e->part_bytes = {y_bytes, 0, x_bytes};
  else e->part_bytes = {x_bytes, y_bytes, 0};
  return e;
}

using Key = std::tuple<int, bool, bool, bool, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int, int, int, int, int64_t, int64_t>;
Key key_of(Pass pass, bool winograd, bool bias, bool relu, const backend::Conv2DParams& p) {
  return {static_cast<int>(pass), winograd, bias, relu, p.n,        p.h,        p.w,     p.c_in,  p.kh,     p.kw,
          p.c_out,               p.oh,     p.ow, p.stride_h, p.stride_w, p.dil_h, p.dil_w, p.pad_top, p.pad_left};
}

// Cached primitives, and one lock: Kiln's ops run one at a time, and the
// pooled memory and each entry's memory objects are shared by the calls that use them.
std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}
std::map<Key, std::unique_ptr<Entry>>& cache() {
  static auto* c = new std::map<Key, std::unique_ptr<Entry>>;  // kept until exit: oneDNN may unload first
  return *c;
}

// Winograd's working memory (its transformed tiles, and the blocked copies of
// the activations) grows with the batch: 300 MB for a 3x3 layer over 64 images
// of 64x64x64. Above this much, the batch runs in halves, quarters, ... of it,
// down to 8 images: in bench/realsize.sh that kept the speed and brought the
// VGG case's training peak from 1,070 to 820 MiB.
constexpr std::size_t kWinogradMemory = std::size_t(64) << 20;

// The entry for this convolution: Winograd when asked and oneDNN has it for
// the shape (3x3, stride 1, no dilation, channels in 16s), else direct.
Entry& lookup(Pass pass, bool winograd, bool bias, bool relu, const backend::Conv2DParams& p) {
  const Key key = key_of(pass, winograd, bias, relu, p);
  if (auto it = cache().find(key); it != cache().end()) return *it->second;
  std::unique_ptr<Entry> e;
  if (winograd) {
    try {
      backend::Conv2DParams part = p;
      e = make(pass, dnnl::algorithm::convolution_winograd, bias, relu, part);
      const bool can_split = pass != Pass::backward_filter || !e->accumulate.empty();
      while (can_split && pooled_bytes(*e) > kWinogradMemory && part.n % 2 == 0 && part.n > 8) {
        part.n /= 2;
        e = make(pass, dnnl::algorithm::convolution_winograd, bias, relu, part);
      }
      e->chunks = p.n / part.n;
    } catch (const dnnl::error&) {
      e.reset();  // no Winograd kernel for this shape on this CPU: the direct one below
    }
  }
  if (!e) e = make(pass, dnnl::algorithm::convolution_direct, bias, relu, p);
  return *cache().emplace(key, std::move(e)).first->second;
}

void execute(const dnnl::primitive& prim, const std::vector<dnnl_exec_arg_t>& args, const char* what) {
  const auto st = dnnl_primitive_execute(prim.get(), stream().get(), static_cast<int>(args.size()), args.data());
  if (st != dnnl_success) throw std::runtime_error(std::string(what) + " failed (status " + std::to_string(st) + ")");
}

void run(Entry& e, std::initializer_list<const void*> data) {
  for (auto& [m, slot, bytes] : e.in_pool) m.set_data_handle(pooled(slot, bytes));
  for (int64_t c = 0; c < e.chunks; ++c) {
    std::size_t i = 0;
    for (const void* d : data) {
      e.user[i].set_data_handle(const_cast<char*>(static_cast<const char*>(d)) + c * e.part_bytes[i]);
      ++i;
    }
    for (const auto& s : e.before) execute(s.prim, s.args, "a reorder into oneDNN's layout");
    execute(e.conv, e.args, "the convolution");
    for (const auto& s : c == 0 ? e.after : e.accumulate) execute(s.prim, s.args, "a reorder out of oneDNN's layout");
  }
  stream().wait();
}

const char* plugin_version() {
  static const std::string v = [] {
    const auto* d = dnnl_version();
    return std::to_string(d->major) + "." + std::to_string(d->minor) + "." + std::to_string(d->patch);
  }();
  return v.c_str();
}

// Runs one call under the cache's lock, turning any exception into the message returned.
template <class F>
const char* guarded(int threads, F&& f) {
  static thread_local std::string error;
  try {
    std::lock_guard lock(cache_mutex());
    match_threads(threads);
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
       bool winograd, int threads) {
      return guarded(threads, [&] {
        Entry& e = lookup(Pass::forward, winograd, bias != nullptr, relu, p);
        if (bias) run(e, {x, w, out, bias});
        else run(e, {x, w, out});
      });
    },
    [](const float* dy, const float* w, const backend::Conv2DParams& p, float* dx, bool winograd, int threads) {
      return guarded(threads, [&] { run(lookup(Pass::backward_input, winograd, false, false, p), {dy, w, dx}); });
    },
    [](const float* x, const float* dy, const backend::Conv2DParams& p, float* dw, bool winograd, int threads) {
      return guarded(threads, [&] { run(lookup(Pass::backward_filter, winograd, false, false, p), {x, dy, dw}); });
    },
};

}  // namespace
}  // namespace kiln::cpu::onednn

extern "C" __attribute__((visibility("default"))) const kiln::cpu::onednn::PluginV1* kiln_onednn_plugin_v1() {
  return &kiln::cpu::onednn::kPlugin;
}
