// Dataset pipeline: element shapes and values, cardinalities as tf.data
// computes them, shuffle reproducibility, cache, prefetch shutdown and errors.
#include <doctest/doctest.h>

#include "test_util.h"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <kiln/ops/array_ops.h>
#include <kiln/data/dataset.h>
#include <kiln/core/error.h>
#include <kiln/ops/math_ops.h>
#include <kiln/ops/random.h>
#include <kiln/core/tensor.h>

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_dataset {

namespace k = kiln;
using k::Dataset;
using k::Element;

using kiln_test::message_of;
using kiln_test::contains;

namespace {
// x: (10, 2) float32 with x[i] = {2i, 2i+1}; y: (10,) int64 with y[i] = i.
k::Tensor make_x() { return k::reshape(k::range(0, 20, 1, k::float32), {10, 2}); }
k::Tensor make_y() { return k::range(0, 10, 1, k::int64); }
Dataset xy() { return Dataset::from_tensor_slices({make_x(), make_y()}); }
Dataset ints(int64_t n) { return Dataset::from_tensor_slices(k::range(0, double(n), 1, k::int64)); }

// Component `c` of every element, flattened, as int64 (one pass).
std::vector<int64_t> values(const Dataset& ds, std::size_t c = 0) {
  std::vector<int64_t> out;
  for (const Element& e : ds)
    for (int64_t v : e.at(c).to_vector<int64_t>()) out.push_back(v);
  return out;
}
std::vector<int64_t> iota(int64_t from, int64_t to) {
  std::vector<int64_t> v(static_cast<std::size_t>(to - from));
  std::iota(v.begin(), v.end(), from);
  return v;
}
}  // namespace

TEST_CASE("Dataset from_tensor_slices gives rows of each component") {
  Dataset ds = xy();
  CHECK(ds.cardinality() == 10);
  int64_t i = 0;
  for (const Element& e : ds) {
    REQUIRE(e.size() == 2);
    CHECK(e[0].shape() == k::Shape{2});
    CHECK(e[0].dtype() == k::float32);
    CHECK(e[1].shape() == k::Shape{});
    CHECK(e[1].dtype() == k::int64);
    CHECK(e[0].to_vector<float>() == std::vector<float>{float(2 * i), float(2 * i + 1)});
    CHECK(e[1].item<int64_t>() == i);
    ++i;
  }
  CHECK(i == 10);
  // A second pass starts again from the first element.
  CHECK(values(ds, 1) == iota(0, 10));
  // Single-tensor overload: one component per element.
  Dataset one = Dataset::from_tensor_slices(make_x());
  auto it = one.begin();
  REQUIRE(it != one.end());
  CHECK(it->size() == 1);
  CHECK((*it)[0].to_vector<float>() == std::vector<float>{0.f, 1.f});
}

TEST_CASE("Dataset batch stacks components and honours drop_remainder") {
  Dataset b = xy().batch(4);
  CHECK(b.cardinality() == 3);
  std::vector<Element> batches;
  for (const Element& e : b) batches.push_back(e);
  REQUIRE(batches.size() == 3);
  CHECK(batches[0][0].shape() == k::Shape{4, 2});
  CHECK(batches[0][1].shape() == k::Shape{4});
  CHECK(batches[1][0].shape() == k::Shape{4, 2});
  CHECK(batches[2][0].shape() == k::Shape{2, 2});
  CHECK(batches[2][1].shape() == k::Shape{2});
  CHECK(batches[1][1].to_vector<int64_t>() == std::vector<int64_t>{4, 5, 6, 7});
  CHECK(batches[2][0].to_vector<float>() == std::vector<float>{16, 17, 18, 19});
  CHECK(batches[2][1].dtype() == k::int64);

  Dataset d = xy().batch(4, /*drop_remainder=*/true);
  CHECK(d.cardinality() == 2);
  CHECK(values(d, 1) == iota(0, 8));
  // Exact multiple: no partial batch either way.
  CHECK(xy().batch(5).cardinality() == 2);
  CHECK(xy().batch(5, true).cardinality() == 2);
  // Batches of batches: (2, 4) int64.
  auto bb = ints(16).batch(4).batch(2);
  auto first = bb.begin();
  CHECK((*first)[0].shape() == k::Shape{2, 4});
  CHECK(bb.cardinality() == 2);
  // batch_size larger than the dataset.
  CHECK(xy().batch(64).cardinality() == 1);
  CHECK(xy().batch(64, true).cardinality() == 0);
  CHECK(values(xy().batch(64, true)).empty());
}

TEST_CASE("Dataset shuffle is a seeded, reproducible permutation") {
  Dataset s = ints(10).shuffle(10, /*seed=*/42);
  CHECK(s.cardinality() == 10);
  std::vector<int64_t> p1 = values(s);
  std::vector<int64_t> sorted = p1;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == iota(0, 10));
  CHECK(p1 != iota(0, 10));
  // Same seed, freshly built dataset: same first pass.
  CHECK(values(ints(10).shuffle(10, 42)) == p1);
  // Different seed: different order.
  CHECK(values(ints(10).shuffle(10, 43)) != p1);

  // reshuffle_each_iteration: each pass differs, and the sequence of passes is seed-determined.
  std::vector<int64_t> p2 = values(s);
  CHECK(p2 != p1);
  Dataset s2 = ints(10).shuffle(10, 42);
  CHECK(values(s2) == p1);
  CHECK(values(s2) == p2);
  // repeat() starts a new shuffle pass per repetition.
  std::vector<int64_t> rep = values(ints(10).shuffle(10, 42).repeat(2));
  CHECK(std::vector<int64_t>(rep.begin(), rep.begin() + 10) == p1);
  CHECK(std::vector<int64_t>(rep.begin() + 10, rep.end()) == p2);

  // Without reshuffling every pass repeats the first order.
  Dataset fixed = ints(10).shuffle(10, 42, /*reshuffle_each_iteration=*/false);
  CHECK(values(fixed) == p1);
  CHECK(values(fixed) == p1);

  // buffer_size 1 cannot reorder anything.
  CHECK(values(ints(10).shuffle(1, 7)) == iota(0, 10));
  // A small buffer keeps elements near their position: element i can only
  // leave once at most i + 2 elements have been read (buffer of 3).
  std::vector<int64_t> local = values(ints(50).shuffle(3, 5));
  for (std::size_t pos = 0; pos < local.size(); ++pos) CHECK(local[pos] <= int64_t(pos) + 2);
  std::sort(local.begin(), local.end());
  CHECK(local == iota(0, 50));

  // No seed: drawn once from the global generator, so set_seed makes it reproducible.
  k::random::set_seed(123);
  std::vector<int64_t> a = values(ints(20).shuffle(20));
  k::random::set_seed(123);
  std::vector<int64_t> b = values(ints(20).shuffle(20));
  CHECK(a == b);
}

