#include "io/hdf5_file.h"

#include <hdf5.h>

#include <cstring>
#include <numeric>

#include "io/hdf5_internal.h"
#include "kiln/core/error.h"

namespace kiln::io {

using h5::checked_elems;
using h5::fail;
using h5::init_hdf5;
using h5::space_dims;

namespace h5 {

// Refuse to allocate more than this for one dataset or attribute, whatever a
// (possibly corrupt) header claims; real Keras weights are far below it.
constexpr uint64_t kMaxBytes = uint64_t{8} << 30;

std::size_t checked_elems(const std::vector<hsize_t>& dims, std::size_t elem, uint64_t file_bytes,
                          const std::string& where) {
  uint64_t n = 1;
  for (hsize_t d : dims) {
    if (d != 0 && n > kMaxBytes / d) fail(where, "dataspace is too large");
    n *= d;
  }
  if (elem != 0 && n > kMaxBytes / elem) fail(where, "dataspace is too large");
  // A contiguous uncompressed dataset cannot hold more bytes than the file;
  // allow generous slack for compressed/fill-value datasets.
  if (n * elem > file_bytes * 1024 + (uint64_t{64} << 20))
    fail(where, "claims " + std::to_string(n * elem) + " bytes of data in a " + std::to_string(file_bytes) +
                    "-byte file (corrupt file?)");
  return static_cast<std::size_t>(n);
}

std::vector<hsize_t> space_dims(hid_t space, const std::string& where) {
  const int nd = H5Sget_simple_extent_ndims(space);
  if (nd < 0) fail(where, "cannot read the dataspace");
  std::vector<hsize_t> dims(static_cast<std::size_t>(nd));
  if (nd > 0 && H5Sget_simple_extent_dims(space, dims.data(), nullptr) < 0) fail(where, "cannot read the dataspace");
  if (H5Sget_simple_extent_type(space) == H5S_NULL) return {0};
  return dims;
}

}  // namespace h5

H5Id H5Group::open_dataset(const std::string& rel) const {
  init_hdf5();
  if (!exists(rel)) fail(where(rel), "no such dataset in the file");
  hid_t d = H5Dopen2(id(), rel.c_str(), H5P_DEFAULT);
  if (d < 0) fail(where(rel), "is not a readable dataset");
  return H5Id(d);
}

Shape H5Group::dataset_shape(const std::string& rel) const {
  H5Id d = open_dataset(rel);
  H5Id space(H5Dget_space(d.get()));
  if (!space.valid()) fail(where(rel), "cannot read the dataspace");
  std::vector<int64_t> dims;
  for (hsize_t x : space_dims(space.get(), where(rel))) dims.push_back(static_cast<int64_t>(x));
  return Shape(dims);
}

std::string H5Group::dataset_dtype(const std::string& rel) const {
  H5Id d = open_dataset(rel);
  H5Id type(H5Dget_type(d.get()));
  const H5T_class_t cls = H5Tget_class(type.get());
  const std::size_t size = H5Tget_size(type.get());
  if (cls == H5T_FLOAT) return "float" + std::to_string(size * 8);
  if (cls == H5T_INTEGER)
    return std::string(H5Tget_sign(type.get()) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(size * 8);
  if (cls == H5T_STRING) return "string";
  return "class" + std::to_string(static_cast<int>(cls));
}

Tensor H5Group::read(const std::string& rel) const {
  const std::string w = where(rel);
  H5Id d = open_dataset(rel);
  H5Id type(H5Dget_type(d.get()));
  H5Id space(H5Dget_space(d.get()));
  if (!type.valid() || !space.valid()) fail(w, "cannot read the dataset's type");
  std::vector<hsize_t> hd = space_dims(space.get(), w);
  std::vector<int64_t> dims(hd.begin(), hd.end());
  const H5T_class_t cls = H5Tget_class(type.get());
  const std::size_t fsize = H5Tget_size(type.get());
  if (cls == H5T_FLOAT) {
    if (fsize == 8) {
      std::vector<double> buf(checked_elems(hd, 8, file_->bytes, w));
      if (!buf.empty() && H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
        fail(w, "cannot read the data (truncated or corrupt file?)");
      return Tensor(buf, Shape(dims));
    }
    std::vector<float> buf(checked_elems(hd, 4, file_->bytes, w));
    if (!buf.empty() && H5Dread(d.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
      fail(w, "cannot read the data (truncated or corrupt file?)");
    return Tensor(buf, Shape(dims));
  }
  if (cls == H5T_INTEGER) {
    std::vector<int64_t> buf(checked_elems(hd, 8, file_->bytes, w));
    if (!buf.empty() && H5Dread(d.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
      fail(w, "cannot read the data (truncated or corrupt file?)");
    return Tensor(buf, Shape(dims));
  }
  fail(w, "unsupported dataset type (HDF5 class " + std::to_string(static_cast<int>(cls)) +
              "); expected float or integer data");
}

void H5Group::write(const std::string& rel, const Tensor& value) {
  init_hdf5();
  const std::string w = where(rel);
  Tensor t = value.to(Device::cpu());
  if (exists(rel) && H5Ldelete(id(), rel.c_str(), H5P_DEFAULT) < 0) fail(w, "cannot replace the dataset");
  std::vector<hsize_t> dims;
  for (auto x : t.shape().dims()) dims.push_back(static_cast<hsize_t>(x));
  H5Id space(dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  H5Id lcpl(H5Pcreate(H5P_LINK_CREATE));
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  hid_t file_type, mem_type;
  switch (t.dtype()) {
    case DType::float32: file_type = H5T_IEEE_F32LE; mem_type = H5T_NATIVE_FLOAT; break;
    case DType::float64: file_type = H5T_IEEE_F64LE; mem_type = H5T_NATIVE_DOUBLE; break;
    case DType::int32: file_type = H5T_STD_I32LE; mem_type = H5T_NATIVE_INT32; break;
    case DType::int64: file_type = H5T_STD_I64LE; mem_type = H5T_NATIVE_INT64; break;
    case DType::uint8: file_type = H5T_STD_U8LE; mem_type = H5T_NATIVE_UINT8; break;
    case DType::bool_: file_type = H5T_STD_U8LE; mem_type = H5T_NATIVE_UINT8; break;
    default: fail(w, "unsupported dtype");
  }
  H5Id d(H5Dcreate2(id(), rel.c_str(), file_type, space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!d.valid()) fail(w, "cannot create the dataset");
  herr_t rc = 0;
  switch (t.dtype()) {
    case DType::float32: { auto v = t.to_vector<float>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
    case DType::float64: { auto v = t.to_vector<double>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
    case DType::int32: { auto v = t.to_vector<int32_t>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
    case DType::int64: { auto v = t.to_vector<int64_t>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
    default: { auto v = t.to_vector<uint8_t>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
  }
  if (rc < 0) fail(w, "cannot write the dataset");
}

}  // namespace kiln::io
