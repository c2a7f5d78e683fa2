// libFuzzer target for the model-file readers: .keras archives (zip + JSON +
// HDF5 image), legacy .h5 model files (HDF5 image) and JSON model configs.
// Every input must either load or throw kiln::Error; anything else (a crash,
// a sanitizer report, another exception type, a hang) is a bug.
//
// The first byte picks the reader (0: .keras, 1: .h5, 2: JSON config, 3: all
// three); the rest is the file. Seeds: fuzz/make_corpus.sh.
//   CC=clang CXX=clang++ cmake -S . -B build-fuzz -DKILN_FUZZ=ON && make -C build-fuzz fuzz_saving
//   build-fuzz/fuzz/fuzz_saving -max_total_time=600 -rss_limit_mb=4096 -timeout=20 build-fuzz/corpus fuzz/corpus
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/hdf5_file.h"
#include "io/saving_impl.h"
#include "kiln/core/error.h"
#include "kiln/kiln.h"
#include "kiln/layers/register.h"
#include "kiln/losses/losses.h"
#include "kiln/metrics/metrics.h"
#include "kiln/optimizers.h"

namespace {
void bridge_layers() {
  static bool done = [] {
    kiln::layers::register_builtins();
    for (const auto& n : kiln::layers::registered_names())
      if (!kiln::is_layer_class_registered(n))
        kiln::register_layer_class(n, [n](const kiln::Config& c) { return kiln::layers::from_config(n, c); });
    return true;
  }();
  (void)done;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  bridge_layers();
  if (size < 1) return 0;
  const uint8_t mode = data[0] % 4;
  std::vector<uint8_t> bytes(data + 1, data + size);
  if (mode == 0 || mode == 3) {
    try {
      kiln::io::load_keras_archive_bytes(bytes, "fuzz.keras", true);
    } catch (const kiln::Error&) {
    }
  }
  if (mode == 1 || mode == 3) {
    try {
      auto f = kiln::io::H5File::from_image(bytes, "fuzz.h5");
      kiln::io::load_legacy_model(f, true);
    } catch (const kiln::Error&) {
    }
  }
  if (mode == 2 || mode == 3) {
    try {
      kiln::models::model_from_json(std::string(bytes.begin(), bytes.end()));
    } catch (const kiln::Error&) {
    }
  }
  return 0;
}
