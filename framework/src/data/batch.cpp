// Dataset::batch: groups consecutive elements and stacks each component.
#include <string>
#include <utility>

#include "kiln/ops/array_ops.h"
#include "kiln/data/dataset.h"
#include "kiln/core/dtype.h"
#include "kiln/core/error.h"

namespace kiln {

namespace {
// Stacks component j of every element along a new axis 0, after checking the
// elements agree (so the error names the dataset, not the stack op).
Element stack_elements(const std::vector<Element>& elems) {
  const Element& first = elems[0];
  for (std::size_t i = 1; i < elems.size(); ++i) {
    if (elems[i].size() != first.size())
      throw ValueError("Dataset.batch: all elements must have the same number of components, but element 0 has " +
                       std::to_string(first.size()) + " and element " + std::to_string(i) + " has " +
                       std::to_string(elems[i].size()));
    for (std::size_t j = 0; j < first.size(); ++j) {
      const Tensor& a = first[j];
      const Tensor& b = elems[i][j];
      if (a.dtype() != b.dtype())
        throw TypeError("Dataset.batch: component " + std::to_string(j) + " has dtype " + dtype_name(a.dtype()) +
                        " in element 0 but " + dtype_name(b.dtype()) + " in element " + std::to_string(i));
      if (!(a.shape() == b.shape()))
        throw ShapeError("Dataset.batch: cannot batch component " + std::to_string(j) +
                         " of elements with different shapes: element 0 has shape " + a.shape().to_string() +
                         " and element " + std::to_string(i) + " has shape " + b.shape().to_string());
    }
  }
  Element out;
  out.reserve(first.size());
  std::vector<Tensor> parts(elems.size());
  for (std::size_t j = 0; j < first.size(); ++j) {
    for (std::size_t i = 0; i < elems.size(); ++i) parts[i] = elems[i][j];
    out.push_back(stack(parts, 0));
  }
  return out;
}
}  // namespace

Dataset Dataset::batch(int64_t batch_size, bool drop_remainder) const {
  if (batch_size < 1)
    throw ValueError("Dataset.batch: batch_size must be a positive integer, but received batch_size=" +
                     std::to_string(batch_size));
  int64_t card = cardinality_;
  if (card >= 0) card = card / batch_size + (card % batch_size == 0 || drop_remainder ? 0 : 1);
  auto up = factory_;
  auto factory = [up, batch_size, drop_remainder]() -> Pull {
    return [pull = up(), batch_size, drop_remainder, done = false]() mutable -> std::optional<Element> {
      if (done) return std::nullopt;
      std::vector<Element> elems;
      elems.reserve(static_cast<std::size_t>(std::min<int64_t>(batch_size, 4096)));
      while (static_cast<int64_t>(elems.size()) < batch_size) {
        std::optional<Element> e = pull();
        if (!e) {
          done = true;
          pull = nullptr;
          break;
        }
        elems.push_back(std::move(*e));
      }
      if (elems.empty() || (drop_remainder && static_cast<int64_t>(elems.size()) < batch_size)) return std::nullopt;
      return stack_elements(elems);
    };
  };
  return Dataset(std::move(factory), card);
}

}  // namespace kiln
