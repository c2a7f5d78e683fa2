// Keras's dtype policies: "mixed_bfloat16" and "mixed_float16" keep float32
// variables and compute in 16 bits; inputs are cast to the compute dtype, float
// weights read in it inside a layer's call (and gradients reach them in
// float32), normalization layers keep float32 statistics, losses and metrics
// compute in float32, and policies travel through configs and files as Keras
// writes them.
#include <doctest/doctest.h>
#include <kiln/kiln.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "../test_util.h"

namespace test_dtype_policies {

namespace k = kiln;
namespace L = kiln::layers;

namespace {

/// Sets the global policy for one test and restores float32 after it.
struct GlobalPolicy {
  explicit GlobalPolicy(const std::string& name) { k::mixed_precision::set_global_policy(name); }
  ~GlobalPolicy() { k::mixed_precision::set_global_policy("float32"); }
};

double max_abs_diff(const k::Tensor& a, const k::Tensor& b) {
  const auto x = k::cast(a, k::float64).to_vector<double>(), y = k::cast(b, k::float64).to_vector<double>();
  REQUIRE(x.size() == y.size());
  double m = 0;
  for (std::size_t i = 0; i < x.size(); ++i) m = std::max(m, std::abs(x[i] - y[i]));
  return m;
}

/// Reads its weight inside call() and returns its input: what it records shows
/// the autocast scope it ran under, and its output whether its input was cast.
class WeightReader : public k::Layer {
 public:
  using Layer::Layer;
  k::DType read_as = k::int8;

 protected:
  void build(const k::Shape&) override { w_ = add_weight("w", {1}, {.initializer = "ones"}); }
  k::Tensor call(const k::Tensor& x, bool) override {
    read_as = w_.value().dtype();
    return x;
  }

 private:
  k::Variable w_;
};

/// Calls `inner` inside its own call, so inside its own autocast scope.
class Enclosing : public k::Layer {
 public:
  Enclosing(std::shared_ptr<WeightReader> inner, k::LayerOptions o) : Layer(std::move(o)), inner_(std::move(inner)) {}

 protected:
  k::Tensor call(const k::Tensor& x, bool) override { return (*inner_)(x); }

