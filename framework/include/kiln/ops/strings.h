#pragma once
// kiln::strings: tf.strings's ops on string tensors (dtype string_), with TF's
// semantics, names and defaults. Strings are byte strings; the ops that count or
// split characters read them as UTF-8 and name the element and byte offset of any
// invalid sequence.
//
//   auto words = kiln::strings::split(kiln::Tensor({"Gray wolf", "Quick brown fox"}));
//   // <tf.RaggedTensor [[b'Gray', b'wolf'], [b'Quick', b'brown', b'fox']]>
//   kiln::strings::to_number(kiln::strings::split(kiln::Tensor("1 10 100"), " "));
//   // tf.Tensor([  1.  10. 100.], shape=(3,), dtype=float32)
//
// Ops that split (split, bytes_split, unicode_split, unicode_decode) return a
// RaggedTensor: rows of different lengths are what they produce, and TF returns
// one too. For a scalar input the result is one row, which TF returns as a plain
// tensor; here it is a RaggedTensor of ragged_rank 0 that prints as that tensor
// (values() is the tensor).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/tensor.h"
#include "kiln/ops/ragged.h"

namespace kiln::strings {

/// @name Element-wise text
//@{
/// tf.strings.lower: ASCII letters to lower case (other bytes unchanged, as TF's default encoding "").
Tensor lower(const Tensor& input);
/// tf.strings.upper: ASCII letters to upper case.
Tensor upper(const Tensor& input);
/// tf.strings.strip: leading and trailing ASCII whitespace removed.
Tensor strip(const Tensor& input);
/// tf.strings.length: int32 lengths in bytes ("BYTE") or in UTF-8 characters ("UTF8_CHAR").
Tensor length(const Tensor& input, const std::string& unit = "BYTE");
/// tf.strings.substr: `len` bytes (or UTF-8 characters with unit "UTF8_CHAR") from `pos`;
/// a negative pos counts from the end. A pos outside a string is an InvalidArgument error
/// naming the string, as TF's.
Tensor substr(const Tensor& input, int64_t pos, int64_t len, const std::string& unit = "BYTE");
/// tf.strings.regex_replace with RE2's syntax for the common cases (ECMAScript through
/// std::regex underneath); \\1 .. \\9 in `rewrite` insert groups, \\0 the match.
Tensor regex_replace(const Tensor& input, const std::string& pattern, const std::string& rewrite,
                     bool replace_global = true);
/// tf.strings.regex_full_match: whether each string matches `pattern` entirely.
Tensor regex_full_match(const Tensor& input, const std::string& pattern);
/// tf.strings.join: the inputs (broadcast against each other) joined element by element.
Tensor join(const std::vector<Tensor>& inputs, const std::string& separator = "");
/// tf.strings.reduce_join: the strings along `axis` joined (all axes when axis is nullopt).
Tensor reduce_join(const Tensor& input, std::optional<int> axis = std::nullopt, bool keepdims = false,
                   const std::string& separator = "");
//@}

/// @name Numbers and text
//@{
/// tf.strings.to_number: parses each string as `out_type` (float32, float64, int32,
/// int64). Text that is not a number is an InvalidArgument error naming it.
Tensor to_number(const Tensor& input, DType out_type = DType::float32);
RaggedTensor to_number(const RaggedTensor& input, DType out_type = DType::float32);  ///< On a ragged tensor's values.
/// tf.strings.as_string's options.
struct AsStringOptions {
  int precision = -1;    ///< Digits after the point for floats (-1: 6, as "%f").
  bool scientific = false;  ///< "%e" instead of "%f".
  bool shortest = false;    ///< "%g": the shorter of the two.
  int width = -1;           ///< Pad to this many characters (-1: no padding).
  std::string fill;         ///< Pad with this character ("" pads with spaces; "0" with zeros).
};
/// tf.strings.as_string: numbers and bools to text ("1.500000", "22", "true").
Tensor as_string(const Tensor& input, const AsStringOptions& options = {});
/// tf.strings.to_hash_bucket_fast: FarmHash's Fingerprint64 of each string modulo
/// num_buckets (int64), the same buckets as TF and Keras's Hashing layer
/// (kiln/ops/string_hash.h has the hash itself).
Tensor to_hash_bucket_fast(const Tensor& input, int64_t num_buckets);
//@}

/// @name Splitting and Unicode
//@{
/// tf.strings.split: each string cut at `sep` (at runs of whitespace when sep is empty,
/// dropping empty pieces), at most maxsplit cuts (-1: all). A 1-D input gives one row
/// per string.
RaggedTensor split(const Tensor& input, const std::string& sep = "", int64_t maxsplit = -1);
/// tf.strings.bytes_split: each string as its single bytes.
RaggedTensor bytes_split(const Tensor& input);
/// tf.strings.unicode_split: each string as its UTF-8 characters ("UTF-8" only).
RaggedTensor unicode_split(const Tensor& input, const std::string& input_encoding);
/// tf.strings.unicode_decode: int32 code points of each string ("UTF-8" only). Invalid
/// UTF-8 is an error naming the element and byte offset (errors="strict"), or is
/// replaced by `replacement_char` (errors="replace", TF's default) or dropped ("ignore").
RaggedTensor unicode_decode(const Tensor& input, const std::string& input_encoding,
                            const std::string& errors = "replace", int32_t replacement_char = 0xFFFD);
/// tf.strings.unicode_encode: int32 code points to UTF-8; a 1-D tensor gives one string,
/// a ragged tensor one string per row.
Tensor unicode_encode(const Tensor& code_points, const std::string& output_encoding);
Tensor unicode_encode(const RaggedTensor& code_points, const std::string& output_encoding);  ///< One per row.
/// tf.strings.ngrams: width-n joins of consecutive elements of a 1-D tensor (or of each
/// row), every width of `ngram_widths` in turn, as TF orders them.
Tensor ngrams(const Tensor& data, const std::vector<int64_t>& ngram_widths, const std::string& separator = " ");
Tensor ngrams(const Tensor& data, int64_t ngram_width, const std::string& separator = " ");  ///< One width.
RaggedTensor ngrams(const RaggedTensor& data, const std::vector<int64_t>& ngram_widths,
                    const std::string& separator = " ");  ///< Per row.
RaggedTensor ngrams(const RaggedTensor& data, int64_t ngram_width, const std::string& separator = " ");  ///< Per row, one width.
//@}

}  // namespace kiln::strings

namespace kiln::io {
/// tf.io.decode_raw: each string's bytes reinterpreted as `out_type` values (little-endian),
/// one row per string. Every string must hold the same number of bytes, a multiple of the
/// type's size.
Tensor decode_raw(const Tensor& input, DType out_type);
}  // namespace kiln::io
