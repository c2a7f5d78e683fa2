// Conv3DTranspose and the preprocessing layers through the one harness (layer_harness.h).
#include <doctest/doctest.h>

#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "layer_harness.h"

namespace k = kiln;
namespace L = kiln::layers;
using k::testing::check_layer;
using k::testing::LayerCase;

namespace {
template <class H>
k::LayerPtr ptr(H h) {
  return h.ptr();
}
}  // namespace

TEST_CASE("harness: Conv3DTranspose") {
  check_layer({.label = "Conv3DTranspose valid",
               .make = [](k::DType dt) { return ptr(L::Conv3DTranspose(2, {2, 3, 2}, {.dtype = dt})); },
               .input_shapes = {{2, 2, 3, 2, 3}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Conv3DTranspose strides, same, output_padding",
               .make = [](k::DType dt) {
                 return ptr(L::Conv3DTranspose(2, {3}, {.strides = {2, 1, 3}, .padding = "same",
                                                       .output_padding = std::vector<int>{1, 0, 2}, .dtype = dt}));
               },
               .input_shapes = {{1, 2, 3, 2, 2}},
               .weight_names = {"kernel", "bias"}});
  check_layer({.label = "Conv3DTranspose dilation, channels_first, no bias",
               .make = [](k::DType dt) {
                 return ptr(L::Conv3DTranspose(3, {2}, {.data_format = "channels_first", .dilation_rate = {2, 1, 2},
                                                       .activation = "tanh", .use_bias = false, .dtype = dt}));
               },
               .input_shapes = {{2, 2, 2, 3, 2}},
               .weight_names = {"kernel"}});
}