 private:
  std::shared_ptr<WeightReader> inner_;
};

}  // namespace

TEST_CASE("policy names give Keras's compute and variable dtypes") {
  const k::DTypePolicy mixed_bf("mixed_bfloat16"), mixed_f16("mixed_float16"), f64("float64");
  CHECK(mixed_bf.compute_dtype() == k::bfloat16);
  CHECK(mixed_bf.variable_dtype() == k::float32);
  CHECK(mixed_bf.is_mixed());
  CHECK(mixed_f16.compute_dtype() == k::float16);
  CHECK(mixed_f16.variable_dtype() == k::float32);
  CHECK(f64.compute_dtype() == k::float64);
  CHECK(f64.variable_dtype() == k::float64);
  CHECK_FALSE(f64.is_mixed());
  CHECK(k::DTypePolicy(k::bfloat16).name() == "bfloat16");
  const std::string msg = kiln_test::message_of<k::ValueError>([] { k::DTypePolicy("mixed_float8"); });
  CHECK(msg ==
        "Cannot convert 'mixed_float8' to a mixed precision DTypePolicy. Valid policies include 'mixed_float16', "
        "'mixed_bfloat16', and the name of any float dtype such as 'float32'.");
}

TEST_CASE("the global policy is what a layer made without a dtype takes") {
  CHECK(k::mixed_precision::global_policy().name() == "float32");
  {
    GlobalPolicy mixed("mixed_bfloat16");
    auto d = L::Dense(3);
    CHECK(d->dtype_policy().name() == "mixed_bfloat16");
    auto f = L::Dense(3, {.dtype = "float32"});
    CHECK(f->dtype_policy().name() == "float32");
    CHECK(L::Dense(3, {.dtype = k::float64})->compute_dtype() == k::float64);
  }
  CHECK(L::Dense(3)->dtype_policy().name() == "float32");
}

TEST_CASE("under mixed_bfloat16 Dense computes in bfloat16 from a float32 kernel") {
  k::random::set_seed(1);
  const k::Tensor x = k::random::normal({4, 5}, 0, 1, k::float32, 2);
  auto d = L::Dense(3, {.activation = "relu", .dtype = "mixed_bfloat16"});
  k::GradientTape tape;
  tape.watch(x);
  const k::Tensor y = d(x);
  CHECK(y.dtype() == k::bfloat16);
  CHECK(d->kernel().dtype() == k::float32);
  CHECK(d->bias().dtype() == k::float32);
  // The same sum in bfloat16 by hand: inputs and weights rounded, one rounding at the end.
  const k::Tensor by_hand = k::relu(k::matmul(x.cast(k::bfloat16), d->kernel().value().cast(k::bfloat16)) +
                                    d->bias().value().cast(k::bfloat16));
  CHECK(by_hand.dtype() == k::bfloat16);
  CHECK(max_abs_diff(y, by_hand) <= 0.02);
  const auto grads = tape.gradient(k::sum(y), std::vector<k::Variable>{d->kernel(), d->bias()});
  REQUIRE(grads[0].has_value());
  CHECK(grads[0]->dtype() == k::float32);  // cast's gradient brings it back to the variable's dtype
  CHECK(grads[1]->dtype() == k::float32);
  // d sum(relu(x W + b)) / d b = the fraction of active units per column.
  const k::Tensor active = k::cast(by_hand > 0.0, k::float32);
  CHECK(max_abs_diff(*grads[1], k::sum(active, std::vector<int>{0})) <= 1e-6);
  // Reading the kernel outside the layer's call gives it as stored.
  CHECK(d->kernel().value().dtype() == k::float32);
}

TEST_CASE("float inputs are cast to the compute dtype, integers are not") {
  auto f32 = L::Activation("linear");
  CHECK(f32(k::ones({2, 2}, k::float64)).dtype() == k::float32);
  CHECK(f32(k::ones({2, 2}, k::bfloat16)).dtype() == k::float32);
  auto mixed = L::Activation("linear", {.dtype = "mixed_float16"});
  CHECK(mixed(k::ones({2, 2})).dtype() == k::float16);
  auto emb = L::Embedding(10, 4, {.dtype = "mixed_bfloat16"});
  const k::Tensor e = emb(k::Tensor(std::vector<int32_t>{1, 2, 3}, k::Shape{1, 3}));
  CHECK(e.dtype() == k::bfloat16);
  CHECK(emb->embeddings().dtype() == k::float32);
}

TEST_CASE("float tensors among the call keywords are cast to the compute dtype too, as Keras's __call__ does") {
  auto lstm = L::LSTM(3, {.dtype = "mixed_bfloat16"});
  const k::Tensor x = k::random::normal({2, 4, 5}, 0.0, 1.0, k::float32, 3);
  const k::Tensor h = k::random::normal({2, 3}, 0.0, 1.0, k::float32, 4);
  const k::Tensor c = k::random::normal({2, 3}, 0.0, 1.0, k::float32, 5);
  const k::Tensor given_float32 = lstm(x, {.initial_state = {h, c}});
  const k::Tensor given_bfloat16 = lstm(x, {.initial_state = {k::cast(h, k::bfloat16), k::cast(c, k::bfloat16)}});
  CHECK(given_float32.dtype() == k::bfloat16);
  CHECK(max_abs_diff(given_float32, given_bfloat16) == 0);
}

TEST_CASE("BatchNormalization under a mixed policy keeps float32 statistics and weights") {
  k::random::set_seed(4);
  const k::Tensor x = k::random::normal({16, 3}, 2, 3, k::float32, 5);
  auto bn = L::BatchNormalization({.dtype = "mixed_bfloat16"});
  auto ref = L::BatchNormalization();
  const k::Tensor y = bn(x, true);
  const k::Tensor r = ref(x.cast(k::bfloat16).cast(k::float32), true);
  CHECK(y.dtype() == k::bfloat16);
  for (const auto& w : bn->weights()) CHECK(w.dtype() == k::float32);
  // The statistics of the rounded input, in float32; only the output is rounded.
  CHECK(max_abs_diff(bn->weights()[2].value(), ref->weights()[2].value()) <= 1e-6);
  CHECK(max_abs_diff(bn->weights()[3].value(), ref->weights()[3].value()) <= 1e-5);
  CHECK(max_abs_diff(y, r.cast(k::bfloat16)) == 0.0);
}

TEST_CASE("a functional model under mixed_bfloat16: symbolic dtypes, float32 head, training") {
  GlobalPolicy mixed("mixed_bfloat16");
  auto in = L::Input({6});
  auto h = L::Dense(16, {.activation = "relu"})(in);
  auto h2 = L::LayerNormalization()(h);
  CHECK(h.dtype() == k::bfloat16);
  CHECK(h2.dtype() == k::bfloat16);
  auto out = L::Dense(3, {.activation = "softmax", .dtype = "float32"})(h2);
  CHECK(out.dtype() == k::float32);
  k::Model m(in, out);
  for (const auto& w : m.weights()) CHECK(w.dtype() == k::float32);
  k::random::set_seed(7);
  const k::Tensor x = k::random::normal({96, 6}, 0, 1, k::float32, 8);
  const k::Tensor y = k::argmax(x[{k::Slice(), k::Slice(0, 3)}], 1);
  m.compile({.optimizer = k::optimizers::Adam({.learning_rate = 0.01}), .loss = "sparse_categorical_crossentropy",
             .metrics = {"accuracy"}});
  auto hist = m.fit(x, y, {.batch_size = 32, .epochs = 6, .verbose = 0});
  const auto& loss = hist.history["loss"];
  for (double l : loss) CHECK(std::isfinite(l));
  CHECK(loss.back() < 0.8 * loss.front());
  for (const auto& w : m.weights()) CHECK(w.dtype() == k::float32);
  const k::Tensor p = m.predict(x);
  CHECK(p.dtype() == k::float32);
  const k::Tensor l = k::losses::SparseCategoricalCrossentropy()(y, k::cast(p, k::bfloat16));
  CHECK(l.dtype() == k::float32);
}

TEST_CASE("policies are written as Keras's DTypePolicy objects and read back, in configs and files") {
  k::Sequential m({L::Input({4}), L::Dense(8, {.dtype = "mixed_float16"}), L::Dense(2, {.dtype = "float32"})});
  const k::Config c = m.layers()[0]->get_config();
  CHECK(c["dtype"].get<std::string>() == "mixed_float16");
  const std::string json = k::models::to_json(m);
  // The legacy JSON names the policy as tf.keras 2 did a dtype; .keras files write Keras 3's
  // DTypePolicy object (the oracle's files group has Keras read them).
  CHECK(kiln_test::contains(json, R"("dtype":"mixed_float16")"));
  const auto back = k::models::model_from_json(json);
  CHECK(back->layers()[0]->dtype_policy().name() == "mixed_float16");
  CHECK(back->layers()[1]->dtype_policy().name() == "float32");
  const auto dir = std::filesystem::temp_directory_path() / "kiln_test_dtype_policies";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "mixed.keras").string();
  const k::Tensor x = k::random::normal({3, 4}, 0, 1, k::float32, 9);
  const k::Tensor before = m.predict(x);
  m.save(path);
  const auto loaded = k::models::load_model(path);
  CHECK(loaded->layers()[0]->dtype_policy().name() == "mixed_float16");
  CHECK(loaded->layers()[0]->weights()[0].dtype() == k::float32);
  CHECK(max_abs_diff(loaded->predict(x), before) == 0.0);
  // A tf.keras 2 file names its mixed policy as a Policy object.
  const k::Config legacy = {{"class_name", "Dense"},
                            {"config", {{"units", 2}, {"dtype", {{"class_name", "Policy"},
                                                                  {"config", {{"name", "mixed_bfloat16"}}}}}}}};
  CHECK(k::layers::from_config(legacy)->dtype_policy().name() == "mixed_bfloat16");
  const std::string bad = kiln_test::message_of<k::ValueError>([] {
    k::layers::from_config({{"class_name", "Dense"}, {"config", {{"units", 2}, {"dtype", "mixed_int3"}}}});
  });
  CHECK(kiln_test::contains(bad, "Dense.from_config: 'dtype' must be a dtype name"));
  CHECK(kiln_test::contains(bad, "mixed_int3"));
}

