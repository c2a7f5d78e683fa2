// fuzz_replay: runs the fuzz targets over a corpus without libFuzzer (any
// compiler), for the CTest fuzz_corpus_replay and for reproducing a crash.
//   fuzz_replay CORPUS_ROOT [TARGET...]   each TARGET over CORPUS_ROOT/TARGET/* (all targets by default)
//   fuzz_replay --input TARGET FILE       one file
//   fuzz_replay --write-seeds DIR         seeds Kiln writes itself (fuzz/make_corpus.sh)
//   fuzz_replay --mutate TARGET CORPUS_DIR CPU_SECONDS SEED OUT_DIR
//                                         random mutations of CORPUS_DIR's inputs (mutate.cpp)
//   fuzz_replay --hostile CORPUS_ROOT [N] the corpus plus N damaged copies of each valid file (hostile_check.h)
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_targets.h"
#include "hostile_check.h"
#include "mutate.h"
#include "seeds.h"

namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Runs `t` on one file; an escaping exception is a failure, reported by name.
bool replay(const kiln_fuzz::Target& t, const fs::path& file) {
  const auto bytes = read_bytes(file);
  try {
    kiln_fuzz::run_one(t, bytes.data(), bytes.size());
    return true;
  } catch (const std::exception& e) {
    std::cerr << "FAIL " << t.name << " " << file.string() << ": escaped " << e.what() << "\n";
  } catch (...) {
    std::cerr << "FAIL " << t.name << " " << file.string() << ": escaped a non-std exception\n";
  }
  return false;
}

int replay_corpus(const fs::path& root, std::vector<std::string> names) {
  if (names.empty())
    for (const auto& t : kiln_fuzz::targets()) names.push_back(t.name);
  int failures = 0, total = 0;
  for (const auto& name : names) {
    const auto* t = kiln_fuzz::find_target(name);
    if (!t) {
      std::cerr << "fuzz_replay: unknown target '" << name << "'\n";
      return 2;
    }
    std::vector<fs::path> files;
    if (fs::is_directory(root / name))
      for (const auto& e : fs::directory_iterator(root / name))
        if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    if (files.empty()) {
      std::cerr << "fuzz_replay: no corpus for '" << name << "' under " << root.string() << "\n";
      return 2;
    }
    for (const auto& f : files) failures += replay(*t, f) ? 0 : 1;
    total += static_cast<int>(files.size());
    std::cout << name << ": " << files.size() << " inputs replayed\n";
  }
  std::cout << total << " inputs, " << failures << " failures\n";
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "--write-seeds") return kiln_fuzz::write_seeds(args[1]);
  if ((args.size() == 2 || args.size() == 3) && args[0] == "--hostile")
    return kiln_fuzz::hostile_check(args[1], args.size() == 3 ? std::stoi(args[2]) : 16);
  if (args.size() == 3 && args[0] == "--input") {
    const auto* t = kiln_fuzz::find_target(args[1]);
    if (!t) return 2;
    return replay(*t, args[2]) ? 0 : 1;
  }
  if (args.size() == 6 && args[0] == "--mutate") {
    const auto* t = kiln_fuzz::find_target(args[1]);
    if (!t) return 2;
    return kiln_fuzz::mutate_campaign(*t, args[2], std::stod(args[3]), std::stoull(args[4]), args[5]);
  }
  if (args.empty()) {
    std::cerr << "usage: fuzz_replay CORPUS_ROOT [TARGET...] | --input TARGET FILE | --write-seeds DIR | "
                 "--mutate TARGET CORPUS_DIR CPU_SECONDS SEED OUT_DIR | --hostile CORPUS_ROOT [N]\n";
    return 2;
  }
  return replay_corpus(args[0], {args.begin() + 1, args.end()});
}
