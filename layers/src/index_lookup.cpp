// Keras 3's IndexLookup (its checks, index layout and adapt order) for int64 and
// string tokens, with a hash map for TensorFlow's StaticHashTable.
#include "kiln/layers/index_lookup.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include "kiln/layers/integer_lookup.h"
#include "kiln/layers/string_lookup.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/string_hash.h"
#include "categorical_encoding.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

namespace {

// A token as Python prints it inside a list: 12, or 'a'.
std::string token_text(int64_t t) { return std::to_string(t); }
std::string token_text(const std::string& t) { return "'" + t + "'"; }
template <class Token>
std::string list_text(const std::vector<Token>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + token_text(v[i]);
  return s + "]";
}

// The tokens of an input tensor, and tensors of tokens.
template <class Token>
std::vector<Token> tokens_of(const Tensor& x, const char* cls) {
  if constexpr (std::is_same_v<Token, std::string>) {
    if (x.dtype() != DType::string)
      throw TypeError(std::string(cls) + ": expected a string tensor, but received dtype " + dtype_name(x.dtype()) +
                      " with shape " + x.shape().to_string());
    return x.to_vector<std::string>();
  } else {
    if (x.dtype() == DType::string)
      throw TypeError(std::string(cls) + ": expected an integer tensor, but received a string tensor of shape " +
                      x.shape().to_string() + "; StringLookup looks up strings");
    return cast(x, DType::int64).to_vector<int64_t>();
  }
}

void check_mode(const char* cls, const std::string& mode) {
  static const std::set<std::string> modes{"int", "one_hot", "multi_hot", "count", "tf_idf"};
  if (!modes.count(mode))
    throw ValueError(std::string("Unknown value for `output_mode` argument of ") + cls +
                     ". Allowed values are: ('int', 'one_hot', 'multi_hot', 'count', 'tf_idf'). Received: output_mode=" + mode);
}

template <class Options>
void check_options(Options& o, const char* cls) {
  if (o.max_tokens && *o.max_tokens <= 1)
    throw ValueError(std::string("If `max_tokens` is set for `") + cls + "`, it must be greater than 1. Received: max_tokens=" +
                     std::to_string(*o.max_tokens));
  if (o.num_oov_indices < 0)
    throw ValueError(std::string("The value of `num_oov_indices` argument for `") + cls +
                     "` must >= 0. Received: num_oov_indices=" + std::to_string(o.num_oov_indices));
  if (o.sparse)
    throw ValueError(std::string(cls) + ": `sparse=True` is not supported in Kiln, which has dense tensors only; use sparse=False");
  if (o.pad_to_max_tokens && !o.max_tokens)
    throw ValueError("If pad_to_max_tokens is True, must set `max_tokens`. Received: max_tokens=None");
  if (o.oov_method != "floormod" && o.oov_method != "farmhash")
    throw ValueError(std::string("Unknown value for `oov_method` argument of ") + cls +
                     ". Allowed values are: ('floormod', 'farmhash'). Received: oov_method=" + o.oov_method);
  if (o.salt) {
    if (o.oov_method != "farmhash" && std::string(cls) == "IntegerLookup")
      throw ValueError("`salt` can only be used when `oov_method='farmhash'`. Received: oov_method=" + o.oov_method);
    if (o.salt->size() == 1) o.salt->push_back((*o.salt)[0]);  // a single integer s is [s, s]
    if (o.salt->size() != 2)
      throw ValueError("The `salt` argument for `IndexLookup` can only be a tuple of 2 integers, or a single integer. "
                       "Received: salt=" + list_text(*o.salt) + ".");
  }
  if (o.output_mode == "binary") o.output_mode = "multi_hot";
  if (o.output_mode == "tf-idf") o.output_mode = "tf_idf";
  check_mode(cls, o.output_mode);
  if (o.invert && o.output_mode != "int")
    throw ValueError("`output_mode` must be `'int'` when `invert` is true. Received: output_mode=" + o.output_mode);
  if (o.idf_weights && o.output_mode != "tf_idf")
    throw ValueError("`idf_weights` should only be set if `output_mode` is `'tf_idf'`. Received: idf_weights=" +
                     Config(*o.idf_weights).dump() + " and output_mode=" + o.output_mode);
  if (o.output_mode == "tf_idf" && o.vocabulary && !o.idf_weights)
    throw ValueError("When specifying the `vocabulary` argument, in TF-IDF output mode, the `idf_weights` argument must "
                     "also be provided.");
}

}  // namespace