TEST_CASE("Dataset take, skip and repeat values and cardinalities") {
  Dataset d = ints(10);
  CHECK(values(d.take(3)) == iota(0, 3));
  CHECK(d.take(3).cardinality() == 3);
  CHECK(d.take(20).cardinality() == 10);
  CHECK(d.take(-1).cardinality() == 10);
  CHECK(values(d.take(-1)) == iota(0, 10));
  CHECK(d.take(0).cardinality() == 0);
  CHECK(values(d.take(0)).empty());

  CHECK(values(d.skip(7)) == iota(7, 10));
  CHECK(d.skip(7).cardinality() == 3);
  CHECK(d.skip(20).cardinality() == 0);
  CHECK(values(d.skip(20)).empty());
  CHECK(d.skip(-1).cardinality() == 0);
  CHECK(values(d.skip(-1)).empty());

  std::vector<int64_t> twice = iota(0, 10), again = iota(0, 10);
  twice.insert(twice.end(), again.begin(), again.end());
  CHECK(values(d.repeat(2)) == twice);
  CHECK(d.repeat(2).cardinality() == 20);
  CHECK(d.repeat(0).cardinality() == 0);
  CHECK(values(d.repeat(0)).empty());
  CHECK(d.repeat().cardinality() == Dataset::INFINITE);
  CHECK(d.repeat().take(5).cardinality() == 5);
  CHECK(values(d.repeat().take(13)) == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2});
  CHECK(d.repeat().skip(3).cardinality() == Dataset::INFINITE);
  CHECK(d.repeat().batch(4).cardinality() == Dataset::INFINITE);
  CHECK(d.repeat().take(-1).cardinality() == Dataset::INFINITE);
  CHECK(values(d.repeat(3).skip(25)) == iota(5, 10));
  CHECK(d.repeat(3).skip(25).cardinality() == 5);
  CHECK(d.skip(2).take(3).repeat(2).cardinality() == 6);
  CHECK(values(d.skip(2).take(3).repeat(2)) == std::vector<int64_t>{2, 3, 4, 2, 3, 4});

  // Unknown cardinality (a generator) stays unknown, except repeat() which is infinite.
  Dataset g = Dataset::from_generator([] {
    return [i = int64_t{0}]() mutable -> std::optional<Element> {
      if (i == 4) return std::nullopt;
      return Element{k::Tensor(i++)};
    };
  });
  CHECK(g.cardinality() == Dataset::UNKNOWN);
  CHECK(g.take(3).cardinality() == Dataset::UNKNOWN);
  CHECK(g.skip(3).cardinality() == Dataset::UNKNOWN);
  CHECK(g.repeat(2).cardinality() == Dataset::UNKNOWN);
  CHECK(g.repeat().cardinality() == Dataset::INFINITE);
  CHECK(g.batch(3).cardinality() == Dataset::UNKNOWN);
  CHECK(values(g.repeat(2)) == std::vector<int64_t>{0, 1, 2, 3, 0, 1, 2, 3});
}

