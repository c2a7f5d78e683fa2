// MaxPooling1D: BasePoolingImpl<1> with the maximum (base_pooling.cpp).
#include "kiln/layers/max_pooling1d.h"

#include "config_fields.h"

namespace kiln::layers {

KILN_REGISTER_LAYER(MaxPooling1DImpl, "MaxPooling1D", "MaxPool1D")

}  // namespace kiln::layers
