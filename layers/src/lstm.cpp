// LSTMCell and LSTM: Keras 3's fused-gate formulation (implementation 2).
#include "kiln/layers/lstm.h"

#include "config_fields.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/recurrent_ops.h"
#include "recurrent_options.h"

namespace kiln::layers {

using namespace detail;

LSTMCellImpl::LSTMCellImpl(int64_t units, LSTMCellOptions o)
    : DropoutRNNCell(base_options(o), o.dropout, o.recurrent_dropout, o.seed), units_(units), o_(std::move(o)) {
  if (units_ <= 0)
    throw ValueError("Received an invalid value for argument `units`, expected a positive integer, got " +
                     std::to_string(units_) + ".");
  activation_ = activations::get(o_.activation);
  recurrent_activation_ = activations::get(o_.recurrent_activation);
}

void LSTMCellImpl::build(const Shape& s) {
  const int64_t in = s[-1];
  kernel_ = add_weight("kernel", {in, 4 * units_},
                       {.initializer = o_.kernel_initializer, .regularizer = o_.kernel_regularizer,
                        .constraint = o_.kernel_constraint});
  recurrent_kernel_ = add_weight("recurrent_kernel", {units_, 4 * units_},
                                 {.initializer = o_.recurrent_initializer, .regularizer = o_.recurrent_regularizer,
                                  .constraint = o_.recurrent_constraint});
  if (!o_.use_bias) return;
  bias_ = add_weight("bias", {4 * units_},
                     {.initializer = o_.bias_initializer, .regularizer = o_.bias_regularizer,
                      .constraint = o_.bias_constraint});
  if (o_.unit_forget_bias) {
    // Keras: bias_initializer for i, ones for f, bias_initializer for c and o.
    auto init = o_.bias_initializer.resolve();
    bias_.assign(concat({(*init)({units_}, dtype()), ones({units_}, dtype()), (*init)({2 * units_}, dtype())}, 0));
  }
}

Tensor LSTMCellImpl::project(const Tensor& x) {
  Tensor z = matmul(cast_to_compute(x, compute_dtype()), kernel_.value());
  return o_.use_bias ? bias_add(z, bias_.value()) : z;
}

RNNCell::StepResult LSTMCellImpl::step(const Tensor& x, const std::vector<Tensor>& s, bool training) {
  // x: (batch, features) or its projection (batch, 4·units); s: {h, c}, each (batch, units).
  Tensor z = input_part(x, training) + matmul(recurrent_input(s.at(0), training), recurrent_kernel_.value());
  std::vector<Tensor> g = split(z, 4, 1);
  Tensor i = recurrent_activation_(g[0]);
  Tensor f = recurrent_activation_(g[1]);
  Tensor o = recurrent_activation_(g[3]);
  Tensor c = f * s.at(1) + i * activation_(g[2]);
  Tensor h = o * activation_(c);
  return {h, {h, c}};
}

std::optional<std::vector<Tensor>> LSTMCellImpl::run_sequence(const Tensor& projected, const std::vector<Tensor>& states,
                                                              const Tensor& mask, bool zero_output, bool training) {
  if (!can_fuse(training, o_.activation, o_.recurrent_activation)) return std::nullopt;
  return recurrence(projected, recurrent_kernel_.value(), Tensor(), states, mask,
                    {.kind = RecurrentKind::lstm, .activation = o_.activation,
                     .recurrent_activation = o_.recurrent_activation, .zero_output_for_mask = zero_output});
}

Config LSTMCellImpl::get_config() const { return layer_config(*this); }

LSTMImpl::LSTMImpl(int64_t units, LSTMOptions o)
    : RNNImpl(base_options(o), rnn_options_from(o),
              std::make_shared<LSTMCellImpl>(units, cell_options_from<LSTMCellOptions>(o, "lstm_cell"))),
      units_(units), o_(std::move(o)) {
  activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
}

Config LSTMImpl::get_config() const {
  Config c = layer_config(*this);
  c["zero_output_for_mask"] = rnn_options().zero_output_for_mask;  // Bidirectional may have set it
  return c;
}

KILN_REGISTER_LAYER(LSTMCellImpl, "LSTMCell")
KILN_REGISTER_LAYER(LSTMImpl, "LSTM")

}  // namespace kiln::layers
