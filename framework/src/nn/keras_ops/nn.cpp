// keras.ops' neural-network functions by name (kiln/ops/keras_nn_ops.h); the ops_nn
// oracle group (tests/oracle/oracle_ops_nn.py) compares them with Keras.
#include <optional>
#include <string>
#include <vector>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/fft_ops.h"
#include "kiln/ops/keras_nn_ops.h"
#include "nn/keras_op_table.h"

namespace kiln::detail::keras_ops_nn {

using namespace keras_op_api;

namespace {

using kiln::Tensor;

// An int or a list of ints (Keras's strides, dilation_rate, pool_size, ...).
std::vector<int64_t> ints(const json& p, const char* key, std::vector<int64_t> fallback) {
  if (!p.contains(key) || p.at(key).is_null()) return fallback;
  if (p.at(key).is_array()) return p.at(key).get<std::vector<int64_t>>();
  return {p.at(key).get<int64_t>()};
}

std::vector<int> axes(const json& p, std::vector<int> fallback) {
  if (!p.contains("axis") || p.at("axis").is_null()) return fallback;
  if (p.at("axis").is_array()) return p.at("axis").get<std::vector<int>>();
  return {p.at("axis").get<int>()};
}

std::optional<double> optional_double(const json& p, const char* key) {
  if (!p.contains(key) || p.at(key).is_null()) return std::nullopt;
  return p.at(key).get<double>();
}

kiln::ConvArgs conv_args(const json& p) {
  return {ints(p, "strides", {1}), param(p, "padding", std::string("valid")),
          param(p, "data_format", std::string("channels_last")), ints(p, "dilation_rate", {1})};
}

kiln::PoolArgs pool_args(const json& p) {
  return {ints(p, "strides", {}), param(p, "padding", std::string("valid")),
          param(p, "data_format", std::string("channels_last"))};
}

Tensor nth(const Inputs& x, std::size_t i) { return i < x.size() ? x[i] : Tensor(); }

const OpEntries entries{
    {"conv", [](const Inputs& x, const json& p) { return Outputs{kiln::conv(x[0], x[1], conv_args(p))}; }},
    {"depthwise_conv",
     [](const Inputs& x, const json& p) { return Outputs{kiln::depthwise_conv(x[0], x[1], conv_args(p))}; }},
    {"separable_conv",
     [](const Inputs& x, const json& p) { return Outputs{kiln::separable_conv(x[0], x[1], x[2], conv_args(p))}; }},
    {"conv_transpose",
     [](const Inputs& x, const json& p) {
       kiln::ConvTransposeArgs a{ints(p, "strides", {1}), param(p, "padding", std::string("valid")), std::nullopt,
                                 param(p, "data_format", std::string("channels_last")), ints(p, "dilation_rate", {1})};
       if (p.contains("output_padding") && !p.at("output_padding").is_null()) a.output_padding = ints(p, "output_padding", {});
       return Outputs{kiln::conv_transpose(x[0], x[1], a)};
     }},
    {"max_pool",
     [](const Inputs& x, const json& p) { return Outputs{kiln::max_pool(x[0], ints(p, "pool_size", {}), pool_args(p))}; }},
    {"average_pool",
     [](const Inputs& x, const json& p) {
       return Outputs{kiln::average_pool(x[0], ints(p, "pool_size", {}), pool_args(p))};
     }},
    {"adaptive_average_pool",
     [](const Inputs& x, const json& p) {
       return Outputs{kiln::adaptive_average_pool(x[0], ints(p, "output_size", {}),
                                                  param(p, "data_format", std::string("channels_last")))};
     }},
    {"adaptive_max_pool",
     [](const Inputs& x, const json& p) {
       return Outputs{kiln::adaptive_max_pool(x[0], ints(p, "output_size", {}),
                                              param(p, "data_format", std::string("channels_last")))};
     }},
    {"batch_normalization",
     [](const Inputs& x, const json& p) {
       return Outputs{kiln::batch_normalization(x[0], x[1], x[2], arg(p, 0, -1), nth(x, 3), nth(x, 4),
                                                param(p, "epsilon", 1e-3))};
     }},
    {"layer_normalization",
     [](const Inputs& x, const json& p) {
       return Outputs{kiln::layer_normalization(x[0], nth(x, 1), nth(x, 2), axes(p, {-1}), optional_double(p, "epsilon"))};
     }},
    {"rms_normalization",
     [](const Inputs& x, const json& p) {
       return Outputs{kiln::rms_normalization(x[0], nth(x, 1), axes(p, {-1}), optional_double(p, "epsilon"))};
     }},
    {"binary_crossentropy",
     [](const Inputs& x, const json& p) {
       return Outputs{kiln::binary_crossentropy(x[0], x[1], param(p, "from_logits", false))};
     }},
    {"categorical_crossentropy",
     [](const Inputs& x, const json& p) {
       return Outputs{kiln::categorical_crossentropy(x[0], x[1], param(p, "from_logits", false), param(p, "axis", -1))};
     }},
    {"sparse_categorical_crossentropy",
     [](const Inputs& x, const json& p) {
       return Outputs{
           kiln::sparse_categorical_crossentropy(x[0], x[1], param(p, "from_logits", false), param(p, "axis", -1))};
     }},
    {"multi_hot",
     [](const Inputs& x, const json& p) {
       return Outputs{kiln::multi_hot(x[0], param(p, "num_classes", int64_t{0}), param(p, "axis", -1),
                                      kiln::dtype_from_name(param(p, "dtype", std::string("float32"))))};
     }},
    {"psnr", [](const Inputs& x, const json& p) { return Outputs{kiln::psnr(x[0], x[1], param(p, "max_val", 1.0))}; }},
    {"sparsemax", [](const Inputs& x, const json& p) { return Outputs{kiln::sparsemax(x[0], param(p, "axis", -1))}; }},
    {"polar",
     [](const Inputs& x, const json&) {
       auto [re, im] = kiln::polar(x[0], x[1]);
       return Outputs{re, im};
     }},
    {"kaiser",
     [](const Inputs&, const json& p) { return Outputs{kiln::kaiser(arg(p, 0, int64_t{0}), arg(p, 1, 0.0))}; }},
    {"saturate_cast",
     [](const Inputs& x, const json& p) {
       return Outputs{kiln::saturate_cast(x[0], kiln::dtype_from_name(arg(p, 0, std::string("float32"))))};
     }},
    {"ctc_loss",
     [](const Inputs& x, const json& p) {
       return Outputs{kiln::ctc_loss(x[0], x[1], x[2], x[3], param(p, "mask_index", int64_t{0}))};
     }},
    {"ctc_decode",
     [](const Inputs& x, const json& p) {
       kiln::CtcDecodeArgs a;
       a.strategy = param(p, "strategy", std::string("greedy"));
       a.beam_width = param(p, "beam_width", int64_t{100});
       a.top_paths = param(p, "top_paths", int64_t{1});
       a.merge_repeated = param(p, "merge_repeated", true);
       a.mask_index = p.contains("mask_index") && p.at("mask_index").is_null()
                          ? std::nullopt
                          : std::optional<int64_t>(param(p, "mask_index", int64_t{0}));
       auto [paths, scores] = kiln::ctc_decode(x[0], x[1], a);
       return Outputs{paths, scores};
     }},
    {"extract_sequences",
     [](const Inputs& x, const json& p) {
       return Outputs{kiln::extract_sequences(x[0], arg(p, 0, int64_t{1}), arg(p, 1, int64_t{1}))};
     }},
    {"unfold",
     [](const Inputs& x, const json& p) {
       return Outputs{kiln::unfold(x[0], ints(p, "kernel_size", {}),
                                   {ints(p, "dilation", {1}), ints(p, "padding", {0}), ints(p, "stride", {1})})};
     }},
    {"fold",
     [](const Inputs& x, const json& p) {
       return Outputs{kiln::fold(x[0], ints(p, "output_size", {}), ints(p, "kernel_size", {}),
                                 {ints(p, "dilation", {1}), ints(p, "padding", {0}), ints(p, "stride", {1})})};
     }},
    {"dot_product_attention",
     [](const Inputs& x, const json& p) {
       kiln::AttentionArgs a;
       a.scale = optional_double(p, "scale");
       a.is_causal = param(p, "is_causal", false);
       // After query, key and value: a float bias and / or a bool mask, in that order.
       for (std::size_t i = 3; i < x.size(); ++i) (x[i].dtype() == kiln::DType::bool_ ? a.mask : a.bias) = x[i];
       return Outputs{kiln::dot_product_attention(x[0], x[1], x[2], a)};
     }},
};

}  // namespace

}  // namespace kiln::detail::keras_ops_nn

namespace kiln::detail {

keras_op_api::OpEntries keras_ops_nn_table() { return keras_ops_nn::entries; }

}  // namespace kiln::detail
