// AveragePooling2D: BasePoolingImpl<2> with the mean (base_pooling.cpp).
#include "kiln/layers/average_pooling2d.h"

#include "config_fields.h"

namespace kiln::layers {

KILN_REGISTER_LAYER(AveragePooling2DImpl, "AveragePooling2D", "AvgPool2D")

}  // namespace kiln::layers
