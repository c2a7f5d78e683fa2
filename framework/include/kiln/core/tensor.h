#pragma once
// Tensor: a cheap handle to shared, contiguous storage. Copying a Tensor
// aliases the same data; clone() copies it. Only std headers are included so
// that every layer and test compiles quickly.
//
//   kiln::Tensor a({{1.f, 2.f}, {3.f, 4.f}});       // float32, shape (2, 2)
//   kiln::Tensor b = kiln::zeros({2, 3}, kiln::float64);
//   std::cout << a;  // Tensor([[1. 2.] [3. 4.]], shape=(2, 2), dtype=float32)
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "kiln/core/device.h"
#include "kiln/core/dtype.h"
#include "kiln/core/shape.h"

namespace kiln {

struct TensorImpl;  // private: framework/src/core/tensor_impl.h

/// Python-style slice start:stop:step; an empty bound means "to the end".
struct Slice {
  std::optional<int64_t> start, stop;
  int64_t step = 1;
  Slice() = default;
  Slice(std::optional<int64_t> start_, std::optional<int64_t> stop_, int64_t step_ = 1)
      : start(start_), stop(stop_), step(step_) {}
};
struct NewAxis {};
inline constexpr NewAxis newaxis{};
struct Ellipsis {};
inline constexpr Ellipsis ellipsis{};

/// One entry of a subscript: an integer (drops the axis), a Slice, newaxis or ellipsis.
class Index {
 public:
  Index(int v) : v_(static_cast<int64_t>(v)) {}
  Index(int64_t v) : v_(v) {}
  Index(Slice s) : v_(s) {}
  Index(NewAxis n) : v_(n) {}
  Index(Ellipsis e) : v_(e) {}
  const std::variant<int64_t, Slice, NewAxis, Ellipsis>& value() const { return v_; }

 private:
  std::variant<int64_t, Slice, NewAxis, Ellipsis> v_;
};

class Tensor {
 public:
  /// An undefined tensor (no storage); defined() is false.
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // Scalars.
  explicit Tensor(float v);
  explicit Tensor(double v);
  explicit Tensor(int32_t v);
  explicit Tensor(int64_t v);
  explicit Tensor(bool v);

  // Nested initializer lists: the rank is the nesting depth.
  Tensor(std::initializer_list<float> v);
  Tensor(std::initializer_list<std::initializer_list<float>> v);
  Tensor(std::initializer_list<std::initializer_list<std::initializer_list<float>>> v);
  Tensor(std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<float>>>> v);
  Tensor(std::initializer_list<double> v);
  Tensor(std::initializer_list<std::initializer_list<double>> v);
  Tensor(std::initializer_list<std::initializer_list<std::initializer_list<double>>> v);
  Tensor(std::initializer_list<int32_t> v);
  Tensor(std::initializer_list<std::initializer_list<int32_t>> v);
  Tensor(std::initializer_list<int64_t> v);
  Tensor(std::initializer_list<std::initializer_list<int64_t>> v);

  /// From a flat vector in row-major order plus a shape.
  template <class T>
  Tensor(const std::vector<T>& data, const Shape& shape);

  /// A symbolic tensor: a shape and dtype without storage (functional API).
  static Tensor symbolic(const Shape& shape, DType dtype = DType::float32);
  /// Uninitialised storage of the given shape (for ops and backends).
  static Tensor empty(const Shape& shape, DType dtype = DType::float32, Device device = Device::cpu());

  bool defined() const { return impl_ != nullptr; }
  bool is_symbolic() const;
  const Shape& shape() const;
  DType dtype() const;
  Device device() const;
  int64_t rank() const { return shape().rank(); }
  /// Number of elements.
  int64_t size() const;
  /// A process-unique id; the tape keys gradients on it.
  uint64_t id() const;

  /// Typed pointer to the first element (CPU only); throws TypeError on a dtype mismatch.
  template <class T> T* data();
  template <class T> const T* data() const;
  void* raw_data();
  const void* raw_data() const;

  /// Copy of the elements converted to T.
  template <class T> std::vector<T> to_vector() const;
  /// The single element converted to T; throws ValueError unless size() == 1.
  template <class T> T item() const;

  /// Deep copy with fresh storage.
  Tensor clone() const;
  /// Same values on another device (a no-op handle copy if already there).
  Tensor to(Device device) const;
  Tensor cast(DType dtype) const;
  Tensor reshape(const Shape& shape) const;

  /// NumPy-style subscript: t[{Slice(1, None), 0, newaxis}].
  Tensor operator[](const std::vector<Index>& idx) const;
  Tensor operator[](int64_t i) const;

  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }
  bool same_as(const Tensor& o) const { return impl_ == o.impl_; }

 private:
  std::shared_ptr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);
/// TF-style text: "Tensor([[1. 2.] [3. 4.]], shape=(2, 2), dtype=float32)".
std::string to_string(const Tensor& t);

// ---- creation ----
Tensor zeros(const Shape& shape, DType dtype = DType::float32);
Tensor ones(const Shape& shape, DType dtype = DType::float32);
Tensor fill(const Shape& shape, double value, DType dtype = DType::float32);
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
/// Identity matrix n x m (m defaults to n).
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, DType dtype = DType::float32);
/// [start, stop) with step, like tf.range.
Tensor range(double start, double stop, double step = 1, DType dtype = DType::float32);
Tensor range(int64_t stop, DType dtype = DType::int32);
/// num evenly spaced values in [start, stop].
Tensor linspace(double start, double stop, int64_t num, DType dtype = DType::float32);
/// A scalar tensor of dtype `like`'s dtype (TF's weak typing of Python numbers).
Tensor scalar_like(double v, const Tensor& like);

}  // namespace kiln
