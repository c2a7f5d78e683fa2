#include "kiln/ops/ragged.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ostream>
#include <sstream>

#include "core/dispatch.h"
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"

namespace kiln {

namespace {

std::vector<int64_t> checked_splits(const Tensor& values, const Tensor& row_splits) {
  if (!row_splits.defined() || row_splits.rank() != 1 || !is_integer(row_splits.dtype()) || row_splits.size() == 0)
    throw ValueError("RaggedTensor: row_splits must be a non-empty 1-D integer tensor, but received " +
                     (row_splits.defined() ? "shape " + row_splits.shape().to_string() + " and dtype " +
                                                 dtype_name(row_splits.dtype())
                                           : std::string("an undefined tensor")));
  if (values.rank() < 1)
    throw ValueError("RaggedTensor: values must have rank >= 1, but received a scalar");
  const auto s = row_splits.to_vector<int64_t>();
  if (s.front() != 0 || s.back() != values.shape()[0])
    throw ValueError("RaggedTensor: row_splits must start at 0 and end at the number of values (" +
                     std::to_string(values.shape()[0]) + "), but they run from " + std::to_string(s.front()) +
                     " to " + std::to_string(s.back()));
  for (std::size_t i = 1; i < s.size(); ++i)
    if (s[i] < s[i - 1])
      throw ValueError("RaggedTensor: row_splits must not decrease, but entry " + std::to_string(i) + " (" +
                       std::to_string(s[i]) + ") is below entry " + std::to_string(i - 1) + " (" +
                       std::to_string(s[i - 1]) + ")");
  return s;
}

// Python's repr of one element, as TF's to_list() prints it.
std::string python_repr(const Tensor& values, int64_t i) {
  if (values.dtype() == DType::string) {
    std::ostringstream os;
    os << values[i];  // "tf.Tensor(b'...', shape=(), dtype=string)"
    const std::string t = os.str();
    const auto start = t.find('(') + 1, stop = t.rfind(", shape=");
    return t.substr(start, stop - start);
  }
  if (values.dtype() == DType::bool_) return values[i].item<bool>() ? "True" : "False";
  if (!is_floating(values.dtype())) return std::to_string(values[i].item<int64_t>());
  const double v = values[i].item<double>();
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const double a = std::abs(v);
  const bool sci = a != 0 && (a < 1e-4 || a >= 1e16);
  auto r = std::to_chars(buf, buf + sizeof buf, v, sci ? std::chars_format::scientific : std::chars_format::fixed);
  std::string s(buf, r.ptr);
  if (!sci && s.find('.') == std::string::npos) s += ".0";
  return s;
}

// The nested list text of rows whose elements may themselves have inner axes.
std::string list_text(const Tensor& t) {
  if (t.rank() == 0) return python_repr(reshape(t, Shape{1}), 0);
  std::string s = "[";
  for (int64_t i = 0; i < t.shape()[0]; ++i) {
    if (i) s += ", ";
    s += t.rank() == 1 ? python_repr(t, i) : list_text(t[i]);
  }
  return s + "]";
}

}  // namespace

RaggedTensor::RaggedTensor(Tensor values, Tensor row_splits) : values_(std::move(values)) {
  checked_splits(values_, row_splits);
  row_splits_ = row_splits.dtype() == DType::int64 ? row_splits : cast(row_splits, DType::int64);
}

RaggedTensor RaggedTensor::dense(Tensor values) {
  RaggedTensor r;
  r.values_ = std::move(values);
  return r;
}

RaggedTensor RaggedTensor::from_row_lengths(Tensor values, const Tensor& row_lengths) {
  std::vector<int64_t> splits{0};
  for (int64_t n : row_lengths.to_vector<int64_t>()) {
    if (n < 0) throw ValueError("RaggedTensor.from_row_lengths: a row length is negative (" + std::to_string(n) + ")");
    splits.push_back(splits.back() + n);
  }
  return RaggedTensor(std::move(values), Tensor(splits, Shape{static_cast<int64_t>(splits.size())}));
}

int64_t RaggedTensor::nrows() const { return ragged_rank() ? row_splits_.size() - 1 : values_.shape()[0]; }

Tensor RaggedTensor::row_lengths() const {
  if (!ragged_rank()) return fill(Shape{nrows()}, values_.rank() > 1 ? values_.shape()[1] : 1, DType::int64);
  const auto s = row_splits_.to_vector<int64_t>();
  std::vector<int64_t> n(s.size() - 1);
  for (std::size_t i = 0; i + 1 < s.size(); ++i) n[i] = s[i + 1] - s[i];
  return Tensor(n, Shape{static_cast<int64_t>(n.size())});
}

Shape RaggedTensor::shape() const {
  if (!ragged_rank()) return values_.shape();
  std::vector<int64_t> d{nrows(), -1};
  for (int64_t k = 1; k < values_.rank(); ++k) d.push_back(values_.shape()[k]);
  return Shape(d);
}

Tensor RaggedTensor::operator[](int64_t i) const {
  if (!ragged_rank()) return values_[i];
  const int64_t n = nrows();
  if (i < 0) i += n;
  if (i < 0 || i >= n)
    throw IndexError("RaggedTensor: row " + std::to_string(i) + " is out of range for " + std::to_string(n) + " rows");
  const int64_t start = row_splits_[i].item<int64_t>(), stop = row_splits_[i + 1].item<int64_t>();
  return values_[{Slice(start, stop)}];
}

RaggedTensor RaggedTensor::with_values(Tensor values) const {
  if (!values.defined() || values.rank() < 1 || values.shape()[0] != values_.shape()[0])
    throw ValueError("RaggedTensor::with_values: expected " + std::to_string(values_.shape()[0]) +
                     " values along the first axis, but received " +
                     (values.defined() ? "shape " + values.shape().to_string() : std::string("an undefined tensor")));
  if (!ragged_rank()) return dense(std::move(values));
  return RaggedTensor(std::move(values), row_splits_);
}

Tensor RaggedTensor::to_tensor(double default_value, int64_t length) const {
  if (!ragged_rank()) return values_;
  const auto s = row_splits_.to_vector<int64_t>();
  int64_t width = length;
  if (width < 0)
    for (std::size_t i = 0; i + 1 < s.size(); ++i) width = std::max(width, s[i + 1] - s[i]);
  width = std::max<int64_t>(width, 0);
  std::vector<int64_t> d{nrows(), width};
  for (int64_t k = 1; k < values_.rank(); ++k) d.push_back(values_.shape()[k]);
  Tensor out = fill(Shape(d), default_value, values_.dtype()).to(Device::cpu());
  const Tensor v = values_.to(Device::cpu());
  const int64_t inner = values_.shape()[0] == 0 ? 0 : v.size() / values_.shape()[0];
  const std::size_t es = dtype_size(v.dtype());
  for (int64_t i = 0; i < nrows(); ++i) {
    const int64_t n = std::min(s[i + 1] - s[i], width);
    copy_elements(static_cast<char*>(out.raw_data()) + static_cast<std::size_t>(i * width * inner) * es,
                  static_cast<const char*>(v.raw_data()) + static_cast<std::size_t>(s[i] * inner) * es,
                  static_cast<std::size_t>(n * inner), v.dtype());
  }
  return out.to(values_.device());
}

template <class T>
std::vector<std::vector<T>> RaggedTensor::to_list() const {
  std::vector<std::vector<T>> rows;
  for (int64_t i = 0; i < nrows(); ++i) rows.push_back((*this)[i].to_vector<T>());
  return rows;
}
template std::vector<std::vector<float>> RaggedTensor::to_list<float>() const;
template std::vector<std::vector<double>> RaggedTensor::to_list<double>() const;
template std::vector<std::vector<int32_t>> RaggedTensor::to_list<int32_t>() const;
template std::vector<std::vector<int64_t>> RaggedTensor::to_list<int64_t>() const;
template std::vector<std::vector<std::string>> RaggedTensor::to_list<std::string>() const;

std::ostream& operator<<(std::ostream& os, const RaggedTensor& r) {
  if (!r.ragged_rank()) return os << r.values();
  os << "<tf.RaggedTensor [";
  for (int64_t i = 0; i < r.nrows(); ++i) os << (i ? ", " : "") << list_text(r[i]);
  return os << "]>";
}

std::string to_string(const RaggedTensor& r) {
  std::ostringstream s;
  s << r;
  return s.str();
}

namespace ragged {

template <class T>
RaggedTensor constant(const std::vector<std::vector<T>>& rows) {
  std::vector<T> flat;
  std::vector<int64_t> splits{0};
  for (const auto& row : rows) {
    flat.insert(flat.end(), row.begin(), row.end());
    splits.push_back(static_cast<int64_t>(flat.size()));
  }
  return RaggedTensor(Tensor(flat, Shape{static_cast<int64_t>(flat.size())}),
                      Tensor(splits, Shape{static_cast<int64_t>(splits.size())}));
}
template RaggedTensor constant(const std::vector<std::vector<float>>&);
template RaggedTensor constant(const std::vector<std::vector<double>>&);
template RaggedTensor constant(const std::vector<std::vector<int32_t>>&);
template RaggedTensor constant(const std::vector<std::vector<int64_t>>&);
template RaggedTensor constant(const std::vector<std::vector<std::string>>&);

template <TensorLiteral T>
RaggedTensor constant(std::initializer_list<std::initializer_list<T>> rows) {
  // The C++ type each element is stored as: Tensor's literal dtype rules.
  using Stored = std::conditional_t<std::is_floating_point_v<T>, float,
                                    std::conditional_t<std::is_same_v<T, bool>, bool,
                                                       std::conditional_t<std::is_same_v<T, int>, int32_t, int64_t>>>;
  std::vector<Stored> flat;
  std::vector<int64_t> splits{0};
  for (const auto& r : rows) {
    for (T x : r) flat.push_back(static_cast<Stored>(x));
    splits.push_back(static_cast<int64_t>(flat.size()));
  }
  return RaggedTensor(Tensor(flat, Shape{static_cast<int64_t>(flat.size())}),
                      Tensor(splits, Shape{static_cast<int64_t>(splits.size())}));
}
template RaggedTensor constant(std::initializer_list<std::initializer_list<int>>);
template RaggedTensor constant(std::initializer_list<std::initializer_list<long>>);
template RaggedTensor constant(std::initializer_list<std::initializer_list<long long>>);
template RaggedTensor constant(std::initializer_list<std::initializer_list<float>>);
template RaggedTensor constant(std::initializer_list<std::initializer_list<double>>);
template RaggedTensor constant(std::initializer_list<std::initializer_list<bool>>);

template <std::same_as<const char*> S>
RaggedTensor constant(std::initializer_list<std::initializer_list<S>> rows) {
  std::vector<std::vector<std::string>> v;
  for (const auto& r : rows) v.emplace_back(r.begin(), r.end());
  return constant(v);
}
template RaggedTensor constant(std::initializer_list<std::initializer_list<const char*>>);

}  // namespace ragged

}  // namespace kiln
