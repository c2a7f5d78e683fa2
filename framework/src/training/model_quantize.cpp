// Model::quantize: Keras's model.quantize over every quantizable layer.
#include <iostream>
#include <regex>
#include <set>

#include "kiln/core/error.h"
#include "kiln/training/model.h"

namespace kiln {

namespace {

/// The model's layers, nested ones included, each once, in Keras's _flatten_layers order.
void flatten_layers(const LayerPtr& l, std::vector<LayerPtr>& out, std::set<const Layer*>& seen) {
  if (!seen.insert(l.get()).second) return;
  out.push_back(l);
  const auto* m = dynamic_cast<const Model*>(l.get());
  for (const auto& c : m ? m->layers() : l->sublayers()) flatten_layers(c, out, seen);
}

}  // namespace

void Model::quantize(const std::string& mode, const std::optional<quantizers::QuantizationConfig>& config,
                     const std::vector<std::string>& filters) {
  std::vector<std::regex> patterns;
  for (const auto& f : filters) {
    try {
      patterns.emplace_back(f);
    } catch (const std::regex_error& e) {
      throw ValueError("Model.quantize: the filter '" + f + "' is not a valid regular expression (" + e.what() + ")");
    }
  }
  quantize(mode, config, [&](const Layer& l) {
    if (patterns.empty()) return true;
    for (const auto& p : patterns)
      if (std::regex_search(l.name(), p)) return true;
    return false;
  });
}

void Model::quantize(const std::string& mode, const std::optional<quantizers::QuantizationConfig>& config,
                     const std::function<bool(const Layer&)>& filter) {
  const quantizers::QuantizationConfig resolved = quantizers::resolve_config(mode, config, "Model '" + name() + "'");
  if (!built())
    throw ValueError("Model '" + name() + "': the model must be built before it is quantized (call it, or fit, first)");
  std::vector<LayerPtr> layers;
  std::set<const Layer*> seen;
  for (const auto& l : this->layers()) flatten_layers(l, layers, seen);
  bool changed = false;
  for (const auto& l : layers) {
    auto* q = dynamic_cast<quantizers::Quantizable*>(l.get());
    // Keras quantizes leaf layers only: a wrapper's own sublayers are visited themselves.
    if (!q || !l->sublayers().empty() || (filter && !filter(*l))) continue;
    if (!q->supports_quantization()) {
      std::cerr << "WARNING: Layer " << l->class_name() << " does not have a `quantize()` method implemented; '"
                << l->name() << "' stays as it is\n";
      continue;
    }
    q->quantize(resolved.mode, resolved);
    changed = true;
  }
  // The traced steps hold the float kernels; the next call traces again.
  if (changed) compiled_steps_.reset();
}

}  // namespace kiln