TEST_CASE("Dataset from_generator calls the factory once per pass") {
  int factory_calls = 0;
  Dataset g = Dataset::from_generator(
      [&factory_calls] {
        ++factory_calls;
        return [i = 0]() mutable -> std::optional<Element> {
          if (i == 3) return std::nullopt;
          return Element{k::Tensor(float(i++)), k::Tensor(int64_t{10})};
        };
      },
      3);
  CHECK(g.cardinality() == 3);
  CHECK(factory_calls == 0);  // lazy until iterated
  std::vector<float> firsts;
  for (const Element& e : g) firsts.push_back(e[0].item<float>());
  CHECK(firsts == std::vector<float>{0, 1, 2});
  CHECK(values(g, 1) == std::vector<int64_t>{10, 10, 10});
  CHECK(factory_calls == 2);
  // Pull iterator: keeps returning nullopt after the end.
  auto pull = g.make_iterator();
  int n = 0;
  while (pull()) ++n;
  CHECK(n == 3);
  CHECK_FALSE(pull().has_value());
}

TEST_CASE("Dataset empty datasets iterate zero times") {
  Dataset e = Dataset::from_tensor_slices(k::zeros({0, 3}));
  CHECK(e.cardinality() == 0);
  CHECK(e.begin() == e.end());
  int n = 0;
  for (const Element& el : e.batch(4)) n += int(el.size());
  for (const Element& el : e.repeat()) n += int(el.size());  // must terminate
  for (const Element& el : e.shuffle(8, 1).cache().prefetch(2)) n += int(el.size());
  for (const Element& el : Dataset()) n += int(el.size());
  CHECK(n == 0);
  CHECK(e.repeat().cardinality() == 0);
  CHECK(e.batch(4).cardinality() == 0);
  CHECK(Dataset().cardinality() == 0);
  // repeat() forever over a generator that yields nothing ends too.
  Dataset none = Dataset::from_generator([] { return []() -> std::optional<Element> { return std::nullopt; }; });
  CHECK(values(none.repeat()).empty());
}

