// ONNX's RNN, LSTM and GRU ops run as Kiln's fused recurrence: the input
// weights project the whole sequence in one matmul, the gates go back into
// Keras's order, and the recurrence differentiates like a Keras layer's.
#include <algorithm>

#include "io/onnx/onnx_runner.h"
#include "kiln/kiln.h"
#include "kiln/ops/recurrent_ops.h"

namespace kiln::io::onnx {

namespace {

std::string keras_activation(const OpContext& c, const std::string& onnx) {
  if (onnx == "Tanh") return "tanh";
  if (onnx == "Sigmoid") return "sigmoid";
  if (onnx == "Relu") return "relu";
  c.fail("activation '" + onnx + "' is not supported");
}

std::vector<std::string> activations(const OpContext& c, std::vector<std::string> fallback) {
  for (const auto& a : c.node.attributes)
    if (a.name == "activations") return a.strings;
  return fallback;
}

/// Rows of ONNX's gate blocks in Keras's order: LSTM's i, o, f, c become i, f, c, o.
Tensor keras_rows(const Tensor& t, int kind, int64_t units) {
  if (kind != 1) return t;
  std::vector<int64_t> rows;
  for (int64_t g : {0, 2, 3, 1})
    for (int64_t k = 0; k < units; ++k) rows.push_back(g * units + k);
  return gather(t, Tensor(rows, Shape{static_cast<int64_t>(rows.size())}), 0);
}

std::vector<RunValue> recurrent(const OpContext& c, int kind) {
  const int gates = kind == 1 ? 4 : kind == 2 ? 3 : 1;
  const int64_t units = c.attr_int("hidden_size", 0);
  if (c.attr_int("layout", 0) != 0 || c.attr_int("direction", 0) != 0 || units <= 0)
    c.fail("only forward, sequence-first recurrences with hidden_size set are supported");
  for (const auto& a : c.node.attributes)
    if (a.name == "direction" && a.s != "forward") c.fail("direction '" + a.s + "' is not supported");
  if (c.in.size() > 4 && c.in[4]) c.fail("sequence_lens is not supported");
  const Tensor x = transpose(c.tensor(0), {1, 0, 2});  // (batch, time, input)
  const Tensor w = keras_rows(squeeze(c.tensor(1), {0}), kind, units);
  const Tensor r = keras_rows(squeeze(c.tensor(2), {0}), kind, units);
  Tensor projected = matmul(x, w, false, true);
  Tensor recurrent_bias;
  if (c.in.size() > 3 && c.in[3]) {
    const Tensor b = squeeze(c.tensor(3), {0});
    const Tensor wb = keras_rows(b[{Slice(0, gates * units)}], kind, units);
    const Tensor rb = keras_rows(b[{Slice(gates * units, std::nullopt)}], kind, units);
    // GRU with linear_before_reset keeps Rb inside the reset gate's product; elsewhere it is a plain sum.
    if (kind == 2 && c.attr_int("linear_before_reset", 0)) recurrent_bias = rb;
    projected = recurrent_bias.defined() ? projected + wb : projected + (wb + rb);
  }
  const int64_t batch = x.shape()[0];
  std::vector<Tensor> states;
  for (std::size_t i = 5; i < 5 + (kind == 1 ? 2u : 1u); ++i)
    states.push_back(i < c.in.size() && c.in[i] ? squeeze(c.tensor(i), {0}) : zeros({batch, units}, x.dtype()));
  const auto acts = activations(c, kind == 1 ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                   : kind == 2 ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                               : std::vector<std::string>{"Tanh"});
  RecurrenceOptions o{static_cast<RecurrentKind>(kind), keras_activation(c, acts.size() > 1 ? acts[1] : acts[0]),
                      keras_activation(c, acts[0]), kind == 2 && c.attr_int("linear_before_reset", 0) != 0, false};
  if (kind == 1 && acts.size() > 2 && acts[2] != acts[1]) c.fail("LSTM's cell and output activations must agree");
  if (kind == 2 && !o.reset_after) recurrent_bias = Tensor();
  const auto outs = recurrence(projected, transpose(r), recurrent_bias, states, Tensor(), o);
  std::vector<RunValue> result{{expand_dims(transpose(outs[0], {1, 0, 2}), 1), std::nullopt}};
  for (std::size_t k = 1; k < outs.size(); ++k) result.push_back({expand_dims(outs[k], 0), std::nullopt});
  return result;
}

std::vector<int> axes_of(const OpContext& c) {
  std::vector<int64_t> a = c.in.size() > 1 && c.in[1] ? c.ints(1) : c.attr_ints("axes");
  return std::vector<int>(a.begin(), a.end());
}

}  // namespace

void add_recurrent_ops(std::map<std::string, OpImpl>& ops) {
  ops["RNN"] = [](const OpContext& c) { return recurrent(c, 0); };
  ops["LSTM"] = [](const OpContext& c) { return recurrent(c, 1); };
  ops["GRU"] = [](const OpContext& c) { return recurrent(c, 2); };
  ops["Squeeze"] = [](const OpContext& c) {
    return std::vector<RunValue>{{squeeze(c.tensor(0), axes_of(c)), std::nullopt}};
  };
  ops["Unsqueeze"] = [](const OpContext& c) {
    Tensor t = c.tensor(0);
    std::vector<int> axes = axes_of(c);
    std::sort(axes.begin(), axes.end());
    for (int a : axes) t = expand_dims(t, a);
    return std::vector<RunValue>{{t, std::nullopt}};
  };
}

}  // namespace kiln::io::onnx
