// Steps whose layers and losses decide on values (Embedding's index check, a
// masked loss's kept-entry count, hinge's label conversion) trace without
// falling back: compiled fit equals eager fit, and prints no warning.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <iostream>
#include <sstream>

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_compiled_host_checks {

namespace k = kiln;
namespace L = kiln::layers;

namespace {

/// Loss history and final weights of 3 epochs, and what fit wrote to std::cerr.
struct Run {
  std::vector<double> loss;
  std::vector<float> weights;
  std::string warnings;
};

Run fit_once(const std::function<std::shared_ptr<k::Model>()>& make, bool jit, const k::Tensor& x,
             const k::Tensor& y, const std::string& loss) {
  k::clear_session();
  k::random::set_seed(4);
  auto model = make();
  model->compile({.optimizer = "adam", .loss = loss, .jit_compile = jit});
  std::ostringstream err;
  auto* saved = std::cerr.rdbuf(err.rdbuf());
  auto h = model->fit(x, y, {.batch_size = 5, .epochs = 3, .verbose = 0, .shuffle = false});
  std::cerr.rdbuf(saved);
  Run r{h["loss"], {}, err.str()};
  for (const auto& w : model->weights()) {
    auto v = w.value().to_vector<float>();
    r.weights.insert(r.weights.end(), v.begin(), v.end());
  }
  return r;
}

void check_same(const Run& eager, const Run& compiled) {
  CHECK(compiled.warnings.empty());
  CHECK(compiled.loss == eager.loss);  // the same kernels: bit for bit
  CHECK(compiled.weights == eager.weights);
  CHECK(eager.loss.back() < eager.loss.front());
}

}  // namespace

TEST_CASE("compiled fit: Embedding with mask_zero and a masked loss trace, and equal eager") {
  // Token ids with zero padding: the mask reaches the loss, which averages over kept steps only.
  k::Tensor x = k::Tensor(std::vector<int32_t>{1, 4, 2, 0, 0, 3, 3, 1, 5, 0, 2, 2, 0, 0, 0, 5, 1, 4, 4, 2,
                                               1, 1, 1, 0, 0, 3, 5, 0, 0, 0, 4, 2, 3, 1, 0, 2, 5, 1, 0, 0},
                          k::Shape({8, 5}));
  k::Tensor y = k::random::uniform({8, 5}, 0, 3, k::DType::int32, 6);
  auto make = [] {
    return std::make_shared<k::Sequential>(std::vector<k::LayerPtr>{
        L::Input({5}, {.dtype = k::DType::int32}), L::Embedding(6, 4, {.mask_zero = true}), L::Dense(3)});
  };
  const Run eager = fit_once(make, false, x, y, "sparse_categorical_crossentropy");
  const Run compiled = fit_once(make, true, x, y, "sparse_categorical_crossentropy");
  check_same(eager, compiled);
}

TEST_CASE("compiled fit: hinge converts 0/1 labels on each batch inside the trace") {
  k::Tensor x = k::random::normal({10, 3}, 0, 1, k::DType::float32, 2);
  auto make = [] { return std::make_shared<k::Sequential>(std::vector<k::LayerPtr>{L::Input({3}), L::Dense(1)}); };
  // 0/1 labels (converted to -1/1) and -1/1 labels (kept) give the same training.
  k::Tensor zero_one = k::cast(k::greater(k::random::normal({10, 1}, 0, 1, k::DType::float32, 3), k::Tensor(0.f)),
                               k::DType::float32);
  const Run eager = fit_once(make, false, x, zero_one, "hinge");
  const Run compiled = fit_once(make, true, x, zero_one, "hinge");
  check_same(eager, compiled);
  const Run signs = fit_once(make, true, x, zero_one * 2.f - 1.f, "hinge");
  CHECK(signs.loss == compiled.loss);
}

TEST_CASE("executing_eagerly is false only while a function traces") {
  CHECK(k::executing_eagerly());
  bool inside = true;
  auto f = k::function([&](const k::Tensor& t) {
    inside = k::executing_eagerly();
    return t * 2.f;
  });
  f(k::Tensor(1.f));
  CHECK_FALSE(inside);
  CHECK(k::executing_eagerly());
}

}  // namespace test_compiled_host_checks
