#include "kiln/core/shape.h"

#include <algorithm>
#include <ostream>

#include "kiln/core/error.h"

namespace kiln {

int64_t Shape::num_elements() const {
  if (!is_fully_defined()) throw ValueError("Shape " + to_string() + " is not fully defined");
  // A zero anywhere makes the product zero, even when the other factors alone would overflow.
  if (std::find(dims_.begin(), dims_.end(), 0) != dims_.end()) return 0;
  int64_t n = 1;
  for (int64_t d : dims_)
    if (__builtin_mul_overflow(n, d, &n))
      throw ValueError("Shape " + to_string() + " has more elements than fit in int64");
  return n;
}

bool Shape::is_fully_defined() const {
  return std::all_of(dims_.begin(), dims_.end(), [](int64_t d) { return d >= 0; });
}

Shape Shape::slice(int64_t start, int64_t stop) const {
  int64_t r = rank();
  if (start < 0) start += r;
  if (stop < 0) stop += r;
  start = std::clamp<int64_t>(start, 0, r);
  stop = std::clamp<int64_t>(stop, start, r);
  return Shape(std::vector<int64_t>(dims_.begin() + start, dims_.begin() + stop));
}

std::string Shape::to_string() const {
  std::string s = "(";
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ", ";
    s += dims_[i] < 0 ? "None" : std::to_string(dims_[i]);
  }
  if (dims_.size() == 1) s += ",";
  return s + ")";
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  std::size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> out(r);
  for (std::size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a.dims()[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b.dims()[i - (r - b.size())];
    if (da == db || db == 1) out[i] = da;
    else if (da == 1) out[i] = db;
    else if (da < 0 || db < 0) out[i] = da < 0 ? db : da;  // symbolic None
    else
      throw ShapeError(std::string(op) + ": incompatible shapes for broadcasting: " + a.to_string() + " and " +
                       b.to_string());
  }
  return Shape(out);
}

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << s.to_string(); }

}  // namespace kiln
