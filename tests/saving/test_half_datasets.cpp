// float16 and bfloat16 in HDF5 files: reading the datasets Keras writes
// (h5py's binary16; opaque 2-byte values marked dtype = "bfloat16"), directly
// and through the sandboxed reader, and writing them so they read back
// bit for bit, the bfloat16 mark included (dataset_dtype needs it).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "io/hdf5_file.h"
#include "io/hdf5_sandbox.h"
#include "kiln/core/half.h"
#include "kiln/kiln.h"
#include "saving_util.h"
#include "test_util.h"

namespace test_half_datasets {

namespace k = kiln;

namespace {

// The bits make.py prints for its two datasets (NumPy's and ml_dtypes' rounding).
const std::vector<uint16_t> kFloat16Bits = {15360, 49408, 11878, 31743, 1023, 32768};
const std::vector<uint16_t> kBfloat16Bits = {16256, 49184, 15821, 18304, 14464, 32768};

template <class H>
std::vector<uint16_t> bits_of(const k::Tensor& t) {
  std::vector<uint16_t> out;
  for (H h : t.to_vector<H>()) out.push_back(h.bits);
  return out;
}

void check_fixture(const k::io::H5File& f) {
  k::io::H5Group g = f.root();
  CHECK(g.dataset_dtype("vars/float16") == "float16");
  CHECK(g.dataset_dtype("vars/bfloat16") == "bfloat16");
  k::Tensor h = g.read("vars/float16"), b = g.read("vars/bfloat16");
  CHECK(h.dtype() == k::float16);
  CHECK(b.dtype() == k::bfloat16);
  CHECK(h.shape() == k::Shape{2, 3});
  CHECK(bits_of<k::float16_t>(h) == kFloat16Bits);
  CHECK(bits_of<k::bfloat16_t>(b) == kBfloat16Bits);
}

}  // namespace

TEST_CASE("Keras's float16 and bfloat16 datasets read bit for bit, trusted and sandboxed") {
  const std::string path = saving_test::data("keras_half/half_datasets.h5");
  check_fixture(k::io::H5File::open(path));
  check_fixture(k::io::open_untrusted_h5(path));
}

TEST_CASE("float16 and bfloat16 tensors written to HDF5 read back with Keras's marks") {
  const std::string path = saving_test::tmp("half_written.h5");
  const k::Tensor values({{1.0, -2.5, 0.1}, {65504.0, 6.1e-5, -0.0}});
  {
    auto f = k::io::H5File::create(path);
    f.root().write("vars/float16", values.cast(k::float16));
    f.root().write("vars/bfloat16", values.cast(k::bfloat16));
  }
  check_fixture(k::io::H5File::open(path));
  check_fixture(k::io::open_untrusted_h5(path));
  std::remove(path.c_str());
}

}  // namespace test_half_datasets
