// keras.ops.ctc_decode, on the host, as Keras's JAX backend decodes. Greedy: the best
// class per step. Beam search mirrors the JAX code step by step so that ties break the
// same way: classes are flipped (k -> K - 1 - k) so that ascending stable sorts favour
// TensorFlow's order; each step extends every beam by every class, merges equal paths
// (sorted lexicographically, as jnp.unique does) in log space, separately for paths
// ending in a blank and the rest, and keeps the beam_width best.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/creation_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/nn_ops.h"

namespace kiln {

namespace {

using Path = std::vector<int32_t>;
constexpr int32_t kPad = -1;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

struct Scores3 {  // (B, T, K) on the host
  std::vector<double> v;
  int64_t b, t, k;
  double at(int64_t i, int64_t s, int64_t c) const { return v[static_cast<std::size_t>((i * t + s) * k + c)]; }
};

// Stable ascending order of `s` (jnp.argsort).
std::vector<std::size_t> argsort(const std::vector<double>& s) {
  std::vector<std::size_t> o(s.size());
  std::iota(o.begin(), o.end(), 0);
  std::stable_sort(o.begin(), o.end(), [&](std::size_t a, std::size_t b) { return s[a] < s[b]; });
  return o;
}

// jnp.unique(rows, axis=0, return_inverse=True, size=size, fill_value=kPad).
std::pair<std::vector<Path>, std::vector<std::size_t>> unique_rows(const std::vector<Path>& rows, std::size_t size) {
  std::vector<std::size_t> o(rows.size());
  std::iota(o.begin(), o.end(), 0);
  std::stable_sort(o.begin(), o.end(), [&](std::size_t a, std::size_t b) { return rows[a] < rows[b]; });
  std::vector<Path> uniq;
  std::vector<std::size_t> inverse(rows.size());
  for (std::size_t i : o) {
    if (uniq.empty() || uniq.back() != rows[i]) uniq.push_back(rows[i]);
    inverse[i] = uniq.size() - 1;
  }
  uniq.resize(std::max(size, uniq.size()), Path(rows.empty() ? 0 : rows[0].size(), kPad));
  return {uniq, inverse};
}

// log Σ exp over the rows of each unique path, shifted by the global maximum.
std::vector<double> merge_scores(const std::vector<std::size_t>& inverse, const std::vector<double>& s, std::size_t n) {
  const double top = *std::max_element(s.begin(), s.end());
  std::vector<double> acc(n, 0.0);
  for (std::size_t i = 0; i < s.size(); ++i) acc[inverse[i]] += std::exp(s[i] - top);
  for (double& a : acc) a = std::log(a) + top;
  return acc;
}

double logaddexp(double a, double b) {
  const double m = std::max(a, b);
  return m == kNegInf ? kNegInf : m + std::log(std::exp(a - m) + std::exp(b - m));
}

struct Beams {
  std::vector<Path> paths;
  std::vector<double> scores;
  std::vector<char> masked;  // the path's last step was a blank
};

// One step: every beam extended by every class, equal paths merged, the best kept.
Beams decode_step(const Beams& in, const std::vector<double>& x, int32_t blank, int64_t beam_width) {
  const std::size_t k = x.size(), rows = in.paths.size() * k;
  std::vector<Path> paths(rows);
  std::vector<double> emit(rows), blank_s(rows);
  std::vector<char> masked(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t i = r / k;
    const auto c = static_cast<int32_t>(r % k);
    Path p = in.paths[i];
    const auto tail = static_cast<std::size_t>(std::find(p.begin(), p.end(), kPad) - p.begin()) % p.size();
    const int32_t last = tail == 0 ? kPad : p[tail - 1];
    int32_t cls = c == blank ? kPad : c;
    masked[r] = cls == kPad;
    if (!in.masked[i] && last == cls) cls = kPad;  // a repeat without a blank between merges
    p[tail] = cls;
    paths[r] = std::move(p);
    const double s = in.scores[i] + x[static_cast<std::size_t>(c)];
    emit[r] = masked[r] ? kNegInf : s;
    blank_s[r] = masked[r] ? s : kNegInf;
  }
  auto [uniq, inverse] = unique_rows(paths, rows);
  const std::vector<double> e = merge_scores(inverse, emit, uniq.size()), m = merge_scores(inverse, blank_s, uniq.size());
  std::vector<double> total(uniq.size());
  for (std::size_t u = 0; u < total.size(); ++u) total[u] = logaddexp(e[u], m[u]);
  const std::vector<std::size_t> order = argsort(total);
  Beams out;
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t j = order.size() - static_cast<std::size_t>(beam_width); j < order.size(); ++j) {
      out.paths.push_back(uniq[order[j]]);
      out.scores.push_back(pass == 0 ? e[order[j]] : m[order[j]]);
      out.masked.push_back(static_cast<char>(pass));
    }
  return out;
}

// The first step's beams: the min(K, beam_width) best classes, in ascending order.
Beams first_beams(const std::vector<double>& x0, int32_t blank, int64_t beam_width, int64_t t_max) {
  const auto k = static_cast<int64_t>(x0.size());
  const int64_t n0 = std::min(k, beam_width);
  const std::vector<std::size_t> order = argsort(x0);
  Beams b{std::vector<Path>(static_cast<std::size_t>(2 * beam_width), Path(static_cast<std::size_t>(t_max), kPad)),
          std::vector<double>(static_cast<std::size_t>(2 * beam_width), kNegInf),
          std::vector<char>(static_cast<std::size_t>(2 * beam_width), 1)};
  for (int64_t i = 0; i < n0; ++i) {
    const auto c = static_cast<int32_t>(order[static_cast<std::size_t>(k - n0 + i)]);
    b.paths[static_cast<std::size_t>(i)][0] = c == blank ? kPad : c;
    b.scores[static_cast<std::size_t>(i)] = x0[static_cast<std::size_t>(c)];
    b.masked[static_cast<std::size_t>(i)] = c == blank;
  }
  return b;
}

std::pair<Tensor, Tensor> beam_search(const Scores3& x, const std::vector<int64_t>& lengths, int32_t mask,
                                      const CtcDecodeArgs& a, DType dtype) {
  const int32_t blank = static_cast<int32_t>(x.k) - mask - 1;  // in flipped class ids
  std::vector<int32_t> paths_out(static_cast<std::size_t>(a.top_paths * x.b * x.t));
  std::vector<double> scores_out(static_cast<std::size_t>(x.b * a.top_paths));
  for (int64_t i = 0; i < x.b; ++i) {
    auto step_scores = [&](int64_t s) {
      std::vector<double> v(static_cast<std::size_t>(x.k));
      for (int64_t c = 0; c < x.k; ++c) v[static_cast<std::size_t>(c)] = x.at(i, s, x.k - 1 - c);
      return v;
    };
    Beams beams = first_beams(step_scores(0), blank, a.beam_width, x.t);
    for (int64_t s = 1; s < x.t; ++s)
      if (s < lengths[static_cast<std::size_t>(i)]) beams = decode_step(beams, step_scores(s), blank, a.beam_width);
    auto [uniq, inverse] = unique_rows(beams.paths, static_cast<std::size_t>(2 * x.k * a.beam_width));
    const std::vector<double> merged = merge_scores(inverse, beams.scores, uniq.size());
    const std::vector<std::size_t> order = argsort(merged);
    for (int64_t j = 0; j < a.top_paths; ++j) {
      const std::size_t u = order[order.size() - 1 - static_cast<std::size_t>(j)];
      scores_out[static_cast<std::size_t>(i * a.top_paths + j)] = merged[u];
      for (int64_t s = 0; s < x.t; ++s) {
        const int32_t c = uniq[u][static_cast<std::size_t>(s)];
        paths_out[static_cast<std::size_t>((j * x.b + i) * x.t + s)] = c == kPad ? kPad : static_cast<int32_t>(x.k) - c - 1;
      }
    }
  }
  return {Tensor(paths_out, Shape{a.top_paths, x.b, x.t}), cast(Tensor(scores_out, Shape{x.b, a.top_paths}), dtype)};
}

// The greedy paths (1, B, T); the scores come from differentiable ops in ctc_decode.
Tensor greedy_paths(const Scores3& x, const std::vector<int64_t>& lengths, int32_t mask, bool merge_repeated) {
  std::vector<int32_t> paths(static_cast<std::size_t>(x.b * x.t), kPad);
  for (int64_t i = 0; i < x.b; ++i) {
    std::vector<int32_t> best(static_cast<std::size_t>(x.t), mask);
    for (int64_t s = 0; s < std::min(x.t, lengths[static_cast<std::size_t>(i)]); ++s) {
      int64_t arg = 0;
      for (int64_t c = 1; c < x.k; ++c)
        if (x.at(i, s, c) > x.at(i, s, arg)) arg = c;  // the first maximum, as argmax
      best[static_cast<std::size_t>(s)] = static_cast<int32_t>(arg);
    }
    std::size_t out = 0;
    for (int64_t s = 0; s < x.t; ++s) {
      const int32_t c = best[static_cast<std::size_t>(s)];
      const bool repeat = merge_repeated && s > 0 && c == best[static_cast<std::size_t>(s - 1)];
      if (c != mask && !repeat) paths[static_cast<std::size_t>(i * x.t) + out++] = c;
    }
  }
  return Tensor(paths, Shape{1, x.b, x.t});
}

}  // namespace