TEST_CASE("autocast=false: float inputs keep their dtype, and an enclosing layer's autocast scope stops at the layer") {
  const k::Tensor x = k::random::normal({2, 3}, 0, 1, k::float32, 11);
  // Keras's Layer.__call__: without an enclosing scope a mixed policy opens one
  // whatever autocast says; inside one, autocast=False clears it for the call.
  auto alone = std::make_shared<WeightReader>(k::LayerOptions{.dtype = "mixed_bfloat16", .autocast = false});
  CHECK_FALSE(alone->autocast());
  CHECK((*alone)(x).dtype() == k::float32);
  CHECK(alone->read_as == k::bfloat16);
  auto off = std::make_shared<WeightReader>(k::LayerOptions{.dtype = "mixed_bfloat16", .autocast = false});
  auto on = std::make_shared<WeightReader>(k::LayerOptions{.dtype = "mixed_bfloat16"});
  Enclosing outer_off(off, {.dtype = "mixed_bfloat16"}), outer_on(on, {.dtype = "mixed_bfloat16"});
  CHECK(outer_off(x).dtype() == k::bfloat16);  // the enclosing layer cast x before its call
  CHECK(off->read_as == k::float32);
  CHECK(outer_on(x).dtype() == k::bfloat16);
  CHECK(on->read_as == k::bfloat16);
  // Not part of the config, as in Keras.
  CHECK_FALSE(alone->get_config().contains("autocast"));
}

