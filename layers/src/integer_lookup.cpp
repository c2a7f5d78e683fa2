// IntegerLookup: Keras 3's IndexLookup for int64 tokens (its checks and index layout),
// with a hash map for TensorFlow's StaticHashTable.
#include "kiln/layers/integer_lookup.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "categorical_encoding.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

namespace {
const char* const kCls = "IntegerLookup";

std::string list_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string opt_text(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "None"; }

void check_mode(const std::string& mode) {
  static const std::set<std::string> modes{"int", "one_hot", "multi_hot", "count", "tf_idf"};
  if (!modes.count(mode))
    throw ValueError("Unknown value for `output_mode` argument of IntegerLookup. Allowed values are: ('int', 'one_hot', "
                     "'multi_hot', 'count', 'tf_idf'). Received: output_mode=" + mode);
}
}  // namespace

IntegerLookupImpl::IntegerLookupImpl(IntegerLookupOptions o) : Layer(base_options(o)), o_(std::move(o)) {
  if (o_.max_tokens && *o_.max_tokens <= 1)
    throw ValueError("If `max_tokens` is set for `IntegerLookup`, it must be greater than 1. Received: max_tokens=" +
                     std::to_string(*o_.max_tokens));
  if (o_.num_oov_indices < 0)
    throw ValueError("The value of `num_oov_indices` argument for `IntegerLookup` must >= 0. Received: num_oov_indices=" +
                     std::to_string(o_.num_oov_indices));
  if (o_.sparse) throw ValueError("IntegerLookup: `sparse=True` is not supported in Kiln, which has dense tensors only; use sparse=False");
  if (o_.vocabulary_dtype != "int64")
    throw ValueError("Only `vocabulary_dtype='int64'` is supported at this time. Received: vocabulary_dtype=" + o_.vocabulary_dtype);
  if (o_.pad_to_max_tokens && !o_.max_tokens)
    throw ValueError("If pad_to_max_tokens is True, must set `max_tokens`. Received: max_tokens=None");
  if (o_.oov_method != "floormod")
    throw ValueError(o_.oov_method == "farmhash"
                         ? "IntegerLookup: oov_method='farmhash' (TensorFlow's FarmHash) is not supported in Kiln; use 'floormod'"
                         : "Unknown value for `oov_method` argument of IntegerLookup. Allowed values are: ('floormod', "
                           "'farmhash'). Received: oov_method=" + o_.oov_method);
  if (o_.salt) throw ValueError("`salt` can only be used when `oov_method='farmhash'`. Received: oov_method=floormod");
  if (o_.output_mode == "binary") o_.output_mode = "multi_hot";
  if (o_.output_mode == "tf-idf") o_.output_mode = "tf_idf";
  check_mode(o_.output_mode);
  if (o_.invert && o_.output_mode != "int")
    throw ValueError("`output_mode` must be `'int'` when `invert` is true. Received: output_mode=" + o_.output_mode);
  if (o_.idf_weights && o_.output_mode != "tf_idf")
    throw ValueError("`idf_weights` should only be set if `output_mode` is `'tf_idf'`. Received: idf_weights=" +
                     Config(*o_.idf_weights).dump() + " and output_mode=" + o_.output_mode);
  if (o_.output_mode == "tf_idf" && o_.vocabulary && !o_.idf_weights)
    throw ValueError("When specifying the `vocabulary` argument, in TF-IDF output mode, the `idf_weights` argument must "
                     "also be provided.");
  input_vocabulary_ = o_.vocabulary.has_value();
  if (o_.vocabulary) set_vocabulary(*o_.vocabulary, o_.idf_weights);
  apply_input_shape(*this, o_);
}

int64_t IntegerLookupImpl::oov_start() const { return o_.mask_token && o_.output_mode == "int" ? 1 : 0; }
int64_t IntegerLookupImpl::token_start() const { return oov_start() + o_.num_oov_indices; }
int64_t IntegerLookupImpl::vocabulary_size() const { return static_cast<int64_t>(tokens_.size()) + token_start(); }

std::vector<int64_t> IntegerLookupImpl::get_vocabulary(bool include_special_tokens) const {
  std::vector<int64_t> v;
  if (include_special_tokens) {
    if (oov_start() == 1) v.push_back(*o_.mask_token);
    for (int64_t i = 0; i < o_.num_oov_indices; ++i) v.push_back(o_.oov_token.value_or(-1));
  }
  v.insert(v.end(), tokens_.begin(), tokens_.end());
  return v;
}

