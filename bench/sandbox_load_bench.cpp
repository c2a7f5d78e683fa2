// sandbox_load_bench: the cost of loading an HDF5 file through the sandbox
// (the default, {.trusted = false}) against parsing it in the process
// ({.trusted = true}), on real-size files. Each model's weights (random, as
// Keras's weights=None) are saved once as .weights.h5 and as a .keras archive;
// then, for `rounds` rounds, the same model loads each file trusted and
// untrusted, alternating which goes first; each round also loads it untrusted
// with the sandbox's child forked instead of started as the kiln-h5-reader
// program. Prints one JSON line per file: the median milliseconds of each and
// the untrusted/trusted ratio.
//
//   sandbox_load_bench [ROUNDS] [CLASS ...]     (defaults: 7 ResNet50 DenseNet121)
#include <kiln/applications.h>
#include <kiln/kiln.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace k = kiln;
namespace fs = std::filesystem;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double load_ms(k::Model& model, const std::string& path, bool trusted) {
  const auto t0 = std::chrono::steady_clock::now();
  model.load_weights(path, {.trusted = trusted});
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// An untrusted load whose sandboxed child is a fork of this process (what
/// happens where the kiln-h5-reader program is not installed).
double forked_load_ms(k::Model& model, const std::string& path) {
  const char* before = std::getenv("KILN_H5_READER");
  const std::string saved = before ? before : "";
  ::setenv("KILN_H5_READER", "", 1);
  const double ms = load_ms(model, path, false);
  if (before) ::setenv("KILN_H5_READER", saved.c_str(), 1);
  else ::unsetenv("KILN_H5_READER");
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::stoi(argv[1]) : 7;
  std::vector<std::string> classes(argv + std::min(argc, 2), argv + argc);
  if (classes.empty()) classes = {"ResNet50", "DenseNet121"};
  const fs::path dir = fs::temp_directory_path() / ("kiln_sandbox_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  try {
    for (const auto& cls : classes) {
      auto model = k::applications::build(cls, {});
      for (const std::string ext : {".weights.h5", ".keras"}) {
        const std::string path = (dir / (cls + ext)).string();
        if (ext == ".keras") model->save(path);
        else model->save_weights(path);
        load_ms(*model, path, true);  // page cache and allocator warm for both
        std::vector<double> trusted, untrusted, forked;
        for (int r = 0; r < rounds; ++r) {
          if (r % 2 == 0) trusted.push_back(load_ms(*model, path, true));
          untrusted.push_back(load_ms(*model, path, false));
          forked.push_back(forked_load_ms(*model, path));
          if (r % 2 == 1) trusted.push_back(load_ms(*model, path, true));
        }
        const double a = median(trusted), b = median(untrusted), c = median(forked);
        std::printf("{\"class\":\"%s\",\"file\":\"%s\",\"mb\":%.1f,\"params\":%lld,\"rounds\":%d,"
                    "\"trusted_ms\":%.1f,\"untrusted_ms\":%.1f,\"ratio\":%.3f,\"forked_ms\":%.1f}\n",
                    cls.c_str(), ext.c_str(), static_cast<double>(fs::file_size(path)) / 1e6,
                    static_cast<long long>(model->count_params()), rounds, a, b, b / a, c);
        std::fflush(stdout);
        fs::remove(path);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sandbox_load_bench: %s\n", e.what());
    fs::remove_all(dir);
    return 1;
  }
  fs::remove_all(dir);
  return 0;
}
