// The CPU convolution's im2col + GEMM path, tiled by images (conv2d_gemm.h).
#include "backend/cpu/conv2d_gemm.h"

#include <algorithm>
#include <cstring>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/parallel.h"

namespace kiln::cpu {

namespace {

// About this many patch rows per tile: a 3x3x64 patch matrix of 512 rows is
// 1.2 MB, within a core's L2, and 512 rows keep the GEMM efficient.
constexpr int64_t kTileRows = 512;

// Forward and filter gradient: tiles of kTileRows patch rows (output pixels),
// whatever images they fall in.
struct RowTiles {
  int64_t rows, count, K;
  explicit RowTiles(const backend::Conv2DParams& p)
      : rows(p.n * p.oh * p.ow), count((rows + kTileRows - 1) / kTileRows), K(p.kh * p.kw * p.c_in) {}
  int64_t first(int64_t t) const { return t * kTileRows; }
  int64_t last(int64_t t) const { return std::min(rows, (t + 1) * kTileRows); }
};

// Input gradient: tiles of whole images, so that no two tiles scatter into the same image.
struct ImageTiles {
  int64_t per_image, images, count, K;
  explicit ImageTiles(const backend::Conv2DParams& p)
      : per_image(p.oh * p.ow),
        images(std::max<int64_t>(1, kTileRows / std::max<int64_t>(1, p.oh * p.ow))),
        count((p.n + images - 1) / images),
        K(p.kh * p.kw * p.c_in) {}
  int64_t first(int64_t t) const { return t * images; }
  int64_t last(int64_t t, int64_t n) const { return std::min(n, (t + 1) * images); }
};

// Patch rows [r0, r1) of the flattened (n, oy, ox) output pixels; columns (ky, kx, c) in HWIO order.
template <class T>
void im2col(const T* x, const backend::Conv2DParams& p, int64_t r0, int64_t r1, T* col) {
  const int64_t K = p.kh * p.kw * p.c_in;
  T* row = col;
  for (int64_t r = r0; r < r1; ++r, row += K) {
    const int64_t n = r / (p.oh * p.ow), oy = r / p.ow % p.oh, ox = r % p.ow;
    for (int64_t ky = 0; ky < p.kh; ++ky) {
      const int64_t iy = oy * p.stride_h + ky * p.dil_h - p.pad_top;
      for (int64_t kx = 0; kx < p.kw; ++kx) {
        const int64_t ix = ox * p.stride_w + kx * p.dil_w - p.pad_left;
        T* dst = row + (ky * p.kw + kx) * p.c_in;
        if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) std::memset(dst, 0, sizeof(T) * p.c_in);
        else std::memcpy(dst, x + ((n * p.h + iy) * p.w + ix) * p.c_in, sizeof(T) * p.c_in);
      }
    }
  }
}

// The transpose of im2col for images [n0, n1): dx of those images = Σ of the patch gradients over them.
template <class T>
void col2im(const T* col, const backend::Conv2DParams& p, int64_t n0, int64_t n1, T* dx) {
  const int64_t K = p.kh * p.kw * p.c_in;
  std::memset(dx + n0 * p.h * p.w * p.c_in, 0, sizeof(T) * (n1 - n0) * p.h * p.w * p.c_in);
  const T* row = col;
  for (int64_t n = n0; n < n1; ++n)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox, row += K)
        for (int64_t ky = 0; ky < p.kh; ++ky) {
          const int64_t iy = oy * p.stride_h + ky * p.dil_h - p.pad_top;
          if (iy < 0 || iy >= p.h) continue;
          for (int64_t kx = 0; kx < p.kw; ++kx) {
            const int64_t ix = ox * p.stride_w + kx * p.dil_w - p.pad_left;
            if (ix < 0 || ix >= p.w) continue;
            const T* src = row + (ky * p.kw + kx) * p.c_in;
            T* dst = dx + ((n * p.h + iy) * p.w + ix) * p.c_in;
            for (int64_t c = 0; c < p.c_in; ++c) dst[c] += src[c];
          }
        }
}

bool pointwise(const backend::Conv2DParams& p) {
  return p.kh == 1 && p.kw == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 && p.pad_left == 0;
}

template <class T>
T* tile_buffer(int64_t rows, int64_t K) {
  return static_cast<T*>(thread_scratch(Scratch::kernel, sizeof(T) * rows * K));
}

