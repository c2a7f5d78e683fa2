// keras.ops.unfold (im2col) and fold (col2im) on NCHW images. Both use one table of
// flat positions: entry (i·kW + j, l) is where kernel tap (i, j) of block l reads in
// the padded (Hp, Wp) plane. unfold gathers those positions; fold, its adjoint, sums
// each block value into its position (a segment sum), then drops the padding.
#include <algorithm>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/segment_ops.h"
#include "kiln/ops/shape_ops.h"

namespace kiln {

namespace {

struct Pair {
  int64_t h, w;
};

Pair pair_of(const char* op, const char* what, const std::vector<int64_t>& v, int64_t min) {
  if ((v.size() != 1 && v.size() != 2) || *std::min_element(v.begin(), v.end()) < min)
    throw ValueError(std::string(op) + ": `" + what + "` must be one integer or two, each at least " + std::to_string(min) +
                     ", but received " + std::to_string(v.size()) + " value(s)" +
                     (v.empty() ? std::string() : " starting " + std::to_string(v[0])));
  return v.size() == 1 ? Pair{v[0], v[0]} : Pair{v[0], v[1]};
}

struct Blocks {
  Pair k, d, p, s;
  int64_t hp, wp, nh, nw;  // padded plane, blocks per axis
  Tensor positions() const {  // (kH·kW, nH·nW) int32
    std::vector<int32_t> idx;
    idx.reserve(static_cast<std::size_t>(k.h * k.w * nh * nw));
    for (int64_t i = 0; i < k.h; ++i)
      for (int64_t j = 0; j < k.w; ++j)
        for (int64_t bh = 0; bh < nh; ++bh)
          for (int64_t bw = 0; bw < nw; ++bw) idx.push_back(static_cast<int32_t>((bh * s.h + i * d.h) * wp + bw * s.w + j * d.w));
    return Tensor(idx, Shape{k.h * k.w, nh * nw});
  }
};

Blocks plan(const char* op, int64_t h, int64_t w, const std::vector<int64_t>& kernel_size, const FoldArgs& a) {
  Blocks b{pair_of(op, "kernel_size", kernel_size, 1), pair_of(op, "dilation", a.dilation, 1),
           pair_of(op, "padding", a.padding, 0), pair_of(op, "stride", a.stride, 1), 0, 0, 0, 0};
  b.hp = h + 2 * b.p.h;
  b.wp = w + 2 * b.p.w;
  const int64_t span_h = (b.k.h - 1) * b.d.h + 1, span_w = (b.k.w - 1) * b.d.w + 1;
  if (b.hp < span_h || b.wp < span_w)
    throw ValueError(std::string(op) + ": the padded image (" + std::to_string(b.hp) + ", " + std::to_string(b.wp) +
                     ") is smaller than the dilated kernel (" + std::to_string(span_h) + ", " + std::to_string(span_w) + ")");
  b.nh = (b.hp - span_h) / b.s.h + 1;
  b.nw = (b.wp - span_w) / b.s.w + 1;
  return b;
}

}  // namespace

Tensor unfold(const Tensor& x, const std::vector<int64_t>& kernel_size, const FoldArgs& args) {
  if (x.rank() != 4)
    throw ShapeError("unfold: expected an NCHW input of rank 4, but received shape " + x.shape().to_string());
  const Shape s = x.shape();
  const Blocks b = plan("unfold", s[2], s[3], kernel_size, args);
  const Tensor padded = b.p.h > 0 || b.p.w > 0 ? pad(x, {{0, 0}, {0, 0}, {b.p.h, b.p.h}, {b.p.w, b.p.w}}) : x;
  const Tensor cols = gather(reshape(padded, {s[0], s[1], b.hp * b.wp}), b.positions().to(x.device()), 2);
  return reshape(cols, {s[0], s[1] * b.k.h * b.k.w, b.nh * b.nw});
}

Tensor fold(const Tensor& x, const std::vector<int64_t>& output_size, const std::vector<int64_t>& kernel_size,
            const FoldArgs& args) {
  const Pair out = pair_of("fold", "output_size", output_size, 1);
  const Blocks b = plan("fold", out.h, out.w, kernel_size, args);
  const int64_t taps = b.k.h * b.k.w;
  if (x.rank() != 3 || x.shape()[1] % taps != 0 || x.shape()[2] != b.nh * b.nw)
    throw ShapeError("fold: expected input (N, C·" + std::to_string(taps) + ", " + std::to_string(b.nh * b.nw) +
                     ") for output_size (" + std::to_string(out.h) + ", " + std::to_string(out.w) +
                     ") and this kernel, padding, dilation and stride, but received shape " + x.shape().to_string());
  const int64_t n = x.shape()[0], c = x.shape()[1] / taps;
  // (N, C, taps·L) -> rows (taps·L, N·C), summed into the (Hp·Wp) positions.
  const Tensor rows = transpose(reshape(x, {n * c, taps * b.nh * b.nw}), {1, 0});
  const Tensor plane = segment_sum(rows, reshape(b.positions(), {taps * b.nh * b.nw}).to(x.device()), b.hp * b.wp);
  const Tensor y = reshape(transpose(plane, {1, 0}), {n, c, b.hp, b.wp});
  if (b.p.h == 0 && b.p.w == 0) return y;
  return slice(y, {Slice(), Slice(), Slice(b.p.h, b.p.h + out.h), Slice(b.p.w, b.p.w + out.w)});
}

}  // namespace kiln
