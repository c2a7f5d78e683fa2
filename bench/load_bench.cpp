// load_model time of one file: load_bench FILE [REPS] prints one JSON line per
// load, {"file", "seconds", "params"}. bench/load_bench.sh runs it beside
// Keras's load_model on the same files, alternating.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "kiln/kiln.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: load_bench FILE [REPS]\n";
    return 2;
  }
  const std::string path = argv[1];
  const int reps = argc > 2 ? std::stoi(argv[2]) : 1;
  try {
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      auto model = kiln::models::load_model(path, {.compile = false});
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("{\"file\": \"%s\", \"seconds\": %.4f, \"params\": %lld}\n", path.c_str(), s,
                  static_cast<long long>(model->count_params()));
    }
  } catch (const std::exception& e) {
    std::cerr << "load_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
