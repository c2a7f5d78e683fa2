// GRUCell and GRU: Keras 3's formulation (implementation 2), reset_after both ways.
#include "kiln/layers/gru.h"

#include "config_fields.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/recurrent_ops.h"
#include "recurrent_options.h"

namespace kiln::layers {

using namespace detail;

GRUCellImpl::GRUCellImpl(int64_t units, GRUCellOptions o)
    : DropoutRNNCell(base_options(o), o.dropout, o.recurrent_dropout, o.seed), units_(units), o_(std::move(o)) {
  if (units_ <= 0)
    throw ValueError("Received an invalid value for argument `units`, expected a positive integer, got " +
                     std::to_string(units_) + ".");
  activation_ = activations::get(o_.activation);
  recurrent_activation_ = activations::get(o_.recurrent_activation);
}

void GRUCellImpl::build(const Shape& s) {
  const int64_t in = s[-1];
  kernel_ = add_weight("kernel", {in, 3 * units_},
                       {.initializer = o_.kernel_initializer, .regularizer = o_.kernel_regularizer,
                        .constraint = o_.kernel_constraint});
  recurrent_kernel_ = add_weight("recurrent_kernel", {units_, 3 * units_},
                                 {.initializer = o_.recurrent_initializer, .regularizer = o_.recurrent_regularizer,
                                  .constraint = o_.recurrent_constraint});
  if (!o_.use_bias) return;
  // reset_after keeps the input bias (row 0) apart from the recurrent one (row 1).
  const Shape bias_shape = o_.reset_after ? Shape{2, 3 * units_} : Shape{3 * units_};
  bias_ = add_weight("bias", bias_shape,
                     {.initializer = o_.bias_initializer, .regularizer = o_.bias_regularizer,
                      .constraint = o_.bias_constraint});
}

Tensor GRUCellImpl::project(const Tensor& x) {
  Tensor z = matmul(cast_to_compute(x, compute_dtype()), kernel_.value());
  if (!o_.use_bias) return z;
  return bias_add(z, o_.reset_after ? bias_.value()[0] : bias_.value());
}

RNNCell::StepResult GRUCellImpl::step(const Tensor& x, const std::vector<Tensor>& s, bool training) {
  // x: (batch, features) or its projection (batch, 3·units); s: {h} (batch, units).
  const Tensor& h = s.at(0);
  const Tensor hr = recurrent_input(h, training);
  std::vector<Tensor> xg = split(input_part(x, training), 3, 1);  // x_z, x_r, x_h
  const Tensor u = recurrent_kernel_.value();
  Tensor rz, rr, rh;
  if (o_.reset_after) {
    Tensor inner = matmul(hr, u);
    if (o_.use_bias) inner = bias_add(inner, bias_.value()[1]);
    std::vector<Tensor> rg = split(inner, 3, 1);
    rz = rg[0], rr = rg[1], rh = rg[2];
  } else {
    std::vector<Tensor> uk = split(u, std::vector<int64_t>{2 * units_, units_}, 1);
    std::vector<Tensor> rg = split(matmul(hr, uk[0]), 2, 1);
    rz = rg[0], rr = rg[1];
    rh = uk[1];  // used below with r applied first
  }
  Tensor z = recurrent_activation_(xg[0] + rz);
  Tensor r = recurrent_activation_(xg[1] + rr);
  Tensor hh = o_.reset_after ? activation_(xg[2] + r * rh) : activation_(xg[2] + matmul(r * hr, rh));
  Tensor out = z * h + (1.0 - z) * hh;
  return {out, {out}};
}

std::optional<std::vector<Tensor>> GRUCellImpl::run_sequence(const Tensor& projected, const std::vector<Tensor>& states,
                                                             const Tensor& mask, bool zero_output, bool training) {
  if (!can_fuse(training, o_.activation, o_.recurrent_activation)) return std::nullopt;
  const Tensor recurrent_bias = o_.use_bias && o_.reset_after ? bias_.value()[1] : Tensor();
  return recurrence(projected, recurrent_kernel_.value(), recurrent_bias, states, mask,
                    {.kind = RecurrentKind::gru, .activation = o_.activation,
                     .recurrent_activation = o_.recurrent_activation, .reset_after = o_.reset_after,
                     .zero_output_for_mask = zero_output});
}

Config GRUCellImpl::get_config() const { return layer_config(*this); }

GRUImpl::GRUImpl(int64_t units, GRUOptions o)
    : RNNImpl(base_options(o), rnn_options_from(o),
              std::make_shared<GRUCellImpl>(units, cell_options_from<GRUCellOptions>(o, "gru_cell"))),
      units_(units), o_(std::move(o)) {
  activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
}

Config GRUImpl::get_config() const {
  Config c = layer_config(*this);
  c["zero_output_for_mask"] = rnn_options().zero_output_for_mask;  // Bidirectional may have set it
  return c;
}

KILN_REGISTER_LAYER(GRUCellImpl, "GRUCell")
KILN_REGISTER_LAYER(GRUImpl, "GRU")

}  // namespace kiln::layers
