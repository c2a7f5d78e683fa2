// CPU dense linear algebra through the LAPACK that OpenBLAS exports (Debian's
// libopenblas0-pthread carries the whole of LAPACK), declared here by hand: Debian's
// lapack.h belongs to another package, and only these few routines are needed.
// LAPACK is column-major and Kiln row-major. A row-major matrix is the column-major
// transpose, so symmetric inputs (potrf, syevd) and the SVD (of the transpose, whose
// factors are the swapped transposes) go in as they are; the others are transposed
// into scratch and back. Matrices of a batch run one after another: linear algebra
// here serves small matrices, and OpenBLAS runs single-threaded under Kiln.
#include "backend/cpu/lapack.h"

#include <cblas.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/dispatch.h"

extern "C" {
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, std::size_t);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, std::size_t);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info, std::size_t, std::size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info, std::size_t, std::size_t);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u,
             const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info,
             std::size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             std::size_t);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
             int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
void sgeev_(const char* jobvl, const char* jobvr, const int* n, float* a, const int* lda, float* wr, float* wi,
            float* vl, const int* ldvl, float* vr, const int* ldvr, float* work, const int* lwork, int* info,
            std::size_t, std::size_t);
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda, double* wr, double* wi,
            double* vl, const int* ldvl, double* vr, const int* ldvr, double* work, const int* lwork, int* info,
            std::size_t, std::size_t);
}

