// EinsumDense: einsum(equation, x, kernel) + bias, then the activation.
#include "kiln/layers/einsum_dense.h"

#include <algorithm>
#include <regex>
#include <set>

#include "kiln/ops/einsum.h"
#include "kiln/ops/math_ops.h"
#include "attention_common.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

namespace {

struct Specs {
  std::string input, kernel, output;
  bool left_elided = false;
};

Specs split_equation(const std::string& equation) {
  const std::string s = std::regex_replace(equation, std::regex(R"(\.\.\.)"), "0");
  // Keras's three accepted forms: "ab,bc->ac", "...b,bc->...c" and "ab...,bc->ac...".
  static const std::regex plain("^([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)");
  static const std::regex left("^0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)");
  static const std::regex right("^([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0");
  std::smatch m;
  if (std::regex_search(s, m, plain, std::regex_constants::match_continuous)) return {m[1], m[2], m[3], false};
  if (std::regex_search(s, m, left, std::regex_constants::match_continuous)) return {m[1], m[2], m[3], true};
  if (std::regex_search(s, m, right, std::regex_constants::match_continuous)) return {m[1], m[2], m[3], false};
  throw ValueError("Invalid einsum equation '" + equation +
                   "'. Equations must be in the form [X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]....");
}

bool has(const std::string& s, char c) { return s.find(c) != std::string::npos; }

std::string dim_str(int64_t d) { return d < 0 ? "None" : std::to_string(d); }

}  // namespace

EinsumDenseShapes analyze_einsum_dense(const std::string& equation, const std::optional<std::string>& bias_axes,
                                       const Shape& input_shape, const Shape& partial_output) {
  const Specs sp = split_equation(equation);
  const int64_t rank = input_shape.rank();
  const int64_t elided = rank - static_cast<int64_t>(sp.input.size());
  if (elided < 0)
    throw ValueError("EinsumDense: the equation '" + equation + "' names " + std::to_string(sp.input.size()) +
                     " input axes, but the input has shape " + input_shape.to_string());
  std::vector<int64_t> out{input_shape[0]};
  if (elided > 0 && sp.left_elided)
    for (int64_t i = 1; i < elided; ++i) out.push_back(input_shape[i]);
  for (int64_t d : partial_output) out.push_back(d);
  if (elided > 0 && !sp.left_elided)
    for (int64_t i = rank - elided; i < rank; ++i) out.push_back(input_shape[i]);
  const int64_t in_off = sp.left_elided ? elided : 0, out_off = sp.left_elided ? elided : 0;
  auto in_size = [&](char c) { return input_shape[in_off + static_cast<int64_t>(sp.input.find(c))]; };
  auto out_index = [&](char c) { return static_cast<std::size_t>(out_off + static_cast<int64_t>(sp.output.find(c))); };
  if (out.size() != static_cast<std::size_t>(out_off) + sp.output.size() + (sp.left_elided ? 0 : elided))
    throw ValueError("EinsumDense: output_shape " + partial_output.to_string() + " does not fit the output spec '" +
                     sp.output + "' of the equation '" + equation + "' for input shape " + input_shape.to_string());
  for (char c : sp.input) {
    if (!has(sp.output, c)) continue;
    int64_t& o = out[out_index(c)];
    if (o >= 0 && o != in_size(c))
      throw ValueError("Input shape and output shape do not match at shared dimension '" + std::string(1, c) +
                       "'. Input shape is " + dim_str(in_size(c)) + ", and output shape is " + dim_str(o) + ".");
    o = in_size(c);
  }
  for (char c : sp.output)
    if (!has(sp.input, c) && !has(sp.kernel, c))
      throw ValueError("Dimension '" + std::string(1, c) + "' was specified in the output '" + sp.output +
                       "' but has no corresponding dim in the input spec '" + sp.input + "' or weight spec '" +
                       sp.output + "'");
  EinsumDenseShapes r;
  for (std::size_t i = 0; i < sp.kernel.size(); ++i) {
    const char c = sp.kernel[i];
    if (has(sp.output, c)) {
      r.kernel.push_back(out[out_index(c)]);
      r.kernel_output_axes.push_back(static_cast<int>(i));
    } else if (has(sp.input, c)) {
      r.kernel.push_back(in_size(c));
      r.kernel_input_axes.push_back(static_cast<int>(i));
    } else {
      throw ValueError("Weight dimension '" + std::string(1, c) + "' did not have a match in either the input spec '" +
                       sp.input + "' or the output spec '" + sp.output +
                       "'. For this layer, the weight must be fully specified.");
    }
  }
  if (bias_axes) {
    std::size_t first = sp.output.size();
    for (char c : *bias_axes) {
      if (!has(sp.output, c))
        throw ValueError("Bias dimension '" + std::string(1, c) + "' was requested, but is not part of the output spec '" +
                         sp.output + "'");
      first = std::min(first, sp.output.find(c));
    }
    Shape b;
    for (std::size_t i = first; i < sp.output.size(); ++i) b.push_back(has(*bias_axes, sp.output[i]) ? out[out_index(sp.output[i])] : 1);
    if (!sp.left_elided)
      for (int64_t i = 0; i < elided; ++i) b.push_back(1);
    r.bias = b;
  }
  r.output = Shape(out);
  return r;
}

