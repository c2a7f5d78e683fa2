// Fuses a convolution with bias and relu into the max pool that reads it
// (Conv2DBiasRelu + MaxPoolWithArgmax -> Conv2DBiasReluMaxPool), where the
// backend has the kernel. The convolution's output then never exists. Its
// only other readers may be the kernel-gradient nodes that mask their
// incoming gradient by it; the fused pool marks those positions in argmax
// instead (-1: no gradient), so they run without the mask.
#include <map>
#include <optional>
#include <set>

#include "core/tensor_impl.h"
#include "graph/passes.h"

namespace kiln::graph {

using backend::Node;
using backend::Recording;

namespace {

/// What the fused node does when the kernel declines at replay (the reference
/// kernels were switched on): the two ops, in the convolution output's own buffer.
void mask_argmax(const Tensor& pooled, Tensor& argmax) {
  if (argmax.size() == 0) return;  // inference: nothing wrote or reads it
  const auto* o = static_cast<const float*>(pooled.raw_data());
  auto* a = static_cast<int32_t*>(argmax.raw_data());
  for (int64_t i = 0; i < pooled.size(); ++i)
    if (!(o[i] > 0.f)) a[i] = -1;
}

struct Readers {
  std::map<const Storage*, std::vector<std::size_t>> of;
  explicit Readers(const std::vector<Node>& nodes) {
    for (std::size_t j = 0; j < nodes.size(); ++j)
      for (const auto& in : nodes[j].inputs) {
        auto& r = of[storage_of(in)];
        if (r.empty() || r.back() != j) r.push_back(j);
      }
  }
  const std::vector<std::size_t>& operator()(const Tensor& t) {
    return of[storage_of(t)];
  }
};

bool written_between(const std::vector<Node>& nodes, std::size_t from, std::size_t to, const std::vector<Tensor>& ts) {
  for (std::size_t j = from + 1; j < to; ++j) {
    if (nodes[j].host && nodes[j].opaque) return true;
    for (const auto& t : ts)
      if (writes(nodes[j], t)) return true;
  }
  return false;
}


/// The pool gradient `m` (written for the kernel gradient `j` alone) joins `j`:
/// the convolution-sized gradient is then never written. A product that only
/// feeds `m` (a dropout's mask applied to the gradient) joins too.
void fuse_pool_gradient(std::vector<Node>& nodes, Readers& readers, const std::set<const Storage*>& kept,
                        std::vector<bool>& erased, std::size_t m, std::size_t j, const Tensor& argmax,
                        backend::Backend& be) {
  const Tensor dx = nodes[m].outputs[0];
  if (kept.count(storage_of(dx)) || readers(dx) != std::vector<std::size_t>{j}) return;
  Tensor dpool = nodes[m].inputs[0];
  std::optional<Tensor> scale;
  std::size_t first = m;
  for (std::size_t k = m; k-- > 0;) {  // the node that wrote dpool, if a plain product of two same-size operands
    const Node& w = nodes[k];
    if (!writes(w, dpool)) continue;
    const bool product = w.type == "Mul" && !erased[k] && w.inputs.size() == 2 && w.outputs.size() == 1 &&
                         w.inputs[0].size() == dpool.size() && w.inputs[1].size() == dpool.size() &&
                         w.inputs[0].dtype() == DType::float32 && w.inputs[1].dtype() == DType::float32 &&
                         !kept.count(storage_of(dpool)) && readers(dpool) == std::vector<std::size_t>{m} &&
                         !written_between(nodes, k, j, w.inputs);
    if (product) {
      first = k;
      scale = w.inputs[1];
      dpool = w.inputs[0];
    }
    break;
  }
  if (written_between(nodes, m, j, {nodes[m].inputs[0], argmax})) return;
  Node& g = nodes[j];
  const Tensor x = g.inputs[0];
  g.type = "Conv2DBiasReluMaxPoolBackpropFilter";
  g.inputs = {x, dpool, argmax};
  if (scale) g.inputs.push_back(*scale);
  g.params.pool = nodes[m].params.pool;
  g.run = [&be, x, dpool, scale, argmax, cp = g.params.conv, pp = g.params.pool, dw = g.outputs[0],
           db = g.outputs[1], pool_run = nodes[m].run, filter_run = g.run, product_run = nodes[first].run,
           multiplied = first != m]() mutable {
    if (be.conv2d_bias_relu_max_pool_backward_filter(x, dpool, scale ? &*scale : nullptr, argmax, cp, pp, dw, db))
      return;
    if (multiplied) product_run();
    pool_run();
    filter_run();
  };
  erased[m] = true;
  erased[first] = true;
}

}  // namespace

int fuse_conv_pool(Recording& rec, const std::vector<Tensor>& outputs) {
  auto& nodes = rec.nodes();
  Readers readers(nodes);
  std::set<const Storage*> kept;
  for (const auto& t : outputs)
    if (t.defined()) kept.insert(storage_of(t));
  std::vector<bool> erased(nodes.size(), false);
  int fused = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node& conv = nodes[i];
    if (conv.type != "Conv2DBiasRelu" || conv.inputs.size() != 3 || conv.outputs.size() != 1) continue;
    const Tensor y = conv.outputs[0];
    if (y.dtype() != DType::float32 || kept.count(storage_of(y))) continue;
    // y's readers: one max pool, and kernel gradients that mask by it.
    std::size_t pool = nodes.size();
    std::vector<std::size_t> filters;
    bool ok = true;
    for (std::size_t j : readers(y)) {
      const Node& r = nodes[j];
      if (r.type == "MaxPoolWithArgmax" && pool == nodes.size()) pool = j;
      else if (r.type == "Conv2DBiasBackpropFilter" && r.params.flag_a && r.inputs.size() == 3 &&
               storage_of(r.inputs[2]) == storage_of(y) && storage_of(r.inputs[1]) != storage_of(y))
        filters.push_back(j);
      else ok = false;
    }
    if (!ok || pool == nodes.size()) continue;
    const Node& mp = nodes[pool];
    Tensor pooled = mp.outputs[0], argmax = mp.outputs[1];
    if (kept.count(storage_of(argmax))) continue;
    // The argmax feeds only pool gradients, whose outputs are what the filters mask.
    std::map<const Storage*, std::size_t> pool_grad_writer;
    for (std::size_t j : readers(argmax)) {
      const Node& r = nodes[j];
      if (r.type != "MaxPoolGradWithArgmax" || r.inputs.size() != 2 || storage_of(r.inputs[1]) != storage_of(argmax) ||
          storage_of(r.inputs[0]) == storage_of(argmax))
        ok = false;
      else pool_grad_writer[storage_of(r.outputs[0])] = j;
    }
    for (std::size_t j : filters) ok = ok && pool_grad_writer.count(storage_of(nodes[j].inputs[1])) > 0;
    backend::Backend& be = backend::backend_for(y.device());
    if (!ok || written_between(nodes, i, pool, conv.inputs) ||
        !be.has_conv2d_bias_relu_max_pool(conv.params.conv, mp.params.pool, y.dtype(), false))
      continue;

    Node f;
    f.type = "Conv2DBiasReluMaxPool";
    f.inputs = conv.inputs;
    f.outputs = mp.outputs;
    f.params.conv = conv.params.conv;
    f.params.pool = mp.params.pool;
    f.params.flag_a = true;
    backend::copy_node_layer(f, conv);
    Tensor positions = readers(argmax).empty() ? Tensor() : argmax;  // none read in inference: left unwritten
    f.run = [&be, x = conv.inputs[0], w = conv.inputs[1], b = conv.inputs[2], cp = conv.params.conv,
             pp = mp.params.pool, pooled, argmax, positions, conv_run = conv.run, pool_run = mp.run]() mutable {
      if (be.conv2d_bias_relu_max_pool(x, w, b, cp, pp, pooled, positions)) return;
      conv_run();
      pool_run();
      mask_argmax(pooled, argmax);
    };
    for (std::size_t j : filters) {
      Node& g = nodes[j];
      g.inputs.pop_back();  // y: the gradient arrives masked
      g.params.flag_a = false;
      g.run = [&be, x = g.inputs[0], dy = g.inputs[1], p = g.params.conv, dw = g.outputs[0],
               db = g.outputs[1]]() mutable { be.conv2d_bias_backward_filter(x, dy, dy, false, p, dw, db); };
      if (be.has_conv2d_bias_relu_max_pool(f.params.conv, f.params.pool, y.dtype(), true))
        fuse_pool_gradient(nodes, readers, kept, erased, pool_grad_writer.at(storage_of(g.inputs[1])), j, argmax, be);
    }
    nodes[pool] = std::move(f);
    erased[i] = true;
    ++fused;
  }
  std::vector<Node> out;
  out.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (!erased[i]) out.push_back(std::move(nodes[i]));
  nodes = std::move(out);
  return fused;
}

}  // namespace kiln::graph
