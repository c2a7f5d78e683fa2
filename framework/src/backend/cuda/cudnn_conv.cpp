// The CUDA backend's 2-D convolution through cuDNN.
//
// Convolution: Kiln keeps NHWC activations and HWIO kernels (Keras's layout).
// cuDNN takes NHWC activations as they are, but its filters must be KRSC
// (= OHWI), so the kernel is transposed on the way in and dW on the way out;
// kernels are small, so this costs little. TF's 'same' padding puts any odd
// pixel at the bottom/right, which cuDNN's symmetric padding cannot express;
// then the input is zero-padded explicitly into scratch memory first.
// float64, and any float32 geometry cuDNN declines, go through the GEMM path
// (cuda_linalg.cpp).
#include <algorithm>
#include <climits>
#include <memory>
#include <string>

#include "backend/cuda/conv_race.h"
#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/kernels.h"
#include "backend/cuda/plan.h"

namespace kiln::cuda {

namespace {

/// cuDNN cannot run this geometry; the caller falls back to GEMM.
struct CudnnUnsupported {};

/// Like KILN_CUDNN_CHECK, but CUDNN_STATUS_NOT_SUPPORTED selects the GEMM path.
#define KILN_CUDNN_TRY(expr)                                                                    \
  do {                                                                                          \
    cudnnStatus_t kiln_s_ = (expr);                                                             \
    if (kiln_s_ == CUDNN_STATUS_NOT_SUPPORTED) throw CudnnUnsupported{};                        \
    if (kiln_s_ != CUDNN_STATUS_SUCCESS) ::kiln::cuda::throw_cudnn(kiln_s_, #expr, __FILE__, __LINE__); \
  } while (0)

/// The geometry handed to cuDNN: the input as given with symmetric padding, or
/// explicitly padded to (hp, wp) with no padding when TF's padding is asymmetric.
struct CudnnGeom {
  bool explicit_pad = false;
  int64_t hp = 0, wp = 0;
  int pad_h = 0, pad_w = 0;
};

CudnnGeom cudnn_geometry(const backend::Conv2DParams& p) {
  const int64_t ekh = static_cast<int64_t>(p.dil_h) * (p.kh - 1) + 1;
  const int64_t ekw = static_cast<int64_t>(p.dil_w) * (p.kw - 1) + 1;
  auto out_dim = [](int64_t in, int64_t pad, int64_t ek, int64_t s) {
    const int64_t span = in + 2 * pad - ek;
    return span < 0 ? int64_t(0) : span / s + 1;
  };
  CudnnGeom g;
  g.hp = p.h;
  g.wp = p.w;
  g.pad_h = static_cast<int>(p.pad_top);
  g.pad_w = static_cast<int>(p.pad_left);
  // Symmetric padding is exact whenever it yields the requested output size:
  // output pixel o still starts at o·stride - pad, and rows past the input
  // read as zeros either way.
  if (out_dim(p.h, p.pad_top, ekh, p.stride_h) == p.oh && out_dim(p.w, p.pad_left, ekw, p.stride_w) == p.ow) return g;
  g.explicit_pad = true;
  g.hp = (p.oh - 1) * p.stride_h + ekh;
  g.wp = (p.ow - 1) * p.stride_w + ekw;
  g.pad_h = g.pad_w = 0;
  return g;
}
/// Copies the (n, rows, cols, c) region between an NHWC tensor of spatial size
/// (h, w) and one of (hp, wp) whose region starts at (top, left).
void copy_region(DeviceContext& ctx, k::DT dt, const void* src, void* dst, bool into_padded, int64_t n, int64_t h,
                 int64_t w, int64_t hp, int64_t wp, int64_t c, int64_t top, int64_t left) {
  const int64_t rows = std::min(h, hp - top), cols = std::min(w, wp - left);
  if (rows <= 0 || cols <= 0) return;
  const std::vector<int64_t> small{h * w * c, w * c, c, 1}, big{hp * wp * c, wp * c, c, 1};
  const int64_t off = (top * wp + left) * c;
  k::Plan pl = into_padded ? make_plan<2>({n, rows, cols, c}, {big, small}) : make_plan<2>({n, rows, cols, c}, {small, big});
  k::strided_copy(dt, src, into_padded ? 0 : off, dst, into_padded ? off : 0, pl, false, false, ctx.stream());
}

using V = std::vector<int64_t>;

/// HWIO (kh, kw, ci, co) <-> KRSC (co, kh, kw, ci).
void hwio_to_krsc(DeviceContext& ctx, k::DT dt, const void* w, void* wt, const backend::Conv2DParams& p) {
  const int64_t kh = p.kh, kw = p.kw, ci = p.c_in, co = p.c_out;
  k::Plan pl = make_plan<2>({co, kh, kw, ci}, {V{kh * kw * ci, kw * ci, ci, 1}, V{1, kw * ci * co, ci * co, co}});
  k::strided_copy(dt, w, 0, wt, 0, pl, false, false, ctx.stream());
}
void krsc_to_hwio(DeviceContext& ctx, k::DT dt, const void* wt, void* w, const backend::Conv2DParams& p) {
  const int64_t kh = p.kh, kw = p.kw, ci = p.c_in, co = p.c_out;
  k::Plan pl = make_plan<2>({kh, kw, ci, co}, {V{kw * ci * co, ci * co, co, 1}, V{kw * ci, ci, 1, kh * kw * ci}});
  k::strided_copy(dt, wt, 0, w, 0, pl, false, false, ctx.stream());
}

constexpr std::size_t kWorkspaceLimit = std::size_t(512) << 20;

/// The cache key of a convolution: direction, geometry as cuDNN sees it, and the math mode.
std::vector<int64_t> conv_key(const backend::Conv2DParams& p, const CudnnGeom& g, int direction) {
  return {direction, p.n,      g.hp,    g.wp,    p.c_in,  p.kh,    p.kw, p.c_out, p.oh,
          p.ow,      p.stride_h, p.stride_w, p.dil_h, p.dil_w, g.pad_h, g.pad_w, tf32_allowed() ? 1 : 0};
}

/// Descriptors of one convolution in cuDNN's terms.
struct CudnnConv {
  TensorDesc x, y;
  FilterDesc w;
  ConvDesc conv;
  CudnnGeom geom;
  std::vector<int64_t> key;
  CudnnConv(const backend::Conv2DParams& p, int direction) : geom(cudnn_geometry(p)) {
    for (int64_t v : {p.n, geom.hp, geom.wp, p.c_in, p.kh, p.kw, p.c_out, p.oh, p.ow})
      if (v > INT_MAX) throw CudnnUnsupported{};
    const cudnnDataType_t f = CUDNN_DATA_FLOAT;
    KILN_CUDNN_TRY(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, f, (int)p.n, (int)p.c_in, (int)geom.hp, (int)geom.wp));
    KILN_CUDNN_TRY(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NHWC, f, (int)p.n, (int)p.c_out, (int)p.oh, (int)p.ow));
    KILN_CUDNN_TRY(cudnnSetFilter4dDescriptor(w, f, CUDNN_TENSOR_NHWC, (int)p.c_out, (int)p.c_in, (int)p.kh, (int)p.kw));
    KILN_CUDNN_TRY(cudnnSetConvolution2dDescriptor(conv, geom.pad_h, geom.pad_w, p.stride_h, p.stride_w, p.dil_h,
                                                     p.dil_w, CUDNN_CROSS_CORRELATION, f));
    const bool tf32 = tf32_allowed();
    KILN_CUDNN_TRY(cudnnSetConvolutionMathType(conv, tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH));
    int n = 0, c = 0, h = 0, wd = 0;
    KILN_CUDNN_TRY(cudnnGetConvolution2dForwardOutputDim(conv, x, w, &n, &c, &h, &wd));
    if (n != p.n || c != p.c_out || h != p.oh || wd != p.ow) throw CudnnUnsupported{};
    key = conv_key(p, geom, direction);
  }
};

/// Picks an algorithm from cuDNN's perf results (sorted best first): the first
/// that ran (or, for heuristics, is supported) within the workspace limit.
template <class Perf>
ConvAlgo first_usable(const Perf* perf, int count) {
  for (int i = 0; i < count; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= kWorkspaceLimit)
      return ConvAlgo{static_cast<int>(perf[i].algo), perf[i].memory, perf[i].mathType};
  throw CudnnUnsupported{};
}

/// first_usable, or the marker algo -1 (cached: "use GEMM for this geometry").
template <class Perf>
ConvAlgo usable_or_gemm(const Perf* perf, int count) {
  try {
    return first_usable(perf, count);
  } catch (const CudnnUnsupported&) {
    return ConvAlgo{-1, 0, CUDNN_DEFAULT_MATH};
  }
}

/// Scratch for cudnnFind*Ex: as much of the limit as the device can spare.
std::unique_ptr<Scratch> find_workspace(DeviceContext& ctx, std::size_t& size) {
  for (size = kWorkspaceLimit; size >= (std::size_t(1) << 20); size /= 4) {
    try {
      return std::make_unique<Scratch>(ctx, size);
    } catch (const RuntimeError&) {
    }
  }
  size = 0;
  return nullptr;
}

bool cudnn_eligible(const Tensor& t, const backend::Conv2DParams& p) {
  return t.dtype() == DType::float32 && p.n > 0 && p.oh > 0 && p.ow > 0 && p.c_in > 0 && p.c_out > 0;
}

void expect_floating(const char* op, const Tensor& t) {
  if (!is_floating(t.dtype()))
    throw TypeError(std::string(op) + ": expected a float32 or float64 tensor, but received " + dtype_name(t.dtype()));
}

/// Runs `cudnn_path`; false when cuDNN declined and the caller should use GEMM.
template <class F>
bool cudnn_ran(F&& cudnn_path) {
  try {
    cudnn_path();
    return true;
  } catch (const CudnnUnsupported&) {
    return false;
  }
}

/// KILN_CUDNN_TRY for a status returned through a direction's traits.
void cudnn_try(cudnnStatus_t s, const char* what) {
  if (s == CUDNN_STATUS_NOT_SUPPORTED) throw CudnnUnsupported{};
  if (s != CUDNN_STATUS_SUCCESS) throw_cudnn(s, what, __FILE__, __LINE__);
}

/// Device buffers of one convolution call in cuDNN's layout; `out` is the one
/// the direction writes (y forward, x backward-data, w backward-filter).
struct ConvBuffers {
  const void* x = nullptr;
  const void* w = nullptr;
  const void* y = nullptr;
  void* out = nullptr;
};

constexpr float kOne = 1.0f, kZero = 0.0f;

// One traits struct per direction: its cache-key tag, perf/algo types and the
// three cuDNN entry points (benchmark, heuristic, run).
struct ForwardConv {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  using Algo = cudnnConvolutionFwdAlgo_t;
  static constexpr int kDirection = 0;
  static constexpr int kAlgoCount = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  static constexpr const char* kName = "cudnnConvolutionForward";
  static cudnnStatus_t find(cudnnHandle_t h, const CudnnConv& c, const ConvBuffers& b, int* n, Perf* perf, void* ws,
                            std::size_t ws_size) {
    return cudnnFindConvolutionForwardAlgorithmEx(h, c.x, b.x, c.w, b.w, c.conv, c.y, b.out, kAlgoCount, n, perf, ws,
                                                  ws_size);
  }
  static cudnnStatus_t heuristic(cudnnHandle_t h, const CudnnConv& c, int* n, Perf* perf) {
    return cudnnGetConvolutionForwardAlgorithm_v7(h, c.x, c.w, c.conv, c.y, kAlgoCount, n, perf);
  }
  static cudnnStatus_t run(cudnnHandle_t h, const CudnnConv& c, const ConvBuffers& b, Algo algo, void* ws,
                           std::size_t ws_size) {
    return cudnnConvolutionForward(h, &kOne, c.x, b.x, c.w, b.w, c.conv, algo, ws, ws_size, &kZero, c.y, b.out);
  }
};

struct BackwardDataConv {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  using Algo = cudnnConvolutionBwdDataAlgo_t;
  static constexpr int kDirection = 1;
  static constexpr int kAlgoCount = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  static constexpr const char* kName = "cudnnConvolutionBackwardData";
  static cudnnStatus_t find(cudnnHandle_t h, const CudnnConv& c, const ConvBuffers& b, int* n, Perf* perf, void* ws,
                            std::size_t ws_size) {
    return cudnnFindConvolutionBackwardDataAlgorithmEx(h, c.w, b.w, c.y, b.y, c.conv, c.x, b.out, kAlgoCount, n, perf,
                                                       ws, ws_size);
  }
  static cudnnStatus_t heuristic(cudnnHandle_t h, const CudnnConv& c, int* n, Perf* perf) {
    return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, c.w, c.y, c.conv, c.x, kAlgoCount, n, perf);
  }
  static cudnnStatus_t run(cudnnHandle_t h, const CudnnConv& c, const ConvBuffers& b, Algo algo, void* ws,
                           std::size_t ws_size) {
    return cudnnConvolutionBackwardData(h, &kOne, c.w, b.w, c.y, b.y, c.conv, algo, ws, ws_size, &kZero, c.x, b.out);
  }
};

