// Tests for kiln::datasets: the shipped MNIST copy, the IDX / .npy / .npz
// readers, and the errors a missing or corrupt file must raise.
//
// Corrupt and alternative-format files are written by the tests themselves
// into a temporary directory, so nothing here needs Python, numpy or network
// access. The zip writer below stores entries uncompressed; the deflate path
// is exercised by the shipped .gz files (same inflate code in zlib).
#include <doctest/doctest.h>

#include "test_util.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "kiln/datasets/fashion_mnist.h"
#include "kiln/datasets/idx.h"
#include "kiln/datasets/mnist.h"
#include "kiln/datasets/npy.h"
#include "kiln/datasets/npz.h"
#include "kiln/core/error.h"
#include "kiln/core/tensor.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_datasets {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

using kiln_test::contains;

namespace {

// The repository's datasets/data/mnist: from the build's KILN_DATA_DIR or
// KILN_SOURCE_DIR if the test target defines one, else relative to this file
// (tests/datasets/ -> datasets/data/), as the library itself falls back.
fs::path shipped_mnist_dir() {
#if defined(KILN_DATA_DIR)
  return fs::path(KILN_DATA_DIR) / "mnist";
#elif defined(KILN_SOURCE_DIR)
  return fs::path(KILN_SOURCE_DIR) / "datasets" / "data" / "mnist";
#else
  return fs::path(__FILE__).parent_path().parent_path().parent_path() / "datasets" / "data" / "mnist";
#endif
}

// A fresh directory under the system temp dir, removed with its contents.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() /
            ("kiln_datasets_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

Bytes read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in.good());
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& p, const Bytes& b) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  REQUIRE(out.good());
}

