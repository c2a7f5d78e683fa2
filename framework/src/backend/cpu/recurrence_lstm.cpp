// The fused CPU recurrences of LSTM and SimpleRNN (GRU: recurrence_gru.cpp).
// The input projection arrives done, as one GEMM over every step. Each thread
// takes a share of the batch and runs every step of it: per step one GEMM of
// its rows of h by the recurrent kernel, then one pass that applies the gates,
// updates the states, writes the output and keeps what the backward pass
// needs. Backward walks the steps in reverse the same way (one pass, then one
// GEMM for d h_prev), and the recurrent kernel's gradient is one GEMM over all
// steps at the end.
#include <cstring>

#include "backend/cpu/denormals.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/recurrence_math.h"
#include "backend/cpu/reference.h"

namespace kiln::cpu {

namespace recurrence {

void for_batch_rows(int64_t batch, int64_t work_per_row, FnRef<void(int64_t, int64_t)> fn) {
  // Below about 64k multiply-adds a share, splitting costs more than it saves.
  const int64_t by_work = std::max<int64_t>(1, batch * work_per_row / 65536);
  const int parts = static_cast<int>(std::min<int64_t>({num_threads(), batch, by_work}));
  parallel_for_parts(batch, parts, [&](int, int64_t b0, int64_t b1) {
    FlushDenormals flush;
    fn(b0, b1);
  });
}

namespace {

/// Copies rows [b0, b1) of a (batch, units) state into `to`.
template <class T>
void copy_rows(const Tensor& from, T* to, int64_t b0, int64_t b1, int64_t units) {
  std::memcpy(to + b0 * units, host_ptr<T>(from) + b0 * units, sizeof(T) * (b1 - b0) * units);
}

// Saved per (example, step): h_prev, c_prev, i, f, g, o, act(c'), each `units` wide.
template <class T>
void lstm_forward_rows(const Arrays<T>& a, const T* x, T* h, T* c, T* y, T* saved, int64_t b0, int64_t b1) {
  const int64_t U = a.U, G = a.G, S = a.S, nb = b1 - b0;
  const Act act = a.p.activation, ract = a.p.recurrent_activation;
  T* z = static_cast<T*>(thread_scratch(Scratch::step, sizeof(T) * nb * G));
  for (int64_t t = 0; t < a.Tn; ++t) {
    gemm_serial_strided(false, false, nb, G, U, h + b0 * U, U, a.kernel, G, z, G, T(0));
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t bt = b * a.Tn + t;
      T *sv = saved + bt * S, *hb = h + b * U, *cb = c + b * U, *yb = y + bt * U;
      std::memcpy(sv, hb, sizeof(T) * U);
      std::memcpy(sv + U, cb, sizeof(T) * U);
      if (!a.keep(b, t)) {  // the states carry over; the output repeats h or is zero
        if (a.p.zero_output_for_mask) std::memset(yb, 0, sizeof(T) * U);
        else std::memcpy(yb, hb, sizeof(T) * U);
        continue;
      }
      const T* xb = x + bt * G;
      const T* zb = z + (b - b0) * G;
      for_lanes<T>(U, [&]<class L>(int64_t u) {
        using V = typename L::V;
        const V i = activate(ract, L::load(xb + u) + L::load(zb + u));
        const V f = activate(ract, L::load(xb + U + u) + L::load(zb + U + u));
        const V g = activate(act, L::load(xb + 2 * U + u) + L::load(zb + 2 * U + u));
        const V o = activate(ract, L::load(xb + 3 * U + u) + L::load(zb + 3 * U + u));
        const V cn = f * L::load(cb + u) + i * g;
        const V ac = activate(act, cn);
        const V hn = o * ac;
        L::store(sv + 2 * U + u, i), L::store(sv + 3 * U + u, f), L::store(sv + 4 * U + u, g);
        L::store(sv + 5 * U + u, o), L::store(sv + 6 * U + u, ac);
        L::store(cb + u, cn), L::store(hb + u, hn), L::store(yb + u, hn);
      });
    }
  }
}

template <class T>
void lstm_backward_rows(const Arrays<T>& a, const T* dy, T* dh, T* dc, const T* saved, T* dx, int64_t b0, int64_t b1) {
  const int64_t U = a.U, G = a.G, S = a.S, nb = b1 - b0;
  const Act act = a.p.activation, ract = a.p.recurrent_activation;
  for (int64_t t = a.Tn - 1; t >= 0; --t) {
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t bt = b * a.Tn + t;
      const T *sv = saved + bt * S, *dyb = dy + bt * U;
      T *dhb = dh + b * U, *dcb = dc + b * U, *dxb = dx + bt * G;
      if (!a.keep(b, t)) {  // nothing reaches the gates; h's gradient passes to h_prev (and the output's, as it was h_prev)
        std::memset(dxb, 0, sizeof(T) * G);
        if (!a.p.zero_output_for_mask)
          for (int64_t u = 0; u < U; ++u) dhb[u] += dyb[u];
        continue;
      }
      for_lanes<T>(U, [&]<class L>(int64_t u) {
        using V = typename L::V;
        const V gh = L::load(dhb + u) + L::load(dyb + u);
        const V i = L::load(sv + 2 * U + u), f = L::load(sv + 3 * U + u), g = L::load(sv + 4 * U + u);
        const V o = L::load(sv + 5 * U + u), ac = L::load(sv + 6 * U + u);
        const V dcn = L::load(dcb + u) + gh * o * derivative(act, ac);
        L::store(dxb + u, dcn * g * derivative(ract, i));
        L::store(dxb + U + u, dcn * L::load(sv + U + u) * derivative(ract, f));
        L::store(dxb + 2 * U + u, dcn * i * derivative(act, g));
        L::store(dxb + 3 * U + u, gh * ac * derivative(ract, o));
        L::store(dcb + u, dcn * f);
        L::store(dhb + u, L::splat(T(0)));
      });
    }
    // d h_prev += d gates · recurrent_kernelᵀ (rows of masked steps are zero and add nothing)
    gemm_serial_strided(false, true, nb, U, G, dx + (b0 * a.Tn + t) * G, a.Tn * G, a.kernel, G, dh + b0 * U, U, T(1));
  }
}

// Saved per (example, step): h_prev, h'.
template <class T>
void simple_forward_rows(const Arrays<T>& a, const T* x, T* h, T* y, T* saved, int64_t b0, int64_t b1) {
  const int64_t U = a.U, S = a.S, nb = b1 - b0;
  T* z = static_cast<T*>(thread_scratch(Scratch::step, sizeof(T) * nb * U));
  for (int64_t t = 0; t < a.Tn; ++t) {
    gemm_serial_strided(false, false, nb, U, U, h + b0 * U, U, a.kernel, U, z, U, T(0));
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t bt = b * a.Tn + t;
      T *sv = saved + bt * S, *hb = h + b * U, *yb = y + bt * U;
      std::memcpy(sv, hb, sizeof(T) * U);
      if (!a.keep(b, t)) {
        if (a.p.zero_output_for_mask) std::memset(yb, 0, sizeof(T) * U);
        else std::memcpy(yb, hb, sizeof(T) * U);
        continue;
      }
      const T *xb = x + bt * U, *zb = z + (b - b0) * U;
      for_lanes<T>(U, [&]<class L>(int64_t u) {
        const typename L::V hn = activate(a.p.activation, L::load(xb + u) + L::load(zb + u));
        L::store(sv + U + u, hn), L::store(hb + u, hn), L::store(yb + u, hn);
      });
    }
  }
}