struct BackwardFilterConv {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  using Algo = cudnnConvolutionBwdFilterAlgo_t;
  static constexpr int kDirection = 2;
  static constexpr int kAlgoCount = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  static constexpr const char* kName = "cudnnConvolutionBackwardFilter";
  static cudnnStatus_t find(cudnnHandle_t h, const CudnnConv& c, const ConvBuffers& b, int* n, Perf* perf, void* ws,
                            std::size_t ws_size) {
    return cudnnFindConvolutionBackwardFilterAlgorithmEx(h, c.x, b.x, c.y, b.y, c.conv, c.w, b.out, kAlgoCount, n,
                                                         perf, ws, ws_size);
  }
  static cudnnStatus_t heuristic(cudnnHandle_t h, const CudnnConv& c, int* n, Perf* perf) {
    return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, c.x, c.y, c.conv, c.w, kAlgoCount, n, perf);
  }
  static cudnnStatus_t run(cudnnHandle_t h, const CudnnConv& c, const ConvBuffers& b, Algo algo, void* ws,
                           std::size_t ws_size) {
    return cudnnConvolutionBackwardFilter(h, &kOne, c.x, b.x, c.y, b.y, c.conv, algo, ws, ws_size, &kZero, c.w,
                                          b.out);
  }
};

/// The cached algorithm for this geometry and direction, searched for (by
/// benchmark or heuristic) on first use. The caller holds ctx.lib_mu.
template <class Dir>
ConvAlgo cached_algo(DeviceContext& ctx, cudnnHandle_t h, const CudnnConv& c, const ConvBuffers& b) {
  auto it = ctx.conv_algos.find(c.key);
  if (it != ctx.conv_algos.end()) return it->second;
  typename Dir::Perf perf[Dir::kAlgoCount];
  int n = 0;
  if (cudnn_benchmark_enabled()) {
    std::size_t ws = 0;
    auto buf = find_workspace(ctx, ws);
    cudnn_try(Dir::find(h, c, b, &n, perf, buf ? buf->get() : nullptr, ws), "cudnnFindConvolution*AlgorithmEx");
  } else {
    cudnn_try(Dir::heuristic(h, c, &n, perf), "cudnnGetConvolution*Algorithm_v7");
  }
  return ctx.conv_algos.emplace(c.key, usable_or_gemm(perf, n)).first->second;
}

