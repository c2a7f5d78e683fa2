// MaxPooling2D: BasePoolingImpl<2> with the maximum (base_pooling.cpp).
#include "kiln/layers/max_pooling2d.h"

#include "config_fields.h"

namespace kiln::layers {

KILN_REGISTER_LAYER(MaxPooling2DImpl, "MaxPooling2D", "MaxPool2D")

}  // namespace kiln::layers
