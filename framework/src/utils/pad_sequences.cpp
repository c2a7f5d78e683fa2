// keras.utils.pad_sequences: rows copied byte-wise into a tensor pre-filled with the value.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kiln/core/device.h"
#include "kiln/core/error.h"
#include "kiln/utils/sequence.h"

namespace kiln::utils {
namespace {

void check_side(const std::string& side, const char* what) {
  if (side != "pre" && side != "post") throw ValueError(std::string(what) + " type \"" + side + "\" not understood");
}

// NumPy's text for a shape tuple: (), (3,), (3, 4).
std::string tuple_text(const std::vector<int64_t>& dims) {
  std::string s = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + (dims.size() == 1 ? ",)" : ")");
}

}  // namespace

Tensor pad_sequences(std::span<const Tensor> sequences, const PadSequencesOptions& options) {
  check_side(options.truncating, "Truncating");
  check_side(options.padding, "Padding");
  if (options.maxlen && *options.maxlen < 0)
    throw ValueError("pad_sequences: `maxlen` must be 0 or greater. Received: maxlen=" + std::to_string(*options.maxlen));
  std::vector<int64_t> sample_shape;
  bool have_sample_shape = false;
  int64_t longest = 0;
  for (const Tensor& s : sequences) {
    if (!s.defined() || s.rank() == 0)
      throw ValueError("`sequences` must be a list of iterables. Found non-iterable: " +
                       (s.defined() ? to_string(s) : std::string("an undefined Tensor")));
    const auto& d = s.shape().dims();
    if (!have_sample_shape && d[0] > 0) {
      sample_shape.assign(d.begin() + 1, d.end());
      have_sample_shape = true;
    }
    longest = std::max(longest, d[0]);
  }
  const int64_t maxlen = options.maxlen.value_or(longest);
  int64_t row_elems = 1;
  for (int64_t d : sample_shape) row_elems *= d;
  std::vector<int64_t> out_dims{static_cast<int64_t>(sequences.size()), maxlen};
  out_dims.insert(out_dims.end(), sample_shape.begin(), sample_shape.end());

  const std::size_t item = dtype_size(options.dtype), step_bytes = item * static_cast<std::size_t>(row_elems);
  Tensor out = Tensor::empty(Shape(out_dims), options.dtype);
  auto* dst = static_cast<unsigned char*>(out.raw_data());
  const Tensor fill(options.value, options.dtype);
  for (int64_t i = 0; i < out.size(); ++i) std::memcpy(dst + i * item, fill.raw_data(), item);

  for (std::size_t idx = 0; idx < sequences.size(); ++idx) {
    const auto& d = sequences[idx].shape().dims();
    const int64_t len = d[0];
    if (len == 0) continue;
    if (!std::equal(d.begin() + 1, d.end(), sample_shape.begin(), sample_shape.end()))
      throw ValueError("Shape of sample " + tuple_text({d.begin() + 1, d.end()}) + " of sequence at position " +
                       std::to_string(idx) + " is different from expected shape " + tuple_text(sample_shape));
    const int64_t kept = std::min(len, maxlen);
    const int64_t first = options.truncating == "pre" ? len - kept : 0;
    const int64_t at = options.padding == "pre" ? maxlen - kept : 0;
    const Tensor src = sequences[idx].to(Device::cpu()).cast(options.dtype);
    std::memcpy(dst + (static_cast<std::size_t>(idx) * maxlen + at) * step_bytes,
                static_cast<const unsigned char*>(src.raw_data()) + first * step_bytes, kept * step_bytes);
  }
  return out;
}

Tensor pad_sequences(const std::vector<std::vector<int64_t>>& sequences, const PadSequencesOptions& options) {
  std::vector<Tensor> rows;
  rows.reserve(sequences.size());
  for (const auto& s : sequences) rows.emplace_back(s, Shape({static_cast<int64_t>(s.size())}));
  return pad_sequences(std::span<const Tensor>(rows), options);
}

}  // namespace kiln::utils