/// Picks (or recalls) the algorithm and runs one direction of the convolution.
template <class Dir>
void run_cudnn_conv(DeviceContext& ctx, CudnnConv& c, const ConvBuffers& b) {
  std::lock_guard<std::mutex> lock(ctx.lib_mu);
  cudnnHandle_t h = ctx.cudnn();
  const ConvAlgo a = cached_algo<Dir>(ctx, h, c, b);
  if (a.algo < 0) throw CudnnUnsupported{};
  KILN_CUDNN_TRY(cudnnSetConvolutionMathType(c.conv, a.math));
  Scratch ws(ctx, a.workspace);
  cudnn_try(Dir::run(h, c, b, static_cast<typename Dir::Algo>(a.algo), ws.get(), a.workspace), Dir::kName);
}

/// x as cuDNN reads it: the tensor itself, or a zero-padded copy in scratch
/// when TF's padding is asymmetric.
struct ConvInput {
  std::unique_ptr<Scratch> padded;
  const void* data = nullptr;
};

ConvInput conv_input(DeviceContext& ctx, const Tensor& x, const backend::Conv2DParams& p, const CudnnGeom& g) {
  ConvInput in;
  in.data = x.raw_data();
  if (!g.explicit_pad) return in;
  const k::DT dt = to_dt(x.dtype());
  const int64_t count = p.n * g.hp * g.wp * p.c_in;
  in.padded = std::make_unique<Scratch>(ctx, static_cast<std::size_t>(count) * dtype_size(x.dtype()));
  k::fill(dt, in.padded->get(), count, 0.0, ctx.stream());
  copy_region(ctx, dt, x.raw_data(), in.padded->get(), true, p.n, p.h, p.w, g.hp, g.wp, p.c_in, p.pad_top, p.pad_left);
  KILN_CUDA_LAUNCHED("conv2d pad");
  in.data = in.padded->get();
  return in;
}

}  // namespace

