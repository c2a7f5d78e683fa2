// einsum as a chain of pairwise contractions. Each pair is permuted to
// (batch, free, contracted) x (batch, contracted, free), reshaped to one
// batched matrix product and reshaped back, so the heavy work is one GEMM
// and the gradient comes from the ops it is made of.
#include "kiln/ops/einsum.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "core/op_log.h"
#include "ops/half_compute.h"

namespace kiln {

namespace {

// One char per axis: letters as written; the axes under "..." get chars 1..31
// (right-aligned across operands, so they broadcast as NumPy's do).
using Labels = std::string;
constexpr int kMaxEllipsisRank = 31;

struct Parsed {
  std::vector<Labels> inputs;
  Labels output;
};

struct Subscript {
  std::string before, after;
  bool ellipsis = false;
};

std::string shapes_of(const std::vector<Tensor>& xs) {
  std::string s;
  for (std::size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + xs[i].shape().to_string();
  return s;
}

Subscript parse_subscript(const std::string& eq, const std::string& s) {
  Subscript r;
  const auto pos = s.find("...");
  r.before = s.substr(0, pos);
  if (pos != std::string::npos) {
    r.ellipsis = true;
    r.after = s.substr(pos + 3);
    if (r.after.find("...") != std::string::npos)
      throw ValueError("einsum: invalid equation '" + eq + "': '...' may appear only once in '" + s + "'");
  }
  for (char c : r.before + r.after)
    if (!std::isalpha(static_cast<unsigned char>(c)))
      throw ValueError("einsum: invalid equation '" + eq + "': '" + std::string(1, c) +
                       "' is not a subscript letter (expected letters, ',', '->' and '...')");
  return r;
}

Labels ellipsis_labels(int total, int n) {
  Labels l;
  for (int k = total - n; k < total; ++k) l += static_cast<char>(1 + k);
  return l;
}

Parsed parse(const std::string& equation, const std::vector<Tensor>& xs) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq += c;
  const auto arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> parts(1);
  for (char c : lhs) {
    if (c == ',') parts.emplace_back();
    else parts.back().push_back(c);
  }
  if (parts.size() != xs.size())
    throw ValueError("einsum: the equation '" + equation + "' has " + std::to_string(parts.size()) +
                     " operand subscript(s), but received " + std::to_string(xs.size()) +
                     " operand(s) with shapes " + shapes_of(xs));
  std::vector<Subscript> subs;
  int ell = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    subs.push_back(parse_subscript(equation, parts[i]));
    const int named = static_cast<int>(subs[i].before.size() + subs[i].after.size());
    const int rank = static_cast<int>(xs[i].rank());
    if (subs[i].ellipsis ? named > rank : named != rank)
      throw ValueError("einsum: operand " + std::to_string(i) + " has shape " + xs[i].shape().to_string() +
                       " (rank " + std::to_string(rank) + "), which does not match its subscripts '" + parts[i] +
                       "' in '" + equation + "'");
    if (subs[i].ellipsis) ell = std::max(ell, rank - named);
  }
  if (ell > kMaxEllipsisRank)
    throw ValueError("einsum: '...' covers " + std::to_string(ell) + " axes in '" + equation + "'; at most " +
                     std::to_string(kMaxEllipsisRank) + " are supported");
  Parsed p;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const int named = static_cast<int>(subs[i].before.size() + subs[i].after.size());
    const int n = subs[i].ellipsis ? static_cast<int>(xs[i].rank()) - named : 0;
    p.inputs.push_back(subs[i].before + ellipsis_labels(ell, n) + subs[i].after);
  }
  if (arrow != std::string::npos) {
    const Subscript o = parse_subscript(equation, eq.substr(arrow + 2));
    p.output = o.before + (o.ellipsis ? ellipsis_labels(ell, ell) : "") + o.after;
    for (std::size_t k = 0; k < p.output.size(); ++k) {
      const char c = p.output[k];
      if (p.output.find(c, k + 1) != std::string::npos)
        throw ValueError("einsum: invalid equation '" + equation + "': output subscript '" + std::string(1, c) +
                         "' appears more than once");
      if (std::none_of(p.inputs.begin(), p.inputs.end(), [c](const Labels& l) { return l.find(c) != l.npos; }))
        throw ValueError("einsum: invalid equation '" + equation + "': output subscript '" + std::string(1, c) +
                         "' does not appear in any operand");
    }
  } else {
    // NumPy's implicit mode: the broadcast axes, then every letter used once, sorted.
    std::map<char, int> count;
    for (const auto& l : p.inputs)
      for (char c : l)
        if (std::isalpha(static_cast<unsigned char>(c))) ++count[c];
    p.output = ellipsis_labels(ell, ell);
    for (auto [c, n] : count)
      if (n == 1) p.output += c;
  }
  return p;
}

/// Every label has one size; axes under "..." may also be 1 where another operand has n.
void check_sizes(const std::string& equation, const Parsed& p, const std::vector<Tensor>& xs) {
  std::map<char, std::pair<int64_t, std::size_t>> seen;  // label -> (size, operand)
  for (std::size_t i = 0; i < xs.size(); ++i)
    for (std::size_t a = 0; a < p.inputs[i].size(); ++a) {
      const char c = p.inputs[i][a];
      const int64_t n = xs[i].shape()[static_cast<int64_t>(a)];
      auto [it, fresh] = seen.emplace(c, std::pair{n, i});
      if (fresh || it->second.first == n) continue;
      const bool broadcast = !std::isalpha(static_cast<unsigned char>(c)) && (n == 1 || it->second.first == 1);
      if (broadcast) {
        if (n != 1) it->second = {n, i};
        continue;
      }
      const std::string name = std::isalpha(static_cast<unsigned char>(c)) ? "subscript '" + std::string(1, c) + "'"
                                                                            : std::string("an axis under '...'");
      throw ValueError("einsum: " + name + " has size " + std::to_string(it->second.first) + " in operand " +
                       std::to_string(it->second.second) + " but size " + std::to_string(n) + " in operand " +
                       std::to_string(i) + " of '" + equation + "'; operand shapes: " + shapes_of(xs));
    }
}