template <class Options, class Token>
IndexLookupImpl<Options, Token>::IndexLookupImpl(Options o, const char* cls)
    : Layer(base_options(o)), o_(std::move(o)), cls_(cls) {
  check_options(o_, cls_);
  input_vocabulary_ = o_.vocabulary.has_value();
  if (o_.vocabulary) set_vocabulary(*o_.vocabulary, o_.idf_weights);
  apply_input_shape(*this, o_);
}

template <class Options, class Token>
int64_t IndexLookupImpl<Options, Token>::oov_start() const { return o_.mask_token && o_.output_mode == "int" ? 1 : 0; }
template <class Options, class Token>
int64_t IndexLookupImpl<Options, Token>::token_start() const { return oov_start() + o_.num_oov_indices; }
template <class Options, class Token>
int64_t IndexLookupImpl<Options, Token>::vocabulary_size() const {
  return static_cast<int64_t>(tokens_.size()) + token_start();
}

template <class Options, class Token>
std::vector<Token> IndexLookupImpl<Options, Token>::get_vocabulary(bool include_special_tokens) const {
  std::vector<Token> v;
  if (include_special_tokens) {
    if (oov_start() == 1) v.push_back(*o_.mask_token);
    for (int64_t i = 0; i < o_.num_oov_indices; ++i) v.push_back(o_.oov_token.value_or(Token()));
  }
  v.insert(v.end(), tokens_.begin(), tokens_.end());
  return v;
}

