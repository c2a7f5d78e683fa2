// SimpleRNNCell and SimpleRNN: h' = activation(x · kernel + bias + h · recurrent_kernel).
#include "kiln/layers/simple_rnn.h"

#include "config_fields.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/recurrent_ops.h"
#include "recurrent_options.h"

namespace kiln::layers {

using namespace detail;

SimpleRNNCellImpl::SimpleRNNCellImpl(int64_t units, SimpleRNNCellOptions o)
    : DropoutRNNCell(base_options(o), o.dropout, o.recurrent_dropout, o.seed), units_(units), o_(std::move(o)) {
  if (units_ <= 0)
    throw ValueError("Received an invalid value for argument `units`, expected a positive integer, got " +
                     std::to_string(units_) + ".");
  activation_ = activations::get(o_.activation);
}

void SimpleRNNCellImpl::build(const Shape& s) {
  kernel_ = add_weight("kernel", {s[-1], units_},
                       {.initializer = o_.kernel_initializer, .regularizer = o_.kernel_regularizer,
                        .constraint = o_.kernel_constraint});
  recurrent_kernel_ = add_weight("recurrent_kernel", {units_, units_},
                                 {.initializer = o_.recurrent_initializer, .regularizer = o_.recurrent_regularizer,
                                  .constraint = o_.recurrent_constraint});
  if (o_.use_bias)
    bias_ = add_weight("bias", {units_},
                       {.initializer = o_.bias_initializer, .regularizer = o_.bias_regularizer,
                        .constraint = o_.bias_constraint});
}

Tensor SimpleRNNCellImpl::project(const Tensor& x) {
  Tensor z = matmul(cast_to_compute(x, compute_dtype()), kernel_.value());
  return o_.use_bias ? bias_add(z, bias_.value()) : z;
}

RNNCell::StepResult SimpleRNNCellImpl::step(const Tensor& x, const std::vector<Tensor>& s, bool training) {
  Tensor out = activation_(input_part(x, training) + matmul(recurrent_input(s.at(0), training), recurrent_kernel_.value()));
  return {out, {out}};
}

std::optional<std::vector<Tensor>> SimpleRNNCellImpl::run_sequence(const Tensor& projected,
                                                                   const std::vector<Tensor>& states, const Tensor& mask,
                                                                   bool zero_output, bool training) {
  if (!can_fuse(training, o_.activation, "linear")) return std::nullopt;
  return recurrence(projected, recurrent_kernel_.value(), Tensor(), states, mask,
                    {.kind = RecurrentKind::simple_rnn, .activation = o_.activation, .zero_output_for_mask = zero_output});
}

Config SimpleRNNCellImpl::get_config() const { return layer_config(*this); }

SimpleRNNImpl::SimpleRNNImpl(int64_t units, SimpleRNNOptions o)
    : RNNImpl(base_options(o), rnn_options_from(o),
              std::make_shared<SimpleRNNCellImpl>(units, cell_options_from<SimpleRNNCellOptions>(o, "simple_rnn_cell"))),
      units_(units), o_(std::move(o)) {
  activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
}

Config SimpleRNNImpl::get_config() const {
  Config c = layer_config(*this);
  c["zero_output_for_mask"] = rnn_options().zero_output_for_mask;  // Bidirectional may have set it
  return c;
}

KILN_REGISTER_LAYER(SimpleRNNCellImpl, "SimpleRNNCell")
KILN_REGISTER_LAYER(SimpleRNNImpl, "SimpleRNN")

}  // namespace kiln::layers
