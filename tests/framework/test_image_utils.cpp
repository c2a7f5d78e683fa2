// kiln::utils' image files: save_img / load_img round trips (PNG and BMP exact,
// JPEG within a tolerance), PIL's nearest resize, img_to_array / array_to_img,
// smart_resize, a real PNG from a Debian package against TensorFlow's decode, and
// corrupt or truncated files of every format giving IOError naming the file.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/utils/image_utils.h"
#include "test_util.h"

namespace test_image_utils {

namespace k = kiln;
namespace U = kiln::utils;
namespace fs = std::filesystem;
using kiln_test::contains;
using kiln_test::message_of;

namespace {

// A fresh directory under the system's temporary directory, removed at the end.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    static int n = 0;
    path = fs::temp_directory_path() / ("kiln_image_utils_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::create_directories(path);
  }
  ~ScratchDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

// A (h, w, c) uint8 image with distinct, smoothly varying values.
k::Tensor test_image(int64_t h, int64_t w, int64_t c) {
  std::vector<uint8_t> v(static_cast<std::size_t>(h * w * c));
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x)
      for (int64_t k = 0; k < c; ++k) v[static_cast<std::size_t>((y * w + x) * c + k)] = uint8_t((y * 20 + x * 9 + k * 70) % 256);
  return k::Tensor(v, k::Shape({h, w, c}));
}

std::vector<uint8_t> bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

const std::string kFixtureImages = std::string(KILN_SOURCE_DIR) + "/tests/fixtures/keras_image_utils/images/";

}  // namespace

TEST_CASE("save_img / load_img: PNG and BMP round trips are exact for 1, 3 and 4 channels") {
  ScratchDir dir;
  for (int64_t c : {1, 3, 4})
    for (const std::string ext : {"png", "bmp"}) {
      CAPTURE(c);
      CAPTURE(ext);
      const k::Tensor img = test_image(7, 5, c);
      const std::string path = dir.file("round." + ext);
      U::save_img(path, img, {.scale = false});
      const std::string mode = c == 1 ? "grayscale" : c == 3 ? "rgb" : "rgba";
      const k::Tensor back = U::load_img(path, {.color_mode = mode});
      CHECK(back.dtype() == k::DType::uint8);
      CHECK(back.shape() == k::Shape({7, 5, c}));
      CHECK(back.to_vector<int>() == img.to_vector<int>());
    }
}

TEST_CASE("save_img / load_img: JPEG round trip within the codec's loss") {
  ScratchDir dir;
  // A smooth image (no wrap-around edges), which JPEG keeps well.
  std::vector<uint8_t> smooth(16 * 16 * 3);
  for (std::size_t i = 0; i < smooth.size(); ++i) smooth[i] = uint8_t((i / 48) * 6 + (i / 3 % 16) * 4 + (i % 3) * 30);
  const k::Tensor img(smooth, k::Shape({16, 16, 3}));
  const std::string path = dir.file("round.jpg");
  U::save_img(path, img, {.scale = false, .quality = 95});
  CHECK(bytes_of(path).at(0) == 0xFF);
  const k::Tensor back = U::load_img(path);
  REQUIRE(back.shape() == k::Shape({16, 16, 3}));
  const auto a = img.to_vector<int>(), b = back.to_vector<int>();
  double total = 0;
  int worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) total += std::abs(a[i] - b[i]), worst = std::max(worst, std::abs(a[i] - b[i]));
  // JPEG is lossy: at quality 95 a smooth image comes back within a few levels (4:2:0 chroma included).
  CHECK(total / double(a.size()) < 2.0);
  CHECK(worst < 12);
  // RGBA loses its alpha in a JPEG, as Keras's save_img converts to RGB.
  U::save_img(dir.file("rgba.jpeg"), test_image(8, 8, 4), {.scale = false});
  CHECK(U::load_img(dir.file("rgba.jpeg"), {.color_mode = "rgba"}).shape() == k::Shape({8, 8, 4}));
}

