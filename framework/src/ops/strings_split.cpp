// String ops whose results have a length of their own per string: split,
// bytes_split, the Unicode ops and ngrams. A scalar input gives a tensor
// (a RaggedTensor of ragged_rank 0); a 1-D input one ragged row per string.
#include <functional>

#include "kiln/ops/strings.h"
#include "ops/op_util.h"
#include "ops/string_util.h"

namespace kiln::strings {

using detail::string_elements;

namespace {

template <class T>
Tensor flat_tensor(const std::vector<T>& v) {
  return Tensor(v, Shape{static_cast<int64_t>(v.size())});
}

// Applies `pieces` to every string of a scalar or 1-D input and assembles TF's result.
template <class T>
RaggedTensor split_rows(const Tensor& input, const char* op,
                        const std::function<void(const std::string&, int64_t, std::vector<T>&)>& pieces) {
  const std::string* in = string_elements(input, op);
  if (input.rank() > 1)
    throw ValueError(std::string(op) + ": expected a scalar or 1-D string tensor, but received shape " +
                     input.shape().to_string() + "; reshape it to 1-D first");
  std::vector<T> values;
  std::vector<int64_t> splits{0};
  for (int64_t i = 0; i < input.size(); ++i) {
    pieces(in[i], i, values);
    splits.push_back(static_cast<int64_t>(values.size()));
  }
  if (input.rank() == 0) return RaggedTensor::dense(flat_tensor(values));
  return RaggedTensor(flat_tensor(values), flat_tensor(splits));
}

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

void split_whitespace(const std::string& s, int64_t maxsplit, std::vector<std::string>& out) {
  std::size_t i = 0;
  int64_t cuts = 0;
  while (true) {
    while (i < s.size() && is_space(static_cast<unsigned char>(s[i]))) ++i;
    if (i == s.size()) return;
    if (maxsplit >= 0 && cuts == maxsplit) {
      out.push_back(s.substr(i));
      return;
    }
    std::size_t j = i;
    while (j < s.size() && !is_space(static_cast<unsigned char>(s[j]))) ++j;
    out.push_back(s.substr(i, j - i));
    ++cuts;
    i = j;
  }
}

void split_on(const std::string& s, const std::string& sep, int64_t maxsplit, std::vector<std::string>& out) {
  std::size_t i = 0;
  for (int64_t cuts = 0; maxsplit < 0 || cuts < maxsplit; ++cuts) {
    const std::size_t j = s.find(sep, i);
    if (j == std::string::npos) break;
    out.push_back(s.substr(i, j - i));
    i = j + sep.size();
  }
  out.push_back(s.substr(i));
}

void check_encoding(const char* op, const std::string& encoding) {
  if (encoding != "UTF-8")
    throw ValueError(std::string(op) + ": only \"UTF-8\" is supported, but received \"" + encoding + "\"");
}

// Code points of s; invalid sequences as `errors` says (strict, replace, ignore).
void decode_into(const std::string& s, int64_t index, const std::string& errors, int32_t replacement,
                 std::vector<int32_t>& out, const char* op) {
  for (std::size_t i = 0; i < s.size();) {
    const auto cp = detail::decode_utf8(s, i);
    if (cp.bytes > 0) {
      out.push_back(cp.value);
      i += static_cast<std::size_t>(cp.bytes);
      continue;
    }
    if (errors == "strict") throw detail::invalid_utf8(op, index, i, s);
    if (errors == "replace") out.push_back(replacement);
    // The invalid byte and the continuation bytes after it form one bad sequence.
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  }
}

void check_errors(const char* op, const std::string& errors) {
  if (errors != "strict" && errors != "replace" && errors != "ignore")
    throw ValueError(std::string(op) + ": errors must be \"strict\", \"replace\" or \"ignore\", but received \"" +
                     errors + "\"");
}

void append_ngrams(const std::string* row, int64_t n, const std::vector<int64_t>& widths, const std::string& sep,
                   std::vector<std::string>& out) {
  for (int64_t w : widths)
    for (int64_t start = 0; start + w <= n; ++start) {
      std::string g = row[start];
      for (int64_t k = 1; k < w; ++k) g += sep + row[start + k];
      out.push_back(std::move(g));
    }
}

void check_widths(const std::vector<int64_t>& widths) {
  if (widths.empty()) throw ValueError("strings.ngrams: expected at least one ngram width");
  for (int64_t w : widths)
    if (w < 1) throw ValueError("strings.ngrams: ngram widths must be >= 1, but received " + std::to_string(w));
}

}  // namespace

RaggedTensor split(const Tensor& input, const std::string& sep, int64_t maxsplit) {
  return split_rows<std::string>(input, "strings.split", [&](const std::string& s, int64_t, std::vector<std::string>& out) {
    if (sep.empty()) split_whitespace(s, maxsplit, out);
    else split_on(s, sep, maxsplit, out);
  });
}

RaggedTensor bytes_split(const Tensor& input) {
  return split_rows<std::string>(input, "strings.bytes_split", [](const std::string& s, int64_t, std::vector<std::string>& out) {
    for (char c : s) out.emplace_back(1, c);
  });
}

RaggedTensor unicode_decode(const Tensor& input, const std::string& input_encoding, const std::string& errors,
                            int32_t replacement_char) {
  check_encoding("strings.unicode_decode", input_encoding);
  check_errors("strings.unicode_decode", errors);
  return split_rows<int32_t>(input, "strings.unicode_decode", [&](const std::string& s, int64_t i, std::vector<int32_t>& out) {
    decode_into(s, i, errors, replacement_char, out, "strings.unicode_decode");
  });
}

RaggedTensor unicode_split(const Tensor& input, const std::string& input_encoding) {
  check_encoding("strings.unicode_split", input_encoding);
  return split_rows<std::string>(input, "strings.unicode_split", [](const std::string& s, int64_t i, std::vector<std::string>& out) {
    std::vector<int32_t> cps;
    decode_into(s, i, "replace", 0xFFFD, cps, "strings.unicode_split");
    for (int32_t cp : cps) {
      out.emplace_back();
      detail::append_utf8(out.back(), cp, "strings.unicode_split");
    }
  });
}

Tensor unicode_encode(const Tensor& code_points, const std::string& output_encoding) {
  check_encoding("strings.unicode_encode", output_encoding);
  ops::check_concrete("strings.unicode_encode", code_points);
  if (code_points.rank() != 1 || !is_integer(code_points.dtype()))
    throw ValueError("strings.unicode_encode: expected a 1-D integer tensor of code points, but received " +
                     ops::describe(code_points));
  std::string s;
  for (int64_t cp : code_points.to_vector<int64_t>()) detail::append_utf8(s, cp, "strings.unicode_encode");
  return Tensor(s);
}

Tensor unicode_encode(const RaggedTensor& code_points, const std::string& output_encoding) {
  if (!code_points.ragged_rank()) {
    const Tensor& v = code_points.values();
    if (v.rank() <= 1) return unicode_encode(v, output_encoding);
    std::vector<std::string> rows;
    for (int64_t i = 0; i < v.shape()[0]; ++i) rows.push_back(unicode_encode(v[i], output_encoding).item<std::string>());
    return flat_tensor(rows);
  }
  std::vector<std::string> rows;
  for (int64_t i = 0; i < code_points.nrows(); ++i)
    rows.push_back(unicode_encode(code_points[i], output_encoding).item<std::string>());
  return flat_tensor(rows);
}

Tensor ngrams(const Tensor& data, const std::vector<int64_t>& ngram_widths, const std::string& separator) {
  check_widths(ngram_widths);
  const std::string* in = string_elements(data, "strings.ngrams");
  if (data.rank() != 1)
    throw ValueError("strings.ngrams: expected a 1-D string tensor (or a RaggedTensor of rows), but received shape " +
                     data.shape().to_string());
  std::vector<std::string> out;
  append_ngrams(in, data.size(), ngram_widths, separator, out);
  return flat_tensor(out);
}

Tensor ngrams(const Tensor& data, int64_t ngram_width, const std::string& separator) {
  return ngrams(data, std::vector<int64_t>{ngram_width}, separator);
}

RaggedTensor ngrams(const RaggedTensor& data, const std::vector<int64_t>& ngram_widths, const std::string& separator) {
  if (!data.ragged_rank()) return RaggedTensor::dense(ngrams(data.values(), ngram_widths, separator));
  check_widths(ngram_widths);
  const std::string* in = string_elements(data.values(), "strings.ngrams");
  const auto splits = data.row_splits().to_vector<int64_t>();
  std::vector<std::string> out;
  std::vector<int64_t> out_splits{0};
  for (std::size_t r = 0; r + 1 < splits.size(); ++r) {
    append_ngrams(in + splits[r], splits[r + 1] - splits[r], ngram_widths, separator, out);
    out_splits.push_back(static_cast<int64_t>(out.size()));
  }
  return RaggedTensor(flat_tensor(out), flat_tensor(out_splits));
}

RaggedTensor ngrams(const RaggedTensor& data, int64_t ngram_width, const std::string& separator) {
  return ngrams(data, std::vector<int64_t>{ngram_width}, separator);
}

}  // namespace kiln::strings
