// Older fixtures: Keras 1 (Theano), Keras 2.0/2.1, tf.keras 2.2 configs and
// weights-only files, BatchNormalization (incl. a list axis), Conv1D, and a
// Keras 3 subclassed model rebuilt through custom_objects. Expected values are
// computed here in float64 straight from the HDF5 datasets.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../../framework/src/io/hdf5_file.h"
#include "saving_util.h"

using namespace kiln;
using saving_test::data;

namespace {

std::vector<double> vec(const Tensor& t) { return t.cast(DType::float64).to_vector<double>(); }

/// Dense (in,out) + optional BatchNormalization in float64.
std::vector<double> dense(const std::vector<double>& x, int64_t n, const Tensor& W, const Tensor& b) {
  const int64_t in = W.shape()[0], out = W.shape()[1];
  auto w = vec(W), bb = vec(b);
  std::vector<double> y(static_cast<std::size_t>(n * out));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t o = 0; o < out; ++o) {
      double s = bb[static_cast<std::size_t>(o)];
      for (int64_t i = 0; i < in; ++i) s += x[static_cast<std::size_t>(r * in + i)] * w[static_cast<std::size_t>(i * out + o)];
      y[static_cast<std::size_t>(r * out + o)] = s;
    }
  return y;
}

void batchnorm(std::vector<double>& y, int64_t channels, const io::H5Group& g, const std::string& prefix, double eps) {
  auto gamma = vec(g.read(prefix + "gamma:0")), beta = vec(g.read(prefix + "beta:0"));
  auto mean = vec(g.read(prefix + "moving_mean:0")), var = vec(g.read(prefix + "moving_variance:0"));
  for (std::size_t i = 0; i < y.size(); ++i) {
    const std::size_t c = i % static_cast<std::size_t>(channels);
    y[i] = gamma[c] * (y[i] - mean[c]) / std::sqrt(var[c] + eps) + beta[c];
  }
}

Tensor to_tensor(const std::vector<double>& v, const Shape& s) { return Tensor(v, s).cast(DType::float32); }

}  // namespace

TEST_CASE("tf.keras 2.2.4 Functional Conv1D + BatchNormalization(axis=[2]) (vlen strings)") {
  saving_test::ensure_layers();
  const std::string path = data("KonduitAI__dl4j-test-resources/batchNormError.h5");
  auto m = models::load_model(path);
  CHECK(m->is_functional());
  random::set_seed(3);
  Tensor x = random::uniform({3, 25, 25}, -1.0, 1.0);
  Tensor y = m->predict(x);
  REQUIRE(y.shape() == Shape({3, 24, 10}));
  auto f = io::H5File::open(path);
  auto conv = f.root().group("model_weights/conv1d");
  auto K = vec(conv.read("conv1d/kernel:0")), b = vec(conv.read("conv1d/bias:0"));
  auto xv = vec(x);
  std::vector<double> ref(3 * 24 * 10);
  for (int n = 0; n < 3; ++n)
    for (int t = 0; t < 24; ++t)
      for (int o = 0; o < 10; ++o) {
        double s = b[o];
        for (int k = 0; k < 2; ++k)
          for (int c = 0; c < 25; ++c) s += xv[(n * 25 + t + k) * 25 + c] * K[(k * 25 + c) * 10 + o];
        ref[(n * 24 + t) * 10 + o] = s;
      }
  batchnorm(ref, 10, f.root().group("model_weights/batch_normalization"), "batch_normalization/", 0.001);
  const double d = saving_test::max_abs_diff(y, to_tensor(ref, Shape({3, 24, 10})));
  MESSAGE("batchNormError.h5 max |delta| vs float64 reference = " << d);
  CHECK(d < 1e-4);
}

TEST_CASE("Keras 2.0.8 to_json + save_weights: 3-layer MLP with BatchNormalization (eps 1e-6)") {
  saving_test::ensure_layers();
  auto m = models::model_from_json_file(data("fastmachinelearning__example-models/KERAS_3layer_batch_norm.json"));
  const std::string wpath = data("fastmachinelearning__example-models/KERAS_3layer_batch_norm_weights.h5");
  m->load_weights(wpath);
  random::set_seed(5);
  Tensor x = random::uniform({4, 16}, -2.0, 2.0);
  Tensor y = m->predict(x);
  auto f = io::H5File::open(wpath);
  const nlohmann::json cfg =
      nlohmann::json::parse(std::ifstream(data("fastmachinelearning__example-models/KERAS_3layer_batch_norm.json")));
  // Walk the config: Dense -> BN -> Activation, four times, computing in float64.
  std::vector<double> h = vec(x);
  int64_t width = 16;
  for (const auto& l : cfg["config"]["layers"]) {
    const std::string cls = l["class_name"], name = l["config"]["name"];
    if (cls == "Dense") {
      auto g = f.root().group(name);
      Tensor W = g.read(name + "/kernel:0");
      h = dense(h, 4, W, g.read(name + "/bias:0"));
      width = W.shape()[1];
    } else if (cls == "BatchNormalization") {
      batchnorm(h, width, f.root().group(name), name + "/", l["config"]["epsilon"].get<double>());
    } else if (cls == "Activation" && l["config"]["activation"] == "relu") {
      for (auto& v : h) v = std::max(v, 0.0);
    } else if (cls == "Activation" && l["config"]["activation"] == "softmax") {
      for (int r = 0; r < 4; ++r) {
        double mx = -1e300, s = 0;
        for (int64_t c = 0; c < width; ++c) mx = std::max(mx, h[r * width + c]);
        for (int64_t c = 0; c < width; ++c) s += std::exp(h[r * width + c] - mx);
        for (int64_t c = 0; c < width; ++c) h[r * width + c] = std::exp(h[r * width + c] - mx) / s;
      }
    }
  }
  const double d = saving_test::max_abs_diff(y, to_tensor(h, Shape({4, width})));
  MESSAGE("KERAS_3layer_batch_norm max |delta| vs float64 reference = " << d);
  CHECK(d < 1e-5);
}