TEST_CASE("load_img: color modes convert as PIL does (gray weights 0.299, 0.587, 0.114)") {
  ScratchDir dir;
  const k::Tensor rgb(std::vector<uint8_t>{10, 200, 30, 255, 0, 0}, k::Shape({1, 2, 3}));
  U::save_img(dir.file("c.png"), rgb, {.scale = false});
  // PIL's convert("L"): (19595 R + 38470 G + 7471 B + 32768) >> 16.
  CHECK(U::load_img(dir.file("c.png"), {.color_mode = "grayscale"}).to_vector<int>() == std::vector<int>{124, 76});
  CHECK(U::load_img(dir.file("c.png"), {.color_mode = "rgba"}).to_vector<int>() ==
        std::vector<int>{10, 200, 30, 255, 255, 0, 0, 255});
  const k::Tensor gray(std::vector<uint8_t>{7, 99}, k::Shape({1, 2, 1}));
  U::save_img(dir.file("g.bmp"), gray, {.scale = false});
  CHECK(U::load_img(dir.file("g.bmp")).to_vector<int>() == std::vector<int>{7, 7, 7, 99, 99, 99});
  CHECK(contains(message_of<k::ValueError>([&] { U::load_img(dir.file("g.bmp"), {.color_mode = "cmyk"}); }),
                 "color_mode must be \"grayscale\", \"rgb\", or \"rgba\""));
}

TEST_CASE("load_img: target_size resamples with PIL's nearest, keep_aspect_ratio crops the center") {
  ScratchDir dir;
  std::vector<uint8_t> v(4 * 6);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = uint8_t(i * 10);
  U::save_img(dir.file("n.png"), k::Tensor(v, k::Shape({4, 6, 1})), {.scale = false});
  // Source row/column floor((i + 0.5) * in / out): rows 1 and 3; columns 1, 4 of 6 -> 2 of them.
  const k::Tensor r = U::load_img(dir.file("n.png"), {.color_mode = "grayscale", .target_size = {{2, 2}}});
  CHECK(r.to_vector<int>() == std::vector<int>{70, 100, 190, 220});
  // keep_aspect_ratio: the centered 4x4 box (columns 1..4), then columns 1 + {1, 3}.
  const k::Tensor c = U::load_img(dir.file("n.png"), {.color_mode = "grayscale", .target_size = {{2, 2}},
                                                      .keep_aspect_ratio = true});
  CHECK(c.to_vector<int>() == std::vector<int>{80, 100, 200, 220});
  CHECK(message_of<k::ValueError>([&] {
          U::load_img(dir.file("n.png"), {.target_size = {{2, 2}}, .interpolation = "cubic"});
        }) == "Invalid interpolation method cubic specified. Supported methods are nearest, bilinear, bicubic, "
             "hamming, box, lanczos");
}

TEST_CASE("load_img: PIL's values for every color mode, filter, target size and keep_aspect_ratio") {
  // tests/fixtures/keras_image_utils/pil_load_img.json: keras.utils.load_img's PIL calls
  // (make_pil_fixture.py) on the fixture images; PIL's fixed-point resampling is exact.
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/fixtures/keras_image_utils/pil_load_img.json");
  REQUIRE(in.good());
  const nlohmann::json cases = nlohmann::json::parse(in).at("cases");
  for (const auto& c : cases) {
    CAPTURE(c.dump().substr(0, 160));
    U::LoadImgOptions o{.color_mode = c.at("color_mode")};
    if (c.contains("target_size")) {
      o.target_size = std::array<int64_t, 2>{c["target_size"][0].get<int64_t>(), c["target_size"][1].get<int64_t>()};
      o.interpolation = c.at("interpolation");
      o.keep_aspect_ratio = c.at("keep_aspect_ratio");
    }
    const k::Tensor img = U::load_img(kFixtureImages + c.at("file").get<std::string>(), o);
    const auto& want = c.at("output");
    CHECK(img.shape().dims() == want.at("shape").get<std::vector<int64_t>>());
    const auto got = img.to_vector<int>(), expect = want.at("values").get<std::vector<int>>();
    // JPEG pixels: Debian's Pillow decodes with the same libjpeg-turbo as Kiln, but Pillow's
    // wheels bundle their own build, whose rounding may differ by one level.
    const int tolerance = c.at("file").get<std::string>().find(".jp") != std::string::npos ? 1 : 0;
    int worst = got.size() == expect.size() ? 0 : 256;
    for (std::size_t i = 0; i < std::min(got.size(), expect.size()); ++i) worst = std::max(worst, std::abs(got[i] - expect[i]));
    CHECK(worst <= tolerance);
  }
}