template <class T>
void simple_backward_rows(const Arrays<T>& a, const T* dy, T* dh, const T* saved, T* dx, int64_t b0, int64_t b1) {
  const int64_t U = a.U, S = a.S, nb = b1 - b0;
  for (int64_t t = a.Tn - 1; t >= 0; --t) {
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t bt = b * a.Tn + t;
      const T *sv = saved + bt * S, *dyb = dy + bt * U;
      T *dhb = dh + b * U, *dxb = dx + bt * U;
      if (!a.keep(b, t)) {
        std::memset(dxb, 0, sizeof(T) * U);
        if (!a.p.zero_output_for_mask)
          for (int64_t u = 0; u < U; ++u) dhb[u] += dyb[u];
        continue;
      }
      for_lanes<T>(U, [&]<class L>(int64_t u) {
        const typename L::V gh = L::load(dhb + u) + L::load(dyb + u);
        L::store(dxb + u, gh * derivative(a.p.activation, L::load(sv + U + u)));
        L::store(dhb + u, L::splat(T(0)));
      });
    }
    gemm_serial_strided(false, true, nb, U, U, dx + (b0 * a.Tn + t) * U, a.Tn * U, a.kernel, U, dh + b0 * U, U, T(1));
  }
}

}  // namespace

template <class T>
void lstm_forward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in, std::vector<Tensor>& out) {
  Arrays<T> a(p);
  a.kernel = host_ptr<T>(in[1]);
  if (p.has_mask) a.mask = host_ptr<bool>(in[4]);
  T *h = host_ptr<T>(out[1]), *c = host_ptr<T>(out[2]);
  for_batch_rows(a.B, a.Tn * a.U * a.G, [&](int64_t b0, int64_t b1) {
    copy_rows(in[2], h, b0, b1, a.U);
    copy_rows(in[3], c, b0, b1, a.U);
    lstm_forward_rows(a, host_ptr<T>(in[0]), h, c, host_ptr<T>(out[0]), host_ptr<T>(out[3]), b0, b1);
  });
}

