#pragma once
// Tensor: a cheap handle to shared, contiguous storage. Copying a Tensor
// aliases the same data; clone() copies it. Only std headers are included so
// that every layer and test compiles quickly.
//
//   kiln::Tensor a({{1., 2.}, {3., 4.}});          // float32, shape (2, 2)
//   kiln::Tensor i({{1}, {2}, {3}});               // int32, shape (3, 1)
//   kiln::Tensor m({false, true});                 // bool, shape (2,)
//   kiln::Tensor d({0.1, 0.2}, kiln::float64);     // float64 only when asked for
//   kiln::Tensor b = kiln::zeros({2, 3}, kiln::float64);
//   std::cout << a;  // tf.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)
//
// The one dtype rule for C++ numbers, as TF treats Python numbers: a double
// literal is a Python float and becomes float32 unless a dtype is given; an
// int literal becomes int32. A number combined with a tensor in an op
// (x + 2.0, 2 * x, pow(x, 3)) takes the tensor's dtype, so float64 and
// integer tensors stay what they are.
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "kiln/core/device.h"
#include "kiln/core/dtype.h"
#include "kiln/core/shape.h"

namespace kiln {

struct TensorImpl;  // private: framework/src/core/tensor_impl.h
class IndexUpdate;  // kiln/ops/array_ops.h

/// Python-style slice start:stop:step; an empty bound means "to the end".
struct Slice {
  /// Start index; negative counts from the end.
  std::optional<int64_t> start, stop;  ///< Stop index (exclusive); negative counts from the end.
  int64_t step = 1;  ///< Stride; negative walks backwards.
  Slice() = default;
  /// start:stop:step.
  Slice(std::optional<int64_t> start_, std::optional<int64_t> stop_, int64_t step_ = 1)
      : start(start_), stop(stop_), step(step_) {}
};
/// The type of newaxis.
struct NewAxis {};
/// Inserts a size-1 axis in a subscript (NumPy's np.newaxis).
inline constexpr NewAxis newaxis{};
/// The type of ellipsis.
struct Ellipsis {};
/// Stands for all the axes not named in a subscript (Python's `...`).
inline constexpr Ellipsis ellipsis{};

/// One entry of a subscript: an integer (drops the axis), a Slice, newaxis or ellipsis.
class Index {
 public:
  /// An integer index; negative counts from the end.
  Index(int v) : v_(static_cast<int64_t>(v)) {}
  /// An integer index; negative counts from the end.
  Index(int64_t v) : v_(v) {}
  /// A slice.
  Index(Slice s) : v_(s) {}
  /// A new size-1 axis.
  Index(NewAxis n) : v_(n) {}
  /// The remaining axes.
  Index(Ellipsis e) : v_(e) {}
  /// The entry.
  const std::variant<int64_t, Slice, NewAxis, Ellipsis>& value() const { return v_; }

 private:
  std::variant<int64_t, Slice, NewAxis, Ellipsis> v_;
};

/// The C++ element types a braced Tensor literal accepts (see Tensor's constructors).
template <class T>
concept TensorLiteral = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int> ||
                        std::is_same_v<T, long> || std::is_same_v<T, long long> || std::is_same_v<T, bool>;

/// An n-dimensional array (Keras's tensors; tf.Tensor's semantics): a cheap handle to
/// shared, contiguous storage. Copying a Tensor aliases the same data; clone() copies it.
/// A double literal becomes float32 unless a dtype is given; an int literal int32.
class Tensor {
 public:
  /// An undefined tensor (no storage); defined() is false.
  Tensor() = default;
  /// Wraps backend storage (for ops and backends).
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  /// @name Scalars
  //@{
  /// A scalar tensor. A double is a Python float: float32 unless a dtype is given.
  explicit Tensor(float v);
  explicit Tensor(double v);
  explicit Tensor(int32_t v);
  explicit Tensor(int64_t v);
  explicit Tensor(bool v);
  //@}
  /// A scalar of an explicit dtype: Tensor(0.1, float64) keeps every digit of 0.1.
  Tensor(double v, DType dtype);

