#include "io/hdf5_file.h"

#include <hdf5.h>

#include <cstring>
#include <limits>
#include <numeric>

#include "io/hdf5_internal.h"
#include "io/hdf5_snapshot.h"
#include "kiln/core/error.h"
#include "kiln/core/limits.h"

namespace kiln::io {

using h5::checked_elems;
using h5::fail;
using h5::init_hdf5;
using h5::space_dims;

namespace h5 {

hid_t float16_type() {
  // Made once and kept: HDF5 has no predefined binary16 before 1.14.4.
  static const hid_t t = [] {
    hid_t h = H5Tcopy(H5T_IEEE_F32LE);
    H5Tset_fields(h, 15, 10, 5, 0, 10);
    H5Tset_size(h, 2);
    H5Tset_ebias(h, 15);
    H5Tset_precision(h, 16);
    return h;
  }();
  return t;
}

bool is_keras_bfloat16(hid_t dataset, hid_t type, uint64_t file_bytes, const std::string& where) {
  if (H5Tget_class(type) != H5T_OPAQUE || H5Tget_size(type) != 2 || H5Aexists(dataset, "dtype") <= 0) return false;
  const std::vector<std::string> v = read_string_attr(dataset, "dtype", where + " (attribute dtype)", file_bytes);
  return v.size() == 1 && v[0] == "bfloat16";
}

std::size_t checked_elems(const std::vector<hsize_t>& dims, std::size_t elem, uint64_t available_bytes,
                          const std::string& where) {
  uint64_t n = 1, bytes = 0;
  for (hsize_t d : dims)
    if (__builtin_mul_overflow(n, static_cast<uint64_t>(d), &n)) fail(where, "dataspace is too large");
  if (__builtin_mul_overflow(n, static_cast<uint64_t>(elem), &bytes) ||
      n > std::numeric_limits<std::size_t>::max() / 2)
    fail(where, "dataspace is too large");
  check_declared_size(bytes, available_bytes, where);
  return static_cast<std::size_t>(n);
}

uint64_t dataset_capacity(hid_t dataset, std::size_t elem, uint64_t file_bytes, const std::string& where) {
  H5Id dcpl(H5Dget_create_plist(dataset));
  if (!dcpl.valid()) fail(where, "cannot read the dataset's creation properties");
  // Data kept in other files would let a downloaded file make Kiln read any
  // file on the machine; Keras never writes such datasets.
  if (H5Pget_external_count(dcpl.get()) != 0 || H5Pget_layout(dcpl.get()) == H5D_VIRTUAL)
    fail(where, "the dataset keeps its data in other files (external or virtual storage), which Kiln refuses to read");
  // Deflate expands at most about 1032:1; other filters Keras files do not use.
  const uint64_t capacity = H5Pget_nfilters(dcpl.get()) > 0 ? file_bytes * 1032 + (uint64_t{1} << 20) : file_bytes;
  if (H5Pget_layout(dcpl.get()) == H5D_CHUNKED) {
    const int rank = H5Pget_chunk(dcpl.get(), 0, nullptr);
    if (rank < 0 || rank > H5S_MAX_RANK) fail(where, "cannot read the chunk shape");
    std::vector<hsize_t> chunk(static_cast<std::size_t>(rank));
    if (rank > 0 && H5Pget_chunk(dcpl.get(), rank, chunk.data()) < 0) fail(where, "cannot read the chunk shape");
    checked_elems(chunk, elem, capacity, where + " (one chunk)");
  }
  return capacity;
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
  // Opened first, and checked only when that fails, to say why.
  if (hid_t d = H5Dopen2(id(), rel.c_str(), H5P_DEFAULT); d >= 0) return H5Id(d);
  H5Eclear2(H5E_DEFAULT);
  if (!exists(rel)) fail(where(rel), "no such dataset in the file");
  fail(where(rel), "is not a readable dataset");
}

Shape H5Group::dataset_shape(const std::string& rel) const {
  if (node_) {
    const H5SnapshotNode& d = snap_dataset(rel);
    if (!d.shape_error.empty()) throw IOError(d.shape_error);
    return d.shape;
  }
  H5Id d = open_dataset(rel);
  H5Id space(H5Dget_space(d.get()));
  if (!space.valid()) fail(where(rel), "cannot read the dataspace");
  std::vector<int64_t> dims;
  for (hsize_t x : space_dims(space.get(), where(rel))) dims.push_back(static_cast<int64_t>(x));
  return Shape(dims);
}

std::string H5Group::dataset_dtype(const std::string& rel) const {
  if (node_) {
    const H5SnapshotNode& d = snap_dataset(rel);
    if (!d.dtype_error.empty()) throw IOError(d.dtype_error);
    return d.dtype;
  }
  H5Id d = open_dataset(rel);
  H5Id type(H5Dget_type(d.get()));
  const H5T_class_t cls = H5Tget_class(type.get());
  const std::size_t size = H5Tget_size(type.get());
  if (cls == H5T_FLOAT) return "float" + std::to_string(size * 8);
  if (h5::is_keras_bfloat16(d.get(), type.get(), file_->bytes, where(rel))) return "bfloat16";
  if (cls == H5T_INTEGER)
    return std::string(H5Tget_sign(type.get()) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(size * 8);
  if (cls == H5T_STRING) return "string";
  return "class" + std::to_string(static_cast<int>(cls));
}

Tensor H5Group::read(const std::string& rel) const {
  if (node_) {
    const H5SnapshotNode& d = snap_dataset(rel);
    if (!d.error.empty()) throw IOError(d.error);
    return d.data;
  }
  const std::string w = where(rel);
  H5Id d = open_dataset(rel);
  H5Id type(H5Dget_type(d.get()));
  H5Id space(H5Dget_space(d.get()));
  if (!type.valid() || !space.valid()) fail(w, "cannot read the dataset's type");
  std::vector<hsize_t> hd = space_dims(space.get(), w);
  std::vector<int64_t> dims(hd.begin(), hd.end());
  const H5T_class_t cls = H5Tget_class(type.get());
  const std::size_t fsize = H5Tget_size(type.get());
  // The file must hold the data in its own element size; the buffer, in the
  // (possibly wider) memory type, must stay under the ceiling.
  checked_elems(hd, fsize, h5::dataset_capacity(d.get(), fsize, file_->bytes, w), w);
  // Read straight into the tensor: no zero-filled staging buffer, no second copy.
  auto read_as = [&](hid_t mem_type, DType dt) {
    Tensor t = Tensor::empty(Shape(dims), dt);
    if (t.size() > 0 && H5Dread(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.raw_data()) < 0)
      fail(w, "cannot read the data (truncated or corrupt file?)");
    return t;
  };
  if (cls == H5T_FLOAT && fsize == 2) return read_as(h5::float16_type(), DType::float16);
  if (cls == H5T_FLOAT) return fsize == 8 ? read_as(H5T_NATIVE_DOUBLE, DType::float64) : read_as(H5T_NATIVE_FLOAT, DType::float32);
  if (h5::is_keras_bfloat16(d.get(), type.get(), file_->bytes, w)) return read_as(type.get(), DType::bfloat16);
  // Quantized kernels stay int8 in memory; other integers widen to int64.
  if (cls == H5T_INTEGER && fsize == 1 && H5Tget_sign(type.get()) == H5T_SGN_2) return read_as(H5T_NATIVE_INT8, DType::int8);
  if (cls == H5T_INTEGER) return read_as(H5T_NATIVE_INT64, DType::int64);
  fail(w, "unsupported dataset type (HDF5 class " + std::to_string(static_cast<int>(cls)) +
              "); expected float, integer or Keras's bfloat16 data");
}

std::optional<H5RawData> H5Group::raw_data(const std::string& rel) const {
  if (node_) return std::nullopt;
  const std::string w = where(rel);
  init_hdf5();
  // A dataset that does not open is left to read(), which names the problem.
  H5Id d(H5Dopen2(id(), rel.c_str(), H5P_DEFAULT));
  if (!d.valid()) {
    H5Eclear2(H5E_DEFAULT);
    return std::nullopt;
  }
  H5Id type(H5Dget_type(d.get())), space(H5Dget_space(d.get())), dcpl(H5Dget_create_plist(d.get()));
  if (!type.valid() || !space.valid() || !dcpl.valid()) return std::nullopt;
  if (file_->userblock < 0) {
    H5Id file(H5Iget_file_id(d.get()));
    H5Id fcpl(file.valid() ? H5Fget_create_plist(file.get()) : -1);
    hsize_t userblock = 0;
    file_->userblock = fcpl.valid() && H5Pget_userblock(fcpl.get(), &userblock) >= 0 ? static_cast<int64_t>(userblock) : 1;
  }
  // Only bytes stored exactly as read() returns them: contiguous, unfiltered,
  // in this file, little-endian float32/float64/int64, at offsets from byte 0.
  if (file_->userblock != 0) return std::nullopt;
  if (H5Pget_layout(dcpl.get()) != H5D_CONTIGUOUS || H5Pget_nfilters(dcpl.get()) != 0 ||
      H5Pget_external_count(dcpl.get()) != 0)
    return std::nullopt;
  DType dt;
  if (H5Tequal(type.get(), H5T_IEEE_F32LE) > 0) dt = DType::float32;
  else if (H5Tequal(type.get(), H5T_IEEE_F64LE) > 0) dt = DType::float64;
  else if (H5Tequal(type.get(), H5T_STD_I64LE) > 0) dt = DType::int64;
  else return std::nullopt;
  std::vector<hsize_t> hd;
  uint64_t bytes = 0;
  try {
    hd = space_dims(space.get(), w);
    bytes = checked_elems(hd, dtype_size(dt), h5::dataset_capacity(d.get(), dtype_size(dt), file_->bytes, w), w) *
            dtype_size(dt);
  } catch (const Error&) {
    return std::nullopt;  // read() reports it
  }
  const haddr_t offset = H5Dget_offset(d.get());
  if (bytes == 0 || offset == HADDR_UNDEF || H5Dget_storage_size(d.get()) != bytes || offset > file_->bytes ||
      bytes > file_->bytes - offset)
    return std::nullopt;
  return H5RawData{dt, Shape(std::vector<int64_t>(hd.begin(), hd.end())), static_cast<uint64_t>(offset), bytes};
}

namespace {
// A scalar variable-length UTF-8 string attribute, as h5py writes a str.
void write_dataset_attr(hid_t dataset, const char* name, const std::string& value, const std::string& w) {
  H5Id type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  H5Id space(H5Screate(H5S_SCALAR));
  H5Id a(H5Acreate2(dataset, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
  const char* p = value.c_str();
  if (!a.valid() || H5Awrite(a.get(), type.get(), &p) < 0) fail(w, std::string("cannot write the attribute ") + name);
}
}  // namespace

void H5Group::write(const std::string& rel, const Tensor& value) {
  require_live("write a dataset");
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
  H5Id bf16(-1);
  switch (t.dtype()) {
    case DType::float32: file_type = H5T_IEEE_F32LE; mem_type = H5T_NATIVE_FLOAT; break;
    case DType::float64: file_type = H5T_IEEE_F64LE; mem_type = H5T_NATIVE_DOUBLE; break;
    case DType::int32: file_type = H5T_STD_I32LE; mem_type = H5T_NATIVE_INT32; break;
    case DType::int64: file_type = H5T_STD_I64LE; mem_type = H5T_NATIVE_INT64; break;
    case DType::uint8: file_type = H5T_STD_U8LE; mem_type = H5T_NATIVE_UINT8; break;
    case DType::int8: file_type = H5T_STD_I8LE; mem_type = H5T_NATIVE_INT8; break;
    case DType::bool_: file_type = H5T_STD_U8LE; mem_type = H5T_NATIVE_UINT8; break;
    case DType::float16: file_type = mem_type = h5::float16_type(); break;
    case DType::bfloat16: bf16 = H5Id(H5Tcreate(H5T_OPAQUE, 2)); file_type = mem_type = bf16.get(); break;
    default: fail(w, "unsupported dtype");
  }
  H5Id d(H5Dcreate2(id(), rel.c_str(), file_type, space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!d.valid()) fail(w, "cannot create the dataset");
  herr_t rc = 0;
  switch (t.dtype()) {
    case DType::float16:
    case DType::bfloat16:
      // bfloat16 as Keras writes it: opaque 2-byte values, marked by an attribute.
      if (t.size() > 0) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.raw_data());
      if (rc >= 0 && t.dtype() == DType::bfloat16) write_dataset_attr(d.get(), "dtype", "bfloat16", w);
      break;
    case DType::float32: { auto v = t.to_vector<float>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
    case DType::float64: { auto v = t.to_vector<double>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
    case DType::int32: { auto v = t.to_vector<int32_t>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
    case DType::int64: { auto v = t.to_vector<int64_t>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
    case DType::int8: { auto v = t.to_vector<int8_t>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
    default: { auto v = t.to_vector<uint8_t>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
  }
  if (rc < 0) fail(w, "cannot write the dataset");
}

}  // namespace kiln::io