TEST_CASE("LayerNormalization, GroupNormalization and Embedding do not autocast, as in Keras") {
  const k::Tensor x = k::random::normal({4, 8}, 3, 2, k::float32, 12);
  auto ln = L::LayerNormalization({.dtype = "mixed_bfloat16"});
  auto ref = L::LayerNormalization();
  CHECK_FALSE(ln->autocast());
  CHECK_FALSE(L::GroupNormalization({.groups = 2})->autocast());
  CHECK_FALSE(L::Embedding(4, 2)->autocast());
  CHECK(L::Dense(2)->autocast());
  // A float32 input is normalized as it is, in float32; only the output is rounded.
  const k::Tensor y = ln(x);
  CHECK(y.dtype() == k::bfloat16);
  CHECK(max_abs_diff(y, ref(x).cast(k::bfloat16)) == 0.0);
  CHECK(max_abs_diff(y, ref(x.cast(k::bfloat16).cast(k::float32)).cast(k::bfloat16)) > 0.0);
  // ReversibleEmbedding's reverse call multiplies its float32 input without rounding it.
  L::ReversibleEmbedding rev(5, 8, {.dtype = "mixed_bfloat16"});
  CHECK(rev(k::Tensor(std::vector<int32_t>{1, 2}, k::Shape{1, 2})).dtype() == k::bfloat16);
  CHECK(rev(x, L::reverse_call()).dtype() == k::float32);
}

}  // namespace test_dtype_policies