void IntegerLookupImpl::set_vocabulary(const std::vector<int64_t>& vocabulary, std::optional<std::vector<double>> idf) {
  if (o_.output_mode == "tf_idf" && !idf) throw ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.");
  if (o_.output_mode != "tf_idf" && idf)
    throw ValueError("`idf_weights` should only be set if output_mode is `'tf_idf'`. Received: output_mode=" + o_.output_mode);
  if (vocabulary.empty()) throw ValueError("Cannot set an empty vocabulary. Received: vocabulary=[]");
  const auto ts = static_cast<std::size_t>(token_start());
  std::vector<int64_t> special(static_cast<std::size_t>(oov_start()), o_.mask_token.value_or(0));
  special.insert(special.end(), static_cast<std::size_t>(o_.num_oov_indices), o_.oov_token.value_or(-1));
  const bool found_special = vocabulary.size() >= ts && std::equal(special.begin(), special.end(), vocabulary.begin());
  const std::vector<int64_t> tokens(vocabulary.begin() + (found_special ? static_cast<std::ptrdiff_t>(ts) : 0), vocabulary.end());
  std::map<int64_t, int> seen;
  std::vector<int64_t> repeated;
  for (int64_t t : tokens)
    if (++seen[t] == 2) repeated.push_back(t);
  if (!repeated.empty())
    throw ValueError("The passed vocabulary has at least one repeated term. Please uniquify your dataset. The repeated "
                     "terms are: " + list_text(repeated));
  const std::string order = " Note that passed `vocabulary` does not need to include the OOV and mask tokens. Either "
                            "remove all mask and OOV tokens, or include them only at the start of the vocabulary in "
                            "precisely this order: " + list_text(special) + ".";
  if (o_.mask_token && seen.count(*o_.mask_token))
    throw ValueError("Found reserved mask token at unexpected location in `vocabulary`." + order +
                     " Received: mask_token=" + std::to_string(*o_.mask_token));
  if (o_.invert && o_.oov_token && seen.count(*o_.oov_token))
    throw ValueError("Found reserved OOV token at unexpected location in `vocabulary`." + order +
                     " Received: oov_token=" + std::to_string(*o_.oov_token));
  const int64_t size = static_cast<int64_t>(ts + tokens.size());
  if (o_.max_tokens && size > *o_.max_tokens)
    throw ValueError("Attempted to set a vocabulary larger than the maximum vocab size. Received vocabulary size is " +
                     std::to_string(size) + "; `max_tokens` is " + std::to_string(*o_.max_tokens) + ".");
  std::vector<double> weights;
  if (idf) {
    if (idf->size() != vocabulary.size())
      throw ValueError("`idf_weights` must be the same length as vocabulary. len(idf_weights) is " +
                       std::to_string(idf->size()) + "; len(vocabulary) is " + std::to_string(vocabulary.size()));
    const double average = std::accumulate(idf->begin(), idf->end(), 0.0) / static_cast<double>(idf->size());
    weights.assign(found_special ? 0 : ts, average);
    weights.insert(weights.end(), idf->begin(), idf->end());
  }
  set_tokens(tokens, weights);
}

void IntegerLookupImpl::set_tokens(const std::vector<int64_t>& tokens, const std::vector<double>& idf) {
  tokens_ = tokens;
  index_.clear();
  for (std::size_t i = 0; i < tokens_.size(); ++i) index_[tokens_[i]] = token_start() + static_cast<int64_t>(i);
  idf_ = idf;
  if (!idf_.empty() && o_.pad_to_max_tokens && o_.max_tokens) idf_.resize(static_cast<std::size_t>(*o_.max_tokens), 0.0);
  has_vocabulary_ = true;
  o_.vocabulary_size = vocabulary_size();
}

