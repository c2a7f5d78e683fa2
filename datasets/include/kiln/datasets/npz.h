#pragma once
// NumPy's .npz format: a zip archive with one .npy file per array, written by
// np.savez (entries stored) or np.savez_compressed (entries deflated). Keras's
// mnist.npz holds x_train, y_train, x_test and y_test.
//
//   auto arrays = kiln::datasets::load_npz("mnist.npz");
//   kiln::Tensor x_train = arrays.at("x_train");  // uint8 (60000, 28, 28)
//
// Each array converts as load_npy() describes (see kiln/datasets/npy.h).
#include <map>
#include <string>

#include "kiln/core/tensor.h"

namespace kiln::datasets {

/// Reads every "<name>.npy" member of the archive at `path` into a map keyed
/// by `<name>` (the ".npy" suffix dropped, as numpy's NpzFile does); members
/// with other names are ignored. Stored and deflate entries are read, zip64
/// included. Throws IOError naming the path (and the member) for a missing
/// file, a corrupt or truncated archive, a CRC mismatch, an encrypted entry,
/// another compression method, or a bad .npy member.
std::map<std::string, Tensor> load_npz(const std::string& path);

}  // namespace kiln::datasets
