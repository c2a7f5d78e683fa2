#pragma once
// IDX: the big-endian array format of the original MNIST distribution, also
// used by Fashion-MNIST, KMNIST and EMNIST. A file holds
//
//   0x00 0x00 <type code> <rank r>   r big-endian uint32 dims   elements, row-major, big-endian
//
// so train-images-idx3-ubyte starts 00 00 08 03 (uint8, rank 3). Every
// function here reads a file raw or gzip-compressed alike (the .gz suffix is
// not required: a gzip stream is detected by its magic bytes).
//
//   kiln::Tensor x = kiln::datasets::load_idx("train-images-idx3-ubyte.gz");
//   // x: uint8, shape (60000, 28, 28)
//   auto [x_test, y_test] = kiln::datasets::load_idx_split(
//       "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz");
//   // x_test: uint8 (10000, 28, 28); y_test: int64 (10000,)
//
// Errors: a missing file, a bad magic number, an unknown type code, a file
// shorter or longer than its header says, or a gzip error throws
// kiln::IOError whose message starts with the path.
#include <cstdint>
#include <span>
#include <string>

#include "kiln/datasets/split.h"
#include "kiln/core/tensor.h"

namespace kiln::datasets {

/// Reads the IDX file at `path` (raw or gzip). The shape is the file's dims;
/// the dtype follows its type code, widened where Kiln has no exact match:
///   0x08 ubyte -> uint8, 0x09 sbyte / 0x0B short / 0x0C int -> int32,
///   0x0D float -> float32, 0x0E double -> float64.
///   Tensor y = load_idx("train-labels-idx1-ubyte");  // uint8 (60000,)
Tensor load_idx(const std::string& path);

/// Decodes IDX bytes already in memory (not compressed). `source` names the
/// bytes in error messages (a path, or "<archive>[member]").
///   Tensor t = parse_idx(bytes, "in-memory");  // bytes 00 00 08 01 00 00 00 02 05 07 -> uint8 [5, 7]
Tensor parse_idx(std::span<const uint8_t> bytes, const std::string& source);

/// Reads an image file and its label file as one Split, like Keras:
///   x keeps the image file's dtype and shape (uint8 (N, 28, 28) for MNIST);
///   y is int64 with shape (N,), whatever integer type the label file uses.
/// Throws IOError if the label file is not rank 1, holds non-integers, or
/// holds a different number of labels than there are images.
///   Split train = load_idx_split("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz");
Split load_idx_split(const std::string& images_path, const std::string& labels_path);

}  // namespace kiln::datasets
