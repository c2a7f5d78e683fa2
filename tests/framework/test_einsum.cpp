// einsum against a direct loop over every index assignment (the definition),
// gradients against central differences, broadcasting and error messages.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "kiln/autodiff/gradient_check.h"
#include "kiln/core/error.h"
#include "kiln/ops/einsum.h"
#include "kiln/ops/ops.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_einsum {

namespace k = kiln;

namespace {

/// sum over all labels of prod(operands) with explicit output labels; letters only.
std::vector<double> reference(const std::string& eq, const std::vector<k::Tensor>& xs) {
  const auto arrow = eq.find("->");
  std::vector<std::string> subs(1);
  for (char c : eq.substr(0, arrow)) {
    if (c == ',') subs.emplace_back();
    else subs.back().push_back(c);
  }
  const std::string out = eq.substr(arrow + 2);
  std::map<char, int64_t> size;
  for (std::size_t i = 0; i < xs.size(); ++i)
    for (std::size_t a = 0; a < subs[i].size(); ++a) size[subs[i][a]] = xs[i].shape()[static_cast<int64_t>(a)];
  std::vector<char> labels;
  for (auto& [c, n] : size) labels.push_back(c);
  std::vector<std::vector<double>> data;
  for (const auto& x : xs) data.push_back(x.to_vector<double>());
  int64_t out_size = 1;
  for (char c : out) out_size *= size[c];
  std::vector<double> result(static_cast<std::size_t>(out_size), 0.0);
  std::map<char, int64_t> at;
  for (char c : labels) at[c] = 0;
  auto flat = [&](const std::string& s, const std::vector<int64_t>& dims) {
    int64_t f = 0;
    for (std::size_t a = 0; a < s.size(); ++a) f = f * dims[a] + at[s[a]];
    return f;
  };
  while (true) {
    double p = 1;
    for (std::size_t i = 0; i < xs.size(); ++i) p *= data[i][static_cast<std::size_t>(flat(subs[i], xs[i].shape().dims()))];
    std::vector<int64_t> od;
    for (char c : out) od.push_back(size[c]);
    result[static_cast<std::size_t>(flat(out, od))] += p;
    std::size_t k = 0;
    for (; k < labels.size(); ++k) {
      if (++at[labels[k]] < size[labels[k]]) break;
      at[labels[k]] = 0;
    }
    if (k == labels.size()) break;
  }
  return result;
}

k::Tensor rnd(const k::Shape& s, uint64_t seed) { return k::random::normal(s, 0.0, 1.0, k::float64, seed); }

void check_close(const k::Tensor& got, const std::vector<double>& want) {
  auto g = got.to_vector<double>();
  REQUIRE(g.size() == want.size());
  for (std::size_t i = 0; i < g.size(); ++i) CHECK(g[i] == doctest::Approx(want[i]).epsilon(1e-10));
}

}  // namespace

TEST_CASE("einsum: values equal the summation definition, and gradients the finite differences") {
  struct Case {
    std::string eq;
    std::vector<k::Shape> shapes;
  };
  const std::vector<Case> cases = {
      {"ij,jk->ik", {{3, 4}, {4, 2}}},
      {"ij,jk->ki", {{3, 4}, {4, 2}}},
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}},
      {"abc,cde->abde", {{2, 3, 4}, {4, 2, 3}}},       // MultiHeadAttention's projection
      {"aecd,abcd->acbe", {{2, 5, 2, 3}, {2, 4, 2, 3}}},  // its dot product
      {"acbe,aecd->abcd", {{2, 2, 4, 5}, {2, 5, 2, 3}}},  // and its combination
      {"i,i->", {{5}, {5}}},
      {"i,j->ij", {{3}, {4}}},
      {"ii->i", {{4, 4}}},
      {"ii->", {{3, 3}}},
      {"iji->j", {{3, 2, 3}}},
      {"ij->", {{3, 4}}},
      {"ijk->kji", {{2, 3, 4}}},
      {"ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 2}}},
      {"ab,ab->a", {{3, 4}, {3, 4}}},
      {"ab,cb->", {{3, 4}, {2, 4}}},
      {"abc,b->ac", {{2, 3, 4}, {3}}},
  };
  uint64_t seed = 10;
  for (const auto& c : cases) {
    INFO("equation ", c.eq);
    std::vector<k::Tensor> xs;
    for (const auto& s : c.shapes) xs.push_back(rnd(s, ++seed));
    check_close(k::einsum(c.eq, xs), reference(c.eq, xs));
    auto r = k::check_gradients([&](const std::vector<k::Tensor>& in) { return k::einsum(c.eq, in); }, xs);
    INFO(r.report);
    CHECK(r.ok);
  }
}

TEST_CASE("einsum: implicit output, spaces and '...' broadcasting as NumPy") {
  k::Tensor a = rnd({3, 4}, 1), b = rnd({4, 2}, 2);
  check_close(k::einsum("ij,jk", {a, b}), reference("ij,jk->ik", {a, b}));
  check_close(k::einsum("ba", {a}), reference("ba->ab", {a}));
  check_close(k::einsum(" i j , j k -> i k ", {a, b}), reference("ij,jk->ik", {a, b}));
  // (2, 1, 3, 4) and (5, 4, 2): the batch axes broadcast to (2, 5).
  k::Tensor x = rnd({2, 1, 3, 4}, 3), y = rnd({5, 4, 2}, 4);
  k::Tensor z = k::einsum("...ij,...jk->...ik", {x, y});
  CHECK(z.shape() == k::Shape({2, 5, 3, 2}));
  k::Tensor xb = k::broadcast_to(x, {2, 5, 3, 4}), yb = k::broadcast_to(y, {2, 5, 4, 2});
  check_close(z, reference("abij,abjk->abik", {xb, yb}));
  check_close(k::einsum("...ij->...ji", {x}), reference("abij->abji", {x}));
  check_close(k::einsum("...i->i", {x}), reference("abci->i", {x}));  // broadcast axes not in the output are summed
  auto r = k::check_gradients([](const std::vector<k::Tensor>& in) { return k::einsum("...ij,...jk->...ik", in); },
                              {x, y});
  INFO(r.report);
  CHECK(r.ok);
}

TEST_CASE("einsum: errors name the equation, the operand and the shapes") {
  k::Tensor a = rnd({3, 4}, 1), b = rnd({5, 2}, 2);
  CHECK_THROWS_WITH_AS(k::einsum("ij,jk->ik", {a, b}),
                       doctest::Contains("subscript 'j' has size 4 in operand 0 but size 5 in operand 1"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(k::einsum("ijk,jk->ik", {a, b}),
                       doctest::Contains("operand 0 has shape (3, 4) (rank 2), which does not match its subscripts 'ijk'"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(k::einsum("ij->iz", {a}), doctest::Contains("output subscript 'z' does not appear"), k::ValueError);
  CHECK_THROWS_WITH_AS(k::einsum("ij,jk->ik", {a}), doctest::Contains("has 2 operand subscript(s), but received 1"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(k::einsum("i1->i", {a}), doctest::Contains("'1' is not a subscript letter"), k::ValueError);
  CHECK_THROWS_AS(k::einsum("ij,jk->ik", {a, k::cast(b, k::float32)}), k::TypeError);
}

}  // namespace test_einsum
