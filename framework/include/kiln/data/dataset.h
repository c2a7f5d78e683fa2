#pragma once
// Dataset: a tf.data-style input pipeline. A Dataset is an immutable recipe;
// each iteration (range-for, make_iterator) starts a fresh pass over it.
//
//   kiln::Tensor x = kiln::random::normal({100, 8});
//   kiln::Tensor y = kiln::range(100, kiln::int64);
//   auto ds = kiln::Dataset::from_tensor_slices({x, y})
//                 .shuffle(100, /*seed=*/42)
//                 .batch(32)          // 4 batches: 3 of (32, 8)/(32,), one of (4, 8)/(4,)
//                 .prefetch(2);       // a background thread prepares the next 2 batches
//   for (const kiln::Element& b : ds) { /* b[0]: (32, 8) float32, b[1]: (32,) int64 */ }
//
// An Element is a list of components, e.g. {x, y} or {x, y, sample_weight}.
// Transformations (map, shuffle, batch, ...) return a new Dataset and leave
// this one unchanged; copying a Dataset is cheap and shares its recipe (and so
// a shuffle's epoch counter and a cache's stored pass, as in tf.data).
//
// Cardinality follows tf.data: a count >= 0, INFINITE (-1) or UNKNOWN (-2).
//   from_tensor_slices: n      batch(b): ceil(n / b), or floor(n / b) with drop_remainder
//   take(k): min(n, k)         skip(k): max(0, n - k)          repeat(c): c * n (c < 0: INFINITE)
//   map / shuffle / cache / prefetch: n.  INFINITE and UNKNOWN inputs stay so
//   (except take(k) of an INFINITE input gives k and repeat() of anything non-empty gives INFINITE).
//
// Threads: a Dataset may be iterated from several threads at once (each pass
// has its own state), but one pull iterator must be used from one thread.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// Throws ValueError unless an element of `have` components unpacks into `want` names.
void check_unpack(std::size_t have, std::size_t want);

/// One dataset element: its components, e.g. {x, y} or {x, y, sample_weight}.
/// It is a std::vector<Tensor>, and a (features, labels) pair also unpacks
/// like TF's tuple element:
///   for (auto [x, y] : ds) ...                 // ValueError unless 2 components
///   for (auto [x, y, w] : ds.unpack<3>()) ...  // with sample weights
/// (C++ fixes the number of names per type, so other counts go through unpack<N>.)
struct Element : std::vector<Tensor> {
  using std::vector<Tensor>::vector;
  Element() = default;
  /// An element of these components.
  Element(std::vector<Tensor> components) : std::vector<Tensor>(std::move(components)) {}
  /// @name Structured bindings
  //@{
  /// Component I, for `auto [x, y] = element` (ValueError unless 2 components).
  template <std::size_t I> Tensor& get() & { check_unpack(size(), 2); return (*this)[I]; }
  template <std::size_t I> const Tensor& get() const& { check_unpack(size(), 2); return (*this)[I]; }
  template <std::size_t I> Tensor get() && { check_unpack(size(), 2); return std::move((*this)[I]); }
  //@}
};

/// A tf.data-style input pipeline (tf.data.Dataset): an immutable recipe, each
/// iteration of which starts a fresh pass. Transformations (map, shuffle, batch, ...)
/// return a new Dataset; copies share the recipe. Cardinality follows tf.data.
class Dataset {
 public:
  /// Cardinality of an endless dataset (tf.data.INFINITE_CARDINALITY).
  static constexpr int64_t INFINITE = -1, UNKNOWN = -2;  ///< Unknown cardinality (tf.data.UNKNOWN_CARDINALITY).
  /// For prefetch(): let Kiln pick the buffer size (tf.data.AUTOTUNE).
  static constexpr int64_t AUTOTUNE = -1;
  /// A pull iterator: returns the next element, or std::nullopt at the end
  /// (and keeps returning std::nullopt after that).
  using Pull = std::function<std::optional<Element>()>;

  /// An empty dataset (cardinality 0).
  Dataset();

  /// Slices each component along axis 0: element i is {c[i] for c in components}.
  /// All components need rank >= 1 and the same first dimension, else ShapeError
  /// naming both shapes. Each element is a fresh row copy (kiln::slice), so the
  /// source tensors are shared, never copied whole.
  ///   from_tensor_slices({x /*(10, 2)*/, y /*(10,)*/}) -> 10 elements {(2,), ()}
  static Dataset from_tensor_slices(const std::vector<Tensor>& components);
  /// One-component elements: element i is {x[i]}.
  static Dataset from_tensor_slices(const Tensor& x);
  /// Elements from a generator. `factory` is called once per pass and returns
  /// the generator, which returns std::nullopt at the end. `cardinality` is
  /// trusted (a count >= 0, INFINITE or UNKNOWN).
  ///   Dataset::from_generator([] { return [i = 0]() mutable -> std::optional<Element> {
  ///     if (i == 3) return std::nullopt; return Element{Tensor(float(i++))}; }; }, 3);
  static Dataset from_generator(std::function<Pull()> factory, int64_t cardinality = UNKNOWN);