/// The patch rows [r0, r0 + rows): gathered into `col`, or, for a 1x1
/// stride-1 convolution (`col` null), the input rows themselves.
template <class T>
const T* patch_rows(const T* x, const backend::Conv2DParams& p, int64_t r0, int64_t rows, T* col) {
  if (!col) return x + r0 * p.c_in;
  im2col(x, p, r0, r0 + rows, col);
  return col;
}

}  // namespace

template <class T>
void conv_gemm_forward(const T* x, const T* w, const T* bias, bool relu, const backend::Conv2DParams& p, T* out) {
  const RowTiles tiles(p);
  const bool direct = pointwise(p);  // a 1x1 stride-1 input is its own patch matrix
  parallel_for(tiles.count, [&](int64_t t0, int64_t t1) {
    T* col = direct ? nullptr : tile_buffer<T>(kTileRows, tiles.K);
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t r0 = tiles.first(t), rows = tiles.last(t) - r0;
      T* o = out + r0 * p.c_out;
      gemm_serial(false, false, rows, p.c_out, tiles.K, patch_rows(x, p, r0, rows, col), w, o, T(0));
      if (!bias && !relu) continue;
      // Bias and relu while the tile's output is still in cache.
      for (int64_t r = 0; r < rows; ++r) {
        T* v = o + r * p.c_out;
        if (bias)
          for (int64_t c = 0; c < p.c_out; ++c) v[c] += bias[c];
        if (relu)  // NaN stays NaN, as in the relu op
          for (int64_t c = 0; c < p.c_out; ++c) v[c] = v[c] < T(0) ? T(0) : v[c];
      }
    }
  });
}

template <class T>
void conv_gemm_backward_input(const T* dy, const T* w, const backend::Conv2DParams& p, T* dx) {
  const ImageTiles tiles(p);
  if (pointwise(p)) {  // dx = dy · Wᵀ, all rows at once
    gemm(false, true, p.n * tiles.per_image, tiles.K, p.c_out, dy, w, dx, T(0));
    return;
  }
  if (tiles.count < 2 * num_threads()) {
    // Too few images to share out (one large image): one parallel GEMM for the
    // whole patch gradient, then the scatter.
    T* dcol = tile_buffer<T>(p.n * tiles.per_image, tiles.K);
    gemm(false, true, p.n * tiles.per_image, tiles.K, p.c_out, dy, w, dcol, T(0));
    col2im(dcol, p, 0, p.n, dx);
    return;
  }
  parallel_for(tiles.count, [&](int64_t t0, int64_t t1) {
    T* dcol = tile_buffer<T>(tiles.images * tiles.per_image, tiles.K);
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t n0 = tiles.first(t), n1 = tiles.last(t, p.n), rows = (n1 - n0) * tiles.per_image;
      gemm_serial(false, true, rows, tiles.K, p.c_out, dy + n0 * tiles.per_image * p.c_out, w, dcol, T(0));
      col2im(dcol, p, n0, n1, dx);
    }
  });
}

template <class T>
void conv_gemm_backward_filter(const T* x, const T* dy, const backend::Conv2DParams& p, T* dw) {
  const RowTiles tiles(p);
  const bool direct = pointwise(p);
  parallel_sum<T>(tiles.count, num_threads(), tiles.K * p.c_out, dw, [&](int64_t t0, int64_t t1, T* sum) {
    T* col = direct ? nullptr : tile_buffer<T>(kTileRows, tiles.K);
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t r0 = tiles.first(t), rows = tiles.last(t) - r0;
      // sum (K, C_out) += patchesᵀ (K, rows) · dy (rows, C_out)
      gemm_serial(true, false, tiles.K, p.c_out, rows, patch_rows(x, p, r0, rows, col), dy + r0 * p.c_out, sum, T(1));
    }
  });
}

template void conv_gemm_forward<float>(const float*, const float*, const float*, bool, const backend::Conv2DParams&,
                                       float*);
template void conv_gemm_forward<double>(const double*, const double*, const double*, bool,
                                        const backend::Conv2DParams&, double*);
template void conv_gemm_backward_input<float>(const float*, const float*, const backend::Conv2DParams&, float*);
template void conv_gemm_backward_input<double>(const double*, const double*, const backend::Conv2DParams&, double*);
template void conv_gemm_backward_filter<float>(const float*, const float*, const backend::Conv2DParams&, float*);
template void conv_gemm_backward_filter<double>(const double*, const double*, const backend::Conv2DParams&, double*);

}  // namespace kiln::cpu
