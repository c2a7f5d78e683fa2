// Sequential: layers applied in order. Built eagerly when the input shape is
// known (an Input first, or input_shape on the first layer), else on first data.
#include "kiln/training/sequential.h"

#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "nn/call_context.h"

namespace kiln {

Sequential::Sequential(std::vector<LayerPtr> layers, LayerOptions o) : Model(std::move(o)) {
  for (auto& l : layers) add(std::move(l));
}

void Sequential::add(LayerPtr layer) {
  if (!layer) throw ValueError("Sequential.add(): received a null layer");
  if (auto in = std::dynamic_pointer_cast<InputLayerImpl>(layer)) {
    if (!layers_.empty() || input_layer_)
      throw ValueError("Sequential.add(): an Input can only be the first element of model '" + name() + "'");
    input_layer_ = in;
    build_from(in->batch_shape());
    return;
  }
  for (const auto& l : layers_)
    if (l->name() == layer->name())
      throw ValueError("All layers added to a Sequential model should have unique names. Name '" + layer->name() +
                       "' is already the name of a layer in model '" + name() + "'");
  layers_.push_back(layer);
  track_layer(layer);
  if (layers_.size() == 1 && !input_layer_ && layer->declared_input_shape) {
    input_layer_ = std::make_shared<InputLayerImpl>(layer->declared_input_shape->slice(1));
    output_shapes_.clear();
    built_ = false;
    build_from(*layer->declared_input_shape);
    return;
  }
  if (built_) {
    // Extend the built stack with the new layer's output shape.
    Shape prev = output_shapes_.empty() ? *build_shape_ : output_shapes_.back();
    try {
      layer->build_for(prev);
      output_shapes_.push_back(layer->compute_output_shape(prev));
    } catch (const ShapeError&) {
      layers_.pop_back();
      throw;
    }
  }
}

void Sequential::pop() {
  if (layers_.empty()) throw ValueError("Sequential.pop(): there are no layers in model '" + name() + "'");
  LayerPtr l = layers_.back();
  layers_.pop_back();
  if (!output_shapes_.empty()) output_shapes_.pop_back();
  auto& subs = sublayers_;
  subs.erase(std::remove(subs.begin(), subs.end(), l), subs.end());
}

std::vector<LayerPtr> Sequential::layers() const { return layers_; }

void Sequential::build_from(const Shape& batch_shape) {
  build_shape_ = batch_shape;
  // Keras's first build adds an InputLayer with an automatic name, counted with every other input's.
  if (!input_layer_ && built_input_name_.empty()) built_input_name_ = unique_name("input_layer");
  output_shapes_.clear();
  Shape s = batch_shape;
  for (auto& l : layers_) {
    l->build_for(s);
    s = l->compute_output_shape(s);
    output_shapes_.push_back(s);
  }
  mark_built();
}

void Sequential::build(const Shape& input_shape) {
  Shape s = input_shape;
  if (s.rank() > 0) s.dims()[0] = None;
  build_from(s);
}

Tensor Sequential::call(const Tensor& x, bool training) {
  if (layers_.empty()) throw ValueError("Sequential model '" + name() + "' has no layers");
  // Shape mismatches are reported by the first layer whose input spec fails,
  // naming that layer, as tf.keras does.
  Tensor h = x;
  if (is_floating(dtype()) && !is_floating(h.dtype())) h = h.cast(dtype());
  // As Keras's Sequential: its own resolved training when it has one, else each layer's default.
  const std::optional<bool> own = detail::own_training(training);
  for (auto& l : layers_) h = (*l)(h, detail::training_for_sublayer(own, std::nullopt, *l));
  return h;
}

std::vector<Tensor> Sequential::call(const std::vector<Tensor>& xs, bool training) {
  if (xs.size() != 1)
    throw ValueError("Sequential model '" + name() + "' takes one input, but received " + std::to_string(xs.size()));
  return {call(xs[0], training)};
}

std::vector<Shape> Sequential::compute_output_shape(const std::vector<Shape>& input_shapes) {
  Shape s = input_shapes.at(0);
  for (auto& l : layers_) {
    l->build_for(s);
    s = l->compute_output_shape(s);
  }
  return {s};
}

std::vector<std::pair<LayerPtr, std::string>> Sequential::summary_rows() const {
  std::vector<std::pair<LayerPtr, std::string>> rows;
  for (std::size_t i = 0; i < layers_.size(); ++i)
    rows.emplace_back(layers_[i], i < output_shapes_.size() ? output_shapes_[i].to_string() : std::string("multiple"));
  return rows;
}

}  // namespace kiln
