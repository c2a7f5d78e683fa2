// ONNX export: Kiln exports a model or function with kiln::export_onnx and
// runs it itself; the driver (oracle_onnx.py) checks each file with
// onnx.checker and runs it in ONNX Runtime.
#include "kiln/kiln.h"
#include "oracle_io.h"

namespace oracle {

namespace {

namespace L = kiln::layers;

// A subclassed model: a Dense layer, batch normalization, a residual sum of
// two branches and a softmax head, combined in C++ in call().
class ResidualModel : public kiln::Model {
 public:
  ResidualModel() : Model(kiln::LayerOptions{.name = "residual_model"}) {
    stem_ = track(L::Dense(8, {.activation = "relu", .name = "stem"}).ptr());
    norm_ = track(L::BatchNormalization({.name = "norm"}).ptr());
    branch_ = track(L::Dense(8, {.activation = "tanh", .name = "branch"}).ptr());
    head_ = track(L::Dense(3, {.activation = "softmax", .name = "head"}).ptr());
  }
  std::string class_name() const override { return "ResidualModel"; }

 protected:
  kiln::Tensor call(const kiln::Tensor& x, bool training) override {
    kiln::Tensor h = (*norm_)((*stem_)(x, training), training);
    return (*head_)(h + (*branch_)(h, training) * 0.5, training);
  }

 private:
  kiln::LayerPtr stem_, norm_, branch_, head_;
};

// A traced function that slices, transposes, concatenates, reduces, selects and branches (kiln::cond).
std::vector<kiln::Tensor> mixer(const kiln::Tensor& x, const kiln::Tensor& y) {
  const kiln::Tensor head = kiln::slice(x, {kiln::Slice(), kiln::Slice(1, 4)});       // x[:, 1:4]
  const kiln::Tensor tail = kiln::slice(y, {kiln::Slice(), kiln::Slice(-3, std::nullopt)});  // y[:, -3:]
  const kiln::Tensor gram = kiln::matmul(kiln::transpose(head), tail);                // (3, 3) over the batch
  const kiln::Tensor joined = kiln::concat({kiln::tanh(x), y * y, kiln::max(x, {1}, true)}, 1);
  const kiln::Tensor picked = kiln::where(x > 0.0, x, kiln::exp(x) - 1.0);
  const kiln::Tensor branch = kiln::cond(kiln::sum(y) > 0.0, [&] { return y * 2.0; }, [&] { return kiln::tanh(y) - y; });
  return {gram, kiln::softmax(joined, -1), kiln::sum(picked, {0}), kiln::sqrt(kiln::abs(y) + 1.0), branch};
}

// A traced loop: grow v until its sum passes a bound or ten steps are done, counting the steps.
std::vector<kiln::Tensor> grower(const kiln::Tensor& x) {
  auto r = kiln::while_loop(
      [](const std::vector<kiln::Tensor>& v) { return kiln::logical_and(v[0] < 10.0, kiln::sum(v[1]) < 20.0); },
      [](const std::vector<kiln::Tensor>& v) { return std::vector<kiln::Tensor>{v[0] + 1.0, v[1] * 1.5 + 0.25}; },
      {kiln::Tensor(0.0f), x}, {.maximum_iterations = 8});
  return r;
}

std::vector<kiln::Tensor> run_case(const json& c, const std::vector<kiln::Tensor>& xs, const fs::path& onnx_path,
                                   bool export_now, const Group& g) {
  const std::string kind = c.at("kind");
  kiln::OnnxExportOptions o{.opset = c.value("opset", 17)};
  if (kind == "function") {
    static auto fn = kiln::function(mixer, {.name = "mixer"});
    o.input_signature = {kiln::TensorSpec({-1, 6}), kiln::TensorSpec({-1, 5})};
    if (export_now) kiln::export_onnx(fn, onnx_path.string(), o);
    return fn(xs.at(0), xs.at(1));
  }
  if (kind == "loop") {
    static auto fn = kiln::function(grower, {.name = "grower"});
    o.input_signature = {kiln::TensorSpec({-1, 3})};
    if (export_now) kiln::export_onnx(fn, onnx_path.string(), o);
    return fn(xs.at(0));
  }
  static std::map<std::string, std::shared_ptr<kiln::Model>> models;
  auto& model = models[c.at("id")];
  if (!model) {
    if (kind == "file") {
      model = kiln::models::load_model((g.dir() / c.at("path").get<std::string>()).string(), {.compile = false});
    } else {
      kiln::random::set_seed(11);
      model = std::make_shared<ResidualModel>();
      (*model)(xs.at(0), false);
      // Moving statistics that are not the initial ones, so inference normalization is visible.
      (*model)(xs.at(0) * 3.0 + 1.0, true);
    }
  }
  if (kind == "saved_model") {
    // The model saved as a SavedModel and loaded back: its serve graph is the file the driver runs.
    static std::map<std::string, std::shared_ptr<kiln::saved_model::Loaded>> loaded;
    auto& l = loaded[c.at("id")];
    if (!l) {
      const std::string dir = (onnx_path.parent_path() / "saved").string();
      kiln::saved_model::save(*model, dir, {.opset = o.opset});
      fs::copy_file(fs::path(dir) / "functions" / "serve_0.onnx", onnx_path, fs::copy_options::overwrite_existing);
      l = kiln::saved_model::load(dir);
    }
    return l->call("serve", xs);
  }
  if (export_now) kiln::export_onnx(*model, onnx_path.string(), o);
  return (*model)(xs, false);
}

}  // namespace

// {"kind": "file" | "subclassed" | "saved_model" | "function" | "loop", "path"?, "batches": [[input arrays...], ...], "opset"?}:
// exports out/<id>/model.onnx and writes Kiln's outputs for batch k as "y<k>_<j>".
int run_onnx(const Group& g) {
  g.for_each_case([&](const json& c) {
    const fs::path dir = g.dir() / "out" / c.at("id").get<std::string>();
    fs::create_directories(dir);
    const auto& batches = c.at("batches");
    for (std::size_t k = 0; k < batches.size(); ++k) {
      const auto ys = run_case(c, g.arrays(batches[k]), dir / "model.onnx", k == 0, g);
      for (std::size_t j = 0; j < ys.size(); ++j) g.save(c, "y" + std::to_string(k) + "_" + std::to_string(j), ys[j]);
    }
  });
  return 0;
}

}  // namespace oracle
