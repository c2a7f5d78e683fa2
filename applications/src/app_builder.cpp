// The parts of keras.applications' imagenet_utils that builders share.
#include "app_builder.h"

#include <charconv>
#include <cmath>

#include "kiln/core/error.h"

namespace kiln::applications::detail {

namespace L = kiln::layers;

Shape obtain_input_shape(const std::string& cls, const ApplicationOptions& o, int64_t default_size, int64_t min_size) {
  if (o.weights == "imagenet")
    throw ValueError(cls + ": weights=\"imagenet\" needs the file Keras downloads; pass its path as `weights` "
                     "(Kiln reads Keras's .h5 and .weights.h5 files)");
  Shape s;
  if (o.input_shape) {
    s = *o.input_shape;
    if (s.rank() != 3)
      throw ValueError(cls + ": `input_shape` must be a tuple of three integers. Received: input_shape=" +
                       s.to_string());
    if ((s[0] >= 0 && s[0] < min_size) || (s[1] >= 0 && s[1] < min_size))
      throw ValueError(cls + ": Input size must be at least " + std::to_string(min_size) + "x" +
                       std::to_string(min_size) + "; Received: input_shape=" + s.to_string());
  } else {
    s = o.include_top ? Shape{default_size, default_size, 3} : Shape{None, None, 3};
  }
  if (o.include_top && (s[0] < 0 || s[1] < 0 || s[2] < 0))
    throw ValueError(cls + ": If `include_top` is True, you should specify a static `input_shape`. Received: "
                     "input_shape=" + s.to_string());
  if (o.pooling != "" && o.pooling != "avg" && o.pooling != "max")
    throw ValueError(cls + ": `pooling` must be \"\" (None), \"avg\" or \"max\". Received: pooling=\"" + o.pooling +
                     "\"");
  return s;
}

ModelPtr make_model(const Tensor& input, const Tensor& output, const ApplicationOptions& o,
                    const std::string& default_name) {
  auto model = std::make_shared<Model>(input, output, LayerOptions{.name = o.name.empty() ? default_name : o.name});
  if (!o.weights.empty()) model->load_weights(o.weights);
  return model;
}

ModelPtr finish(const Tensor& input, Tensor x, const ApplicationOptions& o, const std::string& default_name,
                const TopNames& names) {
  if (o.include_top) {
    x = L::GlobalAveragePooling2D({.name = names.top})(x);
    const std::string act = o.classifier_activation.empty() ? "linear" : o.classifier_activation;
    x = L::Dense(o.classes, {.activation = act, .name = "predictions"})(x);
  } else if (o.pooling == "avg") {
    x = L::GlobalAveragePooling2D({.name = names.avg_pool})(x);
  } else if (o.pooling == "max") {
    x = L::GlobalMaxPooling2D({.name = names.max_pool})(x);
  }
  return make_model(input, x, o, default_name);
}

std::pair<L::Size2, L::Size2> correct_pad(const Tensor& x, int kernel) {
  const Shape& s = x.shape();
  // Keras looks at the height alone to tell an unknown size: then both sides take the extra row or column.
  const int adjust_h = s[1] < 0 ? 1 : 1 - static_cast<int>(s[1] % 2);
  const int adjust_w = s[1] < 0 || s[2] < 0 ? 1 : 1 - static_cast<int>(s[2] % 2);
  const int correct = kernel / 2;
  return {L::Size2(correct - adjust_h, correct), L::Size2(correct - adjust_w, correct)};
}

std::string number_text(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

}  // namespace kiln::applications::detail
