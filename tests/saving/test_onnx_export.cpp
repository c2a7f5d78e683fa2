// ONNX export without a runtime: what the file holds, and the errors for what
// cannot be exported. ONNX Runtime runs the exported files in the Keras
// oracle's onnx group (tests/oracle/oracle_onnx.py).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "saving_util.h"
#include "test_util.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_onnx_export {

using namespace kiln;
namespace L = kiln::layers;
using kiln_test::contains;
using kiln_test::message_of;
using saving_test::tmp;

namespace {

std::shared_ptr<Sequential> dense_model() {
  random::set_seed(3);
  return std::make_shared<Sequential>(std::vector<LayerPtr>{
      L::Input({4}), L::Dense(5, {.activation = "relu", .name = "hidden"}), L::Dropout(0.5, {.name = "drop"}),
      L::Dense(2, {.name = "out"})});
}

bool has(const std::string& bytes, const std::string& s) { return bytes.find(s) != std::string::npos; }

std::string file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

}  // namespace

TEST_CASE("onnx: a model's weights become initializers named by their paths, its batch a symbol") {
  auto model = dense_model();
  const std::string path = tmp("dense.onnx");
  export_onnx(*model, path);
  const std::string bytes = file(path);
  REQUIRE(bytes.size() > 100);
  CHECK(bytes.substr(0, 2) == std::string("\x08\x08", 2));  // ir_version 8
  for (const auto& w : model->weights()) CHECK_MESSAGE(has(bytes, w.path()), w.path());
  CHECK(has(bytes, "batch"));
  CHECK(has(bytes, "MatMul"));
  CHECK(has(bytes, "Relu"));
  CHECK_FALSE(has(bytes, "Dropout"));  // inference: dropout is the identity
  // The weights' bytes are in the file as they are in the model.
  const auto kernel = model->weights()[0].value().to_vector<float>();
  const std::string raw(reinterpret_cast<const char*>(kernel.data()), kernel.size() * sizeof(float));
  CHECK(has(bytes, raw));
}

TEST_CASE("onnx: fixed shapes need no shape arithmetic") {
  auto f = function([](const Tensor& x) { return kiln::tanh(kiln::transpose(x)) * 2.0; }, {.name = "fixed"});
  const std::string bytes = onnx_model_bytes(
      [&](const std::vector<Tensor>& xs) { return std::vector<Tensor>{f(xs[0])}; },
      {.input_signature = {TensorSpec({3, 4})}, .name = "fixed"});
  CHECK(has(bytes, "Transpose"));
  CHECK(has(bytes, "Tanh"));
  CHECK_FALSE(has(bytes, "Shape"));
  CHECK_FALSE(has(bytes, "batch"));
}

TEST_CASE("onnx: a training-mode op is an error naming the op and its layer") {
  auto model = dense_model();
  const std::string msg = message_of([&] {
    export_onnx([&](const std::vector<Tensor>& xs) { return std::vector<Tensor>{(*model)(xs[0], true)}; },
                tmp("training.onnx"), {.input_signature = {TensorSpec({-1, 4})}, .name = "train_call"});
  });
  INFO(msg);
  CHECK(contains(msg, "export_onnx('train_call')"));
  CHECK(contains(msg, "'Dropout'"));
  CHECK(contains(msg, "drop"));
  CHECK(contains(msg, "training = false"));
}

TEST_CASE("onnx: a graph whose ops depend on the batch size must be exported with fixed sizes") {
  auto rows = [](const std::vector<Tensor>& xs) {
    Tensor total = xs[0][0];
    for (int64_t i = 1; i < xs[0].shape()[0]; ++i) total = total + xs[0][i];
    return std::vector<Tensor>{total};
  };
  const std::string msg = message_of([&] { onnx_model_bytes(rows, {.input_signature = {TensorSpec({-1, 3})}, .name = "rows"}); });
  CHECK(contains(msg, "changes with the size of the dynamic dimensions"));
  CHECK(contains(msg, "input_signature"));
  CHECK(has(onnx_model_bytes(rows, {.input_signature = {TensorSpec({4, 3})}, .name = "rows"}), "Add"));
}

TEST_CASE("onnx: bad options, and a failed export keeps the earlier file") {
  auto body = [](const std::vector<Tensor>& xs) { return std::vector<Tensor>{xs[0] + 1.0}; };
  CHECK(contains(message_of([&] { onnx_model_bytes(body, {.name = "f"}); }), "input_signature is required"));
  CHECK(contains(message_of([&] { onnx_model_bytes(body, {.opset = 9, .input_signature = {TensorSpec({2})}}); }),
                 "opset 9 is not supported"));
  const std::string path = tmp("kept.onnx");
  export_onnx(body, path, {.input_signature = {TensorSpec({2})}});
  const std::string good = file(path);
  auto model = dense_model();
  CHECK_THROWS(export_onnx([&](const std::vector<Tensor>& xs) { return std::vector<Tensor>{(*model)(xs[0], true)}; },
                           path, {.input_signature = {TensorSpec({-1, 4})}}));
  CHECK(file(path) == good);
}

TEST_CASE("onnx: an unbuilt subclassed model asks for its input signature") {
  struct Plain : Model {
    Plain() : Model(LayerOptions{.name = "plain"}) {}
    Tensor call(const Tensor& x, bool) override { return x * 2.0; }
  };
  Plain m;
  CHECK(contains(message_of([&] { export_onnx(m, tmp("plain.onnx")); }), "give input_signature"));
  export_onnx(m, tmp("plain.onnx"), {.input_signature = {TensorSpec({-1, 3})}});
  CHECK(has(file(tmp("plain.onnx")), "Mul"));
}

TEST_CASE("onnx: kiln::cond becomes a select between its branches, unless a branch assigns a variable") {
  auto pick = [](const std::vector<Tensor>& xs) {
    return std::vector<Tensor>{kiln::cond(kiln::sum(xs[0]) > 0.0, [&] { return xs[0] * 3.0; }, [&] { return -xs[0]; })};
  };
  const std::string bytes = onnx_model_bytes(pick, {.input_signature = {TensorSpec({-1, 2})}, .name = "pick"});
  CHECK(has(bytes, "Where"));
  Variable counter(Tensor(0.0f), {.name = "counter"});
  auto counting = [&](const std::vector<Tensor>& xs) {
    return std::vector<Tensor>{kiln::cond(kiln::sum(xs[0]) > 0.0, [&] {
      counter.assign_add(Tensor(1.0f));
      return xs[0];
    }, [&] { return -xs[0]; })};
  };
  const std::string msg = message_of([&] { onnx_model_bytes(counting, {.input_signature = {TensorSpec({2})}, .name = "counting"}); });
  CHECK(contains(msg, "'If'"));
  CHECK(contains(msg, "assigns a variable"));
}

}  // namespace test_onnx_export