TEST_CASE("Keras 2.0.x / 2.1.3 files with fixed-length strings load and run") {
  saving_test::ensure_layers();
  SUBCASE("jetTagger_Conv2D_Small (Keras 2.0.6, Functional 'Model', BN first)") {
    auto m = models::model_from_json_file(data("fastmachinelearning__example-models/jetTagger_Conv2D_Small.json"));
    m->load_weights(data("fastmachinelearning__example-models/jetTagger_Conv2D_Small_weights.h5"));
    Tensor y = m->predict(random::uniform({2, 25, 25, 1}, 0.0, 1.0));
    CHECK(y.shape() == Shape({2, 5}));
    auto v = y.to_vector<float>();
    CHECK(v[0] + v[1] + v[2] + v[3] + v[4] == doctest::Approx(1.0).epsilon(1e-5));
  }
  SUBCASE("KERAS_conv2d_model (Keras 2.0.0, Sequential config as a bare list)") {
    auto m = models::model_from_json_file(data("fastmachinelearning__example-models/KERAS_conv2d_model.json"));
    m->load_weights(data("fastmachinelearning__example-models/KERAS_conv2d_model_weights.h5"));
    CHECK(m->predict(random::uniform({2, 8, 8, 1}, 0.0, 1.0)).shape() == Shape({2, 10}));
  }
  SUBCASE("batch_to_conv2d_tensorflow_2 (Keras 2.1.3: Dense -> Reshape -> BN -> Conv2D)") {
    const std::string path = data("KonduitAI__dl4j-test-resources/batch_to_conv2d_tensorflow_2.h5");
    auto m = models::load_model(path);
    CHECK(m->predict(random::uniform({2, 100}, 0.0, 1.0)).shape() == Shape({2, 5, 5, 5}));
    // BN weights land in Keras's order gamma, beta, moving_mean, moving_variance.
    auto f = io::H5File::open(path);
    auto g = f.root().group("model_weights/batch_normalization_1/batch_normalization_1");
    auto ws = m->get_layer("batch_normalization_1")->get_weights();
    REQUIRE(ws.size() == 4);
    CHECK(saving_test::max_abs_diff(ws[0], g.read("gamma:0")) == 0);
    CHECK(saving_test::max_abs_diff(ws[1], g.read("beta:0")) == 0);
    CHECK(saving_test::max_abs_diff(ws[2], g.read("moving_mean:0")) == 0);
    CHECK(saving_test::max_abs_diff(ws[3], g.read("moving_variance:0")) == 0);
  }
}

TEST_CASE("Keras 1 (Theano, channels-first) to_json + weights: kernels converted to HWIO and flipped") {
  saving_test::ensure_layers();
  auto m = models::model_from_json_file(data("pplonski__keras2cpp/my_nn_arch.json"));
  m->load_weights(data("pplonski__keras2cpp/my_nn_weights.h5"));
  // The converted first Conv2D kernel (kh, kw, in, out) is the file's (out, in, kh, kw) kernel
  // transposed and rotated by 180 degrees (Theano convolves, TensorFlow correlates).
  auto f = io::H5File::open(data("pplonski__keras2cpp/my_nn_weights.h5"));
  auto W = vec(f.root().read("convolution2d_1/convolution2d_1_W"));  // (4, 1, 3, 3)
  auto K = vec(m->get_layer(0)->get_weights()[0]);                    // (3, 3, 1, 4)
  REQUIRE(m->get_layer(0)->get_weights()[0].shape() == Shape({3, 3, 1, 4}));
  double worst = 0;
  for (int o = 0; o < 4; ++o)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 3; ++x) worst = std::max(worst, std::abs(K[((y * 3 + x) * 1 + 0) * 4 + o] - W[(o * 3 + (2 - y)) * 3 + (2 - x)]));
  CHECK(worst == 0);
  // keras2cpp's sample input: "1 28 28" then the pixels.
  std::ifstream in(data("pplonski__keras2cpp/sample_mnist.dat"));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  for (char& c : text)
    if (c == '[' || c == ']') c = ' ';
  std::istringstream ss(text);
  int d0, d1, d2;
  ss >> d0 >> d1 >> d2;
  std::vector<float> px;
  float v;
  while (ss >> v) px.push_back(v);
  REQUIRE(px.size() == 784);
  Tensor p = m->predict(Tensor(px, Shape({1, 1, 28, 28})));
  CHECK(p.shape() == Shape({1, 10}));
  auto pv = p.to_vector<float>();
  double s = 0;
  for (float q : pv) s += q;
  CHECK(s == doctest::Approx(1.0).epsilon(1e-5));
  // The sample is a handwritten 5 (see the pixels); with Theano's kernel flip the
  // one-iteration model says 5, without it 3.
  CHECK(argmax(p, -1).cast(DType::int64).item<int64_t>() == 5);
  MESSAGE("Keras 1 sample_mnist.dat -> argmax " << argmax(p, -1).cast(DType::int64).item<int64_t>() << ", p = " << p);
}

