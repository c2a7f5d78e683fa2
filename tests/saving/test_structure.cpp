// Files Kiln writes have the structure Keras writes: compared with the real
// fixtures by tests/saving/compare_structure.py (h5py), and with the private
// HDF5 wrapper where Python is not needed.
#include <doctest/doctest.h>

#include "test_util.h"

#include <cstdlib>
#include <fstream>

#include "../../framework/src/io/hdf5_file.h"
#include "saving_util.h"

using namespace kiln;
namespace L = kiln::layers;
using saving_test::data;
using saving_test::tmp;

namespace {

/// A python3 that has h5py ("" if none): Debian's /usr/bin/python3 first.
std::string python_with_h5py() {
  for (const char* py : {"/usr/bin/python3", "python3"}) {
    const std::string cmd = std::string(py) + " -c \"import h5py\" > /dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return py;
  }
  return "";
}

int compare(const std::string& kiln_file, const std::string& keras_file) {
  const std::string py = python_with_h5py();
  const std::string out = kiln_file + ".diff.txt";
  const std::string cmd = py + " " + KILN_SOURCE_DIR + "/tests/saving/compare_structure.py " + kiln_file + " " +
                          keras_file + " > " + out + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  MESSAGE("compare_structure.py " << kiln_file << " vs " << keras_file << ":\n" << text);
  return rc;
}

/// Kiln's copy of KILNETA's tf.keras 2.10 CNN, trained one step.
std::shared_ptr<Sequential> kilneta_like() {
  random::set_seed(1);
  auto m = std::make_shared<Sequential>(std::vector<LayerPtr>{
      L::Input({28, 28, 1}), L::Conv2D(16, 5, {.padding = "same"}), L::Activation("relu"), L::MaxPooling2D(2),
      L::Conv2D(36, 5, {.padding = "same"}), L::Activation("relu"), L::MaxPooling2D(2), L::Dropout(0.25),
      L::Flatten(), L::Dense(128, {.activation = "relu"}), L::Dropout(0.5), L::Dense(10, {.activation = "softmax"})});
  m->compile({.optimizer = "adam", .loss = "categorical_crossentropy", .metrics = {"accuracy"}});
  m->fit(random::uniform({4, 28, 28, 1}), one_hot(Tensor(std::vector<int64_t>{1, 2, 3, 4}, Shape({4})), 10),
         {.batch_size = 4, .epochs = 1, .verbose = 0});
  return m;
}

/// Kiln's copy of Aman-21k's Keras 3.10 CNN.
std::shared_ptr<Sequential> aman_like() {
  random::set_seed(2);
  auto m = std::make_shared<Sequential>(std::vector<LayerPtr>{
      L::Input({28, 28, 1}), L::Conv2D(32, 3, {.activation = "relu"}), L::MaxPooling2D(2),
      L::Conv2D(64, 3, {.activation = "relu"}), L::MaxPooling2D(2), L::Flatten(), L::Dropout(0.5),
      L::Dense(64, {.activation = "relu"}), L::Dense(10, {.activation = "softmax"})});
  m->compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"}});
  m->fit(random::uniform({4, 28, 28, 1}), Tensor(std::vector<int64_t>{1, 2, 3, 4}, Shape({4})),
         {.batch_size = 4, .epochs = 1, .verbose = 0});
  return m;
}

}  // namespace

