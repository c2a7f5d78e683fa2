// SavedModel directories: a valid one with one of its three files replaced by
// the input (the first byte picks which), loaded. Loading decodes every graph
// and checks its ops and variables; running a graph that decodes is running
// whatever program it holds (a huge Expand, a long Loop), which is the caller's
// choice, as with any model file, so the target stops at load.
#include <filesystem>
#include <fstream>

#include "fuzz_targets.h"
#include "kiln/kiln.h"

namespace kiln_fuzz {

namespace fs = std::filesystem;

namespace {

struct Tiny : kiln::Module {
  Tiny() : Module("tiny") { w = add_variable(kiln::Tensor({{1.0f, 2.0f}, {3.0f, 4.0f}}), {.name = "w"}); }
  kiln::Variable w;
};

}  // namespace

const char* const kSavedModelFiles[3] = {"functions/f_0.onnx", "variables.onnx", "saved_model.json"};

std::string saved_model_template() {
  static const std::string dir = [] {
    const fs::path d = fs::path(scratch_file(nullptr, 0, "unused")).parent_path() / "saved_template";
    Tiny m;
    auto f = kiln::function([&m](const kiln::Tensor& x) { return kiln::softmax(kiln::tanh(kiln::matmul(x, m.w))); },
                            {.name = "f"});
    f(kiln::Tensor({{1.0f, 2.0f}}));
    kiln::saved_model::save(m, d.string(), {.functions = {kiln::saved_model::function("f", f)}});
    return d.string();
  }();
  return dir;
}

void saved_model(const uint8_t* data, std::size_t size) {
  if (size < 1) return;
  const fs::path dir = fs::path(saved_model_template()).parent_path() / "saved_fuzz";
  fs::remove_all(dir);
  fs::copy(saved_model_template(), dir, fs::copy_options::recursive);
  {
    std::ofstream out(dir / kSavedModelFiles[data[0] % 3], std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  }
  kiln::saved_model::load(dir.string());
}

}  // namespace kiln_fuzz
