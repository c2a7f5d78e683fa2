// Bad files give clear errors naming the file and the layer/variable, never a
// crash or a hang; every save is atomic (a killed save leaves the old file).
#include <doctest/doctest.h>

#include "test_util.h"
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "saving_util.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_errors {

using namespace kiln;
namespace L = kiln::layers;
using saving_test::data;
using saving_test::tmp;

using kiln_test::message_of;
using kiln_test::contains;

namespace {


void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), {});
}

std::shared_ptr<Sequential> small_model(int units = 4) {
  return std::make_shared<Sequential>(
      std::vector<LayerPtr>{L::Input({3}), L::Dense(units, {.name = "hidden"}), L::Dense(2, {.name = "out"})});
}

}  // namespace

TEST_CASE("missing, empty, wrong-format, truncated and corrupt files give IOError naming the file") {
  saving_test::ensure_layers();
  const std::string missing = tmp("nope.keras");
  CHECK(contains(message_of([&] { models::load_model(missing); }), missing));
  CHECK_THROWS_AS(models::load_model(missing), IOError);

  write_bytes(tmp("empty.h5"), {});
  auto msg = message_of([&] { models::load_model(tmp("empty.h5")); });
  CHECK(contains(msg, "empty.h5"));
  CHECK(contains(msg, "empty"));

  write_bytes(tmp("text.keras"), {'h', 'e', 'l', 'l', 'o'});
  msg = message_of([&] { models::load_model(tmp("text.keras")); });
  CHECK(contains(msg, "text.keras"));
  CHECK(contains(msg, "unknown file format"));

  auto m = small_model();
  m->save(tmp("good.keras"));
  m->save(tmp("good.h5"));
  for (const char* name : {"good.keras", "good.h5"}) {
    const auto bytes = read_bytes(tmp(name));
    // Truncated at several points, and with bytes flipped in the middle: always an
    // exception (IOError or ValueError), never a crash.
    for (double frac : {0.02, 0.3, 0.5, 0.9, 0.999}) {
      std::vector<char> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(bytes.size() * frac));
      const std::string p = tmp(std::string("cut_") + name);
      write_bytes(p, cut);
      CAPTURE(frac);
      CAPTURE(name);
      msg = message_of([&] { models::load_model(p); });
      CHECK(contains(msg, p));
      CHECK_THROWS_AS(models::load_model(p), Error);
    }
    for (std::size_t at : {bytes.size() / 3, bytes.size() / 2, bytes.size() * 3 / 4}) {
      std::vector<char> bad = bytes;
      for (std::size_t k = at; k < std::min(bad.size(), at + 64); ++k) bad[k] = static_cast<char>(bad[k] ^ 0x5A);
      const std::string p = tmp(std::string("flip_") + name);
      write_bytes(p, bad);
      try {
        models::load_model(p);  // may survive if only padding was hit
      } catch (const Error& e) {
        CHECK(contains(e.what(), p));
      }
    }
  }
  // A weights-only file given to load_model, and a .keras given a JSON file.
  m->save_weights(tmp("only.weights.h5"));
  msg = message_of([&] { models::load_model(tmp("only.weights.h5")); });
  CHECK(contains(msg, "weights-only"));
  write_bytes(tmp("cfg.json"), {'{', '}'});
  CHECK(contains(message_of([&] { models::load_model(tmp("cfg.json")); }), "model_from_json"));
  // Wrong extension for saving.
  CHECK(contains(message_of([&] { m->save(tmp("x.pt")); }), "extension"));
  CHECK(contains(message_of([&] { m->save_weights(tmp("x.keras")); }), ".weights.h5"));
}

TEST_CASE("a corrupt HDF5 global heap is refused before HDF5 can hang on it (fuzzer finding)") {
  // HDF5 1.10's H5HG__cache_heap_deserialize loops forever on a heap object of
  // size 0; every vlen string (names, configs) lives in such a heap.
  saving_test::ensure_layers();
  auto m = small_model();
  m->save(tmp("heap.h5"));
  auto bytes = read_bytes(tmp("heap.h5"));
  const std::string sig = "GCOL";
  auto it = std::search(bytes.begin(), bytes.end(), sig.begin(), sig.end());
  REQUIRE(it != bytes.end());
  const std::size_t first_obj = static_cast<std::size_t>(it - bytes.begin()) + 16;
  // Turn the first object into a zero-length free-space entry (index 0, size 0).
  for (std::size_t k = 0; k < 16; ++k) bytes[first_obj + k] = 0;
  write_bytes(tmp("heap_bad.h5"), bytes);
  auto msg = message_of([&] { models::load_model(tmp("heap_bad.h5")); });
  CHECK(contains(msg, "heap_bad.h5"));
  CHECK(contains(msg, "global heap"));
}