TEST_CASE("Dataset map transforms elements lazily") {
  Dataset m = xy().map([](const Element& e) { return Element{e[0] * 2.0, e[1] + 100.0}; });
  CHECK(m.cardinality() == 10);
  auto it = m.begin();
  ++it;
  CHECK((*it)[0].to_vector<float>() == std::vector<float>{4.f, 6.f});
  CHECK((*it)[0].dtype() == k::float32);
  CHECK(values(m, 1) == iota(100, 110));
  // map may change the number of components; batch stacks whatever map returns.
  Dataset three = xy().map([](const Element& e) { return Element{e[0], e[1], k::Tensor(0.5f)}; }).batch(4);
  auto b = three.begin();
  REQUIRE(b->size() == 3);
  CHECK((*b)[2].shape() == k::Shape{4});
  CHECK((*b)[2].to_vector<float>() == std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f});
}

TEST_CASE("Dataset cache runs upstream once and replays it") {
  auto calls = std::make_shared<std::atomic<int>>(0);
  Dataset c = ints(10)
                  .map([calls](const Element& e) {
                    ++*calls;
                    return Element{e[0] * 3.0};
                  })
                  .cache();
  CHECK(c.cardinality() == 10);
  // An abandoned pass stores nothing: the next pass recomputes.
  CHECK(values(c.take(3)) == std::vector<int64_t>{0, 3, 6});
  CHECK(*calls == 3);
  std::vector<int64_t> expect;
  for (int64_t i = 0; i < 10; ++i) expect.push_back(3 * i);
  CHECK(values(c) == expect);
  CHECK(*calls == 13);
  CHECK(values(c) == expect);
  CHECK(values(c.repeat(3).batch(5)).size() == 30);
  CHECK(*calls == 13);

  // A cached shuffle replays its first order instead of reshuffling.
  Dataset sc = ints(10).shuffle(10, 9).cache();
  std::vector<int64_t> first = values(sc);
  CHECK(values(sc) == first);
  CHECK(values(ints(10).shuffle(10, 9)) == first);
}

TEST_CASE("Dataset prefetch yields the same sequence") {
  Dataset base = xy().map([](const Element& e) { return Element{e[0] + 1.0, e[1]}; }).batch(3);
  std::vector<Element> plain, fetched;
  for (const Element& e : base) plain.push_back(e);
  for (const Element& e : base.prefetch(2)) fetched.push_back(e);
  REQUIRE(plain.size() == 4);
  REQUIRE(fetched.size() == plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    CHECK(fetched[i][0].shape() == plain[i][0].shape());
    CHECK(fetched[i][0].to_vector<float>() == plain[i][0].to_vector<float>());
    CHECK(fetched[i][1].to_vector<int64_t>() == plain[i][1].to_vector<int64_t>());
  }
  CHECK(base.prefetch(2).cardinality() == 4);
  CHECK(base.repeat().prefetch().cardinality() == Dataset::INFINITE);
  // Several passes, buffer sizes and nesting.
  Dataset p = ints(25).prefetch(1).repeat(2);
  std::vector<int64_t> twice = iota(0, 25), again = iota(0, 25);
  twice.insert(twice.end(), again.begin(), again.end());
  CHECK(values(p) == twice);
  CHECK(values(ints(25).prefetch(100)) == iota(0, 25));
  CHECK(values(ints(25).prefetch(Dataset::AUTOTUNE).batch(5).prefetch(3), 0) == iota(0, 25));
}

