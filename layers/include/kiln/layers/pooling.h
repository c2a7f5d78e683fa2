#pragma once
// Max and average pooling over windows, 2D and 1D: one header per class, all
// on BasePoolingImpl (base_pooling.h).
//
//   L::MaxPooling2D();                         // 2x2, stride 2
//   L::AveragePooling2D(3, {.strides = 1, .padding = "same"});
//   L::MaxPooling1D(2);
#include "kiln/layers/average_pooling1d.h"
#include "kiln/layers/average_pooling2d.h"
#include "kiln/layers/base_pooling.h"
#include "kiln/layers/max_pooling1d.h"
#include "kiln/layers/max_pooling2d.h"
