// Lambda: a user function as a layer.
#include "kiln/layers/lambda.h"

#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

LambdaImpl::LambdaImpl(Function fn, LambdaOptions o) : Layer(base_options(o)), fn_(std::move(fn)), o_(std::move(o)) {
  if (!fn_) throw ValueError("Lambda: the function is empty");
  apply_input_shape(*this, o_);
}

Tensor LambdaImpl::call(const Tensor& x, bool) { return fn_(x); }

Shape LambdaImpl::compute_output_shape(const Shape& s) {
  if (!o_.output_shape) return Layer::compute_output_shape(s);  // runs the function on zeros
  Shape out{s.rank() > 0 ? s[0] : None};
  for (auto d : *o_.output_shape) out.push_back(d);
  return out;
}

Config LambdaImpl::get_config() const {
  Config c = base_config();
  // Keras stores Python bytecode here; a C++ function cannot be serialised.
  c["function"] = nullptr;
  write_fields(c, o_);
  add_declared_shape(*this, c);
  return c;
}

std::shared_ptr<LambdaImpl> LambdaImpl::from_config(const Config& config) {
  std::string name = config.is_object() && config.contains("name") && config["name"].is_string()
                         ? config["name"].get<std::string>()
                         : std::string("?");
  throw ValueError("Lambda.from_config: layer '" + name +
                   "' wraps a function, which cannot be rebuilt from a config; recreate it in code with "
                   "kiln::layers::Lambda(fn, {.name = \"" + name + "\"}) and load its (absent) weights by name");
}

KILN_REGISTER_LAYER(LambdaImpl, "Lambda")

}  // namespace kiln::layers
