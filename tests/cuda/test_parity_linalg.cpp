// GPU parity of the linear algebra ops (kiln/ops/linalg_ops.h), forward and backward:
// a device without LAPACK kernels runs them on host copies, so the results and the
// gradient rules (themselves device ops) must come back on the device and agree with
// the CPU's.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "kiln/kiln.h"
#include "kiln/ops/linalg_ops.h"

namespace test_parity_linalg {

namespace k = kiln;
using k::Tensor;
using Ins = std::vector<Tensor>;
using namespace kiln::cudatest;

namespace {
uint64_t g_seed = 900;
Tensor rn(const k::Shape& s, k::DType d) { return k::random::normal(s, 0, 1, d, g_seed++); }
/// A batch of well-conditioned n x n matrices.
Tensor dominant(int64_t batch, int64_t n, k::DType d) {
  return rn({batch, n, n}, d) + k::eye(n, std::nullopt, d) * static_cast<double>(2 * n);
}
}  // namespace

TEST_CASE("GPU parity: linear algebra (LAPACK on the host behind a device)") {
  KILN_REQUIRE_GPU("linalg parity");
  for (k::DType d : {k::float32, k::float64}) {
    const std::string t = " " + k::dtype_name(d);
    parity("solve" + t, [](const Ins& v) { return k::solve(v[0], v[1]); }, {dominant(2, 3, d), rn({2, 3, 2}, d)});
    parity("inv" + t, [](const Ins& v) { return k::inv(v[0]); }, {dominant(2, 4, d)});
    parity("det" + t, [](const Ins& v) { return k::det(v[0]); }, {dominant(2, 4, d)});
    parity("slogdet" + t, [](const Ins& v) { return k::slogdet(v[0]).logabsdet; }, {dominant(2, 3, d)});
    parity("cholesky" + t, [](const Ins& v) { return k::cholesky(k::matmul(v[0], v[0], false, true)); },
           {dominant(2, 3, d)});
    parity("solve_triangular" + t, [](const Ins& v) { return k::solve_triangular(v[0], v[1], true); },
           {dominant(2, 3, d), rn({2, 3}, d)});
    parity("qr" + t, [](const Ins& v) { return k::matmul(k::qr(v[0]).q, k::qr(v[0]).r); }, {rn({2, 4, 3}, d)});
    parity("svd values" + t, [](const Ins& v) { return k::svd(v[0], false, false).s; }, {rn({2, 4, 3}, d)});
    parity("eigh values" + t, [](const Ins& v) { return k::eigh(v[0] + k::swapaxes(v[0], -1, -2)).eigenvalues; },
           {rn({2, 3, 3}, d)});
    parity("pinv" + t, [](const Ins& v) { return k::pinv(v[0]); }, {dominant(1, 3, d)});
    parity("norm nuc" + t, [](const Ins& v) { return k::norm(v[0], "nuc"); }, {rn({3, 4}, d)});
    parity("cdist" + t, [](const Ins& v) { return k::cdist(v[0], v[1]); }, {rn({3, 2}, d), rn({4, 2}, d)});
    parity("eig values" + t, [](const Ins& v) { return k::eig(v[0]).eigenvalues.first; }, {dominant(1, 3, d)},
           std::nullopt, false);
    parity("lu_factor" + t, [](const Ins& v) { return k::lu_factor(v[0]).lu; }, {rn({2, 3, 3}, d)}, std::nullopt,
           false);
  }
}

}  // namespace test_parity_linalg
