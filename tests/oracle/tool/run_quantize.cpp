// int8 quantization both ways (tests/oracle/oracle_quantize.py): Kiln quantizes
// a Keras float model, predicts, differentiates, trains and saves it, and loads
// Keras's quantized files.
#include "kiln/kiln.h"
#include "oracle_io.h"

namespace oracle {

namespace {

// {"op": "quantize", "path", "x", "y", "mode", "config" (null: the mode's default; else
// {"mode", "weight_only"} or {"mode", "block_size"}), "filters" (null: all), "save", "layers"}:
// per layer (a MultiHeadAttention: its query projection) whether it was quantized, its quantized kernel, scale and zero points; the prediction,
// the gradient of sum(pred · [1, 2, 3, 4]) by x, the prediction of the saved file loaded
// again, three SGD steps' losses and the prediction after them.
void quantize_case(const Group& g, const json& c) {
  auto model = kiln::models::load_model((g.dir() / c.at("path").get<std::string>()).string());
  std::optional<kiln::quantizers::QuantizationConfig> config;
  if (const json& k = c.at("config"); !k.is_null()) {
    if (k.at("mode") == "int4") config = kiln::quantizers::int4_config(k.at("block_size").get<int>());
    else if (k.value("weight_only", false)) config = kiln::quantizers::QuantizationConfig{.activation_quantizer = std::nullopt};
  }
  std::vector<std::string> filters;
  if (!c.at("filters").is_null()) filters = c.at("filters").get<std::vector<std::string>>();
  model->quantize(c.at("mode").get<std::string>(), config, filters);
  int i = 0;
  for (const auto& name : c.at("layers")) {
    auto layer = model->get_layer(name.get<std::string>());
    // A MultiHeadAttention stands in by its query projection, the first of its EinsumDense sublayers.
    if (std::dynamic_pointer_cast<kiln::layers::MultiHeadAttentionImpl>(layer)) layer = layer->sublayers().at(0);
    kiln::Variable kernel, scale, zero;
    if (auto d = std::dynamic_pointer_cast<kiln::layers::DenseImpl>(layer))
      kernel = d->kernel(), scale = d->kernel_scale(), zero = d->kernel_zero();
    else if (auto e = std::dynamic_pointer_cast<kiln::layers::EmbeddingImpl>(layer))
      kernel = e->embeddings(), scale = e->embeddings_scale(), zero = e->embeddings_zero();
    else if (auto ed = std::dynamic_pointer_cast<kiln::layers::EinsumDenseImpl>(layer))
      kernel = ed->kernel(), scale = ed->kernel_scale(), zero = ed->kernel_zero();
    else throw std::runtime_error("layer " + name.get<std::string>() + " is not Dense, EinsumDense or Embedding");
    g.save(c, "quantized" + std::to_string(i), kiln::Tensor(scale.defined() ? 1.0 : 0.0));
    if (scale.defined()) {
      g.save(c, "kernel" + std::to_string(i), kiln::cast(kernel.value(), kiln::int64));
      g.save(c, "scale" + std::to_string(i), scale.value());
      if (zero.defined()) g.save(c, "zero" + std::to_string(i), kiln::cast(zero.value(), kiln::int64));
    }
    if (auto r = std::dynamic_pointer_cast<kiln::layers::ReversibleEmbeddingImpl>(layer);
        r && r->reverse_embeddings_scale().defined()) {
      g.save(c, "reverse_kernel" + std::to_string(i), kiln::cast(r->reverse_embeddings().value(), kiln::int64));
      g.save(c, "reverse_scale" + std::to_string(i), r->reverse_embeddings_scale().value());
      if (r->reverse_embeddings_zero().defined())
        g.save(c, "reverse_zero" + std::to_string(i), r->reverse_embeddings_zero().value());
    }
    ++i;
  }
  const kiln::Tensor x = g.array(c.at("x"));
  g.save(c, "pred", model->predict(x, {.verbose = 0}));
  if (x.dtype() == kiln::float32) {
    kiln::GradientTape tape;
    tape.watch(x);
    const int64_t n = model->outputs()[0].shape()[-1];
    const kiln::Tensor w = kiln::reshape(kiln::range(1, static_cast<double>(n + 1), 1, kiln::float32), {1, n});
    const kiln::Tensor loss = kiln::sum((*model)(x) * w);
    g.save(c, "grad", *tape.gradient(loss, x));
  }
  const std::string saved = (g.dir() / c.at("save").get<std::string>()).string();
  model->save(saved);
  g.save(c, "reloaded", kiln::models::load_model(saved)->predict(x, {.verbose = 0}));
  model->compile({.optimizer = kiln::optimizers::SGD({.learning_rate = 0.05}), .loss = "mse"});
  kiln::History h = model->fit(x, g.array(c.at("y")),
                               {.batch_size = static_cast<int>(x.shape()[0]), .epochs = 3, .verbose = 0, .shuffle = false});
  g.save(c, "losses", kiln::Tensor(h["loss"], {static_cast<int64_t>(h["loss"].size())}));
  g.save(c, "tuned", model->predict(x, {.verbose = 0}));
}

void load_case(const Group& g, const json& c) {
  auto model = kiln::models::load_model((g.dir() / c.at("path").get<std::string>()).string());
  g.save(c, "pred", model->predict(g.array(c.at("x")), {.verbose = 0}));
}

}  // namespace

int run_quantize(const Group& g) {
  g.for_each_case([&](const json& c) {
    if (c.at("op") == "quantize") quantize_case(g, c);
    else load_case(g, c);
  });
  return 0;
}

}  // namespace oracle