TEST_CASE("Kiln's .h5 and .keras files have Keras's structure (h5py comparison with the fixtures)") {
  saving_test::ensure_layers();
  KILN_REQUIRE_TOOL(!python_with_h5py().empty(), "python3 with h5py (Debian packages python3, python3-h5py)");
  auto k = kilneta_like();
  k->save(tmp("kilneta_like.h5"));
  CHECK(compare(tmp("kilneta_like.h5"), data("KILNETA__CNN_MNIST/mnist_cnn.h5")) == 0);

  auto a = aman_like();
  a->save(tmp("aman_like.keras"));
  CHECK(compare(tmp("aman_like.keras"), data("Aman-21k__cnn-fashion-mnist-classifier/model.keras")) == 0);

  // Functional: Kiln's .keras vs Keras 3.8's functional .keras.
  random::set_seed(3);
  Tensor in = Input({28, 28, 1});
  Tensor h = L::MaxPooling2D(2)(L::Conv2D(32, 3, {.activation = "relu"})(in));
  h = L::MaxPooling2D(2)(L::Conv2D(64, 3, {.activation = "relu"})(h));
  Tensor out = L::Dense(10, {.activation = "softmax"})(L::Dense(128, {.activation = "relu"})(L::Flatten()(h)));
  Model f(in, out);
  f.compile({.optimizer = "adam", .loss = "categorical_crossentropy", .metrics = {"accuracy"}});
  f.save(tmp("functional_like.keras"));
  CHECK(compare(tmp("functional_like.keras"), data("kharshit242__digit_classification/mnist_cnn_model.keras")) == 0);

  // Weights-only: Kiln's .weights.h5 vs Keras 3's model.weights.h5 layout.
  a->save_weights(tmp("aman_like.weights.h5"));
  CHECK(compare(tmp("aman_like.weights.h5"),
                data("Aman-21k__cnn-fashion-mnist-classifier/model.keras") + "!model.weights.h5") == 0);
}

TEST_CASE("string attribute encodings: fixed NULLPAD, vlen ASCII/UTF-8, empty float64, split lists") {
  // Read straight from the fixtures (MANIFEST: h5py 2 fixed-length vs h5py 3 vlen).
  auto relu = io::H5File::open(data("KonduitAI__dl4j-test-resources/ReLU_0_model.h5"));
  auto mw = relu.root().group("model_weights");
  CHECK(mw.attr_info("layer_names").is_string);
  CHECK(!mw.attr_info("layer_names").variable_length);
  CHECK(mw.attr_strings("layer_names") == std::vector<std::string>{"dense", "re_lu_1"});  // "dense\0\0" padded
  CHECK(mw.group("dense").attr_strings("weight_names") == std::vector<std::string>{"dense/kernel:0", "dense/bias:0"});
  CHECK(mw.group("re_lu_1").attr_info("weight_names").type_class == 1);  // H5T_FLOAT: empty list
  CHECK(mw.group("re_lu_1").attr_strings("weight_names").empty());
  auto k3 = io::H5File::open(data("ThiruvarankanM__FashionMNIST-CNN/fashion_mnist_model.h5"));
  CHECK(k3.root().attr_info("keras_version").utf8);
  CHECK(k3.root().attr_info("keras_version").variable_length);
  CHECK(k3.root().attr_string("keras_version") == "3.10.0");
  CHECK(!k3.root().attr_info("model_config").utf8);
  CHECK(k3.root().group("model_weights").attr_info("layer_names").variable_length);

  // Writing: lists over 64512 bytes are split into name0, name1, ... (Keras's
  // save_attributes_to_hdf5_group) and read back as one list.
  auto f = io::H5File::create(tmp("attrs.h5"));
  auto g = f.root().require_group("g");
  std::vector<std::string> many;
  for (int i = 0; i < 3000; ++i) many.push_back("layer_with_a_long_name_" + std::to_string(i));
  g.set_attr_strings("layer_names", many);
  g.set_attr_strings("empty", {});
  g.set_attr("utf", "caf\xc3\xa9", io::StrEncoding::utf8);
  f.close();
  auto r = io::H5File::open(tmp("attrs.h5"));
  auto rg = r.root().group("g");
  CHECK(!rg.has_attr("layer_names"));
  CHECK(rg.has_attr("layer_names0"));
  CHECK(rg.has_attr("layer_names1"));
  CHECK(!rg.attr_info("layer_names0").variable_length);  // numpy arrays: fixed-length
  CHECK(rg.attr_strings("layer_names") == many);
  CHECK(rg.attr_info("empty").type_class == 1);
  CHECK(rg.attr_info("empty").dims == std::vector<int64_t>{0});
  CHECK(rg.attr_strings("empty").empty());
  CHECK(rg.attr_string("utf") == "caf\xc3\xa9");
}
