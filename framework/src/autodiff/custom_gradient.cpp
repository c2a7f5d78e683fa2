// tf.custom_gradient: a function whose gradient is the user's rule instead of
// its ops' own; and tf.GradientTape's question whether anything records.
#include "kiln/autodiff/gradient_tape.h"

#include "autodiff/autodiff.h"
#include "core/tensor_impl.h"

namespace kiln {

bool is_recording() { return autodiff::active(); }

std::function<Tensor(const std::vector<Tensor>&)> custom_gradient(
    std::function<CustomGradientResult(const std::vector<Tensor>&)> f) {
  return [f](const std::vector<Tensor>& inputs) {
    CustomGradientResult r;
    {
      autodiff::Pause pause;  // the inner ops are replaced by the user's rule
      r = f(inputs);
    }
    Tensor out = alias_with_shape(r.value, r.value.shape());
    if (autodiff::active()) {
      auto grad = r.grad;
      autodiff::record("CustomGradient", inputs, {out},
                       [grad](const autodiff::Grads& dys, const autodiff::Needs&) { return grad(dys[0]); });
    }
    return out;
  };
}

std::function<Tensor(const Tensor&)> custom_gradient(std::function<CustomGradientResult(const Tensor&)> f) {
  auto multi = custom_gradient(std::function<CustomGradientResult(const std::vector<Tensor>&)>(
      [f](const std::vector<Tensor>& in) { return f(in[0]); }));
  return [multi](const Tensor& x) { return multi({x}); };
}

}  // namespace kiln
