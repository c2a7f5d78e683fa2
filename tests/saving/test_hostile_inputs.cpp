// Hostile files and configs: out-of-range indices, deep nesting and declared
// sizes far beyond the file give a clear error, never a crash or a huge allocation.
#include <doctest/doctest.h>

#include <string>

#include "kiln/core/limits.h"
#include "saving_util.h"
#include "hostile_zip.h"
#include "test_util.h"

using namespace kiln;
using kiln_test::contains;
using kiln_test::message_of;
using kiln_test::write_zip;

namespace {

/// A two-layer functional config (Keras 2 layout) whose Dense is called on `inbound`.
std::string functional_json(const std::string& inbound) {
  return R"({"class_name": "Functional", "config": {"name": "m", "layers": [
    {"class_name": "InputLayer", "name": "in", "config": {"batch_input_shape": [null, 3], "name": "in"}, "inbound_nodes": []},
    {"class_name": "Dense", "name": "d", "config": {"name": "d", "units": 2}, "inbound_nodes": [[)" +
         inbound + R"(]]}],
    "input_layers": [["in", 0, 0]], "output_layers": [["d", 0, 0]]}})";
}

/// A Sequential config whose Dense carries `depth` nested lists in an unknown key.
std::string deeply_nested_config(int depth) {
  return R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
    {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 3], "name": "in"}},
    {"class_name": "Dense", "config": {"name": "d", "units": 2, "junk": )" +
         std::string(depth, '[') + std::string(depth, ']') + "}}]}}";
}

}  // namespace

TEST_CASE("functional config: node and tensor indices out of range are a ValueError naming the entry") {
  saving_test::ensure_layers();
  // The well-formed config loads, so the failures below come from the indices alone.
  CHECK(models::model_from_json(functional_json(R"(["in", 0, 0, {}])"))->outputs().size() == 1);
  for (const char* bad : {R"(["in", -1, 0, {}])", R"(["in", 0, 4, {}])", R"(["in", 0, -1, {}])", R"(["in", 3, 0, {}])"}) {
    CAPTURE(bad);
    const std::string msg = message_of<ValueError>([&] { models::model_from_json(functional_json(bad)); });
    CHECK(contains(msg, "layer 'd'"));
    CHECK(contains(msg, "out of range"));
    CHECK(contains(msg, "valid indices are 0..0"));
  }
  // The output_layers reference is checked the same way.
  std::string json = functional_json(R"(["in", 0, 0, {}])");
  json.replace(json.find(R"([["d", 0, 0]])"), 13, R"([["d", 0, 7]])");
  CHECK(contains(message_of<ValueError>([&] { models::model_from_json(json); }), "tensor index is out of range"));
}

TEST_CASE("a .keras archive whose Keras 3 config has a node index out of range is a clear error") {
  saving_test::ensure_layers();
  auto config = [](int node) {
    return R"({"module": "keras", "class_name": "Functional", "config": {"name": "f", "trainable": true, "layers": [
      {"module": "keras.layers", "class_name": "InputLayer", "name": "in", "inbound_nodes": [],
       "config": {"batch_shape": [null, 3], "dtype": "float32", "sparse": false, "name": "in"}},
      {"module": "keras.layers", "class_name": "Dense", "name": "d", "config": {"name": "d", "units": 2},
       "inbound_nodes": [{"args": [{"class_name": "__keras_tensor__", "config": {"shape": [null, 3],
         "dtype": "float32", "keras_history": ["in", )" + std::to_string(node) + R"(, 0]}}], "kwargs": {}}]}],
      "input_layers": [["in", 0, 0]], "output_layers": [["d", 0, 0]]}, "registered_name": "Functional"})";
  };
  // Node 0 is valid, so the archive gets as far as the (missing) weights.
  const std::string path = saving_test::tmp("bad_node.keras");
  write_zip(path, {{"metadata.json", R"({"keras_version": "3.3.3"})"}, {"config.json", config(0)}});
  CHECK_FALSE(contains(message_of<Error>([&] { models::load_model(path); }), "out of range"));
  for (int node : {-1, 2}) {
    CAPTURE(node);
    write_zip(path, {{"metadata.json", R"({"keras_version": "3.3.3"})"}, {"config.json", config(node)}});
    const auto msg = message_of<Error>([&] { models::load_model(path); });
    CHECK(contains(msg, "layer 'd' has an inbound node entry ['in', " + std::to_string(node) + ", 0]"));
    CHECK(contains(msg, "node index is out of range"));
    CHECK(contains(msg, "valid indices are 0..0"));
  }
}

TEST_CASE("a config with Embedding(input_dim=2^32, output_dim=2^32) fails cleanly when built") {
  saving_test::ensure_layers();
  auto m = std::make_shared<Sequential>(
      std::vector<LayerPtr>{layers::Input({3}), layers::Embedding(10, 4, {.name = "emb"})});
  std::string json = models::to_json(*m);
  for (const std::string key : {"\"input_dim\":10", "\"output_dim\":4"}) {
    REQUIRE(json.find(key) != std::string::npos);
    json.replace(json.find(key), key.size(), key.substr(0, key.find(':') + 1) + "4294967296");
  }
  // 2^64 table entries wrapped to an empty table that the gather then read past.
  auto msg = message_of<ValueError>([&] {
    auto loaded = models::model_from_json(json);
    loaded->predict(Tensor(std::vector<int32_t>{0, 1, 2}, Shape{1, 3}));
  });
  CHECK(contains(msg, "Layer 'emb' (Embedding): cannot create weight 'embeddings'"));
  CHECK(contains(msg, "(4294967296, 4294967296)"));
  CHECK(contains(msg, "more elements than fit in int64"));
}

