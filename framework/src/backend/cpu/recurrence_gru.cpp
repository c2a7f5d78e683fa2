// The fused CPU recurrence of GRU, in both of Keras's forms (recurrence_lstm.cpp
// describes the scheme):
//   reset_after:  inner = h · U + b_r;  hh = act(x_h + r * inner_h)         one GEMM a step
//   else:         inner = h · U_zr;     hh = act(x_h + (r * h) · U_h)       two GEMMs a step
//   z, r = recurrent_activation(x_{z,r} + inner_{z,r});  h' = z * h + (1 − z) * hh
// Saved per (example, step): h_prev, z, r, hh, then inner_h (reset_after) or r * h_prev.
#include <cstring>

#include "backend/cpu/denormals.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/recurrence_math.h"

namespace kiln::cpu::recurrence {

namespace {

/// The forward pass's output at a masked step: h_prev, or zeros.
template <class T>
void write_masked_output(const Arrays<T>& a, const T* h, T* y) {
  if (a.p.zero_output_for_mask) std::memset(y, 0, sizeof(T) * a.U);
  else std::memcpy(y, h, sizeof(T) * a.U);
}

template <class T>
void gru_after_forward_rows(const Arrays<T>& a, const T* x, const T* bias, T* h, T* y, T* saved, int64_t b0, int64_t b1) {
  const int64_t U = a.U, G = a.G, S = a.S, nb = b1 - b0;
  const Act act = a.p.activation, ract = a.p.recurrent_activation;
  T* z = static_cast<T*>(thread_scratch(Scratch::step, sizeof(T) * nb * G));
  for (int64_t t = 0; t < a.Tn; ++t) {
    gemm_serial_strided(false, false, nb, G, U, h + b0 * U, U, a.kernel, G, z, G, T(0));
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t bt = b * a.Tn + t;
      T *sv = saved + bt * S, *hb = h + b * U;
      std::memcpy(sv, hb, sizeof(T) * U);
      if (!a.keep(b, t)) {
        write_masked_output(a, hb, y + bt * U);
        continue;
      }
      const T *xb = x + bt * G, *zb = z + (b - b0) * G;
      T* yb = y + bt * U;
      for_lanes<T>(U, [&]<class L>(int64_t u) {
        using V = typename L::V;
        const V zg = activate(ract, L::load(xb + u) + L::load(zb + u) + L::load(bias + u));
        const V rg = activate(ract, L::load(xb + U + u) + L::load(zb + U + u) + L::load(bias + U + u));
        const V ih = L::load(zb + 2 * U + u) + L::load(bias + 2 * U + u);
        const V hh = activate(act, L::load(xb + 2 * U + u) + rg * ih);
        const V hn = zg * L::load(hb + u) + (T(1) - zg) * hh;
        L::store(sv + U + u, zg), L::store(sv + 2 * U + u, rg), L::store(sv + 3 * U + u, hh);
        L::store(sv + 4 * U + u, ih), L::store(hb + u, hn), L::store(yb + u, hn);
      });
    }
  }
}

// di: d inner (batch, time, 3·units), which the recurrent kernel's and bias's gradients sum.
template <class T>
void gru_after_backward_rows(const Arrays<T>& a, const T* dy, T* dh, const T* saved, T* dx, T* di, int64_t b0, int64_t b1) {
  const int64_t U = a.U, G = a.G, S = a.S, nb = b1 - b0;
  const Act act = a.p.activation, ract = a.p.recurrent_activation;
  for (int64_t t = a.Tn - 1; t >= 0; --t) {
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t bt = b * a.Tn + t;
      const T *sv = saved + bt * S, *dyb = dy + bt * U;
      T *dhb = dh + b * U, *dxb = dx + bt * G, *dib = di + bt * G;
      if (!a.keep(b, t)) {
        std::memset(dxb, 0, sizeof(T) * G);
        std::memset(dib, 0, sizeof(T) * G);
        if (!a.p.zero_output_for_mask)
          for (int64_t u = 0; u < U; ++u) dhb[u] += dyb[u];
        continue;
      }
      for_lanes<T>(U, [&]<class L>(int64_t u) {
        using V = typename L::V;
        const V g = L::load(dhb + u) + L::load(dyb + u);
        const V hp = L::load(sv + u), zg = L::load(sv + U + u), rg = L::load(sv + 2 * U + u);
        const V hh = L::load(sv + 3 * U + u), ih = L::load(sv + 4 * U + u);
        const V dpz = g * (hp - hh) * derivative(ract, zg);
        const V dph = g * (T(1) - zg) * derivative(act, hh);
        const V dpr = dph * ih * derivative(ract, rg);
        L::store(dxb + u, dpz), L::store(dxb + U + u, dpr), L::store(dxb + 2 * U + u, dph);
        L::store(dib + u, dpz), L::store(dib + U + u, dpr), L::store(dib + 2 * U + u, dph * rg);
        L::store(dhb + u, g * zg);
      });
    }
    gemm_serial_strided(false, true, nb, U, G, di + (b0 * a.Tn + t) * G, a.Tn * G, a.kernel, G, dh + b0 * U, U, T(1));
  }
}

