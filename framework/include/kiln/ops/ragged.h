#pragma once
// RaggedTensor: rows of different lengths, as tf.RaggedTensor stores them: the
// rows' elements end to end in `values`, and `row_splits` (int64, nrows + 1
// entries, starting at 0) saying where each row starts and ends.
//
//   auto r = kiln::ragged::constant({{0, 1, 2, 3}, {4, 5}, {6, 7, 8}, {9}});
//   std::cout << r;          // <tf.RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]>
//   r.shape();               // (4, None)
//   r.to_tensor();           // [[0 1 2 3] [4 5 0 0] [6 7 8 0] [9 0 0 0]]
//
// The string ops that split text (kiln/ops/strings.h) return one. Like TF's Python
// functions, they return a plain tensor when the input was a scalar: here that is a
// RaggedTensor of ragged_rank 0, which holds only `values` and prints as a tensor.
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// tf.RaggedTensor with one ragged axis (ragged_rank 1), or a plain tensor (ragged_rank 0).
class RaggedTensor {
 public:
  RaggedTensor() = default;
  /// tf.RaggedTensor.from_row_splits: row i is values[row_splits[i]:row_splits[i + 1]].
  /// Throws ValueError unless row_splits is a 1-D integer tensor that starts at 0, never
  /// decreases and ends at values.shape[0].
  RaggedTensor(Tensor values, Tensor row_splits);
  /// A ragged_rank 0 result: a plain tensor in RaggedTensor's clothes.
  static RaggedTensor dense(Tensor values);
  /// tf.RaggedTensor.from_row_lengths.
  static RaggedTensor from_row_lengths(Tensor values, const Tensor& row_lengths);

  /// The rows' elements end to end (the whole tensor when ragged_rank() is 0).
  const Tensor& values() const { return values_; }
  /// int64 (nrows + 1,); undefined when ragged_rank() is 0.
  const Tensor& row_splits() const { return row_splits_; }
  /// 1 for rows of varying length, 0 for a plain tensor.
  int ragged_rank() const { return row_splits_.defined() ? 1 : 0; }
  /// The number of rows.
  int64_t nrows() const;
  /// int64 (nrows,): each row's length.
  Tensor row_lengths() const;
  /// (nrows, None, values' inner axes...): None for the ragged axis.
  Shape shape() const;
  /// The elements' dtype.
  DType dtype() const { return values_.dtype(); }
  /// Row i as a tensor (negative counts from the end).
  Tensor operator[](int64_t i) const;
  /// The same row partition over new values (tf.ragged.map_flat_values's result).
  RaggedTensor with_values(Tensor values) const;
  /// A dense tensor padded with `default_value` (0, or empty strings) to the longest row,
  /// or to `length` columns when given (longer rows are cut), as tf's to_tensor(shape=...).
  Tensor to_tensor(double default_value = 0, int64_t length = -1) const;
  /// Rows as vectors (tf's to_list for one ragged axis of scalars).
  template <class T> std::vector<std::vector<T>> to_list() const;

 private:
  Tensor values_, row_splits_;
};

/// TF's text: "<tf.RaggedTensor [[0, 1], [2]]>", or the tensor's own text for ragged_rank 0.
std::ostream& operator<<(std::ostream& os, const RaggedTensor& r);
std::string to_string(const RaggedTensor& r);  ///< The text operator<< writes.

namespace ragged {
/// tf.ragged.constant for rows of numbers, with Tensor's literal rules: int rows give
/// int32, double rows float32, bool rows bool.
template <TensorLiteral T>
RaggedTensor constant(std::initializer_list<std::initializer_list<T>> rows);
/// Rows of strings (a template, as Tensor's string lists, so that a braced list of
/// numbers never converts to it).
template <std::same_as<const char*> S>
RaggedTensor constant(std::initializer_list<std::initializer_list<S>> rows);
/// From rows already in vectors.
template <class T> RaggedTensor constant(const std::vector<std::vector<T>>& rows);
}  // namespace ragged

}  // namespace kiln