  /// @name Nested initializer lists
  //@{
  /// Like tf.constant: the rank is the nesting depth
  /// (1 to 4) and every element has the same C++ type, which sets the dtype:
  ///   float, double -> float32    int -> int32    long, long long -> int64    bool -> bool
  /// A double literal is a Python float, so it gives float32 as in TF; ask for
  /// float64 explicitly: Tensor({0.1, 0.2}, float64) converts from the double
  /// values, not from rounded float32 ones. Data that is already a
  /// std::vector<double> (a NumPy float64 array) stays float64: see below.
  template <TensorLiteral T>
  Tensor(std::initializer_list<T> v, std::optional<DType> dtype = std::nullopt);
  template <TensorLiteral T>
  Tensor(std::initializer_list<std::initializer_list<T>> v, std::optional<DType> dtype = std::nullopt);
  template <TensorLiteral T>
  Tensor(std::initializer_list<std::initializer_list<std::initializer_list<T>>> v,
         std::optional<DType> dtype = std::nullopt);
  template <TensorLiteral T>
  Tensor(std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<T>>>> v,
         std::optional<DType> dtype = std::nullopt);
  //@}
  /// @name Nested initializer lists with a DType
  //@{
  // Without these, Tensor({0.5}, float64) is
  // ambiguous with the scalar Tensor(double, DType) (ISO C++ and clang; g++
  // quietly picked the scalar): a DType converts to std::optional<DType> only
  // by a user-defined conversion, so neither constructor was better in both
  // arguments. Taking DType itself, a braced list is always a list (shape (1,)).
  /// The same with a DType argument: Tensor({0.5}, float64) is a list of shape (1,).
  template <TensorLiteral T>
  Tensor(std::initializer_list<T> v, DType dtype) : Tensor(v, std::optional<DType>(dtype)) {}
  template <TensorLiteral T>
  Tensor(std::initializer_list<std::initializer_list<T>> v, DType dtype) : Tensor(v, std::optional<DType>(dtype)) {}
  template <TensorLiteral T>
  Tensor(std::initializer_list<std::initializer_list<std::initializer_list<T>>> v, DType dtype)
      : Tensor(v, std::optional<DType>(dtype)) {}
  template <TensorLiteral T>
  Tensor(std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<T>>>> v, DType dtype)
      : Tensor(v, std::optional<DType>(dtype)) {}
  //@}

  /// From a flat vector in row-major order plus a shape (std::vector<std::string> gives a
  /// string tensor).
  template <class T>
  Tensor(const std::vector<T>& data, const Shape& shape);

  /// @name String literals (tf.string)
  //@{
  /// Tensors of UTF-8 byte strings, like tf.constant on Python str values:
  ///   kiln::Tensor("Gray wolf")                            // shape (), dtype string
  ///   kiln::Tensor({"Gray wolf", "Quick brown fox"})       // shape (2,)
  ///   kiln::Tensor({{"a", "b"}, {"c", "d"}})               // shape (2, 2)
  /// Elements may differ in length; the shape counts strings, not characters.
  explicit Tensor(const char* s);
  explicit Tensor(const std::string& s);
  // Templates, so that {{"a"}, {"b"}} is only a 2-D list: as plain overloads, each
  // {"a"} would also initialise one const char* of a 1-D list.
  template <std::same_as<const char*> S>
  Tensor(std::initializer_list<S> v);
  template <std::same_as<const char*> S>
  Tensor(std::initializer_list<std::initializer_list<S>> v);
  //@}

  /// A symbolic tensor: a shape and dtype without storage (functional API).
  static Tensor symbolic(const Shape& shape, DType dtype = DType::float32);
  /// Uninitialised storage of the given shape (for ops and backends).
  static Tensor empty(const Shape& shape, DType dtype = DType::float32, Device device = Device::cpu());

  /// Whether the tensor has storage or a symbolic shape (false for Tensor()).
  bool defined() const { return impl_ != nullptr; }
  /// Whether this is a symbolic tensor of the functional API (shape and dtype, no values).
  bool is_symbolic() const;
  /// The shape; a symbolic tensor's may hold None (-1) axes.
  const Shape& shape() const;
  /// The element type.
  DType dtype() const;
  /// Where the storage lives.
  Device device() const;
  /// The number of axes.
  int64_t rank() const;
  /// Number of elements.
  int64_t size() const;
  /// A process-unique id; the tape keys gradients on it.
  uint64_t id() const;

  /// Typed pointer to the first element (CPU only); throws TypeError on a dtype mismatch.
  template <class T> T* data();
  /// Typed pointer to the first element (CPU only); throws TypeError on a dtype mismatch.
  template <class T> const T* data() const;
  /// Untyped pointer to the first element.
  void* raw_data();
  /// Untyped pointer to the first element.
  const void* raw_data() const;

  /// Copy of the elements converted to T.
  template <class T> std::vector<T> to_vector() const;
  /// The single element converted to T; throws ValueError unless size() == 1.
  template <class T> T item() const;

