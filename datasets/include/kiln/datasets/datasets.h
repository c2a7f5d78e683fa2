#pragma once
// kiln::datasets: ready-made datasets returned as Tensors, like keras.datasets,
// plus readers for the file formats they come in. Nothing is downloaded:
// each loader reads files already on disk and says where it looked.
//
//   #include "kiln/datasets/datasets.h"
//   auto [train, test] = kiln::datasets::mnist::load_data();
//   // train.x: uint8 (N, 28, 28);  train.y: int64 (N,)
//
// To add a dataset:
//   1. Add include/kiln/datasets/<name>.h declaring namespace
//      kiln::datasets::<name> { TrainTest load_data(const std::string& path = ""); }
//      and document the returned shapes and dtypes, as mnist.h does.
//   2. Add src/<name>.cpp. Read files through the format readers (load_idx,
//      load_npy, load_npz) so corrupt files raise kiln::IOError naming the
//      path; an MNIST-like layout can reuse src/mnist_layout.h.
//   3. Ship small data under datasets/data/<name>/ with a README.md giving its
//      provenance, or default to a system path (as fashion_mnist does).
//   4. Add tests to tests/datasets/test_datasets.cpp, including a corrupt file.
#include "kiln/datasets/fashion_mnist.h"
#include "kiln/datasets/fortunes.h"
#include "kiln/datasets/idx.h"
#include "kiln/datasets/mnist.h"
#include "kiln/datasets/npy.h"
#include "kiln/datasets/npz.h"
#include "kiln/datasets/split.h"
#include "kiln/datasets/wordlists.h"
