// fuzz_replay --hostile: the corpus and a fixed set of damaged copies of every
// format's valid files, through the fuzz targets, which load with the default
// options (so HDF5 goes through the sandbox). Every input must load or throw a
// kiln::Error. A signal kills the process, after a line naming the input.
#include "hostile_check.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_targets.h"
#include "seeds.h"

namespace kiln_fuzz {

namespace fs = std::filesystem;

namespace {

// What is running, for the signal handler (which may only write it out).
char g_current[512] = "";

extern "C" void report_signal(int sig) {
  const char head[] = "\nFAIL: signal while running ";
  (void)!::write(2, head, sizeof head - 1);
  (void)!::write(2, g_current, std::strlen(g_current));
  (void)!::write(2, "\n", 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::vector<uint8_t> file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Targets whose first byte picks a mode: it is kept, so each damaged copy
/// still reaches the reader of its format.
bool has_mode_byte(const std::string& target) {
  return target == "checkpoint" || target == "arrays" || target == "saved_model";
}

/// FNV-1a: a fixed seed per file name, so the mutations are the same every run.
uint64_t name_seed(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
};

/// `count` damaged copies of `good`: truncations at evenly spread lengths, and
/// one to eight bytes XOR-ed with random non-zero values at random positions.
std::vector<std::vector<uint8_t>> mutations(const std::vector<uint8_t>& good, std::size_t keep, int count,
                                            uint64_t seed) {
  std::vector<std::vector<uint8_t>> out;
  if (good.size() <= keep + 1) return out;
  const std::size_t body = good.size() - keep;
  const int truncations = count / 4;
  for (int k = 0; k < truncations; ++k)
    out.emplace_back(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(keep + body * k / truncations));
  Rng rng{seed | 1};
  for (int k = truncations; k < count; ++k) {
    std::vector<uint8_t> bad = good;
    const int flips = 1 + static_cast<int>(rng.next() % 8);
    for (int f = 0; f < flips; ++f)
      bad[keep + rng.next() % body] ^= static_cast<uint8_t>(1 + rng.next() % 255);
    out.push_back(std::move(bad));
  }
  return out;
}

struct Tally {
  int inputs = 0, failures = 0;
};

void run_input(const Target& t, const std::string& label, const std::vector<uint8_t>& bytes, Tally& tally) {
  std::snprintf(g_current, sizeof g_current, "%s %s", t.name, label.c_str());
  ++tally.inputs;
  try {
    run_one(t, bytes.data(), bytes.size());
  } catch (const std::exception& e) {
    ++tally.failures;
    std::cerr << "FAIL " << t.name << " " << label << ": escaped a non-kiln exception: " << e.what() << "\n";
  } catch (...) {
    ++tally.failures;
    std::cerr << "FAIL " << t.name << " " << label << ": escaped a non-std exception\n";
  }
}

}  // namespace

int hostile_check(const std::string& corpus_root, int per_file) {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, report_signal);
  // Valid files of every format, written by this build, beside the corpus's own.
  const fs::path fresh = fs::temp_directory_path() / ("kiln-hostile-" + std::to_string(::getpid()));
  if (write_seeds(fresh.string()) != 0) return 2;
  Tally tally;
  for (const char* name : {"keras_archive", "h5_model", "weights_h5", "checkpoint", "arrays", "saved_model",
                           "json_config"}) {
    const Target* t = find_target(name);
    std::vector<fs::path> files;
    for (const fs::path& root : {fs::path(corpus_root), fresh})
      if (fs::is_directory(root / name))
        for (const auto& e : fs::directory_iterator(root / name))
          if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    const int before = tally.inputs;
    for (const auto& f : files) {
      const auto bytes = file_bytes(f);
      const std::string label = f.parent_path().parent_path().filename().string() + "/" + name + "/" +
                                f.filename().string();
      run_input(*t, label, bytes, tally);
      // Inputs that once crashed Kiln are replayed as they are; valid files are damaged.
      if (f.filename().string().rfind("crash-", 0) == 0) continue;
      const auto bad = mutations(bytes, has_mode_byte(name) ? 1 : 0, per_file, name_seed(f.filename().string()));
      for (std::size_t k = 0; k < bad.size(); ++k) run_input(*t, label + " #" + std::to_string(k), bad[k], tally);
    }
    std::cout << name << ": " << tally.inputs - before << " inputs\n";
  }
  std::error_code ec;
  fs::remove_all(fresh, ec);
  std::cout << tally.inputs << " inputs, " << tally.failures << " failures\n";
  return tally.failures ? 1 : 0;
}

}  // namespace kiln_fuzz
