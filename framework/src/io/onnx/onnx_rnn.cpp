// A recurrence over a sequence (SimpleRNN, LSTM, GRU) as ONNX's own RNN, LSTM
// or GRU op, so the exported graph keeps the time axis dynamic. Kiln's
// recurrence takes the input already projected (x · kernel + input bias), so
// ONNX's input weight W is a constant matrix that only reorders the gates:
// Keras orders an LSTM's gates i, f, c, o, and ONNX i, o, f, c; GRU's z, r, h
// agree. A recurrence ONNX cannot express (a mask, another activation) is
// written as the ops of its loop instead.
#include <cstring>

#include "io/onnx/onnx_emitters.h"

namespace kiln::io::onnx {

namespace {

std::string onnx_activation(const std::string& keras) {
  if (keras == "tanh") return "Tanh";
  if (keras == "sigmoid") return "Sigmoid";
  if (keras == "relu") return "Relu";
  return "";
}

/// [1, n, n] with a 1 where ONNX's gate j takes Kiln's gate order[j].
TensorData reorder_matrix(const std::vector<int64_t>& order, int64_t units, DType dtype) {
  const int64_t n = static_cast<int64_t>(order.size()) * units;
  TensorData t{"", dtype, {1, n, n}, std::string(static_cast<std::size_t>(n * n) * dtype_size(dtype), '\0')};
  for (std::size_t j = 0; j < order.size(); ++j)
    for (int64_t k = 0; k < units; ++k) {
      const auto row = static_cast<int64_t>(j) * units + k, col = order[j] * units + k;
      const auto at = static_cast<std::size_t>(row * n + col) * dtype_size(dtype);
      if (dtype == DType::float64) {
        const double one = 1;
        std::memcpy(&t.raw[at], &one, 8);
      } else {
        const float one = 1;
        std::memcpy(&t.raw[at], &one, 4);
      }
    }
  return t;
}

}  // namespace

bool emit_recurrence(GraphWriter& w, const Pair& p) {
  const auto& q = p.a.params;
  const std::string act = onnx_activation(q.names.at(0)), rec = onnx_activation(q.names.at(1));
  const DType dtype = p.a.inputs[0].dtype();
  if (q.has_beta || act.empty() || rec.empty() || (dtype != DType::float32 && dtype != DType::float64)) return false;
  const int kind = q.axis;  // RecurrentKind: simple_rnn, lstm, gru
  const std::vector<int64_t> order = kind == 1 ? std::vector<int64_t>{0, 3, 1, 2}
                                     : kind == 2 ? std::vector<int64_t>{0, 1, 2}
                                                 : std::vector<int64_t>{0};
  const int64_t units = w.fixed(p.a.inputs[1].shape()[0], p.b.inputs[1].shape()[0], "a recurrence's units");
  std::vector<int64_t> columns;
  for (int64_t g : order)
    for (int64_t k = 0; k < units; ++k) columns.push_back(g * units + k);
  const std::string x = w.node1("Transpose", {w.in(p, 0)}, {ints_attr("perm", {1, 0, 2})});  // (time, batch, G·units)
  const std::string weights = w.initializer(reorder_matrix(order, units, dtype));
  const std::string kernel = w.node1("Gather", {w.in(p, 1), w.ints(columns)}, {int_attr("axis", 1)});
  const std::string r = w.node1("Unsqueeze", {w.node1("Transpose", {kernel}), w.ints({0})});
  std::size_t at = 2;
  std::string bias;
  if (q.has_gamma) {  // GRU's recurrent bias: ONNX's Rb, beside a zero Wb
    const std::string zeros = w.node1("Expand", {w.scalar(0, dtype), w.ints({3 * units})});
    bias = w.node1("Unsqueeze", {w.node1("Concat", {zeros, w.in(p, at++)}, {int_attr("axis", 0)}), w.ints({0})});
  }
  std::vector<std::string> inputs{x, weights, r, bias, ""};
  for (; at < p.a.inputs.size(); ++at) inputs.push_back(w.node1("Unsqueeze", {w.in(p, at), w.ints({0})}));
  std::vector<Attribute> attrs{int_attr("hidden_size", units)};
  if (kind == 1) attrs.push_back(strings_attr("activations", {rec, act, act}));
  if (kind == 2) {
    attrs.push_back(strings_attr("activations", {rec, act}));
    attrs.push_back(int_attr("linear_before_reset", q.flag_a ? 1 : 0));
  }
  if (kind == 0) attrs.push_back(strings_attr("activations", {act}));
  const auto outs = w.node(kind == 1 ? "LSTM" : kind == 2 ? "GRU" : "RNN", inputs, attrs, kind == 1 ? 3 : 2);
  const std::string seq = w.node1("Squeeze", {outs[0], w.ints({1})});  // (time, batch, units)
  w.set(p, 0, w.node1("Transpose", {seq}, {ints_attr("perm", {1, 0, 2})}), dtype);
  for (std::size_t k = 1; k < outs.size() && k < p.a.outputs.size(); ++k)
    w.set(p, k, w.node1("Squeeze", {outs[k], w.ints({0})}), dtype);
  return true;
}

}  // namespace kiln::io::onnx
