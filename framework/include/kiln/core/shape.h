#pragma once
// Shape: a list of dimensions. -1 (kiln::None) marks an unknown dimension in
// symbolic shapes; it prints as "None", as Keras does: (None, 26, 26, 32).
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <vector>

namespace kiln {

/// An unknown dimension in a symbolic shape (Keras's None); prints as "None".
inline constexpr int64_t None = -1;

/// A list of dimensions (Keras's shape tuples). -1 (kiln::None) marks an unknown
/// dimension; it prints as Keras does: (None, 26, 26, 32).
class Shape {
 public:
  /// The scalar shape ().
  Shape() = default;
  /// Shape({2, 3}).
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  /// A shape from a vector of dimensions.
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  /// The number of dimensions.
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  /// The number of dimensions, as an unsigned count.
  std::size_t size() const { return dims_.size(); }
  /// Negative indices count from the end: shape[-1] is the last dimension.
  int64_t operator[](int64_t i) const { return dims_.at(wrap(i)); }
  /// Mutable dimension; negative indices count from the end.
  int64_t& operator[](int64_t i) { return dims_.at(wrap(i)); }
  /// Number of elements; 1 for a scalar. Throws ValueError if a dimension is
  /// unknown or the count does not fit in int64 (never wraps).
  int64_t num_elements() const;
  /// Whether no dimension is unknown.
  bool is_fully_defined() const;
  /// The dimensions.
  const std::vector<int64_t>& dims() const { return dims_; }
  /// The dimensions, mutable.
  std::vector<int64_t>& dims() { return dims_; }
  /// Iterates over the dimensions.
  auto begin() const { return dims_.begin(); }
  /// End of the dimensions.
  auto end() const { return dims_.end(); }
  /// Appends a dimension.
  void push_back(int64_t d) { dims_.push_back(d); }
  /// Sub-shape [start, stop) with Python-style negative bounds.
  Shape slice(int64_t start, int64_t stop) const;
  /// Sub-shape [start, rank).
  Shape slice(int64_t start) const { return slice(start, rank()); }
  /// Keras style: "(None, 26, 26, 32)", "()", "(5,)".
  std::string to_string() const;
  /// Same dimensions.
  bool operator==(const Shape&) const = default;

 private:
  std::size_t wrap(int64_t i) const {
    return static_cast<std::size_t>(i < 0 ? i + static_cast<int64_t>(dims_.size()) : i);
  }
  std::vector<int64_t> dims_;
};

/// Writes to_string(): std::cout << x.shape() prints "(None, 26, 26, 32)".
std::ostream& operator<<(std::ostream& os, const Shape& s);

/// Shape of broadcasting a and b together (NumPy rules); throws ShapeError
/// naming `op` and both shapes when they do not broadcast.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op = "broadcast");

}  // namespace kiln