void CudaBackend::conv2d(const Tensor& x, const Tensor& w, const backend::Conv2DParams& p, Tensor& out) {
  expect_here("conv2d", {&x, &w, &out});
  expect_floating("conv2d", x);
  DeviceGuard g(index_);
  if (!cudnn_eligible(x, p)) return conv_gemm_forward(x, w, p, out);
  const auto cudnn = [&] {
    return cudnn_ran([&] {
        CudnnConv c(p, ForwardConv::kDirection);
        const ConvInput in = conv_input(ctx_, x, p, c.geom);
        Scratch wt(ctx_, static_cast<std::size_t>(w.size()) * dtype_size(x.dtype()));
        hwio_to_krsc(ctx_, to_dt(x.dtype()), w.raw_data(), wt.get(), p);
        KILN_CUDA_LAUNCHED("conv2d layout");
        run_cudnn_conv<ForwardConv>(ctx_, c, ConvBuffers{in.data, wt.get(), nullptr, out.raw_data()});
      });
  };
  run_faster_conv(ctx_, conv_key(p, cudnn_geometry(p), ForwardConv::kDirection), cudnn,
                  [&] { conv_gemm_forward(x, w, p, out); });
}

void CudaBackend::conv2d_backward_input(const Tensor& dy, const Tensor& w, const backend::Conv2DParams& p, Tensor& dx) {
  expect_here("conv2d_backward_input", {&dy, &w, &dx});
  expect_floating("conv2d_backward_input", dy);
  DeviceGuard g(index_);
  if (!cudnn_eligible(dy, p)) return conv_gemm_backward_input(dy, w, p, dx);
  const auto cudnn = [&] {
    return cudnn_ran([&] {
        CudnnConv c(p, BackwardDataConv::kDirection);
        const k::DT dt = to_dt(dy.dtype());
        const std::size_t es = dtype_size(dy.dtype());
        Scratch wt(ctx_, static_cast<std::size_t>(w.size()) * es);
        hwio_to_krsc(ctx_, dt, w.raw_data(), wt.get(), p);
        KILN_CUDA_LAUNCHED("conv2d layout");
        std::unique_ptr<Scratch> dxp;
        void* dxout = dx.raw_data();
        if (c.geom.explicit_pad) {
          dxp = std::make_unique<Scratch>(ctx_, static_cast<std::size_t>(p.n * c.geom.hp * c.geom.wp * p.c_in) * es);
          dxout = dxp->get();
        }
        run_cudnn_conv<BackwardDataConv>(ctx_, c, ConvBuffers{nullptr, wt.get(), dy.raw_data(), dxout});
        if (!c.geom.explicit_pad) return;
        // Input pixels no output reads (past the padded extent) get zero gradient.
        k::fill(dt, dx.raw_data(), dx.size(), 0.0, ctx_.stream());
        copy_region(ctx_, dt, dxout, dx.raw_data(), false, p.n, p.h, p.w, c.geom.hp, c.geom.wp, p.c_in, p.pad_top,
                    p.pad_left);
        KILN_CUDA_LAUNCHED("conv2d unpad");
      });
  };
  run_faster_conv(ctx_, conv_key(p, cudnn_geometry(p), BackwardDataConv::kDirection), cudnn,
                  [&] { conv_gemm_backward_input(dy, w, p, dx); });
}

