#include "mnist_layout.h"

#include <array>
#include <filesystem>
#include <optional>

#include "binary_io.h"
#include "kiln/datasets/idx.h"
#include "kiln/datasets/npz.h"
#include "kiln/core/error.h"

namespace kiln::datasets::detail {

namespace {

namespace fs = std::filesystem;

// The names of the original distribution (and of Keras's download cache).
constexpr std::array<const char*, 4> kIdxNames = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                                  "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};
constexpr int64_t kRows = 28, kCols = 28;

std::optional<std::string> find_idx(const fs::path& dir, const std::string& name) {
  for (const std::string& candidate : {name, name + ".gz"}) {
    std::error_code ec;
    if (fs::is_regular_file(dir / candidate, ec)) return (dir / candidate).string();
  }
  return std::nullopt;
}

// Catches a file that is valid IDX/npy but not this dataset (e.g. CIFAR or
// EMNIST put in the wrong folder), which would otherwise fail much later in
// a layer with a confusing shape error.
void check_images(const Tensor& x, const std::string& src, const std::string& dataset) {
  if (x.dtype() != DType::uint8 || x.rank() != 3 || x.shape()[1] != kRows || x.shape()[2] != kCols)
    fail(src, dataset + " images must be uint8 with shape (N, 28, 28), got " + dtype_name(x.dtype()) + " " +
                  x.shape().to_string());
}

TrainTest load_idx_files(const std::array<std::string, 4>& files, const MnistLayout& layout) {
  TrainTest tt{load_idx_split(files[0], files[1]), load_idx_split(files[2], files[3])};
  check_images(tt.train.x, files[0], layout.dataset);
  check_images(tt.test.x, files[2], layout.dataset);
  return tt;
}

Split npz_split(const std::map<std::string, Tensor>& arrays, const std::string& path, const std::string& x_key,
                const std::string& y_key, const MnistLayout& layout) {
  auto get = [&](const std::string& key) -> const Tensor& {
    const auto it = arrays.find(key);
    if (it == arrays.end()) {
      std::string have;
      for (const auto& [name, t] : arrays) have += (have.empty() ? "" : ", ") + name;
      fail(path, "no array '" + key + "' (expected x_train, y_train, x_test, y_test; the archive holds: " +
                     (have.empty() ? "no .npy members" : have) + ")");
    }
    return it->second;
  };
  const Tensor& x = get(x_key);
  const Tensor& y = get(y_key);
  check_images(x, path + "[" + x_key + ".npy]", layout.dataset);
  const std::string y_src = path + "[" + y_key + ".npy]";
  if (!is_integer(y.dtype()) || y.rank() != 1)
    fail(y_src, "labels must be integers with shape (N,), got " + dtype_name(y.dtype()) + " " + y.shape().to_string());
  if (y.shape()[0] != x.shape()[0])
    fail(y_src, "holds " + std::to_string(y.shape()[0]) + " labels but " + x_key + " holds " +
                    std::to_string(x.shape()[0]) + " images");
  // Keras's mnist.npz stores labels as uint8; Kiln's sparse losses want int64.
  Tensor y64 = y.dtype() == DType::int64 ? y : Tensor(y.to_vector<int64_t>(), y.shape());
  return Split{x, y64};
}

TrainTest load_npz_file(const std::string& path, const MnistLayout& layout) {
  const std::map<std::string, Tensor> arrays = load_npz(path);
  return TrainTest{npz_split(arrays, path, "x_train", "y_train", layout),
                   npz_split(arrays, path, "x_test", "y_test", layout)};
}

}  // namespace

TrainTest load_mnist_layout(const std::string& path, const MnistLayout& layout) {
  const std::string what = layout.dataset + " expects a directory with train-images-idx3-ubyte, train-labels-idx1-ubyte, "
                           "t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte (each raw or .gz) or " +
                           layout.npz_name + ", or the path of an .npz file";
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) fail(path, "no such file or directory (" + what + ")");
  if (fs::is_regular_file(st)) return load_npz_file(path, layout);
  if (!fs::is_directory(st)) fail(path, "not a regular file or directory (" + what + ")");

  const fs::path dir(path);
  std::array<std::string, 4> files;
  std::string missing;
  std::size_t found = 0;
  for (std::size_t i = 0; i < kIdxNames.size(); ++i) {
    if (auto f = find_idx(dir, kIdxNames[i])) {
      files[i] = *f;
      ++found;
    } else {
      missing += (missing.empty() ? "" : ", ") + std::string(kIdxNames[i]);
    }
  }
  if (found == kIdxNames.size()) return load_idx_files(files, layout);

  const fs::path npz = dir / layout.npz_name;
  if (fs::is_regular_file(npz, ec)) return load_npz_file(npz.string(), layout);

  // Some IDX files but not all is most likely an interrupted copy: say which.
  if (found > 0)
    fail(path, layout.dataset + ": missing " + missing + " (raw or .gz), and there is no " + layout.npz_name);
  fail(path, "no dataset files found (" + what + ")");
}

}  // namespace kiln::datasets::detail
