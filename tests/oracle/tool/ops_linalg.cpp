// The ops_linalg group's own entries (tests/oracle/oracle_ops_linalg.py); the others
// are the library's table (framework/src/nn/keras_ops/linalg.cpp). Decompositions whose vectors are
// unique only up to sign or phase (eigh, svd, eig) are brought to one canonical form
// here and, identically, on the Keras side: each singular or eigenvector is scaled so
// that its largest-magnitude component is real and positive, and eig's pairs are
// ordered by eigenvalue.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "kiln/ops/linalg_ops.h"
#include "kiln/ops/ops.h"
#include "op_table.h"

namespace {

namespace k = kiln;
using oracle::Inputs;
using oracle::json;
using oracle::Outputs;
using oracle::param;

/// The sign of each column's largest-magnitude entry (..., 1, n), untaped.
k::Tensor column_signs(const k::Tensor& v) {
  k::Tensor idx = k::expand_dims(k::argmax(k::abs(v), -2), -2);
  return k::stop_gradient(k::sign(k::take_along_axis(v, idx, -2)));
}

Outputs eigh_canonical(const Inputs& x, const json&) {
  auto [w, v] = k::eigh(x[0]);
  return {w, v * column_signs(v)};
}

k::Tensor last_two_swapped(const k::Tensor& t) { return k::swapaxes(t, -1, -2); }

Outputs svd_canonical(const Inputs& x, const json& p) {
  const bool full = param(p, "full_matrices", true), uv = param(p, "compute_uv", true);
  auto [u, s, vh] = k::svd(x[0], full, uv);
  if (!uv) return {s};
  const int64_t kk = s.shape()[-1];
  k::Tensor u_k = k::slice(u, {k::ellipsis, k::Slice(0, kk)});
  k::Tensor vh_k = k::slice(vh, {k::ellipsis, k::Slice(0, kk), k::Slice()});
  k::Tensor sg = column_signs(u_k);
  Outputs out{u_k * sg, s, vh_k * last_two_swapped(sg)};
  if (full) {  // the completed bases are unique only as orthonormal bases
    out.push_back(k::matmul(u, u, true, false));
    out.push_back(k::matmul(vh, vh, false, true));
  }
  return out;
}

Outputs eig_canonical(const Inputs& x, const json&) {
  auto [w, v] = k::eig(x[0]);
  auto [vr, vi] = v;
  k::Tensor idx = k::expand_dims(k::argmax(vr * vr + vi * vi, -2), -2);
  k::Tensor pr = k::take_along_axis(vr, idx, -2), pi = k::take_along_axis(vi, idx, -2);
  k::Tensor r = k::sqrt(pr * pr + pi * pi);
  k::Tensor c = pr / r, sn = k::negative(pi) / r;  // multiply by conj(p) / |p|
  k::Tensor nr = vr * c - vi * sn, ni = vr * sn + vi * c;
  k::Tensor order = k::argsort(w.first + w.second * 1e-4, -1);
  k::Tensor cols = k::broadcast_to(k::expand_dims(order, -2), nr.shape());
  return {k::take_along_axis(w.first, order, -1), k::take_along_axis(w.second, order, -1),
          k::take_along_axis(nr, cols, -1), k::take_along_axis(ni, cols, -1)};
}

const oracle::OpEntries entries{
    {"eigh", eigh_canonical},
    {"eig", eig_canonical},
    {"svd", svd_canonical},
};

}  // namespace