  /// Applies fn to each element (lazily, once per element per pass).
  Dataset map(std::function<Element(const Element&)> fn) const;
  /// Fills a buffer of `buffer_size` elements from upstream and emits a
  /// uniformly chosen one, refilling its slot (buffer_size >= number of
  /// elements gives a full uniform shuffle). The order comes from
  /// std::mt19937_64 seeded by `seed`, or by kiln::random::next_seed() drawn
  /// once here when seed is empty. With reshuffle_each_iteration each pass
  /// uses a different (but seed-determined) order; without it every pass
  /// repeats the same order. buffer_size < 1 throws ValueError.
  Dataset shuffle(int64_t buffer_size, std::optional<uint64_t> seed = std::nullopt,
                  bool reshuffle_each_iteration = true) const;
  /// Groups batch_size consecutive elements and stacks each component along a
  /// new axis 0: components of shape S become (batch_size, *S). The last batch
  /// may be smaller unless drop_remainder. Components with differing shapes
  /// throw ShapeError naming both; batch_size < 1 throws ValueError.
  Dataset batch(int64_t batch_size, bool drop_remainder = false) const;
  /// At most n elements; n < 0 takes all of them.
  Dataset take(int64_t n) const;
  /// Drops the first n elements; n < 0 drops all of them.
  Dataset skip(int64_t n) const;
  /// Repeats the dataset `count` times; count < 0 repeats forever (a pass that
  /// yields nothing ends it, so repeat() of an empty dataset is empty).
  Dataset repeat(int64_t count = -1) const;
  /// The first complete pass is stored in memory and later passes replay it,
  /// so upstream work (e.g. an expensive map) runs once. A pass stopped early
  /// stores nothing. The stored tensors are shared with the consumer: do not
  /// write into them.
  Dataset cache() const;
  /// A background std::thread pulls up to buffer_size elements ahead into a
  /// bounded queue. Exceptions thrown upstream are rethrown by the consumer's
  /// next pull, after the elements produced before them. Destroying the
  /// iterator early stops and joins the thread. buffer_size: >= 1, or AUTOTUNE.
  Dataset prefetch(int64_t buffer_size = 1) const;

  /// Number of elements: a count >= 0, INFINITE or UNKNOWN (see the table above).
  int64_t cardinality() const { return cardinality_; }

  /// Input iterator over elements, for `for (const Element& e : ds)`.
  /// Copies share one pass. Leaving the loop early releases the pass
  /// (stopping any prefetch thread).
  class Iterator {
   public:
    /// @name Iterator traits
    //@{
    /// Standard iterator member types (an input iterator over Elements).
    using iterator_category = std::input_iterator_tag;
    using value_type = Element;
    using difference_type = std::ptrdiff_t;
    using pointer = const Element*;
    using reference = const Element&;
  //@}

    /// The end iterator.
    Iterator() = default;
    /// The current element.
    reference operator*() const { return *state_->current; }
    /// The current element.
    pointer operator->() const { return &*state_->current; }
    /// Pulls the next element.
    Iterator& operator++();
    /// Pulls the next element.
    void operator++(int) { ++*this; }
    /// Equal when both are at the end or share the same pass.
    friend bool operator==(const Iterator& a, const Iterator& b) {
      return a.at_end() == b.at_end() && (a.at_end() || a.state_ == b.state_);
    }

   private:
    friend class Dataset;
    struct State {
      Pull pull;
      std::optional<Element> current;
    };
    explicit Iterator(Pull pull);
    bool at_end() const { return !state_ || !state_->current; }
    std::shared_ptr<State> state_;
  };
  /// Starts a pass and pulls its first element.
  Iterator begin() const;
  /// The end iterator.
  Iterator end() const { return Iterator(); }

  /// The elements as std::array<Tensor, N>, for structured bindings of any
  /// count: for (auto [x, y, w] : ds.unpack<3>()). Each element must have
  /// exactly N components (else ValueError, as Python's tuple unpacking).
  template <std::size_t N> class Unpacked;
  /// A view whose elements are std::array<Tensor, N> (see Unpacked).
  template <std::size_t N> Unpacked<N> unpack() const;

  /// Lower level: a fresh pull iterator (a new pass).
  Pull make_iterator() const { return factory_(); }

 private:
  Dataset(std::function<Pull()> factory, int64_t cardinality);
  std::function<Pull()> factory_;
  int64_t cardinality_ = 0;
};

template <std::size_t N>
class Dataset::Unpacked {
 public:
  /// Input iterator over the arrays.
  class Iterator {
   public:
    /// @name Iterator traits
    //@{
    /// Standard iterator member types (an input iterator over arrays of N tensors).
    using iterator_category = std::input_iterator_tag;
    using value_type = std::array<Tensor, N>;
    using difference_type = std::ptrdiff_t;
    //@}
    /// The end iterator.
    Iterator() = default;
    /// Wraps an iterator over elements.
    explicit Iterator(Dataset::Iterator it) : it_(std::move(it)) {}
    /// The current element as an array; throws ValueError unless it has N components.
    value_type operator*() const {
      const Element& e = *it_;
      check_unpack(e.size(), N);
      value_type out;
      for (std::size_t i = 0; i < N; ++i) out[i] = e[i];
      return out;
    }
    /// Pulls the next element.
    Iterator& operator++() { ++it_; return *this; }
    /// Pulls the next element.
    void operator++(int) { ++it_; }
    /// Equal when the underlying iterators are.
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.it_ == b.it_; }

   private:
    Dataset::Iterator it_;
  };
  /// A view of `ds`.
  explicit Unpacked(Dataset ds) : ds_(std::move(ds)) {}
  /// Starts a pass.
  Iterator begin() const { return Iterator(ds_.begin()); }
  /// The end iterator.
  Iterator end() const { return Iterator(ds_.end()); }

 private:
  Dataset ds_;
};

template <std::size_t N>
Dataset::Unpacked<N> Dataset::unpack() const {
  return Unpacked<N>(*this);
}

}  // namespace kiln

/// @cond
// Structured bindings for Element: auto [x, y] = element.
template <>
struct std::tuple_size<kiln::Element> : std::integral_constant<std::size_t, 2> {};
template <std::size_t I>
struct std::tuple_element<I, kiln::Element> {
  using type = kiln::Tensor;
};
/// @endcond