namespace {
// The Python class behind pre_pr22362_nested_container.keras, rebuilt in C++:
// `num` Dense(4, use_bias=False) layers then Dense(2), tracked in one list.
class NestedDenseModel : public Model {
 public:
  explicit NestedDenseModel(int num, LayerOptions o) : Model(std::move(o)), num_(num) {
    for (int i = 0; i < num; ++i) denses_.push_back(track(layers::Dense(4, {.use_bias = false}).ptr()));
    denses_.push_back(track(layers::Dense(2).ptr()));
  }
  std::string class_name() const override { return "NestedDenseModel"; }
  Config get_config() const override {
    Config c = base_config();
    c["num"] = num_;
    return c;
  }

 protected:
  Tensor call(const Tensor& x, bool training) override {
    Tensor h = x;
    for (auto& d : denses_) h = (*d)(h, training);
    return h;
  }

 private:
  int num_;
  std::vector<std::shared_ptr<layers::DenseImpl>> denses_;
};
}  // namespace

TEST_CASE("Keras 3 subclassed model (.keras): unknown class is named; custom_objects rebuilds it") {
  saving_test::ensure_layers();
  const std::string path = data("keras-team__keras/pre_pr22362_nested_container.keras");
  try {
    models::load_model(path);
    FAIL("expected NotFoundError");
  } catch (const NotFoundError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("NestedDenseModel") != std::string::npos);
    CHECK(msg.find("pre_pr22362_nested_container.keras") != std::string::npos);
  }
  models::LoadModelOptions o;
  o.custom_objects["legacy_nested_container>NestedDenseModel"] = [](const Config& c) -> LayerPtr {
    LayerOptions lo;
    lo.name = c.value("name", "");
    return std::make_shared<NestedDenseModel>(c.value("num", 3), lo);
  };
  auto m = models::load_model(path, o);
  CHECK(m->class_name() == "NestedDenseModel");
  auto ws = m->weights();
  REQUIRE(ws.size() == 5);  // 3 kernels (4,4), kernel (4,2), bias (2,)
  auto zip_w = m->get_layer(3)->get_weights();
  CHECK(zip_w[0].shape() == Shape({4, 2}));
  CHECK(m->predict(ones({2, 4})).shape() == Shape({2, 2}));

  // Kiln writes the subclassed model back as .keras (registered_name = its class name).
  const std::string out = saving_test::tmp("nested.keras");
  m->save(out);
  models::LoadModelOptions o2;
  o2.custom_objects["NestedDenseModel"] = o.custom_objects.begin()->second;
  auto again = models::load_model(out, o2);
  CHECK(saving_test::max_abs_diff(again->predict(ones({2, 4})), m->predict(ones({2, 4}))) == 0);
}

TEST_CASE("tf.keras 2.4 .h5 optimizer state: Adam's slots restored by name where Keras 3 gives up (25 saved, 26 kept)") {
  // tf.keras 2 saved iterations and the m/v slots; Keras 3 (and Kiln) also keep the
  // learning rate, so Keras 3 warns and starts a fresh optimizer.
  auto m = models::load_model(data("Muhtashim009__Fashion_mnist_cnn/fashion_mnist_model.h5"));
  REQUIRE(m->optimizer());
  CHECK(m->optimizer()->iterations() == 4700);  // Adam/iter:0 in the file
  std::optional<Variable> m_bias, v_bias;
  for (const auto& v : m->optimizer()->variables()) {
    if (v.path().ends_with("dense_1_bias_momentum")) m_bias = v;
    if (v.path().ends_with("dense_1_bias_velocity")) v_bias = v;
  }
  REQUIRE(m_bias);
  REQUIRE(v_bias);
  double abs_sum = 0;
  for (float x : m_bias->value().to_vector<float>()) abs_sum += std::abs(x);
  CHECK(abs_sum == doctest::Approx(0.004777625203132629).epsilon(1e-6));  // sum |Adam/dense_1/bias/m:0|
  const auto v = v_bias->value().to_vector<float>();
  CHECK(v[0] == doctest::Approx(4.0647006e-05).epsilon(1e-6));  // Adam/dense_1/bias/v:0
  CHECK(v[2] == doctest::Approx(5.0956056e-05).epsilon(1e-6));
}