void put_be32(Bytes& b, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<uint8_t>(v >> s));
}
void put_le(Bytes& b, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// IDX bytes: magic 00 00 <type> <rank>, big-endian dims, then `data` as is.
Bytes make_idx(uint8_t type, const std::vector<uint32_t>& dims, const Bytes& data) {
  Bytes b = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims) put_be32(b, d);
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

// An IDX copy of a loaded split, written uncompressed (images ubyte, labels
// ubyte), as the original MNIST files are once gunzipped.
void write_idx_split(const TempDir& dir, const std::string& prefix, const kiln::datasets::Split& s) {
  const auto n = static_cast<uint32_t>(s.x.shape()[0]);
  const auto* px = s.x.data<uint8_t>();
  write_bytes(dir / (prefix + "-images-idx3-ubyte"),
              make_idx(0x08, {n, 28, 28}, Bytes(px, px + s.x.size())));
  Bytes labels;
  for (int64_t v : s.y.to_vector<int64_t>()) labels.push_back(static_cast<uint8_t>(v));
  write_bytes(dir / (prefix + "-labels-idx1-ubyte"), make_idx(0x08, {n}, labels));
}

// .npy v1.0 bytes: magic, version, header padded with spaces so that the data
// starts at a multiple of 64, as numpy writes it.
Bytes make_npy(const std::string& descr, const std::string& shape, const Bytes& data, bool fortran = false) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  Bytes b = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  put_le(b, header.size(), 2);
  b.insert(b.end(), header.begin(), header.end());
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

// Bitwise CRC-32 (the zip / gzip polynomial, reflected 0xEDB88320). Slow
// but ten lines, and keeps zlib out of the tests.
uint32_t crc32(const Bytes& b) {
  uint32_t c = 0xFFFFFFFFu;
  for (uint8_t byte : b) {
    c ^= byte;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

// A zip archive with stored (method 0) entries: local headers + data, then
// the central directory and its end record (PKWARE APPNOTE 4.3).
Bytes make_stored_zip(const std::vector<std::pair<std::string, Bytes>>& entries) {
  Bytes zip, central;
  for (const auto& [name, data] : entries) {
    const auto offset = static_cast<uint32_t>(zip.size());
    const uint32_t crc = crc32(data);
    const auto size = static_cast<uint32_t>(data.size());
    put_le(zip, 0x04034b50, 4);
    put_le(zip, 20, 2);                 // version needed
    put_le(zip, 0, 2);                  // flags
    put_le(zip, 0, 2);                  // method: stored
    put_le(zip, 0, 4);                  // time, date
    put_le(zip, crc, 4);
    put_le(zip, size, 4);               // compressed
    put_le(zip, size, 4);               // uncompressed
    put_le(zip, name.size(), 2);
    put_le(zip, 0, 2);                  // extra length
    zip.insert(zip.end(), name.begin(), name.end());
    zip.insert(zip.end(), data.begin(), data.end());

    put_le(central, 0x02014b50, 4);
    put_le(central, 20, 2);             // version made by
    put_le(central, 20, 2);             // version needed
    put_le(central, 0, 2);              // flags
    put_le(central, 0, 2);              // method
    put_le(central, 0, 4);              // time, date
    put_le(central, crc, 4);
    put_le(central, size, 4);
    put_le(central, size, 4);
    put_le(central, name.size(), 2);
    put_le(central, 0, 2);              // extra length
    put_le(central, 0, 2);              // comment length
    put_le(central, 0, 2);              // disk number
    put_le(central, 0, 2);              // internal attributes
    put_le(central, 0, 4);              // external attributes
    put_le(central, offset, 4);
    central.insert(central.end(), name.begin(), name.end());
  }
  const auto cd_offset = static_cast<uint32_t>(zip.size());
  zip.insert(zip.end(), central.begin(), central.end());
  put_le(zip, 0x06054b50, 4);
  put_le(zip, 0, 2);                    // this disk
  put_le(zip, 0, 2);                    // disk with the directory
  put_le(zip, entries.size(), 2);
  put_le(zip, entries.size(), 2);
  put_le(zip, central.size(), 4);
  put_le(zip, cd_offset, 4);
  put_le(zip, 0, 2);                    // comment length
  return zip;
}

// Order-sensitive hash of a byte sequence (h = 31 h + v mod 2^64), so a
// reordering or an off-by-one in the decoder changes it, unlike a plain sum.
uint64_t poly_hash(const uint8_t* p, std::size_t n) {
  uint64_t h = 0;
  for (std::size_t i = 0; i < n; ++i) h = h * 31 + p[i];
  return h;
}

// The message of the kiln::IOError that f() throws; fails the test otherwise.
template <class F>
std::string io_error_of(F&& f) {
  try {
    f();
  } catch (const kiln::IOError& e) {
    return e.what();
  }
  FAIL("expected kiln::IOError, but nothing was thrown");
  return {};
}


void check_mnist_like(const kiln::datasets::Split& s, int64_t n) {
  CHECK(s.x.shape().to_string() == "(" + std::to_string(n) + ", 28, 28)");
  CHECK(s.y.shape().to_string() == "(" + std::to_string(n) + ",)");
  CHECK(s.x.dtype() == kiln::DType::uint8);
  CHECK(s.y.dtype() == kiln::DType::int64);
}

}  // namespace

TEST_CASE("mnist: the shipped copy has Keras's shapes and dtypes, and labels 0..9") {
  auto [train, test] = kiln::datasets::mnist::load_data();
  check_mnist_like(train, 8000);
  check_mnist_like(test, 2000);
  for (const auto* split : {&train, &test}) {
    const std::vector<int64_t> y = split->y.to_vector<int64_t>();
    std::array<int64_t, 10> per_class{};
    for (int64_t v : y) {
      REQUIRE(v >= 0);
      REQUIRE(v <= 9);
      ++per_class[static_cast<std::size_t>(v)];
    }
    for (int64_t c : per_class) CHECK(c > 0);  // every digit is present
  }
}

TEST_CASE("mnist: the shipped pixels and labels match recorded checksums") {
  // Recorded with Python's gzip module from datasets/data/mnist/*.gz.
  auto [train, test] = kiln::datasets::mnist::load_data();
  const uint8_t* xtr = train.x.data<uint8_t>();
  const uint8_t* xte = test.x.data<uint8_t>();
  uint64_t sum_tr = 0, sum_te = 0;
  for (int64_t i = 0; i < train.x.size(); ++i) sum_tr += xtr[i];
  for (int64_t i = 0; i < test.x.size(); ++i) sum_te += xte[i];
  CHECK(sum_tr == 209476587u);
  CHECK(sum_te == 52670013u);
  CHECK(poly_hash(xtr, static_cast<std::size_t>(train.x.size())) == 0x283e4d4595f8c5fbull);
  CHECK(poly_hash(xte, static_cast<std::size_t>(test.x.size())) == 0x0d96b950c118462dull);

  const std::vector<int64_t> ytr = train.y.to_vector<int64_t>();
  const std::vector<int64_t> yte = test.y.to_vector<int64_t>();
  CHECK(std::vector<int64_t>(ytr.begin(), ytr.begin() + 10) == std::vector<int64_t>{9, 0, 2, 5, 2, 8, 5, 6, 2, 3});
  CHECK(std::vector<int64_t>(yte.begin(), yte.begin() + 10) == std::vector<int64_t>{3, 9, 8, 3, 8, 2, 6, 2, 4, 6});
  int64_t label_sum_tr = 0, label_sum_te = 0;
  for (int64_t v : ytr) label_sum_tr += v;
  for (int64_t v : yte) label_sum_te += v;
  CHECK(label_sum_tr == 35517);
  CHECK(label_sum_te == 8851);
}

TEST_CASE("mnist: a missing directory throws IOError naming the path") {
  const std::string missing = (fs::temp_directory_path() / "kiln_no_such_dir_3f9a" / "mnist").string();
  const std::string msg = io_error_of([&] { kiln::datasets::mnist::load_data(missing); });
  CHECK(contains(msg, missing));
  CHECK(contains(msg, "no such file or directory"));
}

TEST_CASE("mnist: a directory without the files says which are missing") {
  TempDir dir;
  std::string msg = io_error_of([&] { kiln::datasets::mnist::load_data(dir.str()); });
  CHECK(contains(msg, dir.str()));
  CHECK(contains(msg, "mnist.npz"));

  // Three of four files present: the message names the fourth.
  for (const char* f : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz"})
    fs::copy_file(shipped_mnist_dir() / f, dir.path() / f);
  msg = io_error_of([&] { kiln::datasets::mnist::load_data(dir.str()); });
  CHECK(contains(msg, "t10k-labels-idx1-ubyte"));
  CHECK_FALSE(contains(msg, "train-images-idx3-ubyte,"));
}

TEST_CASE("mnist: a truncated .gz file throws IOError naming it") {
  TempDir dir;
  for (const char* f : {"train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"})
    fs::copy_file(shipped_mnist_dir() / f, dir.path() / f);
  Bytes gz = read_bytes(shipped_mnist_dir() / "train-images-idx3-ubyte.gz");
  gz.resize(gz.size() / 2);  // a download cut off halfway
  write_bytes(dir.path() / "train-images-idx3-ubyte.gz", gz);

  const std::string msg = io_error_of([&] { kiln::datasets::mnist::load_data(dir.str()); });
  CHECK(contains(msg, dir / "train-images-idx3-ubyte.gz"));
  CHECK(contains(msg, "gzip"));
}

TEST_CASE("mnist: uncompressed IDX files load to the same tensors as the .gz ones") {
  auto [train, test] = kiln::datasets::mnist::load_data();
  TempDir dir;
  write_idx_split(dir, "train", train);
  write_idx_split(dir, "t10k", test);

  auto [train2, test2] = kiln::datasets::mnist::load_data(dir.str());
  check_mnist_like(train2, 8000);
  check_mnist_like(test2, 2000);
  CHECK(train2.x.to_vector<uint8_t>() == train.x.to_vector<uint8_t>());
  CHECK(train2.y.to_vector<int64_t>() == train.y.to_vector<int64_t>());
  CHECK(test2.x.to_vector<uint8_t>() == test.x.to_vector<uint8_t>());
  CHECK(test2.y.to_vector<int64_t>() == test.y.to_vector<int64_t>());
}

TEST_CASE("idx: corrupt files throw IOError saying what is wrong") {
  TempDir dir;
  const Bytes pixels(3 * 28 * 28, 7);

  SUBCASE("truncated data") {
    Bytes b = make_idx(0x08, {3, 28, 28}, pixels);
    b.resize(b.size() - 100);
    write_bytes(dir.path() / "x", b);
    const std::string msg = io_error_of([&] { kiln::datasets::load_idx(dir / "x"); });
    CHECK(contains(msg, dir / "x"));
    CHECK(contains(msg, "truncated"));
    CHECK(contains(msg, "(3, 28, 28)"));
  }
  SUBCASE("truncated header") {
    write_bytes(dir.path() / "x", Bytes{0, 0, 8, 3, 0, 0});
    CHECK(contains(io_error_of([&] { kiln::datasets::load_idx(dir / "x"); }), "truncated"));
  }
  SUBCASE("bad magic number") {
    Bytes b = make_idx(0x08, {3, 28, 28}, pixels);
    b[0] = 0x1f;  // e.g. a text or zip file under an IDX name
    write_bytes(dir.path() / "x", b);
    const std::string msg = io_error_of([&] { kiln::datasets::load_idx(dir / "x"); });
    CHECK(contains(msg, "magic"));
    CHECK(contains(msg, dir / "x"));
  }
  SUBCASE("unknown type code") {
    write_bytes(dir.path() / "x", make_idx(0x42, {1}, Bytes{1}));
    CHECK(contains(io_error_of([&] { kiln::datasets::load_idx(dir / "x"); }), "type code 0x42"));
  }
  SUBCASE("extra bytes after the data") {
    Bytes b = make_idx(0x08, {3, 28, 28}, pixels);
    b.push_back(0);
    write_bytes(dir.path() / "x", b);
    CHECK(contains(io_error_of([&] { kiln::datasets::load_idx(dir / "x"); }), "unexpected bytes"));
  }
  SUBCASE("label count differs from image count") {
    write_bytes(dir.path() / "x", make_idx(0x08, {3, 28, 28}, pixels));
    write_bytes(dir.path() / "y", make_idx(0x08, {2}, Bytes{1, 2}));
    const std::string msg = io_error_of([&] { kiln::datasets::load_idx_split(dir / "x", dir / "y"); });
    CHECK(contains(msg, "2 labels"));
    CHECK(contains(msg, "3 images"));
  }
  SUBCASE("labels and images swapped") {
    write_bytes(dir.path() / "x", make_idx(0x08, {3, 28, 28}, pixels));
    write_bytes(dir.path() / "y", make_idx(0x08, {3}, Bytes{1, 2, 3}));
    CHECK(contains(io_error_of([&] { kiln::datasets::load_idx_split(dir / "y", dir / "x"); }), "rank-1"));
  }
  SUBCASE("missing file") {
    const std::string msg = io_error_of([&] { kiln::datasets::load_idx(dir / "nope"); });
    CHECK(contains(msg, dir / "nope"));
    CHECK(contains(msg, "no such file"));
  }
}

TEST_CASE("idx: wider types decode big-endian and labels become int64") {
  // int32 IDX (0x0C): -2 and 258, big-endian.
  const Bytes b = make_idx(0x0C, {2}, Bytes{0xFF, 0xFF, 0xFF, 0xFE, 0x00, 0x00, 0x01, 0x02});
  const kiln::Tensor t = kiln::datasets::parse_idx(b, "in-memory");
  CHECK(t.dtype() == kiln::DType::int32);
  CHECK(t.to_vector<int32_t>() == std::vector<int32_t>{-2, 258});

  TempDir dir;
  write_bytes(dir.path() / "x", make_idx(0x08, {2, 2}, Bytes{1, 2, 3, 4}));
  write_bytes(dir.path() / "y", make_idx(0x0B, {2}, Bytes{0x00, 0x05, 0x01, 0x00}));  // int16 5, 256
  const kiln::datasets::Split s = kiln::datasets::load_idx_split(dir / "x", dir / "y");
  CHECK(s.x.dtype() == kiln::DType::uint8);
  CHECK(s.x.shape().to_string() == "(2, 2)");
  CHECK(s.y.dtype() == kiln::DType::int64);
  CHECK(s.y.to_vector<int64_t>() == std::vector<int64_t>{5, 256});
}

TEST_CASE("mnist: a Keras-style mnist.npz written by hand loads like the IDX files") {
  // Small arrays with the real key names and dtypes: x '|u1', y '<i8' for
  // train and '|u1' (as in Keras's own mnist.npz) for test.
  Bytes x_train(3 * 28 * 28), x_test(2 * 28 * 28);
  for (std::size_t i = 0; i < x_train.size(); ++i) x_train[i] = static_cast<uint8_t>(i % 251);
  for (std::size_t i = 0; i < x_test.size(); ++i) x_test[i] = static_cast<uint8_t>(255 - i % 256);
  Bytes y_train;
  for (int64_t v : {4, 0, 9}) put_le(y_train, static_cast<uint64_t>(v), 8);
  const Bytes y_test = {7, 1};

  const Bytes zip = make_stored_zip({
      {"x_train.npy", make_npy("|u1", "(3, 28, 28)", x_train)},
      {"y_train.npy", make_npy("<i8", "(3,)", y_train)},
      {"x_test.npy", make_npy("|u1", "(2, 28, 28)", x_test)},
      {"y_test.npy", make_npy("|u1", "(2,)", y_test)},
  });
  TempDir dir;
  write_bytes(dir.path() / "mnist.npz", zip);

  auto check = [&](const kiln::datasets::TrainTest& tt) {
    check_mnist_like(tt.train, 3);
    check_mnist_like(tt.test, 2);
    CHECK(tt.train.x.to_vector<uint8_t>() == std::vector<uint8_t>(x_train.begin(), x_train.end()));
    CHECK(tt.test.x.to_vector<uint8_t>() == std::vector<uint8_t>(x_test.begin(), x_test.end()));
    CHECK(tt.train.y.to_vector<int64_t>() == std::vector<int64_t>{4, 0, 9});
    CHECK(tt.test.y.to_vector<int64_t>() == std::vector<int64_t>{7, 1});
  };
  SUBCASE("from the directory") { check(kiln::datasets::mnist::load_data(dir.str())); }
  SUBCASE("from the file path") { check(kiln::datasets::mnist::load_data(dir / "mnist.npz")); }
  SUBCASE("load_npz keys drop the .npy suffix") {
    const auto arrays = kiln::datasets::load_npz(dir / "mnist.npz");
    CHECK(arrays.size() == 4);
    CHECK(arrays.count("x_train") == 1);
    CHECK(arrays.at("y_test").dtype() == kiln::DType::uint8);  // load_npz keeps the stored dtype
  }
  SUBCASE("a flipped data byte fails the CRC check") {
    Bytes bad = zip;
    bad[200] ^= 0xFF;  // inside x_train's pixels
    write_bytes(dir.path() / "mnist.npz", bad);
    const std::string msg = io_error_of([&] { kiln::datasets::mnist::load_data(dir.str()); });
    CHECK(contains(msg, dir / "mnist.npz"));
    CHECK(contains(msg, "CRC"));
  }
  SUBCASE("a truncated archive is rejected") {
    Bytes bad = zip;
    bad.resize(bad.size() / 2);
    write_bytes(dir.path() / "mnist.npz", bad);
    CHECK(contains(io_error_of([&] { kiln::datasets::mnist::load_data(dir.str()); }), "zip"));
  }
  SUBCASE("a missing array is named") {
    write_bytes(dir.path() / "mnist.npz", make_stored_zip({{"x_train.npy", make_npy("|u1", "(3, 28, 28)", x_train)}}));
    CHECK(contains(io_error_of([&] { kiln::datasets::mnist::load_data(dir.str()); }), "'y_train'"));
  }
}

TEST_CASE("npy: dtypes, byte order and Fortran order") {
  SUBCASE("little-endian int32 in Fortran order becomes row-major") {
    // The 2x3 matrix [[1 2 3] [4 5 6]] stored column by column: 1 4 2 5 3 6.
    Bytes data;
    for (int32_t v : {1, 4, 2, 5, 3, 6}) put_le(data, static_cast<uint32_t>(v), 4);
    const kiln::Tensor t = kiln::datasets::parse_npy(make_npy("<i4", "(2, 3)", data, true), "m.npy");
    CHECK(t.dtype() == kiln::DType::int32);
    CHECK(t.shape().to_string() == "(2, 3)");
    CHECK(t.to_vector<int32_t>() == std::vector<int32_t>{1, 2, 3, 4, 5, 6});
  }
  SUBCASE("big-endian float64") {
    const Bytes data = {0x3F, 0xF8, 0, 0, 0, 0, 0, 0, 0xC0, 0x00, 0, 0, 0, 0, 0, 0};  // 1.5, -2.0
    const kiln::Tensor t = kiln::datasets::parse_npy(make_npy(">f8", "(2,)", data), "f.npy");
    CHECK(t.dtype() == kiln::DType::float64);
    CHECK(t.to_vector<double>() == std::vector<double>{1.5, -2.0});
  }
  SUBCASE("uint16 widens to int32") {
    const kiln::Tensor t = kiln::datasets::parse_npy(make_npy("<u2", "(1,)", Bytes{0xFF, 0xFF}), "u.npy");
    CHECK(t.dtype() == kiln::DType::int32);
    CHECK(t.to_vector<int32_t>() == std::vector<int32_t>{65535});
  }
  SUBCASE("a short data block is reported as truncated") {
    const std::string msg =
        io_error_of([] { kiln::datasets::parse_npy(make_npy("<i8", "(3,)", Bytes(16, 0)), "short.npy"); });
    CHECK(contains(msg, "short.npy"));
    CHECK(contains(msg, "truncated"));
  }
  SUBCASE("structured dtypes are refused") {
    Bytes structured = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    const std::string header = "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }\n";
    put_le(structured, header.size(), 2);
    structured.insert(structured.end(), header.begin(), header.end());
    CHECK(contains(io_error_of([&] { kiln::datasets::parse_npy(structured, "s.npy"); }), "structured"));
  }
  SUBCASE("load_npy reads a file") {
    TempDir dir;
    write_bytes(dir.path() / "a.npy", make_npy("|u1", "(2, 2)", Bytes{1, 2, 3, 4}));
    const kiln::Tensor t = kiln::datasets::load_npy(dir / "a.npy");
    CHECK(t.dtype() == kiln::DType::uint8);
    CHECK(t.to_vector<uint8_t>() == std::vector<uint8_t>{1, 2, 3, 4});
  }
}

TEST_CASE("fashion_mnist: 60000 / 10000 images when Debian's dataset-fashion-mnist is installed") {
  const std::string dir = kiln::datasets::fashion_mnist::default_path();
  KILN_REQUIRE_TOOL(fs::exists(fs::path(dir) / "train-images-idx3-ubyte.gz") ||
                        fs::exists(fs::path(dir) / "train-images-idx3-ubyte"),
                    "Fashion-MNIST in " << dir << " (Debian package dataset-fashion-mnist)");
  auto [train, test] = kiln::datasets::fashion_mnist::load_data();
  check_mnist_like(train, 60000);
  check_mnist_like(test, 10000);
  // Fashion-MNIST is balanced: 6000 train and 1000 test images per class.
  std::array<int64_t, 10> per_class{};
  for (int64_t v : train.y.to_vector<int64_t>()) {
    REQUIRE(v >= 0);
    REQUIRE(v <= 9);
    ++per_class[static_cast<std::size_t>(v)];
  }
  for (int64_t c : per_class) CHECK(c == 6000);
  CHECK(kiln::datasets::fashion_mnist::class_names().size() == 10);
  CHECK(kiln::datasets::fashion_mnist::class_names()[9] == "Ankle boot");
}

}  // namespace test_datasets