template <class Options, class Token>
void IndexLookupImpl<Options, Token>::set_vocabulary(const std::vector<Token>& vocabulary, std::optional<std::vector<double>> idf) {
  if (o_.output_mode == "tf_idf" && !idf) throw ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.");
  if (o_.output_mode != "tf_idf" && idf)
    throw ValueError("`idf_weights` should only be set if output_mode is `'tf_idf'`. Received: output_mode=" + o_.output_mode);
  if (vocabulary.empty()) throw ValueError("Cannot set an empty vocabulary. Received: vocabulary=[]");
  const auto ts = static_cast<std::size_t>(token_start());
  std::vector<Token> special(static_cast<std::size_t>(oov_start()), o_.mask_token.value_or(Token()));
  special.insert(special.end(), static_cast<std::size_t>(o_.num_oov_indices), o_.oov_token.value_or(Token()));
  const bool found_special = vocabulary.size() >= ts && std::equal(special.begin(), special.end(), vocabulary.begin());
  const std::vector<Token> tokens(vocabulary.begin() + (found_special ? static_cast<std::ptrdiff_t>(ts) : 0), vocabulary.end());
  std::map<Token, int> seen;
  std::vector<Token> repeated;
  for (const Token& t : tokens)
    if (++seen[t] == 2) repeated.push_back(t);
  if (!repeated.empty())
    throw ValueError("The passed vocabulary has at least one repeated term. Please uniquify your dataset. The repeated "
                     "terms are: " + list_text(repeated));
  const std::string order = " Note that passed `vocabulary` does not need to include the OOV and mask tokens. Either "
                            "remove all mask and OOV tokens, or include them only at the start of the vocabulary in "
                            "precisely this order: " + list_text(special) + ".";
  if (o_.mask_token && seen.count(*o_.mask_token))
    throw ValueError("Found reserved mask token at unexpected location in `vocabulary`." + order +
                     " Received: mask_token=" + token_text(*o_.mask_token));
  if (o_.invert && o_.oov_token && seen.count(*o_.oov_token))
    throw ValueError("Found reserved OOV token at unexpected location in `vocabulary`." + order +
                     " Received: oov_token=" + token_text(*o_.oov_token));
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

template <class Options, class Token>
void IndexLookupImpl<Options, Token>::set_tokens(const std::vector<Token>& tokens, const std::vector<double>& idf) {
  tokens_ = tokens;
  index_.clear();
  for (std::size_t i = 0; i < tokens_.size(); ++i) index_[tokens_[i]] = token_start() + static_cast<int64_t>(i);
  idf_ = idf;
  if (!idf_.empty() && o_.pad_to_max_tokens && o_.max_tokens) idf_.resize(static_cast<std::size_t>(*o_.max_tokens), 0.0);
  has_vocabulary_ = true;
  o_.vocabulary_size = vocabulary_size();
}

template <class Options, class Token>
void IndexLookupImpl<Options, Token>::adapt(const Tensor& data) {
  Tensor d = data;
  if (d.rank() == 0) d = reshape(d, {1, 1});
  if (d.rank() == 1) d = expand_dims(d, -1);  // one document per value
  const std::vector<Token> v = tokens_of<Token>(d, cls_);
  const int64_t rows = d.shape()[0], per_row = rows ? static_cast<int64_t>(v.size()) / rows : 0;
  std::vector<int64_t> splits;
  for (int64_t r = 0; r <= rows; ++r) splits.push_back(r * per_row);
  adapt_documents(v, splits);
}

template <class Options, class Token>
void IndexLookupImpl<Options, Token>::adapt_documents(const std::vector<Token>& v, const std::vector<int64_t>& splits) {
  if (input_vocabulary_)
    throw ValueError("Cannot adapt layer '" + name() + "' after setting a static vocabulary via `vocabulary` argument or "
                     "`set_vocabulary()` method.");
  const std::size_t rows = splits.empty() ? 0 : splits.size() - 1;
  std::map<Token, int64_t> counts, documents;
  for (std::size_t r = 0; r < rows; ++r) {
    std::set<Token> in_row(v.begin() + splits[r], v.begin() + splits[r + 1]);
    for (const Token& t : in_row) ++documents[t];
  }
  for (const Token& t : v) ++counts[t];
  if (o_.mask_token) counts.erase(*o_.mask_token);
  if (o_.oov_token) counts.erase(*o_.oov_token);
  std::vector<std::pair<int64_t, Token>> order;  // (count, token), by decreasing count, then decreasing token
  for (const auto& [t, c] : counts) order.emplace_back(c, t);
  std::sort(order.begin(), order.end(), std::greater<>());
  if (o_.max_tokens) order.resize(std::min<std::size_t>(order.size(), static_cast<std::size_t>(std::max<int64_t>(*o_.max_tokens - token_start(), 0))));
  std::vector<Token> tokens;
  for (const auto& [c, t] : order) tokens.push_back(t);
  std::vector<double> idf;
  if (o_.output_mode == "tf_idf" && !tokens.empty()) {
    double mean = 0;
    for (const Token& t : tokens) {
      const double w = static_cast<float>(std::log(1.0 + static_cast<double>(rows) / (1.0 + static_cast<double>(documents[t]))));
      idf.push_back(w);
      mean += w;
    }
    idf.insert(idf.begin(), static_cast<std::size_t>(token_start()), static_cast<float>(mean / static_cast<double>(tokens.size())));
  }
  if (tokens.empty()) return;
  set_tokens(tokens, idf);
}

template <class Options, class Token>
int64_t IndexLookupImpl<Options, Token>::oov_index(const Token& t) const {
  const int64_t n = o_.num_oov_indices;
  if (n <= 1) return oov_start();
  if constexpr (std::is_same_v<Token, int64_t>) {
    if (o_.oov_method == "floormod") {
      const int64_t m = t % n;
      return oov_start() + (m < 0 ? m + n : m);
    }
  }
  std::string text;
  if constexpr (std::is_same_v<Token, int64_t>) text = std::to_string(t);  // tf.strings.as_string
  else text = t;
  const uint64_t h = o_.salt ? utils::siphash24(static_cast<uint64_t>((*o_.salt)[0]), static_cast<uint64_t>((*o_.salt)[1]), text)
                             : utils::fingerprint64(text);
  return oov_start() + static_cast<int64_t>(h % static_cast<uint64_t>(n));
}

template <class Options, class Token>
Tensor IndexLookupImpl<Options, Token>::lookup(const Tensor& x) const {
  const std::vector<Token> v = tokens_of<Token>(x, cls_);
  const int64_t mask_value = o_.output_mode == "int" ? 0 : std::numeric_limits<int64_t>::max();
  std::vector<int64_t> out(v.size());
  std::vector<Token> missing;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (o_.mask_token && v[i] == *o_.mask_token) out[i] = mask_value;
    else if (auto it = index_.find(v[i]); it != index_.end()) out[i] = it->second;
    else if (o_.num_oov_indices == 0) missing.push_back(v[i]);
    else out[i] = oov_index(v[i]);
  }
  if (!missing.empty())
    throw InvalidArgumentError("When `num_oov_indices=0` all inputs should be in vocabulary, found OOV values " +
                               list_text(missing) + ", consider setting `num_oov_indices=1`.");
  return Tensor(out, x.shape());
}

