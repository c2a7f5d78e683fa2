// fuzz_saved_model_call DIR: the saved_model fuzz target's child. Loads the
// SavedModel in DIR and calls each of its functions on fixed inputs, one per
// input functions/f_0.onnx declares (symbolic sizes 2; float32[1, 2], the
// template's, when the file does not decode). Exits 0 when every call returns
// or throws kiln::Error (or runs out of memory), 2 when another exception escapes.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>

#include "io/onnx/onnx_reader.h"
#include "kiln/kiln.h"

namespace {

std::vector<kiln::Tensor> fixed_inputs(const std::filesystem::path& graph_file) {
  const std::vector<kiln::Tensor> fallback = {kiln::Tensor({{0.5f, -1.0f}})};
  std::vector<kiln::Tensor> inputs;
  try {
    std::ifstream in(graph_file, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    for (const auto& decl : kiln::io::onnx::decode_model(bytes, graph_file.string()).graph.inputs) {
      std::vector<int64_t> dims;
      int64_t n = 1;
      for (const auto& d : decl.dims) {
        dims.push_back(d.param.empty() ? d.value : 2);
        if (dims.back() < 0 || dims.back() > 4096) return fallback;
        n *= dims.back();
        if (n > 4096) return fallback;
      }
      if (dims.size() > 8) return fallback;
      std::vector<float> v(static_cast<std::size_t>(n));
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 3);  // valid indices for a Gather too
      inputs.push_back(kiln::cast(kiln::Tensor(v, kiln::Shape(dims)), decl.dtype));
    }
  } catch (const kiln::Error&) {
    return fallback;
  }
  return inputs;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_saved_model_call DIR\n");
    return 1;
  }
  try {
    const auto loaded = kiln::saved_model::load(argv[1]);
    const auto inputs = fixed_inputs(std::filesystem::path(argv[1]) / "functions" / "f_0.onnx");
    static const bool verbose = std::getenv("KILN_FUZZ_VERBOSE") != nullptr;
    for (const auto& name : loaded->function_names()) {
      try {
        const auto out = loaded->function(name)(inputs);
        if (verbose) std::fprintf(stderr, "  called %s: %zu outputs\n", name.c_str(), out.size());
      } catch (const kiln::Error& e) {
        if (verbose) std::fprintf(stderr, "  called %s: %.300s\n", name.c_str(), e.what());
      }
    }
  } catch (const kiln::Error&) {
  } catch (const std::bad_alloc&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_saved_model_call: a non-Kiln exception escaped: %.300s\n", e.what());
    return 2;
  }
  return 0;
}