std::pair<Tensor, Tensor> ctc_decode(const Tensor& inputs, const Tensor& sequence_lengths, const CtcDecodeArgs& args) {
  if (inputs.rank() != 3 || !(sequence_lengths.shape() == Shape{inputs.shape()[0]}))
    throw ShapeError("ctc_decode: expected inputs (batch, max_time, num_classes) and sequence_lengths (batch,), but "
                     "received inputs " + inputs.shape().to_string() + " and sequence_lengths " +
                     sequence_lengths.shape().to_string());
  const int64_t k = inputs.shape()[2];
  const int64_t mask = args.mask_index.value_or(k - 1);
  if (mask < 0 || mask >= k)
    throw ValueError("ctc_decode: `mask_index` must be in [0, " + std::to_string(k) + "), but received " +
                     std::to_string(mask) + " for inputs " + inputs.shape().to_string());
  const DType dtype = inputs.dtype() == DType::float64 ? DType::float64 : DType::float32;
  const std::vector<int64_t> lengths = cast(sequence_lengths, DType::int64).to_vector<int64_t>();
  const Tensor x = inputs.dtype() == dtype ? inputs : cast(inputs, dtype);
  if (args.strategy == "greedy") {
    // Minus the sum of each step's best score within the sequence.
    const int64_t t_max = inputs.shape()[1];
    const Tensor steps = reshape(arange(0.0, static_cast<double>(t_max), 1.0, DType::int64), {1, t_max}).to(x.device());
    const Tensor inside = less(steps, expand_dims(cast(sequence_lengths, DType::int64), 1));
    const Tensor best = max(x, -1);
    const Tensor scores = -sum(where(inside, best, zeros_like(best)), 1, true);
    // The paths are decoded on the host and come back to the inputs' device.
    return {greedy_paths({x.to_vector<double>(), inputs.shape()[0], t_max, k}, lengths, static_cast<int32_t>(mask),
                         args.merge_repeated)
                .to(inputs.device()),
            scores};
  }
  if (args.strategy != "beam_search")
    throw ValueError("ctc_decode: Invalid strategy " + args.strategy + ". Supported values are 'greedy' and 'beam_search'.");
  if (args.beam_width <= 0 || args.top_paths <= 0 || args.top_paths > 2 * k * args.beam_width)
    throw ValueError("ctc_decode: `beam_width` and `top_paths` must be positive (top_paths at most 2·num_classes·"
                     "beam_width), but received beam_width=" + std::to_string(args.beam_width) + ", top_paths=" +
                     std::to_string(args.top_paths));
  const Tensor logp = log_softmax(x, -1);
  auto [paths, scores] = beam_search({logp.to_vector<double>(), inputs.shape()[0], inputs.shape()[1], k}, lengths,
                                     static_cast<int32_t>(mask), args, dtype);
  return {paths.to(inputs.device()), scores.to(inputs.device())};
}

}  // namespace kiln
