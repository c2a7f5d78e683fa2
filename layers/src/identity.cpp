// Identity and ActivityRegularization.
#include "kiln/layers/identity.h"

#include "kiln/nn/regularizers.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

IdentityImpl::IdentityImpl(IdentityOptions o) : Layer(base_options(o)), o_(std::move(o)) { apply_input_shape(*this, o_); }
Config IdentityImpl::get_config() const { return layer_config(*this); }
KILN_REGISTER_LAYER(IdentityImpl, "Identity")

ActivityRegularizationImpl::ActivityRegularizationImpl(double l1, double l2, IdentityOptions o)
    : Layer(base_options(o)), l1_(l1), l2_(l2), o_(std::move(o)) {
  // The base layer's activity-regularizer hook does the work, as in Keras.
  activity_regularizer = regularizers::L1L2(l1_, l2_);
  apply_input_shape(*this, o_);
}
Config ActivityRegularizationImpl::get_config() const {
  Config c = layer_config(*this);
  c.erase("activity_regularizer");  // Keras 3 writes l1 and l2 only
  return c;
}
KILN_REGISTER_LAYER(ActivityRegularizationImpl, "ActivityRegularization")

}  // namespace kiln::layers
