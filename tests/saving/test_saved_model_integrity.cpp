// SavedModel integrity: every file's SHA-256 is checked at load, variables
// must be finite, symbolic links are refused, and every node of a function
// graph is checked against its op's signature, so a damaged graph is an
// IOError naming the file and the node, at load or at call, never another
// exception.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/onnx/onnx_reader.h"
#include "io/sha256.h"
#include "saving_util.h"
#include "test_util.h"

using namespace kiln;
namespace L = kiln::layers;
namespace fs = std::filesystem;
using kiln_test::contains;
using kiln_test::message_of;

namespace {

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void put_text(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// A small CNN (Transpose -> Conv -> Relu -> Transpose, Reshape, MatMul, Add), saved to `dir`.
std::shared_ptr<Sequential> saved_cnn(const std::string& dir) {
  random::set_seed(11);
  auto model = std::make_shared<Sequential>(std::vector<LayerPtr>{
      L::Input({5, 5, 2}), L::Conv2D(3, 3, {.activation = "relu"}), L::MaxPooling2D(), L::Flatten(), L::Dense(2)});
  saved_model::save(*model, dir);
  return model;
}

/// Rewrites `rel` in the folder and records its new checksum, as a tamperer who knows the format would.
void replace_file(const std::string& dir, const std::string& rel, const std::string& bytes) {
  put_text(dir + "/" + rel, bytes);
  auto index = nlohmann::json::parse(file_text(dir + "/saved_model.json"));
  index["files"][rel] = io::sha256_hex(bytes);
  put_text(dir + "/saved_model.json", index.dump());
}

}  // namespace

TEST_CASE("sha256: the FIPS 180-4 example vectors") {
  CHECK(io::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(io::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(io::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(io::sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // 55, 56 and 64 bytes: the length fits in the last block, just does not, and a whole block.
  CHECK(io::sha256_hex(std::string(55, 'a')) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  CHECK(io::sha256_hex(std::string(56, 'a')) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  CHECK(io::sha256_hex(std::string(64, 'a')) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST_CASE("saved_model: a changed byte in any file is an IOError naming the file; version 1 folders load unchecked") {
  const std::string dir = saving_test::tmp("checksums");
  auto model = saved_cnn(dir);
  const Tensor x = random::normal({1, 5, 5, 2});
  for (const std::string rel : {"variables.onnx", "functions/serve_0.onnx"}) {
    const std::string good = file_text(dir + "/" + rel);
    std::string bad = good;
    bad[bad.size() - 7] ^= 0x10;
    put_text(dir + "/" + rel, bad);
    const std::string msg = message_of<IOError>([&] { saved_model::load(dir); });
    CHECK(contains(msg, dir + "/" + rel + "' does not match the SHA-256"));
    put_text(dir + "/" + rel, good);
  }
  auto index = nlohmann::json::parse(file_text(dir + "/saved_model.json"));
  CHECK(index["version"] == 2);
  CHECK(index["files"].size() == 2);
  // A folder written before checksums (version 1) loads as it did.
  index["version"] = 1;
  index.erase("files");
  put_text(dir + "/saved_model.json", index.dump());
  const Tensor want = model->predict(x);
  CHECK(saved_model::load(dir)->call("serve", {x})[0].to_vector<float>() == want.to_vector<float>());
  index["version"] = 2;
  put_text(dir + "/saved_model.json", index.dump());
  CHECK(contains(message_of<IOError>([&] { saved_model::load(dir); }), "which format version 2 requires"));
  index["version"] = 3;
  put_text(dir + "/saved_model.json", index.dump());
  CHECK(contains(message_of<IOError>([&] { saved_model::load(dir); }), "has format version 3; this Kiln reads versions 1 and 2"));
}

TEST_CASE("saved_model: non-finite variables and symbolic links are refused, naming the variable or the file") {
  const std::string dir = saving_test::tmp("finite");
  auto model = saved_cnn(dir);
  Tensor w = model->weights()[0].value();
  std::vector<float> v = w.to_vector<float>();
  v[4] = std::nanf("");
  model->weights()[0].assign(Tensor(v, w.shape()));
  saved_model::save(*model, dir);
  const std::string msg = message_of<IOError>([&] { saved_model::load(dir); });
  CHECK(contains(msg, dir + "/variables.onnx', variable '" + model->weights()[0].path() + "'"));
  CHECK(contains(msg, "not finite (nan at flat index 4"));

  v[4] = 0.5f;
  model->weights()[0].assign(Tensor(v, w.shape()));
  saved_model::save(*model, dir);
  const std::string outside = saving_test::tmp("outside.onnx");
  fs::copy_file(dir + "/variables.onnx", outside);
  fs::remove(dir + "/variables.onnx");
  fs::create_symlink(outside, dir + "/variables.onnx");
  CHECK(contains(message_of<IOError>([&] { saved_model::load(dir); }),
                 "'" + dir + "/variables.onnx' is a symbolic link"));
  fs::remove(dir + "/variables.onnx");
  fs::copy_file(outside, dir + "/variables.onnx");
  CHECK_NOTHROW(saved_model::load(dir));
  // A linked folder on the way is refused too.
  fs::rename(dir + "/functions", saving_test::tmp("outside_functions"));
  fs::create_directory_symlink(saving_test::tmp("outside_functions"), dir + "/functions");
  CHECK(contains(message_of<IOError>([&] { saved_model::load(dir); }), "'" + dir + "/functions' is a symbolic link"));
}

TEST_CASE("saved_model: a graph node of the wrong arity or attribute type is an IOError naming the file and the node") {
  const std::string dir = saving_test::tmp("arity");
  saved_cnn(dir);
  const std::string rel = "functions/serve_0.onnx", file = dir + "/" + rel;
  const std::string good = file_text(file);
  const auto model = io::onnx::decode_model(good, file);
  const Tensor x = random::normal({2, 5, 5, 2});
  int load_errors = 0, cases = 0;
  // Each node in turn: no inputs, an input too many, no outputs, an output too many, every attribute a string.
  for (std::size_t i = 0; i < model.graph.nodes.size(); ++i) {
    for (int how = 0; how < 5; ++how) {
      auto g = model.graph;
      auto& n = g.nodes[i];
      if (how == 0 && n.op_type == "Constant") continue;  // takes none
      if (how == 0) n.inputs.clear();
      if (how == 1) {
        if (n.op_type == "Concat") continue;  // takes any number
        n.inputs.resize(n.inputs.size() + 3, n.inputs.empty() ? "x" : n.inputs[0]);
      }
      if (how == 2) n.outputs.clear();
      if (how == 3) n.outputs.resize(n.outputs.size() + 3, "extra");
      if (how == 4) {
        if (n.attributes.empty()) continue;
        for (auto& a : n.attributes) a.kind = io::onnx::Attribute::kString;
      }
      ++cases;
      CAPTURE(n.op_type);
      CAPTURE(how);
      replace_file(dir, rel, io::onnx::encode_model(g, static_cast<int>(model.opset), "0.2"));
      try {
        saved_model::load(dir);
        FAIL_CHECK("the damaged graph loaded");
      } catch (const IOError& e) {
        CHECK(contains(e.what(), "'" + file + "': node '" + n.name + "' (" + n.op_type + ")"));
        ++load_errors;
      }
    }
  }
  CHECK(cases > 20);
  CHECK(load_errors == cases);
  // The undamaged graph still loads and runs.
  replace_file(dir, rel, good);
  CHECK(saved_model::load(dir)->call("serve", {x})[0].shape() == Shape{2, 2});
}

TEST_CASE("saved_model: every single-byte flip of a CNN's and an Embedding model's graph loads and runs, or is a kiln::Error") {
  namespace L = kiln::layers;
  random::set_seed(12);
  auto embed = std::make_shared<Sequential>(std::vector<LayerPtr>{
      L::Input({4}, {.dtype = DType::int32}), L::Embedding(10, 3), L::GlobalAveragePooling1D(), L::Dense(2)});
  const std::string cnn_dir = saving_test::tmp("flips_cnn"), embed_dir = saving_test::tmp("flips_embedding");
  saved_cnn(cnn_dir);
  saved_model::save(*embed, embed_dir);
  const std::vector<std::pair<std::string, Tensor>> cases = {
      {cnn_dir, random::normal({2, 5, 5, 2})}, {embed_dir, Tensor({{1, 2, 3, 9}, {0, 0, 5, 7}}, DType::int32)}};
  int loaded = 0, refused = 0;
  for (const auto& [dir, x] : cases) {
    const std::string rel = "functions/serve_0.onnx", good = file_text(dir + "/" + rel);
    for (std::size_t i = 0; i < good.size(); ++i) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ (1 << (i % 8)));
      replace_file(dir, rel, bad);
      try {
        saved_model::load(dir)->call("serve", {x});
        ++loaded;
      } catch (const Error& e) {
        CAPTURE(i);
        // A flipped size in the declared inputs makes the call one that matches no signature.
        CHECK((contains(e.what(), dir) || contains(e.what(), "match none of its saved signatures")));
        ++refused;
      }
    }
    replace_file(dir, rel, good);
  }
  CHECK(loaded > 0);
  CHECK(refused > 0);
}