template <class T>
void gru_before_forward_rows(const Arrays<T>& a, const T* x, T* h, T* y, T* saved, int64_t b0, int64_t b1) {
  const int64_t U = a.U, G = a.G, S = a.S, nb = b1 - b0;
  const Act act = a.p.activation, ract = a.p.recurrent_activation;
  T* z = static_cast<T*>(thread_scratch(Scratch::step, sizeof(T) * nb * G));  // h · U_zr, then (r * h) · U_h
  T* zh = z + nb * 2 * U;
  for (int64_t t = 0; t < a.Tn; ++t) {
    gemm_serial_strided(false, false, nb, 2 * U, U, h + b0 * U, U, a.kernel, G, z, 2 * U, T(0));
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t bt = b * a.Tn + t;
      T *sv = saved + bt * S, *hb = h + b * U;
      std::memcpy(sv, hb, sizeof(T) * U);
      if (!a.keep(b, t)) {  // r * h of zero keeps the step's products finite
        std::memset(sv + 4 * U, 0, sizeof(T) * U);
        continue;
      }
      const T *xb = x + bt * G, *zb = z + (b - b0) * 2 * U;
      for_lanes<T>(U, [&]<class L>(int64_t u) {
        using V = typename L::V;
        const V zg = activate(ract, L::load(xb + u) + L::load(zb + u));
        const V rg = activate(ract, L::load(xb + U + u) + L::load(zb + U + u));
        L::store(sv + U + u, zg), L::store(sv + 2 * U + u, rg), L::store(sv + 4 * U + u, rg * L::load(hb + u));
      });
    }
    const T* rh = saved + (b0 * a.Tn + t) * S + 4 * U;
    gemm_serial_strided(false, false, nb, U, U, rh, a.Tn * S, a.kernel + 2 * U, G, zh, U, T(0));
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t bt = b * a.Tn + t;
      T *sv = saved + bt * S, *hb = h + b * U, *yb = y + bt * U;
      if (!a.keep(b, t)) {
        write_masked_output(a, hb, yb);
        continue;
      }
      const T *xb = x + bt * G + 2 * U, *pb = zh + (b - b0) * U;
      for_lanes<T>(U, [&]<class L>(int64_t u) {
        using V = typename L::V;
        const V zg = L::load(sv + U + u);
        const V hh = activate(act, L::load(xb + u) + L::load(pb + u));
        const V hn = zg * L::load(hb + u) + (T(1) - zg) * hh;
        L::store(sv + 3 * U + u, hh), L::store(hb + u, hn), L::store(yb + u, hn);
      });
    }
  }
}

template <class T>
void gru_before_backward_rows(const Arrays<T>& a, const T* dy, T* dh, const T* saved, T* dx, int64_t b0, int64_t b1) {
  const int64_t U = a.U, G = a.G, S = a.S, nb = b1 - b0;
  const Act act = a.p.activation, ract = a.p.recurrent_activation;
  T* drh = static_cast<T*>(thread_scratch(Scratch::step, sizeof(T) * nb * U));  // d (r * h)
  for (int64_t t = a.Tn - 1; t >= 0; --t) {
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t bt = b * a.Tn + t;
      const T *sv = saved + bt * S, *dyb = dy + bt * U;
      T *dhb = dh + b * U, *dxb = dx + bt * G;
      if (!a.keep(b, t)) {
        std::memset(dxb, 0, sizeof(T) * G);
        if (!a.p.zero_output_for_mask)
          for (int64_t u = 0; u < U; ++u) dhb[u] += dyb[u];
        continue;
      }
      for_lanes<T>(U, [&]<class L>(int64_t u) {
        using V = typename L::V;
        const V g = L::load(dhb + u) + L::load(dyb + u);
        const V zg = L::load(sv + U + u), hh = L::load(sv + 3 * U + u);
        L::store(dxb + u, g * (L::load(sv + u) - hh) * derivative(ract, zg));
        L::store(dxb + 2 * U + u, g * (T(1) - zg) * derivative(act, hh));
        L::store(dhb + u, g * zg);
      });
    }
    T* dx_t = dx + (b0 * a.Tn + t) * G;
    gemm_serial_strided(false, true, nb, U, U, dx_t + 2 * U, a.Tn * G, a.kernel + 2 * U, G, drh, U, T(0));
    for (int64_t b = b0; b < b1; ++b) {
      if (!a.keep(b, t)) continue;
      const int64_t bt = b * a.Tn + t;
      const T *sv = saved + bt * S, *db = drh + (b - b0) * U;
      T *dhb = dh + b * U, *dxb = dx + bt * G;
      for_lanes<T>(U, [&]<class L>(int64_t u) {
        using V = typename L::V;
        const V d = L::load(db + u), rg = L::load(sv + 2 * U + u);
        L::store(dxb + U + u, d * L::load(sv + u) * derivative(ract, rg));
        L::store(dhb + u, L::load(dhb + u) + d * rg);
      });
    }
    gemm_serial_strided(false, true, nb, U, 2 * U, dx_t, a.Tn * G, a.kernel, G, dh + b0 * U, U, T(1));
  }
}

}  // namespace