namespace {

/// Python's list.insert(index, value): a negative index counts from the end, and
/// indices past either end clamp.
void python_insert(std::vector<int>& v, int index, int value) {
  const int n = static_cast<int>(v.size());
  if (index < 0) index = std::max(0, index + n);
  v.insert(v.begin() + std::min(index, n), value);
}

/// The equation's three specs with an ellipsis replaced by fresh letters (the unused
/// ones in sorted order: capitals first), as Keras names them for quantization.
Specs named_specs(const std::string& equation, int64_t input_rank) {
  Specs sp = split_equation(equation);
  const int64_t elided = input_rank - static_cast<int64_t>(sp.input.size());
  if (equation.find("...") == std::string::npos || elided <= 0) return sp;
  std::string unused;
  for (char c = 'A'; c <= 'Z'; ++c) unused += c;
  for (char c = 'a'; c <= 'z'; ++c) unused += c;
  std::erase_if(unused, [&](char c) { return has(sp.input, c) || has(sp.kernel, c) || has(sp.output, c); });
  for (int64_t i = 0; i < elided; ++i) {
    const std::string l(1, unused[static_cast<std::size_t>(i)]);
    if (sp.left_elided) sp.input = l + sp.input, sp.output = l + sp.output;
    else sp.input += l, sp.output += l;
  }
  return sp;
}

}  // namespace

EinsumQuantizationAxes analyze_einsum_quantization(const std::string& equation, int64_t input_rank) {
  const Specs sp = named_specs(equation, input_rank);
  EinsumQuantizationAxes q;
  // Keras's analysis keeps one `index` across its loops: a reduced axis that finds no
  // expand axis left is inserted where the previous one went. Kept here so that scales
  // have Keras's shapes.
  int index = 0;
  auto reduced = [&](const std::string& spec, std::vector<int>& out) {
    for (std::size_t i = 0; i < spec.size(); ++i) {
      const std::size_t at = sp.output.find(spec[i]);
      index = at == std::string::npos ? -1 : static_cast<int>(at);
      if (index == -1) out.push_back(static_cast<int>(i));
    }
  };
  reduced(sp.input, q.input_reduced);
  reduced(sp.kernel, q.kernel_reduced);
  for (std::size_t i = 0; i < sp.output.size(); ++i) {
    const char c = sp.output[i];
    if (has(sp.input, c)) q.input_transpose.push_back(static_cast<int>(sp.input.find(c)));
    else q.input_expand.push_back(static_cast<int>(i));
    if (has(sp.kernel, c)) q.kernel_transpose.push_back(static_cast<int>(sp.kernel.find(c)));
    else q.kernel_expand.push_back(static_cast<int>(i));
  }
  auto place = [&index](const std::vector<int>& reduced, std::vector<int>& expand, std::vector<int>& transpose,
                        std::vector<int>& squeeze) {
    for (int axis : reduced) {
      if (expand.empty()) {
        squeeze.push_back(axis);
      } else {
        index = expand.front();
        expand.erase(expand.begin());
      }
      python_insert(transpose, index, axis);
    }
  };
  place(q.input_reduced, q.input_expand, q.input_transpose, q.input_squeeze);
  place(q.kernel_reduced, q.kernel_expand, q.kernel_transpose, q.kernel_squeeze);
  q.gradient_equation = sp.output + "," + sp.kernel + "->" + sp.input;
  return q;
}

