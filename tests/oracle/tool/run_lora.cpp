// LoRA both ways (tests/oracle/oracle_lora.py): Kiln fine-tunes a Keras model
// with LoRA adapters and saves it, and loads Keras's fine-tuned file.
#include "kiln/kiln.h"
#include "oracle_io.h"

namespace oracle {

namespace {

std::shared_ptr<kiln::layers::LoraLayer> lora_layer(const kiln::Model& model, const std::string& name) {
  auto layer = std::dynamic_pointer_cast<kiln::layers::LoraLayer>(model.get_layer(name));
  if (!layer) throw std::runtime_error("layer '" + name + "' takes no LoRA adapter");
  return layer;
}

kiln::Tensor abs_sum(const kiln::Variable& v) { return kiln::sum(kiln::abs(v.value())); }

// {"op": "finetune", "base", "x", "y", "lr", "steps", "rank", "save",
//  "lora": [{"layer", "alpha" (null: the rank), "a"}]}: loads base, enables LoRA on
// each layer with A set, fits `steps` SGD steps on the one batch (mse); writes the
// losses, the prediction, A and B of each layer and whether its kernel moved.
void finetune_case(const Group& g, const json& c) {
  auto model = kiln::models::load_model((g.dir() / c.at("base").get<std::string>()).string());
  std::vector<std::shared_ptr<kiln::layers::LoraLayer>> layers;
  std::vector<kiln::Tensor> kernels;
  for (const auto& l : c.at("lora")) {
    auto layer = lora_layer(*model, l.at("layer"));
    kiln::layers::LoraOptions o;
    if (!l.at("alpha").is_null()) o.lora_alpha = l.at("alpha").get<double>();
    layer->enable_lora(c.at("rank").get<int>(), o);
    layer->lora_kernel_a().assign(g.array(l.at("a")));
    for (const auto& v : layer->own_variables())
      if (!v.trainable()) kernels.push_back(v.value().clone());
    layers.push_back(layer);
  }
  model->compile({.optimizer = kiln::optimizers::SGD({.learning_rate = c.at("lr").get<double>()}), .loss = "mse"});
  const kiln::Tensor x = g.array(c.at("x"));
  kiln::History h = model->fit(x, g.array(c.at("y")),
                               {.batch_size = static_cast<int>(x.shape()[0]), .epochs = c.at("steps").get<int>(),
                                .verbose = 0, .shuffle = false});
  g.save(c, "losses", kiln::Tensor(h["loss"], {static_cast<int64_t>(h["loss"].size())}));
  g.save(c, "pred", model->predict(x, {.verbose = 0}));
  std::size_t k = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    g.save(c, "a" + std::to_string(i), layers[i]->lora_kernel_a().value());
    g.save(c, "b" + std::to_string(i), layers[i]->lora_kernel_b().value());
    double moved = 0;
    for (const auto& v : layers[i]->own_variables())
      if (!v.trainable()) moved += kiln::sum(kiln::abs(v.value() - kernels[k++])).item<double>();
    g.save(c, "kernel_moved" + std::to_string(i), kiln::Tensor(moved));
  }
  model->save((g.dir() / c.at("save").get<std::string>()).string());
}

// {"op": "load", "path", "x", "layers"}: the prediction, and per layer its rank,
// alpha and |A| + |B| (zero after a load).
void load_case(const Group& g, const json& c) {
  auto model = kiln::models::load_model((g.dir() / c.at("path").get<std::string>()).string());
  g.save(c, "pred", model->predict(g.array(c.at("x")), {.verbose = 0}));
  int i = 0;
  for (const auto& name : c.at("layers")) {
    auto layer = lora_layer(*model, name);
    if (!layer->lora_enabled()) throw std::runtime_error("layer '" + name.get<std::string>() + "' has no LoRA");
    const double ab = (abs_sum(layer->lora_kernel_a()) + abs_sum(layer->lora_kernel_b())).item<double>();
    g.save(c, "lora" + std::to_string(i++),
           kiln::Tensor(std::vector<double>{static_cast<double>(*layer->lora_rank()), *layer->lora_alpha(), ab}, {3}));
  }
}

}  // namespace

int run_lora(const Group& g) {
  g.for_each_case([&](const json& c) {
    if (c.at("op") == "finetune") finetune_case(g, c);
    else load_case(g, c);
  });
  return 0;
}

}  // namespace oracle
