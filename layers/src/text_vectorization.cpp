// TextVectorization: Keras 3.15's checks and pipeline (standardize, split, ngrams,
// then a StringLookup with mask_token ""), on Kiln's string tensors.
#include "kiln/layers/text_vectorization.h"

#include "kiln/data/dataset.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/ragged.h"
#include "kiln/ops/strings.h"
#include "config_fields.h"
#include "text_functions.h"

namespace kiln::layers {

Ngrams::Ngrams(int64_t n) : up_to(n) {
  for (int64_t w = 1; w <= n; ++w) widths.push_back(w);
}
Ngrams::Ngrams(std::vector<int64_t> w) : widths(std::move(w)) {}

// "ngrams" is an integer or a list in Keras's config.
Config config_value(const Ngrams& v) { return v.up_to > 0 ? Config(v.up_to) : Config(v.widths); }
void read_value(const config_io::ConfigReader& r, const char* key, Ngrams& v) {
  const Config& j = r.raw()[key];
  if (j.is_number_integer()) {
    v = Ngrams(j.get<int64_t>());
    return;
  }
  if (!j.is_array()) r.fail(key, "an integer or a list of integers");
  std::vector<int64_t> w;
  for (const auto& x : j) {
    if (!x.is_number_integer()) r.fail(key, "an integer or a list of integers");
    w.push_back(x.get<int64_t>());
  }
  v = Ngrams(std::move(w));
}

using namespace detail;

namespace {

std::string text_or_none(const std::optional<std::string>& s) { return s ? *s : "None"; }

void check_text_vectorization(const TextVectorizationOptions& o) {
  const std::string& mode = o.standardize ? o.standardize->name : std::string();
  if (o.standardize && !o.standardize->function && mode != "lower_and_strip_punctuation" && mode != "lower" &&
      mode != "strip_punctuation")
    throw ValueError("Unkown value for `standardize` argument of layer TextVectorization. Allowed values are: "
                     "('lower_and_strip_punctuation', 'lower', 'strip_punctuation') or a callable. Received: " + mode);
  if (o.split && !o.split->function && o.split->name != "whitespace" && o.split->name != "character")
    throw ValueError("Unkown value for `split` argument of layer TextVectorization. Allowed values are: "
                     "('whitespace', 'character') or a callable. Received: " + o.split->name);
  if (o.sparse) throw ValueError("`sparse=True` can only be used with the TensorFlow backend.");
  if (o.ragged) throw ValueError("`ragged=True` can only be used with the TensorFlow backend.");
  if (o.ngrams)
    for (int64_t w : o.ngrams->widths)
      if (w < 1) throw ValueError("`ngrams` widths must be >= 1. Received: ngrams width " + std::to_string(w));
  if (o.output_mode != "int" && o.output_sequence_length)
    throw ValueError("`output_sequence_length` must not be set if `output_mode` is not 'int'. Received "
                     "output_sequence_length=" + std::to_string(*o.output_sequence_length) + ".");
  if (o.output_sequence_length && *o.output_sequence_length < 0)
    throw ValueError("`output_sequence_length` must be None or >= 0. Received: output_sequence_length=" +
                     std::to_string(*o.output_sequence_length));
}

TextVectorizationOptions normalized(TextVectorizationOptions o) {
  if (o.output_mode == "binary") o.output_mode = "multi_hot";
  if (o.output_mode == "tf-idf") o.output_mode = "tf_idf";
  return o;
}

StringLookupOptions lookup_options(const TextVectorizationOptions& o) {
  StringLookupOptions l;
  l.max_tokens = o.max_tokens;
  l.mask_token = std::string();
  l.vocabulary = o.vocabulary;
  l.idf_weights = o.idf_weights;
  l.output_mode = o.output_mode;
  l.pad_to_max_tokens = o.pad_to_max_tokens;
  l.encoding = o.encoding;
  l.vocabulary_size = o.vocabulary_size;  // sizes the "idf_weights" entry a file loads before the vocabulary
  return l;
}

// Python's string.punctuation, which Keras's strip regex matches byte for byte.
bool ascii_punctuation(unsigned char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}

// Keras's dense path: ids[..., :length], then zeros padded on the right of the last axis.
Tensor fit_last_axis(const Tensor& ids, int64_t length) {
  Tensor cut = ids.shape()[-1] > length ? ids[{ellipsis, Slice(0, length)}] : ids;
  if (cut.shape()[-1] == length) return cut;
  Shape pad = cut.shape();
  pad[-1] = length - cut.shape()[-1];
  return concat({cut, zeros(pad, cut.dtype())}, -1);
}

}  // namespace

TextVectorizationImpl::TextVectorizationImpl(TextVectorizationOptions o)
    : Layer(base_options(o)), o_(normalized(std::move(o))) {
  check_text_vectorization(o_);
  lookup_ = std::make_shared<StringLookupImpl>(lookup_options(o_));
  track_layer(lookup_, "_lookup_layer");
  o_.vocabulary_size = lookup_->options().vocabulary_size;
  apply_input_shape(*this, o_);
}

Tensor TextVectorizationImpl::standardized(const Tensor& texts) const {
  if (texts.dtype() != DType::string)
    throw TypeError("Layer '" + name() + "' (TextVectorization): expected a string tensor, but received dtype " +
                    dtype_name(texts.dtype()) + " with shape " + texts.shape().to_string());
  if (!o_.standardize) return texts;
  if (o_.standardize->function) {
    Tensor out = o_.standardize->function(texts);
    if (out.dtype() != DType::string || out.shape() != texts.shape())
      throw ValueError("Layer '" + name() + "' (TextVectorization): the standardize function '" + o_.standardize->name +
                       "' must return a string tensor of its input's shape " + texts.shape().to_string() +
                       "; it returned dtype " + dtype_name(out.dtype()) + " with shape " + out.shape().to_string());
    return out;
  }
  const bool lower = o_.standardize->name != "strip_punctuation", strip = o_.standardize->name != "lower";
  Tensor out = Tensor::empty(texts.shape(), DType::string);
  const std::string* in = texts.data<std::string>();
  std::string* o = out.data<std::string>();
  for (int64_t i = 0; i < texts.size(); ++i) {
    std::string& s = o[i];
    s.reserve(in[i].size());
    for (unsigned char c : in[i]) {
      if (strip && ascii_punctuation(c)) continue;
      s += static_cast<char>(lower && c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
  }
  return out;
}

RaggedTensor TextVectorizationImpl::tokenize(const Tensor& texts) const {
  Tensor x = standardized(texts);
  if (!o_.split) {
    RaggedTensor dense = RaggedTensor::dense(x.rank() == 0 ? reshape(x, Shape{1}) : x);
    return o_.ngrams ? strings::ngrams(dense, o_.ngrams->widths) : dense;
  }
  if (x.rank() > 1) {
    if (x.rank() != 2 || x.shape()[-1] != 1)
      throw ValueError("When using `TextVectorization` to tokenize strings, the input rank must be 1 or the last shape "
                       "dimension must be 1. Received: inputs.shape=" + x.shape().to_string() + " with rank=" +
                       std::to_string(x.rank()));
    x = reshape(x, Shape{x.shape()[0]});
  }
  RaggedTensor tokens = o_.split->function      ? o_.split->function(x)
                        : o_.split->name == "whitespace" ? strings::split(x)
                                                         : strings::unicode_split(x, "UTF-8");
  return o_.ngrams ? strings::ngrams(tokens, o_.ngrams->widths) : tokens;
}


void TextVectorizationImpl::adapt(const Tensor& texts) {
  const RaggedTensor tokens = tokenize(texts);
  const std::vector<std::string> values = tokens.values().to_vector<std::string>();
  std::vector<int64_t> splits;
  if (tokens.ragged_rank()) {
    splits = tokens.row_splits().to_vector<int64_t>();
  } else if (!o_.split || texts.rank() != 0) {
    for (int64_t i = 0; i <= static_cast<int64_t>(values.size()); ++i) splits.push_back(i);  // one token per document
  } else {
    splits = {0, static_cast<int64_t>(values.size())};  // a scalar text is one document
  }
  lookup_->adapt_documents(values, splits);
  o_.vocabulary_size = lookup_->vocabulary_size();
}

void TextVectorizationImpl::adapt(const Dataset& texts) {
  std::vector<std::string> values;
  std::vector<int64_t> splits{0};
  for (const Element& batch : texts) {
    if (batch.empty()) throw ValueError("TextVectorization.adapt: a dataset element has no components");
    const RaggedTensor tokens = tokenize(batch[0]);
    const auto v = tokens.values().to_vector<std::string>();
    if (tokens.ragged_rank()) {
      for (int64_t s : tokens.row_splits().to_vector<int64_t>()) {
        if (s > 0) splits.push_back(static_cast<int64_t>(values.size()) + s);
      }
    } else if (!o_.split || batch[0].rank() != 0) {
      for (std::size_t i = 1; i <= v.size(); ++i) splits.push_back(static_cast<int64_t>(values.size() + i));
    } else {
      splits.push_back(static_cast<int64_t>(values.size() + v.size()));
    }
    values.insert(values.end(), v.begin(), v.end());
  }
  lookup_->adapt_documents(values, splits);
  o_.vocabulary_size = lookup_->vocabulary_size();
}

void TextVectorizationImpl::set_vocabulary(const std::vector<std::string>& vocabulary,
                                           std::optional<std::vector<double>> idf_weights) {
  lookup_->set_vocabulary(vocabulary, std::move(idf_weights));
  o_.vocabulary_size = lookup_->vocabulary_size();
}

std::vector<std::string> TextVectorizationImpl::get_vocabulary(bool include_special_tokens) const {
  return lookup_->get_vocabulary(include_special_tokens);
}

int64_t TextVectorizationImpl::vocabulary_size() const { return lookup_->vocabulary_size(); }

void TextVectorizationImpl::load_assets(const AssetFiles& files, const std::string& folder) {
  lookup_->load_assets(files, folder);
  o_.vocabulary_size = lookup_->vocabulary_size();
}

AssetFiles TextVectorizationImpl::save_assets() const { return lookup_->save_assets(); }

std::vector<StoredVariable> TextVectorizationImpl::stored_variables() const { return lookup_->stored_variables(); }

Tensor TextVectorizationImpl::call(const Tensor& x, bool) {
  const RaggedTensor tokens = tokenize(x);
  const bool scalar = x.rank() == 0 && o_.split.has_value();
  if (o_.output_mode == "int") {
    const Tensor ids = lookup_->lookup(tokens.values());
    if (!tokens.ragged_rank()) {
      const Tensor shaped = scalar || o_.split || o_.ngrams ? ids : reshape(ids, x.shape());
      return o_.output_sequence_length ? fit_last_axis(shaped, *o_.output_sequence_length) : shaped;
    }
    return RaggedTensor(ids, tokens.row_splits()).to_tensor(0, o_.output_sequence_length.value_or(-1));
  }
  // Each string one token: StringLookup's own encoding, of (batch, 1) as Keras's output shape says.
  if (!o_.split) return (*lookup_)(x.rank() <= 1 ? reshape(standardized(x), Shape{x.rank() ? x.shape()[0] : 1, 1}) : standardized(x));
  if (o_.output_mode == "one_hot")
    throw ValueError("Layer '" + name() + "' (TextVectorization): output_mode='one_hot' needs split=None, since a split "
                     "gives a row of tokens per string; use 'multi_hot' or 'count'");
  const Tensor ids = lookup_->lookup(tokens.values());
  const std::vector<int64_t> splits = tokens.ragged_rank() ? tokens.row_splits().to_vector<int64_t>()
                                                           : std::vector<int64_t>{0, ids.shape()[0]};
  const Tensor encoded = lookup_->encode_documents(ids, splits);
  return scalar ? encoded[0] : encoded;
}

Shape TextVectorizationImpl::compute_output_shape(const Shape& s) {
  if (o_.output_mode == "int") {
    if (!o_.split) return s;
    return Shape{s.rank() > 0 ? s[0] : None, o_.output_sequence_length.value_or(None)};
  }
  if (!o_.split) return lookup_->compute_output_shape(s.rank() <= 1 ? Shape{s.rank() ? s[0] : 1, 1} : s);
  // Keras's IndexLookup: (batch, depth) for documents of tokens.
  const int64_t depth = o_.pad_to_max_tokens ? *o_.max_tokens : o_.vocabulary_size.value_or(None);
  return Shape{s.rank() > 0 ? s[0] : None, depth};
}

Config TextVectorizationImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(TextVectorizationImpl, "TextVectorization")

}  // namespace kiln::layers
