#pragma once
// Private to the hdf5_*.cpp files: the helpers that the group, attribute and
// dataset code share. Unlike hdf5_file.h this header exposes <hdf5.h>.
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::io::h5 {

/// Turns HDF5's stderr error printing off, once per process.
void init_hdf5();

/// Throws IOError "<where>: <what>" plus HDF5's innermost error message.
[[noreturn]] void fail(const std::string& where, const std::string& what);

/// The element count of `dims` with `elem`-byte elements, refusing (IOError,
/// before anything is allocated) a count that overflows, more bytes than
/// `available_bytes` (what the file can hold) or more than max_read_bytes().
std::size_t checked_elems(const std::vector<hsize_t>& dims, std::size_t elem, uint64_t available_bytes,
                          const std::string& where);

/// How many bytes of data a dataset of a `file_bytes`-byte file can hold: the
/// file's size, or about 1032 times it when a filter (deflate) may expand the
/// stored chunks. Also refuses a chunk shape larger than that, which libhdf5
/// would allocate a buffer for, whatever the dataset's own extent.
uint64_t dataset_capacity(hid_t dataset, std::size_t elem, uint64_t file_bytes, const std::string& where);

/// "base/rel" ("/rel" at the root).
std::string join_path(const std::string& base, const std::string& rel);
/// "a/b/c" -> {"a", "b", "c"} (empty components dropped).
std::vector<std::string> split_path(const std::string& rel);

/// Reads a string (or empty numeric) attribute of `loc` as a list of strings.
std::vector<std::string> read_string_attr(hid_t loc, const std::string& name, const std::string& where,
                                          uint64_t file_bytes);

/// IEEE 754 binary16, little-endian: the type h5py writes for NumPy's float16.
hid_t float16_type();
/// Whether a dataset holds bfloat16 as Keras writes it: 2-byte opaque values
/// with the attribute dtype = "bfloat16".
bool is_keras_bfloat16(hid_t dataset, hid_t type, uint64_t file_bytes, const std::string& where);

/// A simple dataspace's dimensions ({0} for a null dataspace).
std::vector<hsize_t> space_dims(hid_t space, const std::string& where);

/// Makes the file-access list `fapl` (core driver) open `size` bytes at
/// `data` in place, read-only, without copying them. One image per process at
/// a time: it is for the sandboxed child, which opens one file and exits.
void borrow_image(hid_t fapl, const void* data, std::size_t size);

}  // namespace kiln::io::h5
