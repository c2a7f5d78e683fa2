// Hostile dataset files: the sizes a file declares are checked against the
// file and against max_read_bytes() before anything is allocated.
#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <new>
#include <utility>
#include <vector>
#include <string>

#include "hostile_zip.h"
#include "kiln/core/error.h"
#include "kiln/core/limits.h"
#include "kiln/datasets/idx.h"
#include "kiln/datasets/npy.h"
#include "kiln/datasets/npz.h"
#include "test_util.h"

using kiln_test::contains;
using kiln_test::message_of;

// The largest single request this test binary makes through operator new, so
// a test can tell "rejected before allocating" from "allocated, then rejected".
namespace {
std::atomic<std::size_t> g_largest_request{0};
void* counted_alloc(std::size_t n) {
  std::size_t seen = g_largest_request.load(std::memory_order_relaxed);
  while (n > seen && !g_largest_request.compare_exchange_weak(seen, n, std::memory_order_relaxed)) {
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
}  // namespace
void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

/// A file in this process's scratch folder, removed at exit.
std::string scratch(const std::string& name) {
  static const struct Dir {
    std::filesystem::path path = std::filesystem::temp_directory_path() / ("kiln_hostile_" + std::to_string(::getpid()));
    Dir() { std::filesystem::create_directories(path); }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } dir;
  return (dir.path / name).string();
}

/// Sets the read ceiling for one scope.
struct CeilingScope {
  int64_t saved = kiln::max_read_bytes();
  explicit CeilingScope(int64_t bytes) { kiln::set_max_read_bytes(bytes); }
  ~CeilingScope() { kiln::set_max_read_bytes(saved); }
};

}  // namespace

TEST_CASE("hostile npz: a stored member declaring 3.9 GB is refused before anything large is allocated") {
  const std::string path = scratch("bomb.npz");
  kiln_test::write_zip(path, {{"x.npy", kiln_test::npy_float32(4), 3'900'000'000ull}});
  REQUIRE(std::filesystem::file_size(path) < 400);
  g_largest_request = 0;
  const auto msg = message_of<kiln::IOError>([&] { kiln::datasets::load_npz(path); });
  CHECK(contains(msg, "bomb.npz[x.npy]"));
  CHECK(contains(msg, "uncompressed size 3900000000"));
  CHECK(g_largest_request.load() < (std::size_t{1} << 20));
  // The honest archive loads.
  kiln_test::write_zip(path, {{"x.npy", kiln_test::npy_float32(4)}});
  CHECK(kiln::datasets::load_npz(path).at("x").size() == 4);
}

TEST_CASE("size ceiling: npz members, .npy bodies and idx data over max_read_bytes() are refused") {
  if (!std::getenv("KILN_MAX_ALLOC_BYTES")) CHECK(kiln::max_read_bytes() == (int64_t{8} << 30));  // the default
  CHECK_THROWS_AS(kiln::set_max_read_bytes(0), kiln::ValueError);
  const std::string npz = scratch("big.npz"), npy = scratch("big.npy"), idx = scratch("big.idx");
  kiln_test::write_zip(npz, {{"x.npy", kiln_test::npy_float32(1000)}});
  std::ofstream(npy, std::ios::binary) << kiln_test::npy_float32(1000);
  // An IDX file of 4000 unsigned bytes, shape (4000,).
  std::ofstream(idx, std::ios::binary) << std::string("\x00\x00\x08\x01\x00\x00\x0f\xa0", 8) << std::string(4000, '\x07');
  CHECK(kiln::datasets::load_npz(npz).at("x").size() == 1000);
  CHECK(kiln::datasets::load_npy(npy).size() == 1000);
  CHECK(kiln::datasets::load_idx(idx).size() == 4000);
  CeilingScope ceiling(3000);
  const std::vector<std::pair<std::string, std::function<void()>>> loads = {
      {npz, [&] { kiln::datasets::load_npz(npz); }},
      {npy, [&] { kiln::datasets::load_npy(npy); }},
      {idx, [&] { kiln::datasets::load_idx(idx); }}};
  for (const auto& item : loads) {  // no structured binding: CAPTURE's lambda must capture it (clang 14)
    const std::string& path = item.first;
    CAPTURE(path);
    const auto msg = message_of<kiln::IOError>(item.second);
    CHECK(contains(msg, "more than the limit of 3000 bytes"));
    CHECK(contains(msg, "KILN_MAX_ALLOC_BYTES"));
  }
}
