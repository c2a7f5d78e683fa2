// ConvLSTM1D/2D/3D: RNN's loop over a ConvLSTMCell; the layer adds the
// output shapes and Keras's config keys.
#include "kiln/layers/conv_lstm.h"

#include "config_fields.h"
#include "recurrent_options.h"

namespace kiln::layers {

using namespace detail;

template <int N>
ConvLSTMImpl<N>::ConvLSTMImpl(const std::string& cls, int64_t filters, Size kernel_size, Options o)
    : RNNImpl(base_options(o), rnn_options_from(o),
              std::make_shared<ConvLSTMCellImpl<N>>(
                  filters, kernel_size, cell_options_from<ConvLSTMCellOptions<N>>(o, "conv_lstm_cell"), cls)),
      filters_(filters), o_(std::move(o)) {
  // The cell checked and normalised the sizes, padding and data format; the config writes its values.
  const ConvLSTMCellImpl<N>& c = conv_cell();
  kernel_size_ = c.kernel_size();
  o_.strides = c.options().strides;
  o_.padding = c.options().padding;
  o_.data_format = c.options().data_format;
  o_.dilation_rate = c.options().dilation_rate;
  o_.dropout = c.options().dropout;
  o_.recurrent_dropout = c.options().recurrent_dropout;
  activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = N + 3}});
}

template <int N>
std::vector<Shape> ConvLSTMImpl<N>::compute_output_shape(const std::vector<Shape>& shapes) {
  const Shape& s = shapes.at(0);
  if (s.rank() != N + 3)
    throw ShapeError("Layer '" + name() + "' (" + class_name() + ") expects inputs of rank " + std::to_string(N + 3) +
                     " (batch, time, *spatial, channels), but received input with shape " + s.to_string());
  Shape step{s[0]};
  for (int64_t i = 2; i < s.rank(); ++i) step.push_back(s[i]);
  const Shape state = conv_cell().state_shape(step);
  std::vector<Shape> out;
  if (rnn_options().return_sequences) {
    Shape seq{s[0], s[1]};
    for (int64_t i = 1; i < state.rank(); ++i) seq.push_back(state[i]);
    out.push_back(seq);
  } else {
    out.push_back(state);
  }
  if (rnn_options().return_state) out.insert(out.end(), {state, state});
  return out;
}

template <int N>
Config ConvLSTMImpl<N>::get_config() const {
  Config c = layer_config(*this);
  c["zero_output_for_mask"] = rnn_options().zero_output_for_mask;  // Bidirectional may have set it
  return c;
}

template class ConvLSTMImpl<1>;
template class ConvLSTMImpl<2>;
template class ConvLSTMImpl<3>;

ConvLSTM1DImpl::ConvLSTM1DImpl(int64_t filters, Size1 kernel_size, Options o)
    : ConvLSTMImpl("ConvLSTM1D", filters, kernel_size, std::move(o)) {}
ConvLSTM2DImpl::ConvLSTM2DImpl(int64_t filters, Size2 kernel_size, Options o)
    : ConvLSTMImpl("ConvLSTM2D", filters, kernel_size, std::move(o)) {}
ConvLSTM3DImpl::ConvLSTM3DImpl(int64_t filters, std::vector<int> kernel_size, Options o)
    : ConvLSTMImpl("ConvLSTM3D", filters, std::move(kernel_size), std::move(o)) {}

KILN_REGISTER_LAYER(ConvLSTM1DImpl, "ConvLSTM1D")
KILN_REGISTER_LAYER(ConvLSTM2DImpl, "ConvLSTM2D")
KILN_REGISTER_LAYER(ConvLSTM3DImpl, "ConvLSTM3D")

}  // namespace kiln::layers
