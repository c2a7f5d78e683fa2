// IntegerLookup: IndexLookupImpl over int64 tokens, with IntegerLookup's own checks.
#include "kiln/layers/integer_lookup.h"

#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

namespace {
IntegerLookupOptions checked_integer_lookup(IntegerLookupOptions o) {
  if (o.num_oov_indices < 0)
    throw ValueError("The value of `num_oov_indices` argument for `IntegerLookup` must >= 0. Received: num_oov_indices=" +
                     std::to_string(o.num_oov_indices));
  if (o.vocabulary_dtype != "int64")
    throw ValueError("Only `vocabulary_dtype='int64'` is supported at this time. Received: vocabulary_dtype=" + o.vocabulary_dtype);
  return o;
}
}  // namespace

IntegerLookupImpl::IntegerLookupImpl(IntegerLookupOptions o) : IndexLookupImpl(checked_integer_lookup(std::move(o)), "IntegerLookup") {}

Config IntegerLookupImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(IntegerLookupImpl, "IntegerLookup")

}  // namespace kiln::layers