TEST_CASE("img_to_array / array_to_img: layouts, dtypes and Keras's rescaling") {
  const k::Tensor img = test_image(2, 3, 3);
  const k::Tensor x = U::img_to_array(img);
  CHECK(x.dtype() == k::DType::float32);
  CHECK(x.to_vector<int>() == img.to_vector<int>());
  CHECK(U::img_to_array(img, "channels_first").shape() == k::Shape({3, 2, 3}));
  CHECK(U::img_to_array(k::Tensor(std::vector<uint8_t>{1, 2}, k::Shape({1, 2}))).shape() == k::Shape({1, 2, 1}));
  // scale: x - min, then * 255 / max, truncated: [-1, 0, 1] -> [0, 127, 255].
  const k::Tensor a = U::array_to_img(k::Tensor(std::vector<float>{-1, 0, 1}, k::Shape({1, 3, 1})));
  CHECK(a.to_vector<int>() == std::vector<int>{0, 127, 255});
  CHECK(U::array_to_img(U::img_to_array(img, "channels_first"), "channels_first", false).to_vector<int>() ==
        img.to_vector<int>());
  CHECK(contains(message_of<k::ValueError>([] { U::array_to_img(k::Tensor(std::vector<float>{1, 2}, k::Shape({2}))); }),
                 "Expected image array to have rank 3 (single image). Got array with shape: (2,)"));
  CHECK(contains(message_of<k::ValueError>([] { U::array_to_img(k::Tensor(std::vector<float>(4), k::Shape({1, 2, 2}))); }),
                 "Unsupported channel number: 2"));
  CHECK(contains(message_of<k::ValueError>([] {
                   U::array_to_img(k::Tensor(std::vector<float>{300}, k::Shape({1, 1, 1})), "channels_last", false);
                 }),
                 "[0, 255]"));
}

TEST_CASE("smart_resize: the centered crop with the target's aspect ratio, resized bilinearly") {
  // 2x4 -> (1, 1): the crop is the 2x2 center [[1, 2], [5, 6]]; bilinear to 1x1 samples its middle: 3.5.
  const k::Tensor x(std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}, k::Shape({2, 4, 1}));
  const k::Tensor y = U::smart_resize(x, {1, 1});
  CHECK(y.shape() == k::Shape({1, 1, 1}));
  CHECK(y.to_vector<float>() == std::vector<float>{3.5f});
  // A batch, and nearest: the same crop, sample floor(0.5 * 2) = 1 -> value 6.
  const k::Tensor b = U::smart_resize(k::reshape(x, k::Shape({1, 2, 4, 1})), {1, 1}, "nearest");
  CHECK(b.shape() == k::Shape({1, 1, 1, 1}));
  CHECK(b.to_vector<float>() == std::vector<float>{6.0f});
  CHECK(contains(message_of<k::ValueError>([&] { U::smart_resize(k::reshape(x, k::Shape({8})), {1, 1}); }),
                 "incorrect rank, of shape (8,)"));
}