EinsumDenseImpl::EinsumDenseImpl(std::string equation, Shape output_shape, EinsumDenseOptions o)
    : LoraLayer(base_options(o), o.lora_rank, o.lora_alpha), equation_(std::move(equation)), output_shape_(std::move(output_shape)), o_(std::move(o)) {
  split_equation(equation_);  // a malformed equation fails here, not at the first call
  activation_ = activations::get(o_.activation);
  if (o_.activation.empty()) o_.activation = "linear";
  activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
}

namespace {
/// Keras gives a variance-scaling kernel initializer the kernel's input and
/// output axes, so its fans count the contracted and the produced sizes.
InitializerArg with_fan_axes(const InitializerArg& arg, const EinsumDenseShapes& s) {
  static const std::set<std::string> scaling = {"VarianceScaling", "GlorotUniform", "GlorotNormal", "HeUniform",
                                                "HeNormal",        "LecunUniform",  "LecunNormal"};
  const auto init = arg.resolve();
  Config c = initializers::serialize(*init);
  if (!scaling.count(c.value("class_name", ""))) return arg;
  Config& cc = c["config"];
  const bool given = cc.contains("input_axes") && !cc["input_axes"].is_null() && cc.contains("output_axes") &&
                     !cc["output_axes"].is_null();
  if (given) return arg;
  cc["input_axes"] = s.kernel_input_axes;
  cc["output_axes"] = s.kernel_output_axes;
  return initializers::from_config(c);
}
}  // namespace

void EinsumDenseImpl::build(const Shape& s) {
  const EinsumDenseShapes shapes = analyze_einsum_dense(equation_, o_.bias_axes, s, output_shape_);
  for (int64_t d : shapes.kernel)
    if (d < 0)
      throw ValueError("Layer '" + name() + "' (EinsumDense): the kernel shape " + shapes.kernel.to_string() +
                       " is not fully defined for input shape " + s.to_string() + " and output_shape " +
                       output_shape_.to_string());
  input_rank_ = s.rank();
  if (!dtype_policy().quantization_mode().empty()) {
    // A quantized layer from a config: Keras's _int8_build or _int4_build, filled by the weights that follow.
    o_.quantization_config = quantizers::quantized_build_config(*this, o_.quantization_config);
    build_quantized(shapes.kernel);
  } else {
    kernel_ = add_weight("kernel", shapes.kernel,
                         {.initializer = with_fan_axes(o_.kernel_initializer, shapes),
                          .regularizer = o_.kernel_regularizer, .constraint = o_.kernel_constraint});
  }
  if (shapes.bias)
    bias_ = add_weight("bias", *shapes.bias,
                       {.initializer = o_.bias_initializer, .regularizer = o_.bias_regularizer,
                        .constraint = o_.bias_constraint});
  set_input_spec({InputSpec{.ndim = s.rank()}});
  build_lora(true);
}

LoraLayer::LoraBase EinsumDenseImpl::lora_base() const {
  return {kernel_, o_.kernel_regularizer, o_.kernel_constraint != nullptr, "kernel"};
}

Tensor EinsumDenseImpl::call(const Tensor& input, bool) {
  const Tensor x = cast_to_compute(input, compute_dtype());
  Tensor y = kernel_scale_.defined() ? quantized_einsum(x) : einsum(equation_, {x, kernel_with_lora()});
  if (bias_.defined()) y = add(y, bias_.value());
  return activation_(y);
}

Shape EinsumDenseImpl::compute_output_shape(const Shape& s) {
  return analyze_einsum_dense(equation_, o_.bias_axes, s, output_shape_).output;
}

Config EinsumDenseImpl::get_config() const {
  Config c = layer_config(*this);
  write_lora_config(c);
  return c;
}

Config EinsumDenseImpl::upgrade_entry(const Config& e) { return output_shape_as_list(e); }

KILN_REGISTER_LAYER(EinsumDenseImpl, "EinsumDense")

}  // namespace kiln::layers