template <class T>
void lstm_backward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in, std::vector<Tensor>& out) {
  // in: {dy, dh_T, dc_T, kernel, [mask], saved}; out: {dx, dkernel, dh_0, dc_0}
  Arrays<T> a(p);
  a.kernel = host_ptr<T>(in[3]);
  if (p.has_mask) a.mask = host_ptr<bool>(in[4]);
  const T* saved = host_ptr<T>(in.back());
  T *dx = host_ptr<T>(out[0]), *dh = host_ptr<T>(out[2]), *dc = host_ptr<T>(out[3]);
  for_batch_rows(a.B, a.Tn * a.U * a.G, [&](int64_t b0, int64_t b1) {
    copy_rows(in[1], dh, b0, b1, a.U);
    copy_rows(in[2], dc, b0, b1, a.U);
    lstm_backward_rows(a, host_ptr<T>(in[0]), dh, dc, saved, dx, b0, b1);
  });
  // d recurrent_kernel = Σ over steps of h_prevᵀ · d gates, as one GEMM: (units, batch·time) · (batch·time, 4·units)
  gemm_strided(true, false, a.U, a.G, a.B * a.Tn, saved, a.S, dx, a.G, host_ptr<T>(out[1]), a.G, T(0));
}

template <class T>
void simple_forward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in, std::vector<Tensor>& out) {
  Arrays<T> a(p);
  a.kernel = host_ptr<T>(in[1]);
  if (p.has_mask) a.mask = host_ptr<bool>(in[3]);
  T* h = host_ptr<T>(out[1]);
  for_batch_rows(a.B, a.Tn * a.U * a.U, [&](int64_t b0, int64_t b1) {
    copy_rows(in[2], h, b0, b1, a.U);
    simple_forward_rows(a, host_ptr<T>(in[0]), h, host_ptr<T>(out[0]), host_ptr<T>(out[2]), b0, b1);
  });
}

template <class T>
void simple_backward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in, std::vector<Tensor>& out) {
  // in: {dy, dh_T, kernel, [mask], saved}; out: {dx, dkernel, dh_0}
  Arrays<T> a(p);
  a.kernel = host_ptr<T>(in[2]);
  if (p.has_mask) a.mask = host_ptr<bool>(in[3]);
  const T* saved = host_ptr<T>(in.back());
  T *dx = host_ptr<T>(out[0]), *dh = host_ptr<T>(out[2]);
  for_batch_rows(a.B, a.Tn * a.U * a.U, [&](int64_t b0, int64_t b1) {
    copy_rows(in[1], dh, b0, b1, a.U);
    simple_backward_rows(a, host_ptr<T>(in[0]), dh, saved, dx, b0, b1);
  });
  gemm_strided(true, false, a.U, a.U, a.B * a.Tn, saved, a.S, dx, a.U, host_ptr<T>(out[1]), a.U, T(0));
}

}  // namespace recurrence

bool CpuBackend::has_recurrence(const backend::RecurrenceParams& p, DType dtype) const {
  // The reference kernels run the recurrence composed from the other primitives, the loop this kernel fuses.
  return !reference_kernels() && (dtype == DType::float32 || dtype == DType::float64) && p.kind >= 0 && p.kind <= 2 && p.batch > 0 &&
         p.steps > 0 && p.units > 0;
}

void CpuBackend::recurrence_forward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in,
                                    std::vector<Tensor>& out) {
  FlushDenormals flush;
  auto run = [&]<class T>() {
    using namespace recurrence;
    if (p.kind == 1) lstm_forward<T>(p, in, out);
    else if (p.kind == 2) gru_forward<T>(p, in, out);
    else simple_forward<T>(p, in, out);
  };
  if (in[0].dtype() == DType::float64) run.template operator()<double>();
  else run.template operator()<float>();
}

void CpuBackend::recurrence_backward(const backend::RecurrenceParams& p, const std::vector<Tensor>& in,
                                     std::vector<Tensor>& out) {
  FlushDenormals flush;
  auto run = [&]<class T>() {
    using namespace recurrence;
    if (p.kind == 1) lstm_backward<T>(p, in, out);
    else if (p.kind == 2) gru_backward<T>(p, in, out);
    else simple_backward<T>(p, in, out);
  };
  if (in[0].dtype() == DType::float64) run.template operator()<double>();
  else run.template operator()<float>();
}

}  // namespace kiln::cpu