void IntegerLookupImpl::adapt(const Tensor& data) {
  if (input_vocabulary_)
    throw ValueError("Cannot adapt layer '" + name() + "' after setting a static vocabulary via `vocabulary` argument or "
                     "`set_vocabulary()` method.");
  Tensor d = cast(data, DType::int64);
  if (d.rank() == 0) d = reshape(d, {1, 1});
  if (d.rank() == 1) d = expand_dims(d, -1);  // one document per value
  const std::vector<int64_t> v = d.to_vector<int64_t>();
  const auto rows = static_cast<std::size_t>(d.shape()[0]), per_row = rows ? v.size() / rows : 0;
  std::map<int64_t, int64_t> counts, documents;
  for (std::size_t r = 0; r < rows; ++r) {
    std::set<int64_t> in_row(v.begin() + static_cast<std::ptrdiff_t>(r * per_row), v.begin() + static_cast<std::ptrdiff_t>((r + 1) * per_row));
    for (int64_t t : in_row) ++documents[t];
  }
  for (int64_t t : v) ++counts[t];
  if (o_.mask_token) counts.erase(*o_.mask_token);
  if (o_.oov_token) counts.erase(*o_.oov_token);
  std::vector<std::pair<int64_t, int64_t>> order;  // (count, token), by decreasing count, then decreasing token
  for (auto [t, c] : counts) order.emplace_back(c, t);
  std::sort(order.begin(), order.end(), std::greater<>());
  if (o_.max_tokens) order.resize(std::min<std::size_t>(order.size(), static_cast<std::size_t>(std::max<int64_t>(*o_.max_tokens - token_start(), 0))));
  std::vector<int64_t> tokens;
  for (const auto& [c, t] : order) tokens.push_back(t);
  std::vector<double> idf;
  if (o_.output_mode == "tf_idf" && !tokens.empty()) {
    double mean = 0;
    for (int64_t t : tokens) {
      const double w = static_cast<float>(std::log(1.0 + static_cast<double>(rows) / (1.0 + static_cast<double>(documents[t]))));
      idf.push_back(w);
      mean += w;
    }
    idf.insert(idf.begin(), static_cast<std::size_t>(token_start()), static_cast<float>(mean / static_cast<double>(tokens.size())));
  }
  if (tokens.empty()) return;
  set_tokens(tokens, idf);
  o_.vocabulary = get_vocabulary();  // the config carries what Keras keeps in its vocabulary.txt asset
  if (!idf.empty()) o_.idf_weights = idf;
}

Tensor IntegerLookupImpl::lookup(const Tensor& x) const {
  const std::vector<int64_t> v = cast(x, DType::int64).to_vector<int64_t>();
  const int64_t mask_value = o_.output_mode == "int" ? 0 : std::numeric_limits<int64_t>::max();
  std::vector<int64_t> out(v.size()), missing;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (o_.mask_token && v[i] == *o_.mask_token) {
      out[i] = mask_value;
    } else if (auto it = index_.find(v[i]); it != index_.end()) {
      out[i] = it->second;
    } else if (o_.num_oov_indices == 0) {
      missing.push_back(v[i]);
    } else {
      const int64_t n = o_.num_oov_indices, m = v[i] % n;
      out[i] = oov_start() + (m < 0 ? m + n : m);  // floormod
    }
  }
  if (!missing.empty())
    throw InvalidArgumentError("When `num_oov_indices=0` all inputs should be in vocabulary, found OOV values " +
                               list_text(missing) + ", consider setting `num_oov_indices=1`.");
  return Tensor(out, x.shape());
}

Tensor IntegerLookupImpl::invert_lookup(const Tensor& x) const {
  const std::vector<int64_t> v = cast(x, DType::int64).to_vector<int64_t>();
  std::vector<int64_t> out(v.size());
  const int64_t start = token_start(), n = static_cast<int64_t>(tokens_.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (o_.mask_token && v[i] == 0) out[i] = *o_.mask_token;
    else if (v[i] >= start && v[i] < start + n) out[i] = tokens_[static_cast<std::size_t>(v[i] - start)];
    else out[i] = o_.oov_token.value_or(-1);
  }
  return Tensor(out, x.shape());
}

Shape IntegerLookupImpl::compute_output_shape(const Shape& s) {
  if (o_.output_mode == "int") return s;
  const int64_t depth = o_.pad_to_max_tokens ? *o_.max_tokens : o_.vocabulary_size.value_or(None);
  return encoded_shape(s, o_.output_mode == "tf_idf" ? "count" : o_.output_mode, depth);
}

Tensor IntegerLookupImpl::call(const Tensor& x, bool) {
  if (o_.invert) return invert_lookup(x);
  if (o_.output_mode != "int" && !o_.pad_to_max_tokens && !has_vocabulary_)
    throw RuntimeError("When using `output_mode=" + o_.output_mode + "` and `pad_to_max_tokens=False`, you must set the "
                       "layer's vocabulary before calling it. Either pass a `vocabulary` argument to the layer, or call "
                       "`adapt` with some sample data.");
  const Tensor ids = lookup(x);
  if (o_.output_mode == "int") return ids;
  const int64_t depth = o_.pad_to_max_tokens ? *o_.max_tokens : vocabulary_size();
  if (o_.output_mode != "tf_idf") return encode_categorical(ids, o_.output_mode, depth, DType::int64);
  std::vector<double> idf = idf_;
  idf.resize(static_cast<std::size_t>(depth), 0.0);
  const Tensor counts = encode_categorical(ids, "count", depth, DType::float32);
  return counts * cast(Tensor(idf, Shape{depth}), DType::float32);
}

Config IntegerLookupImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(IntegerLookupImpl, "IntegerLookup")

}  // namespace kiln::layers
