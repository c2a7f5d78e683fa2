// keras.ops linear algebra by name (kiln/ops/linalg_ops.h); the ops_linalg oracle
// group (tests/oracle/oracle_ops_linalg.py) compares them with Keras, bringing
// eigh's and svd's vectors to one sign first. eig is not here: its values are
// complex, which a functional node cannot carry in Kiln.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "kiln/ops/linalg_ops.h"
#include "kiln/ops/ops.h"
#include "nn/keras_op_table.h"

namespace kiln::detail::keras_ops_linalg {

using namespace keras_op_api;

namespace {

namespace k = kiln;

std::optional<double> opt_double(const json& p, const char* key) {
  if (!p.contains(key) || p.at(key).is_null()) return std::nullopt;
  return p.at(key).get<double>();
}

/// keras's ord: None, a number, "fro"/"nuc", or "inf"/"-inf" (JSON has no infinity).
k::NormOrd ord_of(const json& p) {
  if (!p.contains("ord") || p.at("ord").is_null()) return {};
  const json& o = p.at("ord");
  if (o.is_number()) return k::NormOrd(o.get<double>());
  const std::string s = o.get<std::string>();
  if (s == "inf") return k::NormOrd(INFINITY);
  if (s == "-inf") return k::NormOrd(-INFINITY);
  return k::NormOrd(s);
}

std::optional<std::vector<int>> axis_of(const json& p) {
  if (!p.contains("axis") || p.at("axis").is_null()) return std::nullopt;
  if (p.at("axis").is_number()) return std::vector<int>{p.at("axis").get<int>()};
  return p.at("axis").get<std::vector<int>>();
}

const OpEntries entries{
    {"cholesky", [](const Inputs& x, const json& p) { return Outputs{k::cholesky(x[0], param(p, "upper", false))}; }},
    {"cholesky_inverse",
     [](const Inputs& x, const json& p) { return Outputs{k::cholesky_inverse(x[0], param(p, "upper", false))}; }},
    {"det", [](const Inputs& x, const json&) { return Outputs{k::det(x[0])}; }},
    {"inv", [](const Inputs& x, const json&) { return Outputs{k::inv(x[0])}; }},
    {"logdet", [](const Inputs& x, const json&) { return Outputs{k::logdet(x[0])}; }},
    {"slogdet",
     [](const Inputs& x, const json&) {
       auto [sign, logabsdet] = k::slogdet(x[0]);
       return Outputs{sign, logabsdet};
     }},
    {"solve", [](const Inputs& x, const json&) { return Outputs{k::solve(x[0], x[1])}; }},
    {"solve_triangular",
     [](const Inputs& x, const json& p) { return Outputs{k::solve_triangular(x[0], x[1], param(p, "lower", false))}; }},
    {"lu_factor",
     [](const Inputs& x, const json&) {
       auto [lu, pivots] = k::lu_factor(x[0]);
       return Outputs{lu, pivots};
     }},
    {"eigh",
     [](const Inputs& x, const json&) {
       auto [w, v] = k::eigh(x[0]);
       return Outputs{w, v};
     }},
    {"svd",
     [](const Inputs& x, const json& p) {
       auto [u, s, vh] = k::svd(x[0], param(p, "full_matrices", true), param(p, "compute_uv", true));
       return param(p, "compute_uv", true) ? Outputs{u, s, vh} : Outputs{s};
     }},
    {"qr",
     [](const Inputs& x, const json& p) {
       auto [q, r] = k::qr(x[0], param<std::string>(p, "mode", "reduced"));
       return Outputs{q, r};
     }},
    {"norm",
     [](const Inputs& x, const json& p) {
       return Outputs{k::norm(x[0], ord_of(p), axis_of(p), param(p, "keepdims", false))};
     }},
    {"lstsq", [](const Inputs& x, const json& p) { return Outputs{k::lstsq(x[0], x[1], opt_double(p, "rcond"))}; }},
    {"pinv", [](const Inputs& x, const json& p) { return Outputs{k::pinv(x[0], opt_double(p, "rcond"))}; }},
    {"matrix_rank",
     [](const Inputs& x, const json& p) { return Outputs{k::matrix_rank(x[0], opt_double(p, "tol"))}; }},
    {"cdist", [](const Inputs& x, const json&) { return Outputs{k::cdist(x[0], x[1])}; }},
};

}  // namespace

}  // namespace kiln::detail::keras_ops_linalg

namespace kiln::detail {

keras_op_api::OpEntries keras_ops_linalg_table() { return keras_ops_linalg::entries; }

}  // namespace kiln::detail
