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

/// The element count of `dims`, refusing sizes no real Keras file has and more
/// data than a file of `file_bytes` could plausibly hold.
std::size_t checked_elems(const std::vector<hsize_t>& dims, std::size_t elem, uint64_t file_bytes,
                          const std::string& where);

/// A simple dataspace's dimensions ({0} for a null dataspace).
std::vector<hsize_t> space_dims(hid_t space, const std::string& where);

}  // namespace kiln::io::h5
