// LoRA on Dense, EinsumDense, Embedding and the convolutions: Keras's formula,
// which weights train, gradients of A and B against central differences, Keras's
// errors and config keys, and what files hold. tests/oracle/oracle_lora.py
// compares fine-tuning and files with Keras itself.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "kiln/kiln.h"
#include "../test_util.h"

namespace test_lora {

namespace k = kiln;
namespace L = kiln::layers;
using kiln_test::contains;
using kiln_test::message_of;

namespace {

std::vector<std::string> names(const std::vector<k::Variable>& vs) {
  std::vector<std::string> out;
  for (const auto& v : vs) out.push_back(v.name());
  return out;
}

k::Tensor random_like(const k::Variable& v, uint64_t seed) {
  return k::random::normal(v.shape(), 0.0, 0.5, v.dtype(), seed);
}

double abs_sum(const k::Variable& v) { return k::sum(k::abs(v.value())).item<double>(); }

/// Sets A and B to random values, so that the delta is not zero.
void randomize_adapters(L::LoraLayer& l) {
  l.lora_kernel_a().assign(random_like(l.lora_kernel_a(), 5));
  l.lora_kernel_b().assign(random_like(l.lora_kernel_b(), 6));
}

/// Gradients of sum(y · w) with respect to A and B, from the tape and from central
/// differences. The loss is linear in A for a fixed B and in B for a fixed A, so the
/// differences are exact up to rounding for any step.
void check_adapter_gradients(const std::shared_ptr<L::LoraLayer>& layer, const k::Tensor& x) {
  const k::Tensor w = k::random::normal((*layer)(x).shape(), 0.0, 1.0, k::float64, 9);
  auto loss = [&] { return k::sum(k::cast((*layer)(x), k::float64) * w); };
  for (k::Variable v : {layer->lora_kernel_a(), layer->lora_kernel_b()}) {
    k::GradientTape tape;
    const k::Tensor analytic = *tape.gradient(loss(), v);
    std::vector<double> numeric;
    const k::Tensor base = v.value().clone();
    auto flat = base.to_vector<double>();
    for (std::size_t i = 0; i < flat.size(); ++i) {
      auto shifted = [&](double d) {
        auto f = flat;
        f[i] += d;
        v.assign(k::Tensor(f, v.shape()).cast(v.dtype()));
        return loss().item<double>();
      };
      numeric.push_back((shifted(0.25) - shifted(-0.25)) / 0.5);
    }
    v.assign(base);
    INFO(layer->class_name(), " ", v.name());
    kiln_test::check_values(analytic, numeric, 1e-4);
  }
}

}  // namespace

TEST_CASE("LoRA on Dense: Keras's formula, a frozen kernel, A and B trainable") {
  L::Dense d(3);
  const k::Tensor x = k::random::normal({2, 4}, 0.0, 1.0, k::float32, 1);
  const k::Tensor before = d(x);
  d->enable_lora(2, {.lora_alpha = 6});
  CHECK(d->lora_enabled());
  CHECK(d->lora_kernel_a().shape() == k::Shape{4, 2});
  CHECK(d->lora_kernel_b().shape() == k::Shape{2, 3});
  CHECK(d->lora_kernel_a().dtype() == k::float32);
  CHECK(names(d->trainable_weights()) == std::vector<std::string>{"bias", "lora_kernel_a", "lora_kernel_b"});
  CHECK(names(d->non_trainable_weights()) == std::vector<std::string>{"kernel"});
  kiln_test::check_values(d(x), before.to_vector<double>());  // B starts at zero
  randomize_adapters(*d.ptr());
  const k::Tensor kernel = d->kernel().value() + k::matmul(d->lora_kernel_a().value(), d->lora_kernel_b().value()) * 3.0;
  kiln_test::check_values(d(x), (k::matmul(x, kernel) + d->bias().value()).to_vector<double>(), 1e-5);
}

TEST_CASE("LoRA gradients of A and B match central differences on every layer Keras adapts") {
  const k::Tensor f = k::random::normal({2, 6, 6, 3}, 0.0, 1.0, k::float64, 2);
  struct Case {
    std::shared_ptr<L::LoraLayer> layer;
    k::Tensor x;
  };
  std::vector<Case> cases = {
      {L::Dense(3, {.dtype = k::float64}).ptr(), k::random::normal({2, 4}, 0.0, 1.0, k::float64, 3)},
      {L::EinsumDense("abc,cd->abd", {4, 5}, {.bias_axes = "d", .dtype = k::float64}).ptr(),
       k::random::normal({2, 4, 3}, 0.0, 1.0, k::float64, 4)},
      {L::Embedding(7, 3, {.dtype = k::float64}).ptr(), k::Tensor(std::vector<int64_t>{0, 3, 6, 3}, {2, 2})},
      {L::Conv1D(2, 3, {.dtype = k::float64}).ptr(), k::reshape(f, {2, 12, 9})},
      {L::Conv2D(2, 3, {.padding = "same", .dtype = k::float64}).ptr(), f},
      {L::Conv3D(2, {2, 2, 2}, {.dtype = k::float64}).ptr(), k::reshape(f, {2, 3, 4, 3, 3})},
  };
  for (auto& c : cases) {
    (*c.layer)(c.x);
    c.layer->enable_lora(2, {.lora_alpha = 3});
    randomize_adapters(*c.layer);
    check_adapter_gradients(c.layer, c.x);
  }
}

TEST_CASE("enable_lora refuses what Keras refuses, naming the layer") {
  L::Dense unbuilt(2, {.name = "head"});
  CHECK(contains(message_of<k::ValueError>([&] { unbuilt->enable_lora(2); }),
                 "Layer 'head' (Dense): Cannot enable lora on a layer that isn't yet built."));
  L::Dense d(2);
  d(k::ones({1, 3}));
  d->enable_lora(2);
  CHECK(contains(message_of<k::ValueError>([&] { d->enable_lora(2); }),
                 "lora is already enabled. This can only be done once per layer."));
  L::Dense constrained(2, {.kernel_constraint = k::constraints::NonNeg()});
  constrained(k::ones({1, 3}));
  CHECK(contains(message_of<k::ValueError>([&] { constrained->enable_lora(2); }),
                 "Lora is incompatible with kernel constraints. In order to enable lora on this layer, remove the "
                 "`kernel_constraint` argument."));
  L::Embedding e(4, 2, {.embeddings_constraint = k::constraints::NonNeg()});
  e(k::Tensor(std::vector<int64_t>{1}, {1}));
  CHECK(contains(message_of<k::ValueError>([&] { e->enable_lora(2); }), "remove the `embeddings_constraint` argument"));
  CHECK(contains(message_of<k::ValueError>([&] { L::Dense(2, {.lora_rank = 0}); }), "lora_rank=0"));
}

TEST_CASE("lora_rank and lora_alpha in configs as Keras writes them, Dense and Embedding resetting alpha at build") {
  L::Dense plain(2);
  CHECK_FALSE(plain->get_config().contains("lora_rank"));
  L::Dense d(2, {.lora_rank = 2, .lora_alpha = 8});
  CHECK(d->get_config()["lora_alpha"] == 8);
  d(k::ones({1, 3}));
  CHECK(d->lora_enabled());
  CHECK(d->get_config()["lora_rank"] == 2);
  CHECK(d->get_config()["lora_alpha"] == 2);  // Keras's Dense.build calls enable_lora(rank)
  L::Conv2D c(2, 3, {.lora_rank = 2, .lora_alpha = 8});
  c(k::ones({1, 4, 4, 1}));
  CHECK(c->get_config()["lora_alpha"] == 8);
  auto copy = k::layer_from_config({{"class_name", "Conv2D"}, {"config", c->get_config()}});
  (*copy)(k::ones({1, 4, 4, 1}));
  auto lc = std::dynamic_pointer_cast<L::LoraLayer>(copy);
  REQUIRE(lc);
  CHECK(lc->lora_enabled());
  CHECK(*lc->lora_alpha() == 8);
}

TEST_CASE("files hold the merged kernel; a loaded LoRA layer has zero adapters and predicts the same") {
  const auto dir = std::filesystem::temp_directory_path() / "kiln_test_lora";
  std::filesystem::create_directories(dir);
  L::Dense hidden(4, {.activation = "tanh", .kernel_regularizer = k::regularizers::L2(0.01)});
  auto model = std::make_shared<k::Sequential>(std::vector<k::LayerPtr>{L::Input({3}), hidden, L::Dense(2)});
  hidden->enable_lora(2);
  CHECK(hidden->losses().size() == 3);  // the kernel's penalty, and A's and B's (Keras gives them the kernel's)
  randomize_adapters(*hidden.ptr());
  const k::Tensor x = k::random::normal({5, 3}, 0.0, 1.0, k::float32, 7);
  const k::Tensor pred = model->predict(x, {.verbose = 0});
  const std::string path = (dir / "lora.keras").string(), weights = (dir / "lora.weights.h5").string();
  model->save(path);
  model->save_weights(weights);
  CHECK(abs_sum(hidden->lora_kernel_b()) > 0);  // saving merges into the file only

  auto loaded = k::models::load_model(path);
  auto lh = std::dynamic_pointer_cast<L::DenseImpl>(loaded->get_layer(hidden->name()));
  REQUIRE(lh);
  CHECK(lh->lora_enabled());
  CHECK(abs_sum(lh->lora_kernel_a()) == 0);
  CHECK(abs_sum(lh->lora_kernel_b()) == 0);
  kiln_test::check_values(loaded->predict(x, {.verbose = 0}), pred.to_vector<double>(), 1e-5);

  // A model without LoRA reads the merged kernel as its kernel.
  auto plain = std::make_shared<k::Sequential>(
      std::vector<k::LayerPtr>{L::Input({3}), L::Dense(4, {.activation = "tanh"}), L::Dense(2)});
  plain->load_weights(weights);
  kiln_test::check_values(plain->predict(x, {.verbose = 0}), pred.to_vector<double>(), 1e-5);
  std::filesystem::remove_all(dir);
}

TEST_CASE("LoRA under mixed_bfloat16: float32 adapters, bfloat16 output") {
  L::Dense d(3, {.dtype = "mixed_bfloat16"});
  L::Dense ref(3);
  const k::Tensor x = k::random::normal({2, 4}, 0.0, 1.0, k::float32, 8);
  d(x);
  ref(x);
  ref->kernel().assign(d->kernel().value());
  d->enable_lora(2);
  ref->enable_lora(2);
  randomize_adapters(*d.ptr());
  randomize_adapters(*ref.ptr());
  CHECK(d->lora_kernel_a().dtype() == k::float32);
  const k::Tensor y = d(x);
  CHECK(y.dtype() == k::bfloat16);
  kiln_test::check_values(y, ref(x).to_vector<double>(), 3e-2);
}

}  // namespace test_lora
