// EinsumDense and the attention layers through the one harness (layer_harness.h).
#include <doctest/doctest.h>

#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "layer_harness.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_harness_attention {

namespace k = kiln;
namespace L = kiln::layers;
using k::testing::check_layer;

namespace {
template <class H>
k::LayerPtr ptr(H h) {
  return h.ptr();
}
const std::vector<std::string> kMhaWeights = {"query/kernel", "query/bias", "key/kernel", "key/bias",
                                              "value/kernel", "value/bias", "attention_output/kernel",
                                              "attention_output/bias"};
}  // namespace

TEST_CASE("harness: EinsumDense") {
  check_layer({.label = "EinsumDense ab,bc->ac",
               .make = [](k::DType dt) { return ptr(L::EinsumDense("ab,bc->ac", {4}, {.bias_axes = "c", .dtype = dt})); },
               .input_shapes = {{3, 5}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "EinsumDense abc,cde->abde (a head projection)",
               .make = [](k::DType dt) {
                 return ptr(L::EinsumDense("abc,cde->abde", {k::None, 2, 3}, {.bias_axes = "de", .dtype = dt}));
               },
               .input_shapes = {{2, 4, 5}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "EinsumDense ...b,bc->...c with tanh",
               .make = [](k::DType dt) {
                 return ptr(L::EinsumDense("...b,bc->...c", {3}, {.activation = "tanh", .dtype = dt}));
               },
               .input_shapes = {{2, 3, 4}},
               .weight_names = {"kernel"}});
  check_layer({.label = "EinsumDense abc,cd->abd, bias on b and d",
               .make = [](k::DType dt) {
                 return ptr(L::EinsumDense("abc,cd->abd", {4, 2}, {.bias_axes = "bd", .dtype = dt}));
               },
               .input_shapes = {{3, 4, 5}},
               .weight_names = {"kernel", "bias"}});
}

TEST_CASE("harness: Attention and AdditiveAttention") {
  auto att = [](std::string label, std::function<k::LayerPtr(k::DType)> make, std::vector<k::Shape> shapes,
                std::vector<std::string> weights) {
    check_layer({.label = label, .make = make, .input_shapes = shapes, .list_input = true, .weight_names = weights});
  };
  att("Attention dot", [](k::DType dt) { return ptr(L::Attention({.dtype = dt})); }, {{2, 3, 4}, {2, 5, 4}}, {});
  att("Attention dot, scaled, with key", [](k::DType dt) { return ptr(L::Attention({.use_scale = true, .dtype = dt})); },
      {{2, 3, 4}, {2, 5, 6}, {2, 5, 4}}, {"scale"});
  att("Attention concat, scaled",
      [](k::DType dt) { return ptr(L::Attention({.use_scale = true, .score_mode = "concat", .dtype = dt})); },
      {{2, 3, 4}, {2, 5, 4}}, {"scale", "concat_score_weight"});
  att("AdditiveAttention", [](k::DType dt) { return ptr(L::AdditiveAttention({.dtype = dt})); },
      {{2, 3, 4}, {2, 5, 4}}, {"scale"});
  att("AdditiveAttention without scale, with key",
      [](k::DType dt) { return ptr(L::AdditiveAttention({.use_scale = false, .dtype = dt})); },
      {{2, 3, 4}, {2, 5, 3}, {2, 5, 4}}, {});
}

TEST_CASE("harness: MultiHeadAttention") {
  auto mha = [](std::string label, std::function<k::LayerPtr(k::DType)> make, std::vector<k::Shape> shapes,
                std::vector<std::string> weights = kMhaWeights) {
    check_layer({.label = label, .make = make, .input_shapes = shapes, .list_input = true, .weight_names = weights});
  };
  mha("MultiHeadAttention 2 heads", [](k::DType dt) { return ptr(L::MultiHeadAttention(2, 3, {.dtype = dt})); },
      {{2, 4, 5}, {2, 3, 5}});
  mha("MultiHeadAttention with key, value_dim, output_shape",
      [](k::DType dt) {
        return ptr(L::MultiHeadAttention(2, 3, {.value_dim = 2, .output_shape = k::Shape{3}, .dtype = dt}));
      },
      {{2, 4, 5}, {2, 3, 6}, {2, 3, 4}});
  mha("MultiHeadAttention over 2 axes of images",
      [](k::DType dt) { return ptr(L::MultiHeadAttention(2, 2, {.attention_axes = std::vector<int>{1, 2}, .dtype = dt})); },
      {{2, 3, 2, 4}, {2, 3, 2, 4}});
  mha("MultiHeadAttention without bias, gated",
      [](k::DType dt) { return ptr(L::MultiHeadAttention(2, 3, {.use_bias = false, .use_gate = true, .dtype = dt})); },
      {{2, 3, 4}, {2, 3, 4}}, {"query/kernel", "key/kernel", "gate/kernel", "value/kernel", "attention_output/kernel"});
}

TEST_CASE("harness: GroupedQueryAttention") {
  auto gqa = [](std::string label, std::function<k::LayerPtr(k::DType)> make, std::vector<k::Shape> shapes,
                std::vector<std::string> weights = kMhaWeights) {
    check_layer({.label = label, .make = make, .input_shapes = shapes, .list_input = true, .weight_names = weights});
  };
  gqa("GroupedQueryAttention 4 query heads, 2 key/value heads",
      [](k::DType dt) { return ptr(L::GroupedQueryAttention(3, 4, 2, {.dtype = dt})); }, {{2, 3, 5}, {2, 4, 5}});
  gqa("GroupedQueryAttention with key, one key/value head, sliding window",
      [](k::DType dt) { return ptr(L::GroupedQueryAttention(2, 2, 1, {.sliding_window = 2, .dtype = dt})); },
      {{2, 3, 4}, {2, 3, 4}, {2, 3, 6}});
  gqa("GroupedQueryAttention gated, without bias",
      [](k::DType dt) { return ptr(L::GroupedQueryAttention(2, 2, 2, {.use_bias = false, .use_gate = true, .dtype = dt})); },
      {{2, 3, 4}, {2, 3, 4}}, {"query/kernel", "key/kernel", "gate/kernel", "value/kernel", "attention_output/kernel"});
}

}  // namespace test_harness_attention
