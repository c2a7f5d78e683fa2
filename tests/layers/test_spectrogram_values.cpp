// STFTSpectrogram, MelSpectrogram and the STFT initializer against Keras 3.15's values.
// The expected values were computed in the Keras oracle's venv (keras 3.15.1 on JAX 0.10.2)
// by tests/framework/fft_reference.py, on the inputs sig() makes here as that script does.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace test_spectrogram_values {

namespace k = kiln;
using kiln_test::check_values;
namespace L = kiln::layers;

namespace {
/// sin(0.7·i) + 0.1·cos(1.3·i) over the elements in order, float32.
k::Tensor sig(const k::Shape& shape) {
  std::vector<float> v(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(std::sin(0.7 * i) + 0.1 * std::cos(1.3 * i));
  return k::Tensor(v, shape);
}
}  // namespace

TEST_CASE("STFT initializer: Keras's DFT kernels") {
  // keras.initializers.STFT("real", "hann", "density", False)((6, 1, 4)).
  check_values((*k::initializers::STFT("real", "hann", std::string("density"), false))({6, 1, 4}, k::float32),
               {0, 0, 0, 0, 0.25231132, 0.12615566, -0.12615567, -0.25231132, 0.66055965, -0.33027986, -0.33027974, 0.66055965, 0.66055965, -0.66055965, 0.66055965, -0.66055965, 0.25231132, -0.12615564, -0.1261557, 0.25231132, 0, 0, -0, -0}, 1e-6);
  // keras.initializers.STFT("imag", "hamming", "spectrum", True)((5, 1, 3)).
  check_values((*k::initializers::STFT("imag", "hamming", std::string("spectrum"), true))({5, 1, 3}, k::float32),
               {-0, -0, -0, -0, -0.14735265, 1.2881979e-08, -0, 2.9534256e-08, -5.9068512e-08, -0, 0.33783251, 8.0572251e-09, -0, -2.5763958e-08, -5.1527916e-08}, 1e-6);
  k::Config stft_config = {{"class_name", "STFT"},
                           {"config", {{"side", "imag"}, {"window", nullptr}, {"periodic", false}, {"scaling", nullptr}}}};
  auto from_keras = k::initializers::from_config(stft_config);
  CHECK(from_keras->get_config()["window"].is_null());
  CHECK(from_keras->get_config()["scaling"].is_null());
  CHECK_THROWS_AS(k::initializers::STFT("both"), k::ValueError);
}

TEST_CASE("STFTSpectrogram: Keras's values, config and errors") {
  // keras.layers.STFTSpectrogram(mode="log", frame_length=6, frame_step=3, fft_length=8) on (2, 17, 2).
  auto layer = L::STFTSpectrogram({.mode = "log", .frame_length = 6, .frame_step = 3, .fft_length = 8});
  k::Tensor y = layer(sig({2, 17, 2}));
  REQUIRE(y.shape() == k::Shape{2, 4, 10});
  check_values(y, {-1.3229594, -0.30302137, -0.099299274, -0.45851159, -0.85815895, -0.41746926, -0.20092687, -0.072350875, -0.36705169, -1.0065768, -0.29174453, -0.18799251, -0.12897098, -0.49763662, -2.3420029, -0.43525818, -0.23206273, -0.15077455, -0.52842402, -1.4557836, -0.76392192, -0.24206659, -0.060494803, -0.41327912, -1.0665133, -3.6644979, -0.29493654, -0.026170524, -0.28961459, -0.55313736, -1.242025, -0.31549039, -0.16688509, -0.69206858, -1.5041271, -0.39751363, -0.22778483, -0.165537, -0.56640434, -1.8534272, -0.47155368, -0.19640635, -0.04802623, -0.37385732, -1.1986872, -1.5850786, -0.28590813, -0.031398792, -0.29681608, -0.58018684, -2.7498291, -0.33838856, -0.16524366, -0.69895959, -1.333281, -0.6256184, -0.25984207, -0.13587637, -0.51213324, -1.1649774, -0.37658203, -0.18278697, -0.069374263, -0.43451503, -2.1152518, -0.31739309, -0.1841488, -0.090965621, -0.40584719, -1.2973624, -0.49391881, -0.22811753, -0.13312283, -0.56548727, -2.4214387, -1.7211833, -0.3011167, -0.080834664, -0.45732355, -0.90682906}, 1e-5);
  // Keras's own config of that layer.
  k::Config keras_config = {{"name", "stft_spectrogram"}, {"trainable", true}, {"mode", "log"}, {"frame_length", 6},
                            {"frame_step", 3}, {"fft_length", 8}, {"window", "hann"}, {"periodic", false},
                            {"scaling", "density"}, {"padding", "valid"}, {"data_format", "channels_last"},
                            {"expand_dims", false}};
  auto loaded = L::from_config("STFTSpectrogram", keras_config);
  check_values((*loaded)(sig({2, 17, 2})), {-1.3229594, -0.30302137, -0.099299274, -0.45851159, -0.85815895, -0.41746926, -0.20092687, -0.072350875, -0.36705169, -1.0065768, -0.29174453, -0.18799251, -0.12897098, -0.49763662, -2.3420029, -0.43525818, -0.23206273, -0.15077455, -0.52842402, -1.4557836, -0.76392192, -0.24206659, -0.060494803, -0.41327912, -1.0665133, -3.6644979, -0.29493654, -0.026170524, -0.28961459, -0.55313736, -1.242025, -0.31549039, -0.16688509, -0.69206858, -1.5041271, -0.39751363, -0.22778483, -0.165537, -0.56640434, -1.8534272, -0.47155368, -0.19640635, -0.04802623, -0.37385732, -1.1986872, -1.5850786, -0.28590813, -0.031398792, -0.29681608, -0.58018684, -2.7498291, -0.33838856, -0.16524366, -0.69895959, -1.333281, -0.6256184, -0.25984207, -0.13587637, -0.51213324, -1.1649774, -0.37658203, -0.18278697, -0.069374263, -0.43451503, -2.1152518, -0.31739309, -0.1841488, -0.090965621, -0.40584719, -1.2973624, -0.49391881, -0.22811753, -0.13312283, -0.56548727, -2.4214387, -1.7211833, -0.3011167, -0.080834664, -0.45732355, -0.90682906}, 1e-5);
  k::Config c = loaded->get_config();
  for (const char* key : {"mode", "frame_length", "frame_step", "fft_length", "window", "periodic", "scaling", "padding",
                          "data_format", "expand_dims"})
    CHECK_MESSAGE(c[key] == keras_config[key], key);
  // Defaults, and None for scaling and window.
  auto defaults = L::from_config("STFTSpectrogram", {{"scaling", nullptr}, {"window", nullptr}});
  auto& d = dynamic_cast<L::STFTSpectrogramImpl&>(*defaults);
  CHECK(d.frame_step() == 128);
  CHECK(d.fft_length() == 256);
  CHECK(defaults->get_config()["scaling"].is_null());
  CHECK(defaults->get_config()["window"].is_null());
  CHECK(L::STFTSpectrogram({.frame_length = 200})->fft_length() == 256);
  CHECK(L::STFTSpectrogram({.frame_length = 8, .expand_dims = true})->compute_output_shape(k::Shape{k::None, 20, 3}) ==
        k::Shape{k::None, 4, 5, 3});
  CHECK_THROWS_WITH_AS(L::STFTSpectrogram({.mode = "power"}),
                       "STFTSpectrogram: Output mode is invalid, it must be one of log, magnitude, psd, real, imag, angle, "
                       "stft. Received: mode=power",
                       k::ValueError);
  CHECK_THROWS_AS(L::STFTSpectrogram({.frame_length = 8, .frame_step = 9}), k::ValueError);
  CHECK_THROWS_AS(L::STFTSpectrogram({.frame_length = 8, .fft_length = 4}), k::ValueError);
  CHECK_THROWS_AS(L::STFTSpectrogram({.scaling = std::string("l2")}), k::ValueError);
  CHECK_THROWS_AS(L::STFTSpectrogram({.padding = "causal"}), k::ValueError);
  CHECK_THROWS_AS(L::STFTSpectrogram({.window = "kaiserr"}), k::ValueError);
}

TEST_CASE("MelSpectrogram: Keras's filter bank, values and config") {
  // MelSpectrogram.linear_to_mel_weight_matrix(4, 9, 8000, 100.0, 3000.0).
  k::Tensor m = L::MelSpectrogramImpl::linear_to_mel_weight_matrix(4, 9, 8000, 100.0, 3000.0);
  REQUIRE(m.shape() == k::Shape{9, 4});
  check_values(m, {0, 0, 0, 0, 0.67622799, 0.32377201, 0, 0, 0, 0.53906816, 0.4609319, 0, 0, 0, 0.69730175, 0.30269822, 0, 0, 0.028684124, 0.97131586, 0, 0, 0, 0.47399408, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 1e-6);
  // keras.layers.MelSpectrogram(fft_length=16, sequence_stride=5, sampling_rate=8000, num_mel_bins=4) on (2, 30).
  auto layer = L::MelSpectrogram({.fft_length = 16, .sequence_stride = 5, .sampling_rate = 8000, .num_mel_bins = 4});
  k::Tensor y = layer(sig({2, 30}));
  REQUIRE(y.shape() == k::Shape{2, 4, 7});
  CHECK(layer->compute_output_shape(k::Shape{2, 30}) == y.shape());
  check_values(y, {7.9128752, 7.3279529, 6.5233698, 6.4584069, 6.3588638, 6.1969066, 5.1812992, 5.5393319, 10.91964, 11.290704, 11.148275, 11.343146, 11.037673, 11.195539, 5.3917475, 7.922749, 8.2716627, 7.6945662, 8.4826546, 7.5864229, 9.1788216, -0.95521832, -11.892776, -13.528146, -12.188987, -14.324057, -10.538219, -11.182608, -12.286195, 6.6417689, 6.6082001, 6.6812234, 6.5734177, 7.2537489, 3.9651992, 8.5239534, 10.877073, 11.41138, 11.034229, 11.42829, 10.096072, 5.864233, 9.2107515, 7.381609, 8.7402258, 7.1450682, 8.7999334, 7.1806755, 8.056776, -1.3818414, -8.6271782, -15.802004, -11.125078, -16.103666, -4.6952443, 0.85206771}, 1e-5);
  // Unbatched: (samples,) -> (mel, frames).
  CHECK(layer(sig({30})).shape() == k::Shape{4, 7});
  // Keras's config: sequence_length and max_freq resolved.
  k::Config c = layer->get_config();
  CHECK(c["sequence_length"] == 16);
  CHECK(c["max_freq"].get<double>() == 4000.0);
  auto loaded = L::from_config("MelSpectrogram", {{"name", "mel"}, {"fft_length", 16}, {"sequence_stride", 5},
                                                  {"sequence_length", 16}, {"window", "hann"}, {"sampling_rate", 8000},
                                                  {"num_mel_bins", 4}, {"min_freq", 20.0}, {"max_freq", 4000},
                                                  {"power_to_db", true}, {"top_db", 80.0}, {"mag_exp", 2.0},
                                                  {"min_power", 1e-10}, {"ref_power", 1.0}});
  check_values((*loaded)(sig({2, 30})), {7.9128752, 7.3279529, 6.5233698, 6.4584069, 6.3588638, 6.1969066, 5.1812992, 5.5393319, 10.91964, 11.290704, 11.148275, 11.343146, 11.037673, 11.195539, 5.3917475, 7.922749, 8.2716627, 7.6945662, 8.4826546, 7.5864229, 9.1788216, -0.95521832, -11.892776, -13.528146, -12.188987, -14.324057, -10.538219, -11.182608, -12.286195, 6.6417689, 6.6082001, 6.6812234, 6.5734177, 7.2537489, 3.9651992, 8.5239534, 10.877073, 11.41138, 11.034229, 11.42829, 10.096072, 5.864233, 9.2107515, 7.381609, 8.7402258, 7.1450682, 8.7999334, 7.1806755, 8.056776, -1.3818414, -8.6271782, -15.802004, -11.125078, -16.103666, -4.6952443, 0.85206771}, 1e-5);
  CHECK(L::from_config("MelSpectrogram", {{"window", nullptr}})->get_config()["window"].is_null());
  CHECK_THROWS_AS(L::MelSpectrogram({.fft_length = 8, .sequence_length = 16}), k::ValueError);
}

TEST_CASE("STFTSpectrogram and MelSpectrogram train in a compiled fit, and predict as called eagerly") {
  k::clear_session();
  k::random::set_seed(3);
  const k::Tensor x = k::random::normal({16, 40}), y = k::random::normal({16, 1});
  // MelSpectrogram on (batch, samples), then STFTSpectrogram on its (batch, mel, frames) as a 1-D signal.
  k::Sequential model({L::Input({40}),
                       L::MelSpectrogram({.fft_length = 16, .sequence_stride = 4, .sampling_rate = 8000, .num_mel_bins = 5}),
                       L::STFTSpectrogram({.mode = "magnitude", .frame_length = 4, .frame_step = 2}), L::Flatten(),
                       L::Dense(1)});
  model.compile({.optimizer = "adam", .loss = "mse"});  // steps of about lr: the dB features are tens
  const k::Tensor before = model.predict(x, {.verbose = 0});
  auto h = model.fit(x, y, {.batch_size = 8, .epochs = 2, .verbose = 0});
  CHECK(std::isfinite(h.history["loss"].back()));
  const k::Tensor after = model.predict(x, {.verbose = 0});
  check_values(after, model(x).to_vector<double>(), 1e-5);
  CHECK(k::max(k::abs(after - before)).item<float>() > 0);  // the kernels and the Dense layer trained
}

TEST_CASE("stft and rfft in a traced function: the trace replays, and a new length retraces") {
  auto f = k::function([](const k::Tensor& x) {
    auto [re, im] = k::stft(x, 8, 4, 8);
    return k::sqrt(k::square(re) + k::square(im));
  });
  for (int64_t n : {24, 24, 31}) {
    const k::Tensor x = sig({2, n});
    auto [re, im] = k::stft(x, 8, 4, 8);
    check_values(f(x), k::sqrt(k::square(re) + k::square(im)).to_vector<double>(), 1e-6);
  }
}

}  // namespace test_spectrogram_values