TEST_CASE("Dataset prefetch stops its thread when the iteration ends early") {
  Dataset inf = xy().repeat().prefetch(4);
  int n = 0;
  for (const Element& e : inf) {
    CHECK(e.size() == 2);
    if (++n == 25) break;  // must return: the destructor stops and joins the producer
  }
  CHECK(n == 25);
  // A pull iterator destroyed without ever being read, and nested prefetch threads.
  { auto pull = ints(5).repeat().prefetch(2).make_iterator(); }
  Dataset nested = ints(7).repeat().prefetch(3).map([](const Element& e) { return e; }).batch(2).prefetch(2);
  n = 0;
  for (const Element& e : nested) {
    CHECK(e[0].shape() == k::Shape{2});
    if (++n == 10) break;
  }
  CHECK(n == 10);
  // take() over an infinite prefetched dataset also ends cleanly.
  CHECK(values(ints(3).repeat().prefetch(2).take(7)) == std::vector<int64_t>{0, 1, 2, 0, 1, 2, 0});
}

TEST_CASE("Dataset exceptions in map propagate through prefetch") {
  Dataset bad = ints(10)
                    .map([](const Element& e) {
                      if (e[0].item<int64_t>() == 3) throw k::ValueError("map failed on element 3");
                      return e;
                    })
                    .prefetch(2);
  auto pull = bad.make_iterator();
  for (int64_t i = 0; i < 3; ++i) {
    auto e = pull();
    REQUIRE(e.has_value());
    CHECK((*e)[0].item<int64_t>() == i);
  }
  CHECK(message_of<k::ValueError>([&] { pull(); }) == "map failed on element 3");
  CHECK_FALSE(pull().has_value());  // the pass is over after the error
  // Range-for sees it too (from begin() or from ++), also through batch.
  CHECK_THROWS_AS(values(bad), k::ValueError);
  CHECK_THROWS_AS(values(bad.batch(4)), k::ValueError);
  // A non-kiln exception keeps its type.
  Dataset std_bad =
      ints(2).map([](const Element&) -> Element { throw std::out_of_range("boom"); }).prefetch(1);
  CHECK_THROWS_AS(values(std_bad), std::out_of_range);
}

TEST_CASE("Dataset errors name the argument and the shapes") {
  std::string msg = message_of<k::ShapeError>(
      [] { Dataset::from_tensor_slices({k::zeros({10, 2}), k::zeros({9}, k::int64)}); });
  CHECK(contains(msg, "(10, 2)"));
  CHECK(contains(msg, "(9,)"));
  CHECK(contains(msg, "first dimension"));
  CHECK(contains(message_of<k::ShapeError>([] { Dataset::from_tensor_slices(k::Tensor(1.0f)); }), "()"));
  CHECK_THROWS_AS(Dataset::from_tensor_slices(std::vector<k::Tensor>{}), k::ValueError);

  for (int64_t bad : {0, -1, -32}) {
    msg = message_of<k::ValueError>([&] { xy().batch(bad); });
    CHECK(contains(msg, "batch_size"));
    CHECK(contains(msg, std::to_string(bad)));
  }
  CHECK(contains(message_of<k::ValueError>([] { xy().shuffle(0); }), "buffer_size"));
  CHECK(contains(message_of<k::ValueError>([] { xy().shuffle(-5, 1); }), "buffer_size"));
  CHECK(contains(message_of<k::ValueError>([] { xy().prefetch(0); }), "buffer_size"));
  CHECK(contains(message_of<k::ValueError>([] { xy().prefetch(-3); }), "buffer_size"));

  // Elements whose shapes differ cannot be batched.
  Dataset ragged = Dataset::from_generator([] {
    return [i = 0]() mutable -> std::optional<Element> {
      if (i == 3) return std::nullopt;
      return Element{k::zeros({int64_t(2 + i++)})};
    };
  });
  msg = message_of<k::ShapeError>([&] { values(ragged.batch(2)); });
  CHECK(contains(msg, "(2,)"));
  CHECK(contains(msg, "(3,)"));
  // Batch of one never compares shapes.
  CHECK_NOTHROW(values(ragged.batch(1)));
}

}  // namespace test_dataset
