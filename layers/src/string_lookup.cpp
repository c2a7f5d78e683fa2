// StringLookup: IndexLookupImpl over string tokens.
#include "kiln/layers/string_lookup.h"

#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

namespace {
StringLookupOptions checked_string_lookup(StringLookupOptions o) {
  if (o.encoding != "utf-8" && o.encoding != "UTF-8")
    throw ValueError("StringLookup: only encoding='utf-8' is supported, but received encoding='" + o.encoding + "'");
  return o;
}
}  // namespace

StringLookupImpl::StringLookupImpl(StringLookupOptions o)
    : IndexLookupImpl(checked_string_lookup(std::move(o)), "StringLookup") {}

Config StringLookupImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(StringLookupImpl, "StringLookup")

}  // namespace kiln::layers