template <class T>
void gru_forward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in, std::vector<Tensor>& out) {
  // in: {projected, kernel, [bias], h_0, [mask]}; out: {y, h_T, saved}
  Arrays<T> a(p);
  a.kernel = host_ptr<T>(in[1]);
  const std::size_t h0 = p.has_bias ? 3 : 2;
  if (p.has_mask) a.mask = host_ptr<bool>(in[h0 + 1]);
  std::vector<T> no_bias(p.has_bias ? 0 : static_cast<std::size_t>(a.G), T(0));
  const T* bias = p.has_bias ? host_ptr<T>(in[2]) : no_bias.data();
  T *h = host_ptr<T>(out[1]), *y = host_ptr<T>(out[0]), *saved = host_ptr<T>(out[2]);
  const T* x = host_ptr<T>(in[0]);
  for_batch_rows(a.B, a.Tn * a.U * a.G, [&](int64_t b0, int64_t b1) {
    std::memcpy(h + b0 * a.U, host_ptr<T>(in[h0]) + b0 * a.U, sizeof(T) * (b1 - b0) * a.U);
    if (p.reset_after) gru_after_forward_rows(a, x, bias, h, y, saved, b0, b1);
    else gru_before_forward_rows(a, x, h, y, saved, b0, b1);
  });
}

template <class T>
void gru_backward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in, std::vector<Tensor>& out) {
  // in: {dy, dh_T, kernel, [mask], saved}; out: {dx, dkernel, [dbias], dh_0}
  Arrays<T> a(p);
  a.kernel = host_ptr<T>(in[2]);
  if (p.has_mask) a.mask = host_ptr<bool>(in[3]);
  const T *dy = host_ptr<T>(in[0]), *saved = host_ptr<T>(in.back());
  T *dx = host_ptr<T>(out[0]), *dk = host_ptr<T>(out[1]), *dh = host_ptr<T>(out.back());
  const int64_t rows = a.B * a.Tn, U = a.U, G = a.G;
  T* di = p.reset_after ? static_cast<T*>(thread_scratch(Scratch::sequence, sizeof(T) * rows * G)) : nullptr;
  for_batch_rows(a.B, a.Tn * U * G, [&](int64_t b0, int64_t b1) {
    std::memcpy(dh + b0 * U, host_ptr<T>(in[1]) + b0 * U, sizeof(T) * (b1 - b0) * U);
    if (p.reset_after) gru_after_backward_rows(a, dy, dh, saved, dx, di, b0, b1);
    else gru_before_backward_rows(a, dy, dh, saved, dx, b0, b1);
  });
  if (!p.reset_after) {  // [U_zr | U_h]: h_prevᵀ · d pre_{z,r} and (r * h_prev)ᵀ · d pre_h
    gemm_strided(true, false, U, 2 * U, rows, saved, a.S, dx, G, dk, G, T(0));
    gemm_strided(true, false, U, U, rows, saved + 4 * U, a.S, dx + 2 * U, G, dk + 2 * U, G, T(0));
    return;
  }
  gemm_strided(true, false, U, G, rows, saved, a.S, di, G, dk, G, T(0));
  if (!p.has_bias) return;
  T* db = host_ptr<T>(out[2]);
  std::fill(db, db + G, T(0));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < G; ++j) db[j] += di[r * G + j];
}

template void gru_forward<float>(const backend::RecurrenceParams&, const std::vector<Tensor>&, std::vector<Tensor>&);
template void gru_forward<double>(const backend::RecurrenceParams&, const std::vector<Tensor>&, std::vector<Tensor>&);
template void gru_backward<float>(const backend::RecurrenceParams&, const std::vector<Tensor>&, std::vector<Tensor>&);
template void gru_backward<double>(const backend::RecurrenceParams&, const std::vector<Tensor>&, std::vector<Tensor>&);

}  // namespace kiln::cpu::recurrence
