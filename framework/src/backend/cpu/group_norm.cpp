// Layer, group and RMS normalization, fused: x as (batch, spatial, groups,
// per_group), statistics per (batch, group). Each batch element is a block of
// `spatial` rows of groups·per_group channels, and every pass runs along those
// rows, accumulating per channel (vectorized over the channels, whatever the
// group size), then folds channels into groups. Forward: two reading passes
// (mean, then the centred variance, as the composed var does) and one writing
// pass, y = x·scale + shift per channel. Backward: one reading pass yields the
// groups' two sums and the per-channel dbeta and dgamma terms, one writing
// pass dx. The composed forms take five separate ops forward and about fifteen
// backward. Batch elements are split over the pool; sums are in double.
#include <cmath>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/denormals.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/reference.h"
#include "backend/cpu/vector_math.h"
#include "core/dispatch.h"

namespace kiln::cpu {

namespace {

int norm_parts(const backend::GroupNormDims& d) {
  const int64_t work = d.batch * d.spatial * d.groups * d.per_group;
  return reference_kernels() || work < 32768 ? 1 : static_cast<int>(std::min<int64_t>(num_threads(), d.batch));
}

// acc[j] = Σ over a batch element's rows s of f(s, j), for each channel j.
template <class F>
void channel_sums(int64_t spatial, int64_t c, double* acc, F f) {
  for (int64_t j = 0; j < c; ++j) acc[j] = 0;
  for (int64_t s = 0; s < spatial; ++s)
    for (int64_t j = 0; j < c; ++j) acc[j] += f(s, j);
}

double group_total(const double* acc, int64_t g, int64_t per_group) {
  const double* a = acc + g * per_group;
  return simd::sum_lanes(per_group, [&](int64_t k) { return a[k]; });
}

// Each group's value once per channel of the group (no division per channel).
template <class A, class B>
void spread(const A* per_group_value, const backend::GroupNormDims& d, B* per_channel) {
  for (int64_t g = 0; g < d.groups; ++g)
    for (int64_t k = 0; k < d.per_group; ++k) per_channel[g * d.per_group + k] = static_cast<B>(per_group_value[g]);
}

// One row per batch element (spatial 1: LayerNormalization, RMSNormalization): each
// group is a contiguous run, reduced in lanes, which beats per-channel arrays there.
template <class T>
void norm_forward_rows(const T* xp, const T* gp, const T* bp, const backend::GroupNormDims& d, double eps, T* yp,
                       T* mp, T* rp) {
  const int64_t c = d.groups * d.per_group, k_n = d.per_group;
  const double n = static_cast<double>(k_n);
  parallel_for_parts(d.batch, norm_parts(d), [&](int, int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      for (int64_t g = 0; g < d.groups; ++g) {
        const T* __restrict x = xp + b * c + g * k_n;
        const auto value = [&](int64_t k) { return static_cast<double>(x[k]); };
        const double m = d.center ? simd::sum_lanes(k_n, value) / n : 0.0;
        const double q = simd::sum_lanes(k_n, [&](int64_t k) {
          const double v = static_cast<double>(x[k]) - m;
          return v * v;
        });
        const T mean = static_cast<T>(m), r = static_cast<T>(1.0 / std::sqrt(q / n + eps));
        mp[b * d.groups + g] = mean;
        rp[b * d.groups + g] = r;
        const T* __restrict gk = gp + g * k_n;
        const T* __restrict bk = bp + g * k_n;
        T* __restrict y = yp + b * c + g * k_n;
        for (int64_t k = 0; k < k_n; ++k) y[k] = (x[k] - mean) * r * gk[k] + bk[k];
      }
  });
}

template <class T>
void norm_backward_rows(const T* gy, const T* xp, const T* mp, const T* rp, const T* gp,
                        const backend::GroupNormDims& d, T* dxp, std::vector<double>& affine) {
  const int64_t c = d.groups * d.per_group, k_n = d.per_group;
  const double n = static_cast<double>(k_n);
  affine.assign(static_cast<std::size_t>(2 * c), 0.0);
  parallel_sum<double>(d.batch, norm_parts(d), 2 * c, affine.data(), [&](int64_t b0, int64_t b1, double* out) {
    for (int64_t b = b0; b < b1; ++b)
      for (int64_t g = 0; g < d.groups; ++g) {
        const int64_t at = b * c + g * k_n;
        const T* __restrict dy = gy + at;
        const T* __restrict x = xp + at;
        const T* __restrict gk = gp + g * k_n;
        const T mean = mp[b * d.groups + g], r = rp[b * d.groups + g];
        const auto gd = [&](int64_t k) { return static_cast<double>(dy[k] * gk[k]); };
        const double s1 = d.center ? simd::sum_lanes(k_n, gd) : 0.0;
        const double s2 = simd::sum_lanes(k_n, [&](int64_t k) { return gd(k) * static_cast<double>((x[k] - mean) * r); });
        const T k1 = static_cast<T>(s1 / n), k2 = static_cast<T>(s2 / n);
        T* __restrict dx = dxp + at;
        double* __restrict db = out + g * k_n;
        double* __restrict dg = out + c + g * k_n;
        for (int64_t k = 0; k < k_n; ++k) {
          const T xhat = (x[k] - mean) * r;
          dx[k] = r * (dy[k] * gk[k] - k1 - xhat * k2);
          db[k] += dy[k];
          dg[k] += static_cast<double>(dy[k] * xhat);
        }
      }
  });
}

template <class T>
void norm_forward(const T* xp, const T* gp, const T* bp, const backend::GroupNormDims& d, double eps, T* yp, T* mp, T* rp) {
  if (d.spatial == 1) return norm_forward_rows(xp, gp, bp, d, eps, yp, mp, rp);
  const int64_t c = d.groups * d.per_group, block = d.spatial * c;
  const double n = static_cast<double>(d.spatial * d.per_group);
  parallel_for_parts(d.batch, norm_parts(d), [&](int, int64_t b0, int64_t b1) {
    std::vector<double> acc(static_cast<std::size_t>(c));
    std::vector<double> mean(static_cast<std::size_t>(d.groups)), channel_mean(static_cast<std::size_t>(c));
    std::vector<T> scale(static_cast<std::size_t>(c)), shift(static_cast<std::size_t>(c));
    for (int64_t b = b0; b < b1; ++b) {
      const T* __restrict x = xp + b * block;
      if (d.center) {
        channel_sums(d.spatial, c, acc.data(), [&](int64_t s, int64_t j) { return static_cast<double>(x[s * c + j]); });
        for (int64_t g = 0; g < d.groups; ++g) mean[g] = group_total(acc.data(), g, d.per_group) / n;
        spread(mean.data(), d, channel_mean.data());
      }
      channel_sums(d.spatial, c, acc.data(), [&](int64_t s, int64_t j) {
        const double v = static_cast<double>(x[s * c + j]) - channel_mean[j];
        return v * v;
      });
      for (int64_t g = 0; g < d.groups; ++g) {
        const T m = static_cast<T>(mean[g]);
        const T r = static_cast<T>(1.0 / std::sqrt(group_total(acc.data(), g, d.per_group) / n + eps));
        mp[b * d.groups + g] = m;
        rp[b * d.groups + g] = r;
        for (int64_t k = 0; k < d.per_group; ++k) {
          const int64_t j = g * d.per_group + k;
          scale[j] = r * gp[j];
          shift[j] = bp[j] - m * scale[j];
        }
      }
      T* __restrict y = yp + b * block;
      for (int64_t s = 0; s < d.spatial; ++s)
        for (int64_t j = 0; j < c; ++j) y[s * c + j] = x[s * c + j] * scale[j] + shift[j];
    }
  });
}

// With x̂ = (x − m)·r and γdy per group: s1 = Σ γdy, s2 = Σ γdy·x̂, and
// dx = r·(γdy − s1/n − x̂·s2/n) (no s1 term without centring), written as
// dx = dy·α + x·β + δ per channel. Each part also sums dbeta (Σ dy) and
// dgamma (Σ dy·x̂) per channel over its batch elements.
template <class T>
void norm_backward(const T* gy, const T* xp, const T* mp, const T* rp, const T* gp, const backend::GroupNormDims& d,
                   T* dxp, std::vector<double>& affine) {
  if (d.spatial == 1) return norm_backward_rows(gy, xp, mp, rp, gp, d, dxp, affine);
  const int64_t c = d.groups * d.per_group, block = d.spatial * c;
  const double n = static_cast<double>(d.spatial * d.per_group);
  affine.assign(static_cast<std::size_t>(2 * c), 0.0);
  parallel_sum<double>(d.batch, norm_parts(d), 2 * c, affine.data(), [&](int64_t b0, int64_t b1, double* out) {
    std::vector<double> a1(static_cast<std::size_t>(c)), a2(static_cast<std::size_t>(c));
    std::vector<T> channel_mean(static_cast<std::size_t>(c));
    std::vector<T> alpha(static_cast<std::size_t>(c)), beta(static_cast<std::size_t>(c)), delta(static_cast<std::size_t>(c));
    for (int64_t b = b0; b < b1; ++b) {
      const T* __restrict dy = gy + b * block;
      const T* __restrict x = xp + b * block;
      const T* m = mp + b * d.groups;
      const T* r = rp + b * d.groups;
      spread(m, d, channel_mean.data());
      channel_sums(d.spatial, c, a1.data(), [&](int64_t s, int64_t j) { return static_cast<double>(dy[s * c + j]); });
      channel_sums(d.spatial, c, a2.data(), [&](int64_t s, int64_t j) {
        return static_cast<double>(dy[s * c + j]) * static_cast<double>(x[s * c + j] - channel_mean[j]);
      });
      for (int64_t g = 0; g < d.groups; ++g) {
        const int64_t j0 = g * d.per_group;
        const double s1 = simd::sum_lanes(d.per_group, [&](int64_t k) { return gp[j0 + k] * a1[j0 + k]; });
        const double s2 = simd::sum_lanes(d.per_group, [&](int64_t k) { return gp[j0 + k] * a2[j0 + k]; });
        for (int64_t k = 0; k < d.per_group; ++k) {
          out[j0 + k] += a1[j0 + k];
          out[c + j0 + k] += a2[j0 + k] * r[g];
        }
        const double rg = r[g], k1 = d.center ? s1 / n : 0.0, k2 = s2 * rg / n;  // k2 = Σ γdy·x̂ / n
        for (int64_t k = 0; k < d.per_group; ++k) {
          const int64_t j = g * d.per_group + k;
          alpha[j] = static_cast<T>(rg * gp[j]);
          beta[j] = static_cast<T>(-rg * rg * k2);
          delta[j] = static_cast<T>(-rg * k1 + rg * rg * k2 * m[g]);
        }
      }
      T* __restrict dx = dxp + b * block;
      for (int64_t s = 0; s < d.spatial; ++s)
        for (int64_t j = 0; j < c; ++j) dx[s * c + j] = dy[s * c + j] * alpha[j] + x[s * c + j] * beta[j] + delta[j];
    }
  });
}

}  // namespace

bool CpuBackend::group_norm(const Tensor& x, const Tensor* gamma, const Tensor* beta, const backend::GroupNormDims& d,
                            double eps, Tensor& y, Tensor& mean, Tensor& rstd) {
  FlushDenormals flush;
  dispatch_float(x.dtype(), "group_norm", [&](auto tag) {
    using T = decltype(tag);
    // Absent gamma and beta read as ones and zeros.
    const std::size_t c = static_cast<std::size_t>(d.groups * d.per_group);
    const std::vector<T> ones(gamma ? 0 : c, T(1)), zeros(beta ? 0 : c, T(0));
    norm_forward(static_cast<const T*>(x.raw_data()), gamma ? static_cast<const T*>(gamma->raw_data()) : ones.data(),
            beta ? static_cast<const T*>(beta->raw_data()) : zeros.data(), d, eps, static_cast<T*>(y.raw_data()),
            static_cast<T*>(mean.raw_data()), static_cast<T*>(rstd.raw_data()));
  });
  return true;
}

bool CpuBackend::group_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                                     const Tensor* gamma, const backend::GroupNormDims& d, Tensor& dx, Tensor* dgamma,
                                     Tensor* dbeta) {
  FlushDenormals flush;
  dispatch_float(x.dtype(), "group_norm_backward", [&](auto tag) {
    using T = decltype(tag);
    const int64_t c = d.groups * d.per_group;
    const std::vector<T> ones(gamma ? 0 : static_cast<std::size_t>(c), T(1));
    std::vector<double> affine;
    norm_backward(static_cast<const T*>(dy.raw_data()), static_cast<const T*>(x.raw_data()),
             static_cast<const T*>(mean.raw_data()), static_cast<const T*>(rstd.raw_data()),
             gamma ? static_cast<const T*>(gamma->raw_data()) : ones.data(), d, static_cast<T*>(dx.raw_data()), affine);
    T* dbp = dbeta ? static_cast<T*>(dbeta->raw_data()) : nullptr;
    T* dgp = dgamma ? static_cast<T*>(dgamma->raw_data()) : nullptr;
    for (int64_t j = 0; j < c; ++j) {
      if (dbp) dbp[j] = static_cast<T>(affine[j]);
      if (dgp) dgp[j] = static_cast<T>(affine[c + j]);
    }
  });
  return true;
}

}  // namespace kiln::cpu