template <class Options, class Token>
Tensor IndexLookupImpl<Options, Token>::invert_lookup(const Tensor& x) const {
  const std::vector<int64_t> v = cast(x, DType::int64).to_vector<int64_t>();
  std::vector<Token> out(v.size());
  const int64_t start = token_start(), n = static_cast<int64_t>(tokens_.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (o_.mask_token && v[i] == 0) out[i] = *o_.mask_token;
    else if (v[i] >= start && v[i] < start + n) out[i] = tokens_[static_cast<std::size_t>(v[i] - start)];
    else out[i] = o_.oov_token.value_or(Token());
  }
  return Tensor(out, x.shape());
}

template <class Options, class Token>
Shape IndexLookupImpl<Options, Token>::compute_output_shape(const Shape& s) {
  if (o_.output_mode == "int") return s;
  const int64_t depth = o_.pad_to_max_tokens ? *o_.max_tokens : o_.vocabulary_size.value_or(None);
  return encoded_shape(s, o_.output_mode == "tf_idf" ? "count" : o_.output_mode, depth);
}

template <class Options, class Token>
int64_t IndexLookupImpl<Options, Token>::encoding_depth() const {
  return o_.pad_to_max_tokens ? *o_.max_tokens : vocabulary_size();
}

template <class Options, class Token>
void IndexLookupImpl<Options, Token>::check_encodable() const {
  if (o_.output_mode != "int" && !o_.pad_to_max_tokens && !has_vocabulary_)
    throw RuntimeError("When using `output_mode=" + o_.output_mode + "` and `pad_to_max_tokens=False`, you must set the "
                       "layer's vocabulary before calling it. Either pass a `vocabulary` argument to the layer, or call "
                       "`adapt` with some sample data.");
}

template <class Options, class Token>
Tensor IndexLookupImpl<Options, Token>::encode_documents(const Tensor& ids, const std::vector<int64_t>& splits) const {
  check_encodable();
  const std::string& mode = o_.output_mode;
  if (mode != "multi_hot" && mode != "count" && mode != "tf_idf")
    throw ValueError(std::string(cls_) + ": documents of tokens encode with output_mode 'multi_hot', 'count' or "
                     "'tf_idf', not '" + mode + "'");
  const int64_t depth = encoding_depth(), rows = splits.empty() ? 0 : static_cast<int64_t>(splits.size()) - 1;
  const std::vector<int64_t> v = ids.to_vector<int64_t>();
  std::vector<double> out(static_cast<std::size_t>(rows * depth), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = splits[r]; k < splits[r + 1]; ++k) {
      const int64_t id = v[static_cast<std::size_t>(k)];
      if (id < 0 || id >= depth) continue;  // the mask token encodes as nothing
      double& slot = out[static_cast<std::size_t>(r * depth + id)];
      slot = mode == "multi_hot" ? 1.0 : slot + 1.0;
    }
  if (mode == "tf_idf") {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < depth; ++j)
        out[static_cast<std::size_t>(r * depth + j)] *= j < static_cast<int64_t>(idf_.size()) ? idf_[static_cast<std::size_t>(j)] : 0.0;
    return cast(Tensor(out, Shape{rows, depth}), DType::float32);
  }
  std::vector<int64_t> counts(out.begin(), out.end());
  return Tensor(counts, Shape{rows, depth});
}

template <class Options, class Token>
Tensor IndexLookupImpl<Options, Token>::call(const Tensor& x, bool) {
  if (o_.invert) return invert_lookup(x);
  check_encodable();
  const Tensor ids = lookup(x);
  if (o_.output_mode == "int") return ids;
  const int64_t depth = encoding_depth();
  if (o_.output_mode != "tf_idf") return encode_categorical(ids, o_.output_mode, depth, DType::int64);
  std::vector<double> idf = idf_;
  idf.resize(static_cast<std::size_t>(depth), 0.0);
  const Tensor counts = encode_categorical(ids, "count", depth, DType::float32);
  return counts * cast(Tensor(idf, Shape{depth}), DType::float32);
}

template class IndexLookupImpl<IntegerLookupOptions, int64_t>;
template class IndexLookupImpl<StringLookupOptions, std::string>;

}  // namespace kiln::layers
