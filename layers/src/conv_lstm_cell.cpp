// ConvLSTMCell<N>: Keras 3's ConvLSTMCell. The four gates' convolutions run as
// one convolution with 4·filters output channels (the kernel's gate blocks are
// contiguous on its last axis), except under dropout, where each gate sees its
// own mask and so its own input.
#include "kiln/layers/conv_lstm_cell.h"

#include <algorithm>
#include <set>

#include "config_fields.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/random.h"
#include "spatial_sizes.h"

namespace kiln::layers {

using namespace detail;

namespace {

std::vector<int64_t> size_list(Size1 v) { return {v.value}; }
std::vector<int64_t> size_list(Size2 v) { return {v.first, v.second}; }
std::vector<int64_t> size_list(const std::vector<int>& v) { return {v.begin(), v.end()}; }

template <int N>
ConvLSTMSize<N> size_of(const std::vector<int64_t>& v) {
  if constexpr (N == 1) return Size1(static_cast<int>(v[0]));
  else if constexpr (N == 2) return Size2(static_cast<int>(v[0]), static_cast<int>(v[1]));
  else return std::vector<int>(v.begin(), v.end());
}

/// As Python prints a tuple: (3,) or (3, 3).
std::string dims_text(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

/// Keras's standardize_tuple: one int stands for all n axes.
std::vector<int64_t> standardize_tuple(std::vector<int64_t> v, std::size_t n, const std::string& name,
                                       bool allow_zero) {
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);
  std::string msg = "The `" + name + "` argument must be a tuple of " + std::to_string(n) + " integers. Received " +
                    name + "=" + dims_text(v);
  if (v.size() != n) throw ValueError(msg);
  std::set<int64_t> bad;
  for (int64_t x : v)
    if (x < 0 || (x == 0 && !allow_zero)) bad.insert(x);
  if (!bad.empty()) {
    std::string set;
    for (int64_t x : bad) set += (set.empty() ? "" : ", ") + std::to_string(x);
    throw ValueError(msg + ", including values {" + set + "} that do not satisfy `value " + (allow_zero ? ">=" : ">") +
                     " 0`");
  }
  return v;
}

}  // namespace

template <int N>
ConvLSTMCellImpl<N>::ConvLSTMCellImpl(int64_t filters, Size kernel_size, Options o, std::string cls)
    : RNNCell(base_options(o)), filters_(filters), o_(std::move(o)) {
  if (filters_ <= 0)
    throw ValueError(cls + ": invalid value for argument `filters`, expected a positive integer, got " +
                     std::to_string(filters_));
  kernel_dims_ = standardize_tuple(size_list(kernel_size), N, "kernel_size", false);
  strides_ = standardize_tuple(size_list(o_.strides), N, "strides", true);
  // Keras accepts a zero stride here and fails later in the convolution.
  if (std::find(strides_.begin(), strides_.end(), 0) != strides_.end())
    throw ValueError(cls + ": `strides` must be positive, received strides=" + dims_text(strides_));
  std::string padding = o_.padding;
  for (char& ch : padding) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (padding != "valid" && padding != "same")
    throw ValueError("The `padding` argument must be a list/tuple or one of {'valid', 'same'}. Received: " + padding);
  o_.padding = padding;
  std::string format = o_.data_format.empty() ? "channels_last" : o_.data_format;
  for (char& ch : format) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (format != "channels_last" && format != "channels_first")
    throw ValueError("The `data_format` argument must be one of {'channels_first', 'channels_last'}. Received: "
                     "data_format=" + format);
  o_.data_format = format;
  dilation_ = standardize_tuple(size_list(o_.dilation_rate), N, "dilation_rate", false);
  if (any_above_one(strides_) && any_above_one(dilation_))
    throw ValueError("Specifying `strides > 1` is not compatible with `dilation_rate > 1`. Please provide `strides=1` "
                     "or `dilation_rate=1`. Received: strides=" + dims_text(strides_) +
                     " and dilation_rate=" + dims_text(dilation_));
  kernel_size_ = size_of<N>(kernel_dims_);
  o_.strides = size_of<N>(strides_);
  o_.dilation_rate = size_of<N>(dilation_);
  activation_ = activations::get(o_.activation);
  recurrent_activation_ = activations::get(o_.recurrent_activation);
  o_.dropout = std::min(1.0, std::max(0.0, o_.dropout));
  o_.recurrent_dropout = std::min(1.0, std::max(0.0, o_.recurrent_dropout));
  set_input_spec({InputSpec{.ndim = N + 2}});
}

template <int N>
Shape ConvLSTMCellImpl<N>::state_shape(const Shape& s) const {
  const bool cf = channels_first();
  Shape out{s[0]};
  if (cf) out.push_back(filters_);
  for (int i = 0; i < N; ++i) {
    const int64_t in = s[(cf ? 2 : 1) + i];
    const int64_t o = conv_output_length(in, kernel_dims_[i], o_.padding, strides_[i], dilation_[i]);
    if (in >= 0 && o <= 0) {
      std::vector<int64_t> kernel_shape = kernel_dims_;
      kernel_shape.push_back(s[cf ? 1 : N + 1]);
      kernel_shape.push_back(filters_);
      throw ValueError("Computed output size would be zero or negative. Received `inputs shape=" + s.to_string() +
                       "`, `kernel shape=" + dims_text(kernel_shape) + "`, `dilation_rate=" + dims_text(dilation_) +
                       "`, `strides=" + dims_text(strides_) + "`, `padding=" + o_.padding + "`.");
    }
    out.push_back(o);
  }
  if (!cf) out.push_back(filters_);
  return out;
}

template <int N>
void ConvLSTMCellImpl<N>::build(const Shape& s) {
  if (s.rank() != N + 2)
    throw ShapeError("Layer '" + name() + "' (ConvLSTMCell) expects steps of rank " + std::to_string(N + 2) +
                     ", but received input with shape " + s.to_string());
  const bool cf = channels_first();
  for (int i = 0; i < N; ++i)
    if (s[(cf ? 2 : 1) + i] < 0)
      throw ValueError("ConvLSTM layers only support static input shapes for the spatial dimension. Received invalid "
                       "input shape: input_shape=" + s.to_string());
  const int64_t in = s[cf ? 1 : N + 1];
  if (in < 0)
    throw ValueError("The channel dimension of the inputs (last axis) should be defined. Found None. Full input shape "
                     "received: input_shape=" + s.to_string());
  state_shape(s);  // throws if the convolution's output would be empty
  std::vector<int64_t> k = kernel_dims_, rk = kernel_dims_;
  k.insert(k.end(), {in, 4 * filters_});
  rk.insert(rk.end(), {filters_, 4 * filters_});
  kernel_ = add_weight("kernel", Shape(k),
                       {.initializer = o_.kernel_initializer, .regularizer = o_.kernel_regularizer,
                        .constraint = o_.kernel_constraint});
  recurrent_kernel_ = add_weight("recurrent_kernel", Shape(rk),
                                 {.initializer = o_.recurrent_initializer, .regularizer = o_.recurrent_regularizer,
                                  .constraint = o_.recurrent_constraint});
  if (!o_.use_bias) return;
  bias_ = add_weight("bias", {4 * filters_},
                     {.initializer = o_.bias_initializer, .regularizer = o_.bias_regularizer,
                      .constraint = o_.bias_constraint});
  if (o_.unit_forget_bias) {
    // bias_initializer for i, ones for f, bias_initializer for c and o.
    auto init = o_.bias_initializer.resolve();
    bias_.assign(concat({(*init)({filters_}, dtype()), ones({filters_}, dtype()), (*init)({2 * filters_}, dtype())}, 0));
  }
}

template <int N>
std::vector<Tensor> ConvLSTMCellImpl<N>::initial_state(const Shape& step_input) {
  const Shape s = state_shape(step_input);
  return {zeros(s, compute_dtype()), zeros(s, compute_dtype())};
}

template <int N>
std::vector<Tensor> ConvLSTMCellImpl<N>::dropout_masks(const Tensor& like, double rate) {
  std::vector<Tensor> masks;
  for (int g = 0; g < 4; ++g) {
    std::optional<uint64_t> seed;
    if (o_.seed) seed = *o_.seed + 0x9E3779B97F4A7C15ull * (draws_++);  // a fresh, reproducible mask per draw
    Tensor keep = cast(random::uniform(like.shape(), 0.0, 1.0, like.dtype(), seed) >= rate, like.dtype());
    masks.push_back(keep * (1.0 / (1.0 - rate)));
  }
  return masks;
}

template <int N>
Tensor ConvLSTMCellImpl<N>::input_conv(const std::vector<Tensor>& inputs) const {
  const bool cf = channels_first();
  auto conv = [&](const Tensor& x, const Tensor& k) {
    Tensor xl = cast_to_compute(x, compute_dtype());
    return ::kiln::conv(cf ? transpose(xl, to_channels_last(N + 2)) : xl, k, {strides_, o_.padding, "channels_last", dilation_});
  };
  Tensor z;
  if (inputs.size() == 1) {
    z = conv(inputs[0], kernel_.value());
  } else {
    std::vector<Tensor> ks = split(kernel_.value(), 4, N + 1), zs;
    for (int g = 0; g < 4; ++g) zs.push_back(conv(inputs[g], ks[g]));
    z = concat(zs, N + 1);
  }
  return o_.use_bias ? bias_add(z, bias_.value()) : z;
}

template <int N>
Tensor ConvLSTMCellImpl<N>::recurrent_conv(const std::vector<Tensor>& hs) const {
  const bool cf = channels_first();
  const std::vector<int64_t> unit(N, 1);
  auto conv = [&](const Tensor& h, const Tensor& k) {
    return ::kiln::conv(cf ? transpose(h, to_channels_last(N + 2)) : h, k, {unit, "same", "channels_last", unit});
  };
  if (hs.size() == 1) return conv(hs[0], recurrent_kernel_.value());
  std::vector<Tensor> ks = split(recurrent_kernel_.value(), 4, N + 1), zs;
  for (int g = 0; g < 4; ++g) zs.push_back(conv(hs[g], ks[g]));
  return concat(zs, N + 1);
}

template <int N>
Tensor ConvLSTMCellImpl<N>::begin_sequence(const Tensor& sequence, const std::vector<Tensor>& states, bool training) {
  const Shape s = sequence.shape();  // (batch, time, *step)
  Shape folded{s[0] * s[1]};
  for (int64_t i = 2; i < s.rank(); ++i) folded.push_back(s[i]);
  recurrent_masks_.clear();
  if (training && o_.recurrent_dropout > 0 && o_.recurrent_dropout < 1 && !states.empty())
    recurrent_masks_ = dropout_masks(states[0], o_.recurrent_dropout);
  std::vector<Tensor> inputs;
  if (training && o_.dropout > 0 && o_.dropout < 1) {
    // Each gate's mask is the same at every timestep: it broadcasts over the time axis.
    for (const Tensor& m : dropout_masks(sequence[{Slice(), 0}], o_.dropout))
      inputs.push_back(reshape(sequence * expand_dims(m, 1), folded));
  } else {
    inputs.push_back(reshape(sequence, folded));
  }
  // Every timestep's input convolution in one call, time folded into the batch.
  Tensor z = input_conv(inputs);
  projected_ = true;
  Shape out{s[0], s[1]};
  for (int64_t i = 1; i < z.rank(); ++i) out.push_back(z.shape()[i]);
  return reshape(z, out);
}

template <int N>
void ConvLSTMCellImpl<N>::end_sequence() {
  projected_ = false;
  recurrent_masks_.clear();
}

template <int N>
RNNCell::StepResult ConvLSTMCellImpl<N>::step(const Tensor& x, const std::vector<Tensor>& s, bool training) {
  // x: the step input, or (when the sequence was projected) its input convolution,
  // channels_last (batch, *out_spatial, 4·filters); s: {h, c} in the data format.
  Tensor xz;
  if (projected_) {
    xz = x;
  } else if (training && o_.dropout > 0 && o_.dropout < 1) {
    std::vector<Tensor> inputs;
    for (const Tensor& m : dropout_masks(x, o_.dropout)) inputs.push_back(x * m);
    xz = input_conv(inputs);
  } else {
    xz = input_conv({x});
  }
  std::vector<Tensor> hs{s.at(0)};
  if (training && o_.recurrent_dropout > 0 && o_.recurrent_dropout < 1) {
    const std::vector<Tensor> masks =
        projected_ && !recurrent_masks_.empty() ? recurrent_masks_ : dropout_masks(s[0], o_.recurrent_dropout);
    hs.clear();
    for (const Tensor& m : masks) hs.push_back(s[0] * m);
  }
  const bool cf = channels_first();
  std::vector<Tensor> g = split(xz + recurrent_conv(hs), 4, N + 1);
  Tensor i = recurrent_activation_(g[0]);
  Tensor f = recurrent_activation_(g[1]);
  Tensor o = recurrent_activation_(g[3]);
  Tensor c_prev = cf ? transpose(s.at(1), to_channels_last(N + 2)) : s.at(1);
  Tensor c = f * c_prev + i * activation_(g[2]);
  Tensor h = o * activation_(c);
  if (cf) {
    h = transpose(h, to_channels_first(N + 2));
    c = transpose(c, to_channels_first(N + 2));
  }
  return {h, {h, c}};
}

template <int N>
Config ConvLSTMCellImpl<N>::get_config() const {
  return layer_config(*this);
}

template class ConvLSTMCellImpl<1>;
template class ConvLSTMCellImpl<2>;
template class ConvLSTMCellImpl<3>;

}  // namespace kiln::layers
