// Layers built from Keras's layer configs, with Keras's weights copied in.
#include <fstream>
#include <optional>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "oracle_io.h"

namespace oracle {

namespace {

bool is_float(const kiln::Tensor& t) {
  return t.dtype() == kiln::DType::float32 || t.dtype() == kiln::DType::float64;
}

/// One output, or (multi_output: return_state) every output flattened and
/// concatenated in order, as the driver compares them.
kiln::Tensor call_layer(kiln::Layer& layer, const std::vector<kiln::Tensor>& xs, bool list_input, bool multi_output,
                        bool training, const kiln::CallKwargs& kwargs) {
  if (!kwargs.empty()) return layer.call_with_kwargs(xs, list_input, kwargs, training).at(0);
  if (multi_output) {
    std::vector<kiln::Tensor> flat;
    for (const kiln::Tensor& y : layer(xs, training)) flat.push_back(kiln::reshape(y, kiln::Shape{y.size()}));
    return kiln::concat(flat, 0);
  }
  if (list_input) return layer(xs, training).at(0);
  return layer(xs.at(0), training);
}

/// The case's call keywords (Keras's layer(x, reverse=True)), each a plain JSON value.
kiln::CallKwargs call_kwargs_of(const json& c) {
  kiln::CallKwargs kw;
  if (c.contains("call_kwargs"))
    for (const auto& [key, value] : c.at("call_kwargs").items()) kw.set(key, kiln::CallArg::value_json(value.dump()));
  return kw;
}

}  // namespace

// {"layer": keras.layers.serialize(...), "inputs": [npy...], "list_input", "multi_output"?,
//  "weights": [npy...] (Keras's layer.weights order), "training",
//  "cotangent": npy, "call_kwargs"?: {keyword: value}}. The layer is built by a first call, given the weights,
// then called under a tape. Writes out, grad_x_<i> for each float input,
// grad_w_<j> for each trainable weight of d sum(out * cotangent), and
// weight_<j> (every weight after the call, so moving statistics compare too).
int run_layers(const Group& g) {
  g.for_each_case([&](const json& c) {
    kiln::LayerPtr layer = kiln::layers::from_config(c.at("layer"));
    const std::vector<kiln::Tensor> xs = g.arrays(c.at("inputs"));
    const bool list_input = c.at("list_input").get<bool>();
    const bool training = c.at("training").get<bool>();
    const bool multi_output = c.value("multi_output", false);
    const kiln::CallKwargs kwargs = call_kwargs_of(c);
    call_layer(*layer, xs, list_input, multi_output, false, kwargs);
    const std::vector<kiln::Tensor> weights = g.arrays(c.at("weights"));
    if (layer->weights().size() != weights.size())
      throw std::runtime_error("Kiln's layer has " + std::to_string(layer->weights().size()) + " weights, Keras's " +
                               std::to_string(weights.size()));
    if (!weights.empty()) layer->set_weights(weights);
    kiln::GradientTape tape({.persistent = true});
    for (const kiln::Tensor& x : xs)
      if (is_float(x)) tape.watch(x);
    const kiln::Tensor out = call_layer(*layer, xs, list_input, multi_output, training, kwargs);
    g.save(c, "out", out);
    // An integer output (Discretization's "int" mode) carries no gradient: its d/d input is zeros, as JAX's.
    const kiln::Tensor cot = g.array(c.at("cotangent"));
    const kiln::Tensor target = kiln::sum((is_float(out) ? out : kiln::cast(out, cot.dtype())) * cot);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      if (!is_float(xs[i])) continue;
      std::optional<kiln::Tensor> gx = tape.gradient(target, xs[i]);
      g.save(c, "grad_x_" + std::to_string(i), gx ? *gx : kiln::zeros(xs[i].shape()));
    }
    const std::vector<kiln::Variable> tw = layer->trainable_weights();
    if (!tw.empty()) {
      auto gw = tape.gradient(target, tw);
      for (std::size_t j = 0; j < tw.size(); ++j)
        g.save(c, "grad_w_" + std::to_string(j), gw[j] ? *gw[j] : kiln::zeros(tw[j].shape()));
    }
    const std::vector<kiln::Variable> all = layer->weights();
    for (std::size_t j = 0; j < all.size(); ++j) g.save(c, "weight_" + std::to_string(j), all[j].value());
    if (c.value("write_dtypes", false)) {  // the policies group compares dtypes too
      std::ofstream f(g.dir() / "out" / c.at("id").get<std::string>() / "dtypes.txt");
      f << "out " << kiln::dtype_name(out.dtype()) << "\n";
      for (std::size_t j = 0; j < all.size(); ++j) f << "weight_" << j << " " << kiln::dtype_name(all[j].dtype()) << "\n";
    }
  });
  return 0;
}

}  // namespace oracle