void CudaBackend::conv2d_backward_filter(const Tensor& x, const Tensor& dy, const backend::Conv2DParams& p, Tensor& dw) {
  expect_here("conv2d_backward_filter", {&x, &dy, &dw});
  expect_floating("conv2d_backward_filter", x);
  DeviceGuard g(index_);
  if (!cudnn_eligible(x, p)) return conv_gemm_backward_filter(x, dy, p, dw);
  const auto cudnn = [&] {
    return cudnn_ran([&] {
        CudnnConv c(p, BackwardFilterConv::kDirection);
        const ConvInput in = conv_input(ctx_, x, p, c.geom);
        Scratch dwt(ctx_, static_cast<std::size_t>(dw.size()) * dtype_size(x.dtype()));
        run_cudnn_conv<BackwardFilterConv>(ctx_, c, ConvBuffers{in.data, nullptr, dy.raw_data(), dwt.get()});
        krsc_to_hwio(ctx_, to_dt(x.dtype()), dwt.get(), dw.raw_data(), p);
        KILN_CUDA_LAUNCHED("conv2d layout");
      });
  };
  run_faster_conv(ctx_, conv_key(p, cudnn_geometry(p), BackwardFilterConv::kDirection), cudnn,
                  [&] { conv_gemm_backward_filter(x, dy, p, dw); });
}

}  // namespace kiln::cuda
