#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "fuzz_targets.h"
#include "kiln/core/error.h"
#include "kiln/kiln.h"
#include "kiln/layers/register.h"

namespace kiln_fuzz {

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {
      {"keras_archive", ".keras archive (zip, config.json, weights HDF5; default, sandboxed load)", keras_archive},
      {"h5_model", "legacy .h5 full model (default, sandboxed load)", h5_model},
      {"json_config", "model_from_json (Keras 1, 2, 3 configs)", json_config},
      {"weights_h5", ".weights.h5 and legacy weights .h5 into a fixed model (default, sandboxed)", weights_h5},
      {"checkpoint", "Checkpoint restore and the checkpoint index file (default, sandboxed)", checkpoint},
      {"arrays", ".npz, .npy and idx arrays (first byte picks)", arrays},
      {"h5_snapshot", "the sandbox's answer (snapshot encoding) into the model and weight loaders", h5_snapshot},
      {"saved_model", "a SavedModel's ONNX graph, variables or index (first byte picks), loaded", saved_model},
  };
  return all;
}

const Target* find_target(const std::string& name) {
  for (const auto& t : targets())
    if (name == t.name) return &t;
  return nullptr;
}

void run_one(const Target& t, const uint8_t* data, std::size_t size) {
  static const bool verbose = std::getenv("KILN_FUZZ_VERBOSE") != nullptr;
  try {
    t.run(data, size);
    if (verbose) std::fprintf(stderr, "  %s: read\n", t.name);
  } catch (const kiln::Error& e) {
    if (verbose) std::fprintf(stderr, "  %s: %.300s\n", t.name, e.what());
  }
}

void ensure_registered() {
  static const bool done = [] {
    kiln::layers::register_builtins();
    return true;
  }();
  (void)done;
}

std::string scratch_file(const uint8_t* data, std::size_t size, const std::string& file_name) {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("kiln-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    static const pid_t owner = ::getpid();
    std::atexit([] {
      if (::getpid() != owner) return;
      std::error_code ec;
      std::filesystem::remove_all(std::filesystem::temp_directory_path() / ("kiln-fuzz-" + std::to_string(owner)), ec);
    });
    return d;
  }();
  const auto path = dir / file_name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path.string();
}

}  // namespace kiln_fuzz
