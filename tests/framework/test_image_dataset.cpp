// kiln::utils::image_dataset_from_directory against Keras 3.15.1 on TensorFlow
// 2.21.0: tests/fixtures/keras_image_utils/keras_image_utils.json, written by
// tests/fixtures/keras_image_utils/make_fixture.py over the images/ folder beside
// it (file order, class names, labels, decoded and resized values, error texts);
// then a small convolutional model trained on a directory the test writes.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "kiln/utils/image_dataset.h"
#include "kiln/utils/image_utils.h"
#include "test_util.h"

namespace test_image_dataset {

namespace k = kiln;
namespace U = kiln::utils;
namespace L = kiln::layers;
namespace fs = std::filesystem;
using json = nlohmann::json;
using kiln_test::message_of;

namespace {

const std::string kRoot = std::string(KILN_SOURCE_DIR) + "/tests/fixtures/keras_image_utils/images";

const json& fixture() {
  static const json f = [] {
    std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/fixtures/keras_image_utils/keras_image_utils.json");
    REQUIRE(in.good());
    return json::parse(in);
  }();
  return f;
}

U::ImageDatasetOptions options_of(const json& o) {
  U::ImageDatasetOptions opt;
  opt.verbose = false;
  if (o.contains("image_size")) opt.image_size = {o["image_size"][0].get<int64_t>(), o["image_size"][1].get<int64_t>()};
  if (o.contains("batch_size"))
    opt.batch_size = o["batch_size"].is_null() ? std::nullopt : std::optional<int64_t>(o["batch_size"].get<int64_t>());
  if (o.contains("shuffle")) opt.shuffle = o["shuffle"];
  if (o.contains("seed")) opt.seed = o["seed"].get<uint32_t>();
  if (o.contains("validation_split")) opt.validation_split = o["validation_split"].get<double>();
  if (o.contains("subset")) opt.subset = o["subset"].get<std::string>();
  if (o.contains("interpolation")) opt.interpolation = o["interpolation"];
  if (o.contains("crop_to_aspect_ratio")) opt.crop_to_aspect_ratio = o["crop_to_aspect_ratio"];
  if (o.contains("pad_to_aspect_ratio")) opt.pad_to_aspect_ratio = o["pad_to_aspect_ratio"];
  if (o.contains("color_mode")) opt.color_mode = o["color_mode"];
  if (o.contains("data_format")) opt.data_format = o["data_format"];
  if (o.contains("class_names")) opt.class_names = o["class_names"].get<std::vector<std::string>>();
  if (o.contains("label_mode"))
    opt.label_mode = o["label_mode"].is_null() ? std::nullopt : std::optional<std::string>(o["label_mode"]);
  if (o.contains("labels")) opt.labels = o["labels"].get<std::vector<int64_t>>();
  return opt;
}

std::vector<std::string> relative(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(p.substr(kRoot.size() + 1));
  return out;
}

bool is_jpeg(const std::string& path) { return path.ends_with(".jpg") || path.ends_with(".jpeg"); }

// Values of one element against Keras's, up to the fixture's 4 printed decimals.
// JPEG files are decoded by TF's own libjpeg-turbo build and here by Debian's, both
// with the fast integer IDCT (TF's default): they agree exactly on these files, but
// builds may round differently (SIMD against C paths of the IDCT and the chroma
// upsampling), so JPEG-derived values may differ by one level.
void check_values(const k::Tensor& got, const json& want, const std::string& file) {
  CAPTURE(file);
  CHECK(k::dtype_name(got.dtype()) == want["dtype"].get<std::string>());
  REQUIRE(got.shape().dims() == want["shape"].get<std::vector<int64_t>>());
  const auto v = got.to_vector<double>();
  const auto w = want["values"].get<std::vector<double>>();
  const double tolerance = is_jpeg(file) ? 1.0 + 1e-3 : 1e-3;
  double worst = 0;
  for (std::size_t i = 0; i < v.size(); ++i) worst = std::max(worst, std::abs(v[i] - w[i]));
  CHECK(worst <= tolerance);
}

void check_case(const json& c) {
  const U::ImageDatasetOptions opt = options_of(c["options"]);
  std::vector<U::ImageDirectoryDataset> got;
  if (opt.subset == "both") {
    auto [train, val] = U::image_dataset_from_directory_both(kRoot, opt);
    got = {train, val};
  } else {
    got = {U::image_dataset_from_directory(kRoot, opt)};
  }
  REQUIRE(got.size() == c["datasets"].size());
  for (std::size_t d = 0; d < got.size(); ++d) {
    const json& want = c["datasets"][d];
    const auto files = relative(got[d].file_paths);
    CHECK(files == want["file_paths"].get<std::vector<std::string>>());
    if (want["class_names"].is_null()) CHECK(got[d].class_names.empty());
    else CHECK(got[d].class_names == want["class_names"].get<std::vector<std::string>>());
    std::vector<k::Element> elements;
    for (const k::Element& e : got[d].dataset) elements.push_back(e);
    if (want.contains("images")) {
      REQUIRE(elements.size() == want["images"].size());
      for (std::size_t i = 0; i < elements.size(); ++i) {
        check_values(elements[i][0], want["images"][i], files[i]);
        if (want.contains("labels")) check_values(elements[i].at(1), want["labels"][i], "label");
        else CHECK(elements[i].size() == 1);
      }
    } else {
      // Shuffled: Keras's tf.data shuffle buffer orders elements with TF's own RNG;
      // the file list (above) matches exactly, and the elements hold the same labels.
      std::vector<int64_t> labels, batches;
      for (const auto& e : elements) {
        for (int64_t l : e[1].to_vector<int64_t>()) labels.push_back(l);
        if (opt.batch_size) batches.push_back(e[0].shape().dims()[0]);
      }
      std::sort(labels.begin(), labels.end());
      CHECK(labels == want["labels_sorted"].get<std::vector<int64_t>>());
      CHECK(batches == want["batch_sizes"].get<std::vector<int64_t>>());
    }
  }
}

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    static int n = 0;
    path = fs::temp_directory_path() / ("kiln_image_dataset_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::create_directories(path);
  }
  ~ScratchDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("image_dataset_from_directory: Keras's files, labels and resized values for every option") {
  for (const json& c : fixture()["cases"]) {
    CAPTURE(c["options"].dump());
    check_case(c);
  }
}

TEST_CASE("image_dataset_from_directory: Keras's error texts") {
  for (const json& e : fixture()["errors"]) {
    CAPTURE(e["options"].dump());
    const json& o = e["options"];
    const bool empty = o.contains("directory");
    ScratchDir scratch;
    fs::create_directories(scratch.path / "class_x");
    const std::string dir = empty ? scratch.path.string() : kRoot;
    std::string want = e["message"];
    if (auto at = want.find("<root>"); at != std::string::npos) want.replace(at, 6, dir);
    CHECK(message_of<k::ValueError>([&] { U::image_dataset_from_directory(dir, options_of(o)); }) == want);
  }
}

TEST_CASE("image_dataset_from_directory: Keras's messages, batches and a corrupt file in the directory") {
  U::ImageDatasetOptions opt{.batch_size = 4, .image_size = {3, 3}, .shuffle = false};
  std::ostringstream out;
  auto* old = std::cout.rdbuf(out.rdbuf());
  U::ImageDirectoryDataset ds;
  try {
    ds = U::image_dataset_from_directory(kRoot, opt);
    U::image_dataset_from_directory(kRoot, {.seed = 3, .validation_split = 0.3, .subset = "validation"});
  } catch (...) {
    std::cout.rdbuf(old);
    throw;
  }
  std::cout.rdbuf(old);
  CHECK(out.str() == "Found 10 files belonging to 3 classes.\nFound 10 files belonging to 3 classes.\n"
                     "Using 3 files for validation.\n");
  CHECK(ds.dataset.cardinality() == 3);
  std::vector<int64_t> sizes;
  for (auto [x, y] : ds.dataset) {
    CHECK(x.dtype() == k::DType::float32);
    CHECK(y.dtype() == k::DType::int32);
    sizes.push_back(x.shape().dims()[0]);
  }
  CHECK(sizes == std::vector<int64_t>{4, 4, 2});

  ScratchDir scratch;
  fs::create_directories(scratch.path / "a");
  U::save_img((scratch.path / "a" / "ok.png").string(), k::Tensor(std::vector<uint8_t>(12, 9), k::Shape({2, 2, 3})));
  std::ofstream((scratch.path / "a" / "zz.jpg").string()) << "not a jpeg";
  const auto bad = U::image_dataset_from_directory(scratch.path.string(), {.shuffle = false, .verbose = false});
  const std::string message = message_of<k::IOError>([&] {
    for (const auto& e : bad.dataset) (void)e;
  });
  CHECK(kiln_test::contains(message, (scratch.path / "a" / "zz.jpg").string()));
}

TEST_CASE("image_dataset_from_directory: a small CNN learns two classes of synthetic images with fit()") {
  k::clear_session();
  k::random::set_seed(5);
  ScratchDir scratch;
  // "bright" images are light with a dark bar, "dark" ones dark with a light bar; noise on both.
  std::mt19937 gen(3);
  for (const std::string cls : {"bright", "dark"}) {
    fs::create_directories(scratch.path / cls);
    for (int i = 0; i < 12; ++i) {
      std::vector<uint8_t> px(10 * 10 * 3);
      for (std::size_t p = 0; p < px.size(); ++p) {
        const bool bar = (p / 3) % 10 == std::size_t(i % 10);
        const int base = (cls == "bright") != bar ? 200 : 50;
        px[p] = uint8_t(base + int(gen() % 41) - 20);
      }
      U::save_img((scratch.path / cls / ("img" + std::to_string(i) + ".png")).string(),
                  k::Tensor(px, k::Shape({10, 10, 3})), {.scale = false});
    }
  }
  const auto ds = U::image_dataset_from_directory(
      scratch.path.string(), {.label_mode = "binary", .batch_size = 8, .image_size = {8, 8}, .seed = 1, .verbose = false});
  CHECK(ds.class_names == std::vector<std::string>{"bright", "dark"});
  k::Sequential model({L::Input({8, 8, 3}), L::Rescaling(1.0 / 255), L::Conv2D(8, 3, {.activation = "relu"}),
                       L::GlobalAveragePooling2D(), L::Dense(1, {.activation = "sigmoid"})});
  model.compile({.optimizer = k::optimizers::Adam({.learning_rate = 0.03}), .loss = "binary_crossentropy",
                 .metrics = {"accuracy"}});
  auto h = model.fit(ds.dataset, {.epochs = 20, .verbose = 0});
  const auto& loss = h["loss"];
  const auto& accuracy = h["accuracy"];
  CAPTURE(loss.front());
  CAPTURE(loss.back());
  CHECK(loss.back() < 0.5 * loss.front());
  CHECK(accuracy.back() >= 0.9);
}

}  // namespace test_image_dataset