bool has(const Labels& l, char c) { return l.find(c) != Labels::npos; }

/// Repeated labels within one operand ("ii") keep only the diagonal.
Tensor take_diagonals(Tensor x, Labels& l) {
  for (std::size_t i = 0; i < l.size(); ++i)
    for (std::size_t j = l.size() - 1; j > i; --j) {
      if (l[j] != l[i]) continue;
      const int64_t n = x.shape()[static_cast<int64_t>(i)];
      std::vector<int64_t> dims(static_cast<std::size_t>(x.rank()), 1);
      dims[i] = dims[j] = n;
      x = sum(multiply(x, reshape(eye(n, n, x.dtype()), Shape(dims))), Axes(std::vector<int>{static_cast<int>(j)}));
      l.erase(j, 1);
    }
  return x;
}

/// Sums the axes whose labels are not in `keep`.
Tensor sum_out(const Tensor& x, Labels& l, const Labels& keep) {
  std::vector<int> axes;
  Labels kept;
  for (std::size_t a = 0; a < l.size(); ++a) {
    if (has(keep, l[a])) kept += l[a];
    else axes.push_back(static_cast<int>(a));
  }
  if (axes.empty()) return x;
  l = kept;
  return sum(x, Axes(axes));
}

Tensor permute(const Tensor& x, const Labels& from, const Labels& to) {
  std::vector<int> perm;
  bool identity_perm = true;
  for (std::size_t k = 0; k < to.size(); ++k) {
    perm.push_back(static_cast<int>(from.find(to[k])));
    identity_perm = identity_perm && perm.back() == static_cast<int>(k);
  }
  return identity_perm ? x : transpose(x, perm);
}

int64_t size_of(const Tensor& x, const Labels& l, char c) { return x.shape()[static_cast<int64_t>(l.find(c))]; }

int64_t product(const Tensor& x, const Labels& l, const Labels& which) {
  int64_t n = 1;
  for (char c : which) n *= size_of(x, l, c);
  return n;
}

/// Contracts two operands, keeping the labels in `keep` (the output's and
/// those later operands still need); returns the result and its labels.
std::pair<Tensor, Labels> contract_pair(Tensor a, Labels la, Tensor b, Labels lb, const Labels& keep) {
  a = sum_out(a, la, keep + lb);
  b = sum_out(b, lb, keep + la);
  Labels batch, afree, contracted, bfree;
  for (char c : la) (has(lb, c) ? (has(keep, c) ? batch : contracted) : afree) += c;
  for (char c : lb)
    if (!has(la, c)) bfree += c;
  // A broadcast axis of size 1 on one side is summed out on the other side first.
  for (char c : contracted) {
    const int64_t na = size_of(a, la, c), nb = size_of(b, lb, c);
    if (na == nb) continue;
    const Axes axis(std::vector<int>{static_cast<int>((na == 1 ? lb : la).find(c))});
    (na == 1 ? b : a) = sum(na == 1 ? b : a, axis, true);
  }
  a = permute(a, la, batch + afree + contracted);
  b = permute(b, lb, batch + contracted + bfree);
  std::vector<int64_t> da, db;
  for (std::size_t k = 0; k < batch.size(); ++k) {
    da.push_back(a.shape()[static_cast<int64_t>(k)]);
    db.push_back(b.shape()[static_cast<int64_t>(k)]);
  }
  const Labels pa = batch + afree + contracted, pb = batch + contracted + bfree;
  da.push_back(product(a, pa, afree));
  da.push_back(product(a, pa, contracted));
  db.push_back(product(b, pb, contracted));
  db.push_back(product(b, pb, bfree));
  Tensor y = matmul(reshape(a, Shape(da)), reshape(b, Shape(db)));
  std::vector<int64_t> out(y.shape().dims().begin(), y.shape().dims().begin() + static_cast<long>(batch.size()));
  for (char c : afree) out.push_back(size_of(a, pa, c));
  for (char c : bfree) out.push_back(size_of(b, pb, c));
  return {reshape(y, Shape(out)), batch + afree + bfree};
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  KILN_LOG_OP(einsum, equation, operands);
  KILN_HALF_IN_FLOAT32(einsum, equation, operands);
  if (operands.empty()) throw ValueError("einsum: expected at least one operand for '" + equation + "'");
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (!operands[i].defined()) throw ValueError("einsum: operand " + std::to_string(i) + " is undefined");
    if (operands[i].dtype() != operands[0].dtype())
      throw TypeError("einsum: all operands must have the same dtype, but operand 0 is " +
                      dtype_name(operands[0].dtype()) + " and operand " + std::to_string(i) + " is " +
                      dtype_name(operands[i].dtype()));
  }
  const Parsed p = parse(equation, operands);
  check_sizes(equation, p, operands);
  Labels lx = p.inputs[0];
  Tensor x = take_diagonals(operands[0], lx);
  for (std::size_t i = 1; i < operands.size(); ++i) {
    Labels keep = p.output;
    for (std::size_t j = i + 1; j < operands.size(); ++j) keep += p.inputs[j];
    Labels ly = p.inputs[i];
    Tensor y = take_diagonals(operands[i], ly);
    std::tie(x, lx) = contract_pair(x, lx, y, ly, keep);
  }
  x = sum_out(x, lx, p.output);
  return permute(x, lx, p.output);
}

}  // namespace kiln
