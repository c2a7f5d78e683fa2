// AveragePooling1D: BasePoolingImpl<1> with the mean (base_pooling.cpp).
#include "kiln/layers/average_pooling1d.h"

#include "config_fields.h"

namespace kiln::layers {

KILN_REGISTER_LAYER(AveragePooling1DImpl, "AveragePooling1D", "AvgPool1D")

}  // namespace kiln::layers