  /// Deep copy with fresh storage.
  Tensor clone() const;
  /// Same values on another device (a no-op handle copy if already there).
  Tensor to(Device device) const;
  /// The values converted to `dtype` (Keras's ops.cast).
  Tensor cast(DType dtype) const;
  /// The same values with a new shape (same number of elements; one axis may be -1).
  Tensor reshape(const Shape& shape) const;

  /// NumPy-style subscript: t[{Slice(1, None), 0, newaxis}].
  Tensor operator[](const std::vector<Index>& idx) const;
  /// t[i]: the i-th slice along the first axis (negative counts from the end).
  Tensor operator[](int64_t i) const;
  /// NumPy's advanced indexing: t[mask] with a bool tensor (boolean_mask), t[indices]
  /// with an integer tensor (gather along axis 0).
  /// (A template only so that a braced list, t[{1, 2}], stays NumPy subscripts.)
  template <std::same_as<Tensor> T>
  Tensor operator[](const T& index) const;
  /// JAX's t.at[index]: t.at(mask).set(0) returns t with the masked entries replaced (kiln/ops/array_ops.h).
  template <std::same_as<Tensor> T>
  IndexUpdate at(const T& index) const;
  IndexUpdate at(const std::vector<Index>& index) const;  ///< t.at({Slice(1, 3)}).add(1), NumPy subscripts.

  /// The backend storage (for ops and backends).
  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }
  /// Whether both handles share the same storage.
  bool same_as(const Tensor& o) const { return impl_ == o.impl_; }

 private:
  std::shared_ptr<TensorImpl> impl_;
};

/// TF's text for an eager tensor: NumPy's array text (aligned columns, at most
/// 75 characters a line, a blank line between blocks of rank 3 and more, "..."
/// past 1000 elements), on its own lines when it spans several:
///   "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"
///   "tf.Tensor([0.5 1. ], shape=(2,), dtype=float32)"   "tf.Tensor(5.5, shape=(), dtype=float32)"
/// \cond
// Defined once, in the library.
extern template Tensor Tensor::operator[]<Tensor>(const Tensor&) const;
extern template IndexUpdate Tensor::at<Tensor>(const Tensor&) const;
extern template Tensor::Tensor(std::initializer_list<const char*>);
extern template Tensor::Tensor(std::initializer_list<std::initializer_list<const char*>>);
/// \endcond

std::ostream& operator<<(std::ostream& os, const Tensor& t);
std::string to_string(const Tensor& t);  ///< The text operator<< writes.

// ---- creation ----
Tensor zeros(const Shape& shape, DType dtype = DType::float32);  ///< A tensor of zeros.
Tensor ones(const Shape& shape, DType dtype = DType::float32);  ///< A tensor of ones.
Tensor fill(const Shape& shape, double value, DType dtype = DType::float32);  ///< A tensor filled with `value`.
Tensor zeros_like(const Tensor& t);  ///< Zeros of t's shape, dtype and device.
Tensor ones_like(const Tensor& t);  ///< Ones of t's shape, dtype and device.
/// Identity matrix n x m (m defaults to n).
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, DType dtype = DType::float32);
/// [start, stop) with step, like tf.range, with the dtype given.
Tensor range(double start, double stop, double step = 1, DType dtype = DType::float32);
/// tf.range's dtype rule: integer arguments give int32 (range(1, 5) is
/// [1 2 3 4] int32), and any floating-point argument gives float32
/// (range(0, 1, 0.25) is [0. 0.25 0.5 0.75] float32).
template <class A, class B, class C = int>
  requires std::is_arithmetic_v<A> && std::is_arithmetic_v<B> && std::is_arithmetic_v<C>
Tensor range(A start, B stop, C step = 1) {
  constexpr bool integral = std::is_integral_v<A> && std::is_integral_v<B> && std::is_integral_v<C>;
  return range(static_cast<double>(start), static_cast<double>(stop), static_cast<double>(step),
               integral ? DType::int32 : DType::float32);
}
Tensor range(int64_t stop, DType dtype = DType::int32);  ///< [0, stop) with step 1, as tf.range(stop).
/// num evenly spaced values in [start, stop].
Tensor linspace(double start, double stop, int64_t num, DType dtype = DType::float32);
/// A scalar tensor of dtype `like`'s dtype (TF's weak typing of Python numbers).
Tensor scalar_like(double v, const Tensor& like);

}  // namespace kiln