TEST_CASE("JSON nested 100,000 levels deep is refused at parse time, not by a stack overflow") {
  saving_test::ensure_layers();
  // Nesting within the limit passes the depth check (whatever the layer then makes of the unknown key).
  std::string shallow;
  try {
    models::model_from_json(deeply_nested_config(10));
  } catch (const std::exception& e) {
    shallow = e.what();
  }
  CHECK_FALSE(contains(shallow, "nested deeper"));
  const std::string deep = deeply_nested_config(100000);
  auto msg = message_of<ValueError>([&] { models::model_from_json(deep); });
  CHECK(contains(msg, "nested deeper than 512 levels"));
  // The same config inside a .keras archive.
  const std::string path = saving_test::tmp("deep.keras");
  write_zip(path, {{"metadata.json", R"({"keras_version": "3.3.3"})"}, {"config.json", deep}});
  msg = message_of<IOError>([&] { models::load_model(path); });
  CHECK(contains(msg, "config.json"));
  CHECK(contains(msg, "nested deeper than 512 levels"));
}

TEST_CASE("HDF5 datasets declaring more data than the file holds are refused before reading") {
  saving_test::ensure_layers();
  // A 23 KB file whose kernel declares 40 MiB: it used to load as silent zeros (HDF5's fill value).
  auto big = std::make_shared<Sequential>(
      std::vector<LayerPtr>{layers::Input({2560}), layers::Dense(4096, {.name = "dense"})});
  auto msg = message_of<IOError>([&] { big->load_weights(saving_test::data("hostile/dense_kernel_unwritten.weights.h5")); });
  CHECK(contains(msg, "declares 41943040 bytes"));
  CHECK(contains(msg, "the file can hold at most 23592"));
  // A 64-byte kernel stored in one 1 GiB chunk, which libhdf5 would allocate to read it.
  auto small = std::make_shared<Sequential>(
      std::vector<LayerPtr>{layers::Input({4}), layers::Dense(4, {.name = "dense"})});
  msg = message_of<IOError>([&] { small->load_weights(saving_test::data("hostile/dense_kernel_huge_chunk.weights.h5")); });
  CHECK(contains(msg, "(one chunk)"));
  CHECK(contains(msg, "declares 1073741824 bytes"));
  // A kernel whose data lives in /etc/passwd: refused, not read.
  msg = message_of<IOError>([&] { small->load_weights(saving_test::data("hostile/dense_kernel_external.weights.h5")); });
  CHECK(contains(msg, "external or virtual storage"));
}

TEST_CASE("a small config declaring huge weights fails under max_read_bytes(), naming the layer") {
  saving_test::ensure_layers();
  const int64_t saved = max_read_bytes();
  set_max_read_bytes(int64_t{1} << 20);
  // Built in code, a 4 MB kernel is the user's own choice: no limit applies.
  auto m = std::make_shared<Sequential>(
      std::vector<LayerPtr>{layers::Input({1000}), layers::Dense(1000, {.name = "d"})});
  const std::string json = models::to_json(*m);
  REQUIRE(json.size() < 4096);
  // From a file's config, the same model must stay under the ceiling.
  const auto msg = message_of<ValueError>([&] { models::model_from_json(json); });
  set_max_read_bytes(saved);
  CHECK(contains(msg, "Layer 'd' (Dense): cannot create weight 'kernel' of shape (1000, 1000)"));
  CHECK(contains(msg, "needs 4000000 bytes, more than the limit of 1048576 bytes"));
  CHECK(models::model_from_json(json)->count_params() == 1001000);
}

TEST_CASE("a dimension written as a float too large for an integer is a ValueError, not a conversion") {
  auto config = [](const std::string& dim) {
    return R"({"class_name": "Functional", "config": {"name": "m", "layers": [
    {"class_name": "InputLayer", "name": "in", "config": {"batch_input_shape": [null, )" + dim + R"(, 3], "name": "in"}, "inbound_nodes": []},
    {"class_name": "Dense", "name": "d", "config": {"name": "d", "units": 2}, "inbound_nodes": [[["in", 0, 0, {}]]]}],
    "input_layers": [["in", 0, 0]], "output_layers": [["d", 0, 0]]}})";
  };
  // The fuzzer's input: a 66-digit dimension, which JSON reads as the float 3.3e65.
  const auto msg = message_of<ValueError>([&] { models::model_from_json(config(std::string(64, '3') + "25")); });
  CHECK(contains(msg, "InputLayer batch_shape: expected an integer, but received 3.33333"));
  CHECK(contains(message_of<ValueError>([&] { models::model_from_json(config("2.5")); }),
                 "expected an integer, but received 2.5"));
  CHECK(models::model_from_json(config("4"))->count_params() == 3 * 2 + 2);  // (None, 4, 3) -> Dense(2)
}

TEST_CASE("a layer's integer option written as a float out of int64's range is a ValueError, not a conversion") {
  auto sequential = [](const std::string& units) {
    return R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
    {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 3], "name": "in"}},
    {"class_name": "Dense", "config": {"name": "d", "units": )" + units + "}}]}}";
  };
  // The fuzzer's input (json_config, found in CI): units 4.29496e+85.
  for (const std::string units : {"4.29496e+85", "-1e300", "9.3e18"})
    CHECK(contains(message_of<ValueError>([&] { models::model_from_json(sequential(units)); }),
                   "Dense.from_config: 'units' must be an integer, got " ));
  CHECK(models::model_from_json(sequential("2.0"))->count_params() == 3 * 2 + 2);
}
