// Name lookup helpers: close matches, the unknown-name error, Keras's
// snake_case rule and the Registry template.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/core/registry.h"

namespace k = kiln;

TEST_CASE("registry: to_snake_case follows keras/src/utils/naming.py") {
  CHECK(k::to_snake_case("SparseCategoricalCrossentropy") == "sparse_categorical_crossentropy");
  CHECK(k::to_snake_case("Conv2D") == "conv2d");
  CHECK(k::to_snake_case("BatchNormalization") == "batch_normalization");
  CHECK(k::to_snake_case("GlobalAveragePooling2D") == "global_average_pooling2d");
  CHECK(k::to_snake_case("ReLU") == "re_lu");
  CHECK(k::to_snake_case("MaxPooling2D") == "max_pooling2d");
  CHECK(k::to_snake_case("Dense") == "dense");
  CHECK(k::to_snake_case("LSTM") == "lstm");
  CHECK(k::to_snake_case("GlorotUniform") == "glorot_uniform");
  CHECK(k::to_snake_case("L1L2") == "l1l2");  // no lower-case letters: nothing to split
  CHECK(k::to_snake_case("Conv2DTranspose") == "conv2d_transpose");
  CHECK(k::to_snake_case("already_snake") == "already_snake");
  CHECK(k::to_snake_case("My Layer!") == "my_layer");  // non-word characters dropped first
}

TEST_CASE("registry: close_matches ranks by case-insensitive edit distance") {
  std::vector<std::string> opts = {"adam", "nadam", "sgd", "rmsprop", "adamax"};
  CHECK(k::close_matches("nadamm", opts) == std::vector<std::string>{"nadam", "adam"});  // adamax: 3 > 2
  CHECK(k::close_matches("NADAM", opts).at(0) == "nadam");
  CHECK(k::close_matches("adm", opts, 1) == std::vector<std::string>{"adam"});
  CHECK(k::close_matches("rmsprp", opts) == std::vector<std::string>{"rmsprop"});
  CHECK(k::close_matches("xyzxyzxyz", opts).empty());
  // The allowed distance grows with the length: max(2, len / 3).
  CHECK(k::close_matches("sparse_categorical_crossentropyy", {"sparse_categorical_crossentropy"}).size() == 1);
  CHECK(k::close_matches("abc", {"xyz"}).empty());
}

TEST_CASE("registry: throw_unknown names the kind and suggests or lists names") {
  std::vector<std::string> opts = {"adam", "nadam", "sgd"};
  try {
    k::throw_unknown("optimizer", "nadamm", opts);
    FAIL("throw_unknown returned");
  } catch (const k::NotFoundError& e) {
    CHECK(std::string(e.what()) == "Unknown optimizer: 'nadamm'. Did you mean 'nadam' or 'adam'?");
  }
  try {
    k::throw_unknown("optimizer", "sgdd", opts);
  } catch (const k::NotFoundError& e) {
    CHECK(std::string(e.what()) == "Unknown optimizer: 'sgdd'. Did you mean 'sgd'?");
  }
  try {
    k::throw_unknown("optimizer", "xyzxyzxyz", opts);
  } catch (const k::NotFoundError& e) {
    CHECK(std::string(e.what()) == "Unknown optimizer: 'xyzxyzxyz'. Known names: 'adam', 'nadam', 'sgd'.");
  }
  // NotFoundError is a ValueError, so generic handlers catch it.
  CHECK_THROWS_AS(k::throw_unknown("loss", "x", {}), k::ValueError);
}

TEST_CASE("registry: Registry maps names to factories") {
  k::Registry<int> r("widget");
  r.add("b", 2);
  r.add("a", 1);
  CHECK(r.contains("a"));
  CHECK_FALSE(r.contains("c"));
  CHECK(r.get("b") == 2);
  CHECK(r.find("c") == nullptr);
  CHECK(r.names() == std::vector<std::string>{"a", "b"});
  try {
    r.get("bb");
    FAIL("no throw");
  } catch (const k::NotFoundError& e) {
    CHECK(std::string(e.what()) == "Unknown widget: 'bb'. Did you mean 'b' or 'a'?");
  }
}
