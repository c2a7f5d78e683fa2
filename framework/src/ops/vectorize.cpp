// keras.ops.vectorize (kiln/ops/functional_ops.h), NumPy's generalized
// ufunc rules: each argument's trailing "core" axes are named by the
// signature, the leading "loop" axes broadcast together, and f runs once per
// loop index on the core slices; the outputs are stacked back over the loop.
#include <cctype>
#include <map>
#include <string>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/functional_ops.h"
#include "ops/functional_util.h"

namespace kiln {

namespace {

using CoreDims = std::vector<std::string>;

/// "(m,n),(n)" -> {{"m", "n"}, {"n"}}.
std::vector<CoreDims> parse_core_list(const std::string& text, const std::string& signature) {
  std::vector<CoreDims> out;
  std::size_t i = 0;
  auto bad = [&] { return ValueError("vectorize: not a valid gufunc signature: '" + signature + "'"); };
  auto skip = [&] { while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i; };
  while (true) {
    skip();
    if (i >= text.size() || text[i] != '(') throw bad();
    ++i;
    CoreDims dims;
    skip();
    while (i < text.size() && text[i] != ')') {
      std::string name;
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) name += text[i++];
      if (name.empty()) throw bad();
      dims.push_back(name);
      skip();
      if (i < text.size() && text[i] == ',') ++i, skip();
    }
    if (i >= text.size()) throw bad();
    ++i;
    out.push_back(dims);
    skip();
    if (i >= text.size()) return out;
    if (text[i] != ',') throw bad();
    ++i;
  }
}

struct Signature {
  std::vector<CoreDims> inputs;
  CoreDims output;
};

Signature parse_signature(const std::string& signature) {
  const auto arrow = signature.find("->");
  if (arrow == std::string::npos) throw ValueError("vectorize: not a valid gufunc signature: '" + signature + "'");
  Signature s{parse_core_list(signature.substr(0, arrow), signature), {}};
  auto outs = parse_core_list(signature.substr(arrow + 2), signature);
  if (outs.size() != 1)
    throw ValueError("vectorize: Kiln's vectorized functions return one tensor, but the signature '" + signature +
                     "' names " + std::to_string(outs.size()) + " outputs");
  s.output = outs[0];
  return s;
}

std::vector<int64_t> dims_between(const Shape& s, std::size_t from, std::size_t to) {
  return std::vector<int64_t>(s.dims().begin() + static_cast<std::ptrdiff_t>(from),
                              s.dims().begin() + static_cast<std::ptrdiff_t>(to));
}

Tensor call_vectorized(const VectorizeFn& f, const std::optional<Signature>& sig, const std::vector<Tensor>& args) {
  if (sig && sig->inputs.size() != args.size())
    throw TypeError("vectorize: wrong number of positional arguments: expected " + std::to_string(sig->inputs.size()) +
                    ", got " + std::to_string(args.size()));
  std::map<std::string, int64_t> sizes;
  Shape loop;
  std::vector<std::vector<int64_t>> cores;
  for (std::size_t a = 0; a < args.size(); ++a) {
    const CoreDims none;
    const CoreDims& core = sig ? sig->inputs[a] : none;
    const auto rank = static_cast<std::size_t>(args[a].rank());
    if (rank < core.size())
      throw ValueError("vectorize: input " + std::to_string(a) + " has " + std::to_string(rank) +
                       " dimensions, but the signature needs at least " + std::to_string(core.size()));
    const std::size_t split_at = rank - core.size();
    for (std::size_t d = 0; d < core.size(); ++d) {
      const int64_t len = args[a].shape()[static_cast<int64_t>(split_at + d)];
      auto [it, fresh] = sizes.emplace(core[d], len);
      if (!fresh && it->second != len)
        throw ValueError("vectorize: inconsistent size for core dimension '" + core[d] + "': " +
                         std::to_string(it->second) + " vs " + std::to_string(len));
    }
    loop = broadcast_shapes(loop, Shape(dims_between(args[a].shape(), 0, split_at)), "vectorize");
    cores.push_back(dims_between(args[a].shape(), split_at, rank));
  }
  int64_t count = 1;
  for (auto d : loop.dims()) count *= d;
  // Each argument as (loop count, its core...), so that index l is one call's slice.
  std::vector<Tensor> flat;
  for (std::size_t a = 0; a < args.size(); ++a) {
    std::vector<int64_t> full = loop.dims();
    full.insert(full.end(), cores[a].begin(), cores[a].end());
    std::vector<int64_t> rows{count};
    rows.insert(rows.end(), cores[a].begin(), cores[a].end());
    flat.push_back(reshape(broadcast_to(args[a], Shape(full)), Shape(rows)));
  }
  std::vector<Tensor> outs = map([&](const std::vector<Tensor>& x) { return std::vector<Tensor>{f(x)}; }, flat);
  Tensor stacked = outs.at(0);
  const auto out_core = dims_between(stacked.shape(), 1, static_cast<std::size_t>(stacked.rank()));
  if (sig && out_core.size() != sig->output.size())
    throw ValueError("vectorize: the function's output has " + std::to_string(out_core.size()) +
                     " core dimensions, but the signature names " + std::to_string(sig->output.size()));
  std::vector<int64_t> result = loop.dims();
  result.insert(result.end(), out_core.begin(), out_core.end());
  return reshape(stacked, Shape(result));
}

}  // namespace

std::function<Tensor(const std::vector<Tensor>&)> vectorize(VectorizeFn f, const std::string& signature) {
  std::optional<Signature> sig;
  if (!signature.empty()) sig = parse_signature(signature);
  return [f = std::move(f), sig](const std::vector<Tensor>& args) { return call_vectorized(f, sig, args); };
}

}  // namespace kiln
