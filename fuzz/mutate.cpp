// fuzz_replay --mutate: a blind mutation campaign for machines without a
// libFuzzer build. Each round takes a corpus input, applies a few random byte
// flips, overwrites, insertions, deletions or a truncation, and runs the
// target; it stops once this process and its waited-for children (sandboxed
// readers and calls) have used the CPU seconds asked for. The input being run
// is kept in OUT/current, so a crash leaves it behind; an escaping exception
// is saved as OUT/finding-<n> and counted.
#include "mutate.h"

#include <sys/resource.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>

namespace kiln_fuzz {

namespace fs = std::filesystem;

namespace {

double cpu_seconds_used() {
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u{};
    ::getrusage(who, &u);
    total += static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
  }
  return total;
}

std::vector<uint8_t> mutated(std::vector<uint8_t> b, std::mt19937_64& rng) {
  auto pick = [&](std::size_t n) { return n == 0 ? std::size_t{0} : static_cast<std::size_t>(rng() % n); };
  const int edits = 1 + static_cast<int>(rng() % 4);
  static constexpr uint8_t kInteresting[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x10, 0x40};
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 6) {
      case 0: if (!b.empty()) b[pick(b.size())] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;
      case 1: if (!b.empty()) b[pick(b.size())] = static_cast<uint8_t>(rng()); break;
      case 2: if (!b.empty()) b[pick(b.size())] = kInteresting[rng() % sizeof kInteresting]; break;
      case 3: b.insert(b.begin() + static_cast<std::ptrdiff_t>(pick(b.size() + 1)), 1 + pick(8), static_cast<uint8_t>(rng())); break;
      case 4:
        if (b.size() > 1) {
          const std::size_t at = pick(b.size()), n = std::min(b.size() - at, 1 + pick(16));
          b.erase(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + n));
        }
        break;
      default: if (b.size() > 1 && rng() % 4 == 0) b.resize(1 + pick(b.size() - 1)); break;
    }
  }
  return b;
}

}  // namespace

int mutate_campaign(const Target& t, const fs::path& corpus, double cpu_budget, uint64_t seed, const fs::path& out) {
  std::vector<std::vector<uint8_t>> seeds;
  for (const auto& e : fs::directory_iterator(corpus))
    if (e.is_regular_file()) {
      std::ifstream in(e.path(), std::ios::binary);
      seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  if (seeds.empty()) {
    std::cerr << "fuzz_replay: no inputs in " << corpus.string() << "\n";
    return 2;
  }
  fs::create_directories(out);
  std::mt19937_64 rng(seed);
  long runs = 0, findings = 0;
  while (cpu_seconds_used() < cpu_budget) {
    const auto input = mutated(seeds[rng() % seeds.size()], rng);
    std::ofstream(out / "current", std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(input.data()), static_cast<std::streamsize>(input.size()));
    try {
      run_one(t, input.data(), input.size());
    } catch (const std::exception& e) {
      const fs::path saved = out / ("finding-" + std::to_string(findings++));
      fs::copy_file(out / "current", saved, fs::copy_options::overwrite_existing);
      std::cerr << "FINDING " << saved.string() << ": escaped " << e.what() << "\n";
    }
    if (++runs % 2000 == 0)  // progress, so a campaign stopped early still says how far it got
      std::cout << t.name << ": " << runs << " mutated inputs, " << static_cast<long>(cpu_seconds_used()) << " CPU seconds, "
                << findings << " findings so far" << std::endl;
  }
  std::cout << t.name << ": " << runs << " mutated inputs in " << static_cast<long>(cpu_seconds_used())
            << " CPU seconds, " << findings << " findings\n";
  return findings ? 1 : 0;
}

}  // namespace kiln_fuzz