TEST_CASE("load_img: libpng-dev's pngtest.png (interlaced RGBA) decodes as TensorFlow decodes it") {
  // scripts/setup.sh installs libpng-dev, which ships this image; the expected values
  // come from tf.io.decode_image (tests/fixtures/keras_image_utils/make_fixture.py).
  const std::string path = "/usr/share/doc/libpng-dev/examples/pngtest.png";
  REQUIRE_MESSAGE(fs::exists(path), "libpng-dev's example image is missing: run scripts/setup.sh");
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/fixtures/keras_image_utils/keras_image_utils.json");
  const nlohmann::json want = nlohmann::json::parse(in).at("debian_png");
  // RGB and RGBA: PIL and TF agree (alpha dropped or kept); gray is compared in the dataset test.
  for (const std::string mode : {"rgb", "rgba"}) {
    CAPTURE(mode);
    const auto& w = want.at(mode == "rgb" ? "3" : "4");
    const k::Tensor img = U::load_img(path, {.color_mode = mode});
    CHECK(img.shape().dims() == w.at("shape").get<std::vector<int64_t>>());
    const auto v = img.to_vector<int64_t>();
    int64_t sum = 0;
    for (int64_t e : v) sum += e;
    CHECK(sum == w.at("sum").get<int64_t>());
    const auto row0 = w.at("row0").get<std::vector<int64_t>>();
    CHECK(std::vector<int64_t>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(row0.size())) == row0);
  }
}

TEST_CASE("load_img: corrupt and truncated files of every format throw IOError naming the file") {
  ScratchDir dir;
  U::save_img(dir.file("ok.png"), test_image(12, 12, 3), {.scale = false});
  U::save_img(dir.file("ok.jpg"), test_image(12, 12, 3), {.scale = false});
  U::save_img(dir.file("ok.bmp"), test_image(12, 12, 3), {.scale = false});
  const std::vector<std::pair<std::string, std::vector<uint8_t>>> sources = {
      {"png", bytes_of(dir.file("ok.png"))},
      {"jpg", bytes_of(dir.file("ok.jpg"))},
      {"bmp", bytes_of(dir.file("ok.bmp"))},
      {"gif", bytes_of(kFixtureImages + "class_b/b0.gif")}};
  CHECK(U::load_img(kFixtureImages + "class_b/b0.gif").shape() == k::Shape({6, 8, 3}));
  for (const auto& source : sources) {
    // (Not a structured binding: clang 14 cannot capture one in the lambdas below.)
    const std::string& ext = source.first;
    const std::vector<uint8_t>& good = source.second;
    CAPTURE(ext);
    REQUIRE(good.size() > 40);
    // Truncated: cut in the middle of the pixel data.
    const std::string cut = dir.file("cut." + ext);
    write_bytes(cut, std::vector<uint8_t>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(good.size() / 2)));
    CHECK(contains(message_of<k::IOError>([&] { U::load_img(cut); }), cut));
    // Corrupt: the header's magic kept, the rest garbage.
    std::vector<uint8_t> bad(good.begin(), good.begin() + 4);
    for (int i = 0; i < 60; ++i) bad.push_back(uint8_t(i * 37 + 11));
    const std::string garbage = dir.file("bad." + ext);
    write_bytes(garbage, bad);
    CHECK(contains(message_of<k::IOError>([&] { U::load_img(garbage); }), garbage));
  }
  write_bytes(dir.file("text.png"), {'h', 'e', 'l', 'l', 'o'});
  CHECK(contains(message_of<k::IOError>([&] { U::load_img(dir.file("text.png")); }), "unknown image file format"));
  CHECK(contains(message_of<k::IOError>([&] { U::load_img(dir.file("missing.png")); }), dir.file("missing.png")));
  CHECK(contains(message_of<k::ValueError>([&] { U::save_img(dir.file("x.tiff"), test_image(2, 2, 3)); }),
                 "cannot tell the file format"));
}

}  // namespace test_image_utils