namespace kiln::cpu::lapack {

namespace {

template <class T>
constexpr bool is_f32 = std::is_same_v<T, float>;

template <class T>
void la_getrf(int m, int n, T* a, int lda, int* ipiv, int* info) {
  if constexpr (is_f32<T>) sgetrf_(&m, &n, a, &lda, ipiv, info);
  else dgetrf_(&m, &n, a, &lda, ipiv, info);
}
template <class T>
void la_potrf(char uplo, int n, T* a, int lda, int* info) {
  if constexpr (is_f32<T>) spotrf_(&uplo, &n, a, &lda, info, 1);
  else dpotrf_(&uplo, &n, a, &lda, info, 1);
}
template <class T>
void la_syevd(int n, T* a, T* w, T* work, int lwork, int* iwork, int liwork, int* info) {
  const char jobz = 'V', uplo = 'U';  // column-major upper = row-major lower
  if constexpr (is_f32<T>) ssyevd_(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
  else dsyevd_(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
template <class T>
void la_gesdd(char jobz, int m, int n, T* a, T* s, T* u, int ldu, T* vt, int ldvt, T* work, int lwork, int* iwork,
              int* info) {
  if constexpr (is_f32<T>) sgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
  else dgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}
template <class T>
void la_geqrf(int m, int n, T* a, T* tau, T* work, int lwork, int* info) {
  if constexpr (is_f32<T>) sgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
  else dgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
}
template <class T>
void la_orgqr(int m, int n, int k, T* a, const T* tau, T* work, int lwork, int* info) {
  if constexpr (is_f32<T>) sorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
  else dorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
template <class T>
void la_geev(int n, T* a, T* wr, T* wi, T* vr, T* work, int lwork, int* info) {
  const char jobvl = 'N', jobvr = 'V';
  int one = 1;
  T vl[1];
  if constexpr (is_f32<T>) sgeev_(&jobvl, &jobvr, &n, a, &n, wr, wi, vl, &one, vr, &n, work, &lwork, info, 1, 1);
  else dgeev_(&jobvl, &jobvr, &n, a, &n, wr, wi, vl, &one, vr, &n, work, &lwork, info, 1, 1);
}
template <class T>
void la_trsm(bool lower, bool unit, int n, int k, const T* a, T* b) {
  const auto uplo = lower ? CblasLower : CblasUpper;
  const auto diag = unit ? CblasUnit : CblasNonUnit;
  if constexpr (is_f32<T>) cblas_strsm(CblasRowMajor, CblasLeft, uplo, CblasNoTrans, diag, n, k, 1.0f, a, n, b, k);
  else cblas_dtrsm(CblasRowMajor, CblasLeft, uplo, CblasNoTrans, diag, n, k, 1.0, a, n, b, k);
}

/// The workspace size a LAPACK query (lwork = -1) wrote into its first element.
template <class T>
int queried(T size) {
  return std::max(1, static_cast<int>(size));
}

/// dst (cols x rows, row-major) = the transpose of src (rows x cols, row-major).
template <class T>
void transpose_into(const T* src, int64_t rows, int64_t cols, T* dst) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) dst[j * rows + i] = src[i * cols + j];
}

/// The number of matrices in a batch of shape (..., m, n).
int64_t batch_of(const Tensor& a) {
  int64_t b = 1;
  for (int64_t i = 0; i + 2 < a.rank(); ++i) b *= a.shape()[i];
  return b;
}

/// s without its last `drop` axes, followed by `tail`.
Shape with_matrix(const Shape& s, int drop, std::vector<int64_t> tail) {
  std::vector<int64_t> d(s.dims().begin(), s.dims().end() - drop);
  d.insert(d.end(), tail.begin(), tail.end());
  return Shape(d);
}

/// One matrix's LU in row-major form, with LAPACK's 1-based pivots.
template <class T>
void lu_one(const T* a, int m, int n, T* lu, int* ipiv, std::vector<T>& col) {
  col.resize(static_cast<std::size_t>(m) * n);
  transpose_into(a, m, n, col.data());
  int info = 0;
  la_getrf<T>(m, n, col.data(), std::max(1, m), ipiv, &info);
  transpose_into(col.data(), n, m, lu);
}

template <class T>
void solve_typed(const Tensor& a, const Tensor& b, Tensor& x) {
  const int n = static_cast<int>(a.shape()[-1]), k = static_cast<int>(b.shape()[-1]);
  std::vector<T> lu(static_cast<std::size_t>(n) * n), col;
  std::vector<int> ipiv(static_cast<std::size_t>(n));
  const T* pa = a.data<T>();
  T* px = x.data<T>();
  std::copy(b.data<T>(), b.data<T>() + b.size(), px);
  for (int64_t i = 0, batch = batch_of(a); i < batch; ++i) {
    T* xb = px + i * n * k;
    lu_one(pa + i * n * n, n, n, lu.data(), ipiv.data(), col);
    for (int r = 0; r < n; ++r)
      if (ipiv[r] - 1 != r) std::swap_ranges(xb + r * k, xb + (r + 1) * k, xb + (ipiv[r] - 1) * k);
    la_trsm<T>(true, true, n, k, lu.data(), xb);
    la_trsm<T>(false, false, n, k, lu.data(), xb);
  }
}

template <class T>
bool svd_typed(const Tensor& a, bool full, bool uv, Tensor& u, Tensor& s, Tensor& vt) {
  const int m = static_cast<int>(a.shape()[-2]), n = static_cast<int>(a.shape()[-1]), k = std::min(m, n);
  // The row-major a is the column-major n x m matrix aᵀ = U' S V'ᵀ, so a = V' S U'ᵀ:
  // LAPACK's vt, read row-major, is a's u, and its u is a's vt.
  const char jobz = !uv ? 'N' : full ? 'A' : 'S';
  const int ucols = full ? m : k, vrows = full ? n : k;
  const int ld_lu = std::max(1, n), ld_lvt = std::max(1, full ? m : k);
  std::vector<T> work_a(static_cast<std::size_t>(m) * n), dummy(1);
  std::vector<int> iwork(static_cast<std::size_t>(8) * std::max(1, k));
  int info = 0, lwork = -1;
  T query = 0;
  la_gesdd<T>(jobz, n, m, work_a.data(), s.data<T>(), dummy.data(), ld_lu, dummy.data(), ld_lvt, &query, lwork,
              iwork.data(), &info);
  std::vector<T> work(static_cast<std::size_t>(queried(query)));
  bool ok = true;
  for (int64_t i = 0, batch = batch_of(a); i < batch; ++i) {
    std::copy(a.data<T>() + i * m * n, a.data<T>() + (i + 1) * m * n, work_a.begin());
    T* pu = uv ? u.data<T>() + i * m * ucols : dummy.data();
    T* pvt = uv ? vt.data<T>() + i * vrows * n : dummy.data();
    la_gesdd<T>(jobz, n, m, work_a.data(), s.data<T>() + i * k, pvt, uv ? ld_lu : 1, pu, uv ? ld_lvt : 1,
                work.data(), static_cast<int>(work.size()), iwork.data(), &info);
    ok = ok && info == 0;
  }
  return ok;
}

template <class T>
void qr_typed(const Tensor& a, bool complete, Tensor& q, Tensor& r) {
  const int m = static_cast<int>(a.shape()[-2]), n = static_cast<int>(a.shape()[-1]), k = std::min(m, n);
  const int qc = complete ? m : k, rr = complete ? m : k;
  std::vector<T> col(static_cast<std::size_t>(m) * n), qcol(static_cast<std::size_t>(m) * std::max(qc, n));
  std::vector<T> tau(static_cast<std::size_t>(std::max(1, k)));
  int info = 0;
  T q1 = 0, q2 = 0;
  la_geqrf<T>(m, n, col.data(), tau.data(), &q1, -1, &info);
  la_orgqr<T>(m, qc, k, qcol.data(), tau.data(), &q2, -1, &info);
  std::vector<T> work(static_cast<std::size_t>(std::max(queried(q1), queried(q2))));
  for (int64_t i = 0, batch = batch_of(a); i < batch; ++i) {
    transpose_into(a.data<T>() + i * m * n, m, n, col.data());
    if (m > 0 && n > 0) la_geqrf<T>(m, n, col.data(), tau.data(), work.data(), static_cast<int>(work.size()), &info);
    T* pr = r.data<T>() + i * rr * n;
    for (int row = 0; row < rr; ++row)
      for (int c = 0; c < n; ++c) pr[row * n + c] = row <= c ? col[static_cast<std::size_t>(c) * m + row] : T(0);
    std::copy(col.begin(), col.begin() + static_cast<std::ptrdiff_t>(m) * std::min(n, qc), qcol.begin());
    if (m > 0 && qc > 0) la_orgqr<T>(m, qc, k, qcol.data(), tau.data(), work.data(), static_cast<int>(work.size()), &info);
    transpose_into(qcol.data(), qc, m, q.data<T>() + i * m * qc);
  }
}

template <class T>
bool eig_typed(const Tensor& a, Tensor& wr, Tensor& wi, Tensor& vr, Tensor& vi) {
  const int n = static_cast<int>(a.shape()[-1]);
  std::vector<T> col(static_cast<std::size_t>(n) * n), v(col.size()), re(n), im(n);
  int info = 0;
  T query = 0;
  la_geev<T>(n, col.data(), re.data(), im.data(), v.data(), &query, -1, &info);
  std::vector<T> work(static_cast<std::size_t>(queried(query)));
  bool ok = true;
  for (int64_t i = 0, batch = batch_of(a); i < batch; ++i) {
    transpose_into(a.data<T>() + i * n * n, n, n, col.data());
    if (n > 0) la_geev<T>(n, col.data(), re.data(), im.data(), v.data(), work.data(), static_cast<int>(work.size()), &info);
    if (info != 0) {
      ok = false;
      std::fill(re.begin(), re.end(), std::numeric_limits<T>::quiet_NaN());
      std::fill(im.begin(), im.end(), std::numeric_limits<T>::quiet_NaN());
      std::fill(v.begin(), v.end(), std::numeric_limits<T>::quiet_NaN());
    }
    std::copy(re.begin(), re.end(), wr.data<T>() + i * n);
    std::copy(im.begin(), im.end(), wi.data<T>() + i * n);
    T* pr = vr.data<T>() + i * n * n;
    T* pi = vi.data<T>() + i * n * n;
    // A complex pair j, j + 1 shares columns j (real part) and j + 1 (imaginary part).
    for (int j = 0; j < n; ++j) {
      const bool pair_first = im[j] > 0 && j + 1 < n, pair_second = im[j] < 0 && j > 0;
      const int rc = pair_second ? j - 1 : j;
      for (int row = 0; row < n; ++row) {
        pr[row * n + j] = v[static_cast<std::size_t>(rc) * n + row];
        const T imag = pair_first ? v[static_cast<std::size_t>(j + 1) * n + row]
                                  : pair_second ? -v[static_cast<std::size_t>(j) * n + row] : T(0);
        pi[row * n + j] = imag;
      }
    }
  }
  return ok;
}

}  // namespace

void lu_factor(const Tensor& a, Tensor& lu, Tensor& pivots) {
  const int m = static_cast<int>(a.shape()[-2]), n = static_cast<int>(a.shape()[-1]), k = std::min(m, n);
  lu = Tensor::empty(a.shape(), a.dtype());
  pivots = Tensor::empty(with_matrix(a.shape(), 2, {k}), DType::int32);
  dispatch_float(a.dtype(), "lu_factor", [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> col;
    std::vector<int> ipiv(static_cast<std::size_t>(std::max(1, k)));
    for (int64_t i = 0, batch = batch_of(a); i < batch; ++i) {
      lu_one(a.data<T>() + i * m * n, m, n, lu.data<T>() + i * m * n, ipiv.data(), col);
      for (int j = 0; j < k; ++j) pivots.data<int32_t>()[i * k + j] = ipiv[j] - 1;
    }
  });
}

Tensor solve(const Tensor& a, const Tensor& b) {
  Tensor x = Tensor::empty(b.shape(), b.dtype());
  dispatch_float(a.dtype(), "solve", [&](auto tag) { solve_typed<decltype(tag)>(a, b, x); });
  return x;
}

Tensor triangular_solve(const Tensor& a, const Tensor& b, bool lower) {
  Tensor x = b.clone();
  const int n = static_cast<int>(a.shape()[-1]), k = static_cast<int>(b.shape()[-1]);
  if (n == 0 || k == 0) return x;
  dispatch_float(a.dtype(), "solve_triangular", [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0, batch = batch_of(a); i < batch; ++i)
      la_trsm<T>(lower, false, n, k, a.data<T>() + i * n * n, x.data<T>() + i * n * k);
  });
  return x;
}

bool cholesky(const Tensor& a, Tensor& l) {
  l = a.clone();
  const int n = static_cast<int>(a.shape()[-1]);
  bool ok = true;
  dispatch_float(a.dtype(), "cholesky", [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0, batch = batch_of(a); i < batch; ++i) {
      T* p = l.data<T>() + i * n * n;
      int info = 0;
      // Column-major 'U' is row-major lower: a = Uᵀ U there is a = L Lᵀ here.
      if (n > 0) la_potrf<T>('U', n, p, n, &info);
      for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
          if (info != 0) p[r * n + c] = std::numeric_limits<T>::quiet_NaN();
          else if (c > r) p[r * n + c] = T(0);
      ok = ok && info == 0;
    }
  });
  return ok;
}

void eigh(const Tensor& a, Tensor& w, Tensor& v) {
  const int n = static_cast<int>(a.shape()[-1]);
  w = Tensor::empty(with_matrix(a.shape(), 2, {n}), a.dtype());
  v = Tensor::empty(a.shape(), a.dtype());
  if (n == 0) return;
  dispatch_float(a.dtype(), "eigh", [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> buf(static_cast<std::size_t>(n) * n);
    int info = 0, iquery = 0;
    T query = 0;
    la_syevd<T>(n, buf.data(), w.data<T>(), &query, -1, &iquery, -1, &info);
    std::vector<T> work(static_cast<std::size_t>(queried(query)));
    std::vector<int> iwork(static_cast<std::size_t>(std::max(1, iquery)));
    for (int64_t i = 0, batch = batch_of(a); i < batch; ++i) {
      std::copy(a.data<T>() + i * n * n, a.data<T>() + (i + 1) * n * n, buf.begin());
      la_syevd<T>(n, buf.data(), w.data<T>() + i * n, work.data(), static_cast<int>(work.size()), iwork.data(),
                  static_cast<int>(iwork.size()), &info);
      // LAPACK's columns are the row-major buffer's rows.
      transpose_into(buf.data(), n, n, v.data<T>() + i * n * n);
    }
  });
}

bool eig(const Tensor& a, Tensor& wr, Tensor& wi, Tensor& vr, Tensor& vi) {
  const int64_t n = a.shape()[-1];
  wr = Tensor::empty(with_matrix(a.shape(), 2, {n}), a.dtype());
  wi = Tensor::empty(wr.shape(), a.dtype());
  vr = Tensor::empty(a.shape(), a.dtype());
  vi = Tensor::empty(a.shape(), a.dtype());
  return dispatch_float(a.dtype(), "eig", [&](auto tag) { return eig_typed<decltype(tag)>(a, wr, wi, vr, vi); });
}

bool svd(const Tensor& a, bool full_matrices, bool compute_uv, Tensor& u, Tensor& s, Tensor& vt) {
  const int64_t m = a.shape()[-2], n = a.shape()[-1], k = std::min(m, n);
  s = Tensor::empty(with_matrix(a.shape(), 2, {k}), a.dtype());
  if (compute_uv) {
    u = Tensor::empty(with_matrix(a.shape(), 2, {m, full_matrices ? m : k}), a.dtype());
    vt = Tensor::empty(with_matrix(a.shape(), 2, {full_matrices ? n : k, n}), a.dtype());
  }
  if (m == 0 || n == 0) {
    if (compute_uv) {  // the identity completes an empty factorisation
      for (Tensor* t : {&u, &vt})
        dispatch_float(a.dtype(), "svd", [&](auto tag) {
          using T = decltype(tag);
          const int64_t r = t->shape()[-2], c = t->shape()[-1];
          for (int64_t i = 0; i < t->size(); ++i) t->data<T>()[i] = (i % (r * c)) / c == (i % c) ? T(1) : T(0);
        });
    }
    return true;
  }
  return dispatch_float(a.dtype(), "svd",
                        [&](auto tag) { return svd_typed<decltype(tag)>(a, full_matrices, compute_uv, u, s, vt); });
}

void qr(const Tensor& a, bool complete, Tensor& q, Tensor& r) {
  const int64_t m = a.shape()[-2], n = a.shape()[-1], k = std::min(m, n);
  q = Tensor::empty(with_matrix(a.shape(), 2, {m, complete ? m : k}), a.dtype());
  r = Tensor::empty(with_matrix(a.shape(), 2, {complete ? m : k, n}), a.dtype());
  dispatch_float(a.dtype(), "qr", [&](auto tag) { qr_typed<decltype(tag)>(a, complete, q, r); });
}

}  // namespace kiln::cpu::lapack