TEST_CASE("weight count and shape mismatches name the file, the layer and the variable") {
  saving_test::ensure_layers();
  auto m = small_model(4);
  m->save_weights(tmp("four.weights.h5"));
  m->save_weights(tmp("four.h5"));
  auto other = small_model(5);
  auto msg = message_of([&] { other->load_weights(tmp("four.weights.h5")); });
  CHECK(contains(msg, "four.weights.h5"));
  CHECK(contains(msg, "hidden"));
  CHECK(contains(msg, "(3, 5)"));
  CHECK(contains(msg, "(3, 4)"));
  msg = message_of([&] { other->load_weights(tmp("four.h5")); });
  CHECK(contains(msg, "four.h5"));
  CHECK(contains(msg, "hidden"));
  CHECK(contains(msg, "kernel"));
  // A model with more layers than the file.
  Sequential deeper({L::Input({3}), L::Dense(4), L::Dense(2), L::Dense(2)});
  msg = message_of([&] { deeper.load_weights(tmp("four.h5")); });
  CHECK(contains(msg, "2 layers"));
  CHECK(contains(msg, "3 layers"));
  msg = message_of([&] { deeper.load_weights(tmp("four.weights.h5")); });
  CHECK(contains(msg, "dense_2"));  // the third Dense has no store in the file
  // A failed load leaves the model unchanged.
  const Tensor before = other->get_layer("hidden")->get_weights()[0].clone();
  CHECK_THROWS(other->load_weights(tmp("four.h5")));
  CHECK(saving_test::max_abs_diff(before, other->get_layer("hidden")->get_weights()[0]) == 0);
}

TEST_CASE("a file using a layer class Kiln lacks names the class") {
  saving_test::ensure_layers();
  // A legacy model file whose config names an unknown class, built by editing Kiln's own JSON.
  auto m = small_model();
  std::string json = models::to_json(*m);
  const std::string from = "\"class_name\":\"Dense\"";
  json.replace(json.find(from), from.size(), "\"class_name\":\"QuantumDense\"");
  auto msg = message_of([&] { models::model_from_json(json); });
  CHECK(contains(msg, "QuantumDense"));
}

TEST_CASE("a save killed half-way leaves the previous file intact and loadable") {
  saving_test::ensure_layers();
  random::set_seed(3);
  // Big enough that writing takes a while (about 64 MB of float32).
  auto big = std::make_shared<Sequential>(std::vector<LayerPtr>{L::Input({4096}), L::Dense(4096), L::Dense(2)});
  auto small = small_model();
  for (const char* ext : {".keras", ".h5", ".weights.h5"}) {
    CAPTURE(ext);
    const std::string path = tmp(std::string("atomic") + ext);
    if (std::string(ext) == ".weights.h5") small->save_weights(path);
    else small->save(path);
    const auto before = read_bytes(path);
    for (int delay_ms : {5, 40, 150}) {
      pid_t pid = fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        // Child: overwrite the file with the big model, forever, until killed.
        for (;;) {
          if (std::string(ext) == ".weights.h5") big->save_weights(path);
          else big->save(path);
        }
      }
      usleep(static_cast<useconds_t>(delay_ms) * 1000);
      kill(pid, SIGKILL);
      int status = 0;
      waitpid(pid, &status, 0);
      // Either the old file or a complete new one: it must load.
      const auto now = read_bytes(path);
      if (now == before) {
        if (std::string(ext) == ".weights.h5") {
          auto r = small_model();
          CHECK_NOTHROW(r->load_weights(path));
        } else {
          CHECK_NOTHROW(models::load_model(path));
        }
      } else {
        if (std::string(ext) == ".weights.h5") {
          auto r = std::make_shared<Sequential>(std::vector<LayerPtr>{L::Input({4096}), L::Dense(4096), L::Dense(2)});
          CHECK_NOTHROW(r->load_weights(path));
        } else {
          CHECK_NOTHROW(models::load_model(path));
        }
      }
    }
  }
}

}  // namespace test_errors
