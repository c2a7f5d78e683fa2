// Saves clean up after killed saves, and errors say what is really wrong:
// a folder given to load_model, a folder that cannot be written, and weight
// values that HDF5 (which keeps no checksum on raw data) hands back as garbage.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "io/hdf5_file.h"
#include "saving_util.h"
#include "test_util.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_file_messages {

using namespace kiln;
namespace L = kiln::layers;
using kiln_test::contains;
using kiln_test::message_of;
using saving_test::tmp;
namespace fs = std::filesystem;

namespace {
std::shared_ptr<Sequential> dense_model() {
  auto m = std::make_shared<Sequential>(
      std::vector<LayerPtr>{L::Input({3}), L::Dense(4, {.name = "hidden"}), L::Dense(2, {.name = "out"})});
  m->compile({.optimizer = "adam", .loss = "mse"});
  return m;
}

void touch(const std::string& path) { std::ofstream(path) << "partial save"; }

/// A pid that belonged to a process that has exited and been reaped.
pid_t dead_pid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

/// Overwrites every float32 equal to `marker` in the file with `bits`; returns how many.
int patch_floats(const std::string& path, float marker, uint32_t bits) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  std::vector<char> b((std::istreambuf_iterator<char>(f)), {});
  char pattern[4];
  std::memcpy(pattern, &marker, 4);
  int n = 0;
  for (std::size_t i = 0; i + 4 <= b.size(); ++i)
    if (std::memcmp(&b[i], pattern, 4) == 0) {
      std::memcpy(&b[i], &bits, 4);
      ++n;
    }
  f.seekp(0);
  f.write(b.data(), static_cast<std::streamsize>(b.size()));
  return n;
}

/// A saved model whose 'hidden' kernel (3x4 = 12 floats) holds one marker value.
std::shared_ptr<Sequential> model_with_marked_kernel(float marker) {
  auto m = dense_model();
  Variable k = m->get_layer("hidden")->weights()[0];
  k.assign(fill({3, 4}, static_cast<double>(marker)));
  return m;
}
}  // namespace

TEST_CASE("a save removes the temporary files that killed saves to the same path left") {
  saving_test::ensure_layers();
  const std::string dir = tmp("stale_temps");
  fs::create_directories(dir);
  const std::string dead = std::to_string(dead_pid());
  const std::string stale = dir + "/.m.keras.tmp-" + dead + "-0";
  const std::string stale_h5 = dir + "/.m.keras.tmp-" + dead + "-17";
  // This process's own pid, but no save of it is writing that file: left by an earlier process with the same pid.
  const std::string own_stale = dir + "/.m.keras.tmp-" + std::to_string(getpid()) + "-999999";
  const std::string live = dir + "/.m.keras.tmp-" + std::to_string(getppid()) + "-0";  // a live writer may own it
  const std::string other_target = dir + "/.other.keras.tmp-" + dead + "-0";
  const std::string not_temp = dir + "/.m.keras.tmp-notes";
  for (const auto& p : {stale, stale_h5, own_stale, live, other_target, not_temp}) touch(p);

  dense_model()->save(dir + "/m.keras");
  CHECK(fs::exists(dir + "/m.keras"));
  CHECK(!fs::exists(stale));
  CHECK(!fs::exists(stale_h5));
  CHECK(!fs::exists(own_stale));
  CHECK(fs::exists(live));
  CHECK(fs::exists(other_target));
  CHECK(fs::exists(not_temp));
}

TEST_CASE("load_model on a directory says it is a directory") {
  const std::string dir = tmp("a_folder.keras");
  fs::create_directories(dir);
  const std::string msg = message_of<IOError>([&] { models::load_model(dir); });
  CHECK_HAS(msg, dir + ": is a directory");
  CHECK(!contains(msg, "empty"));
  const std::string wmsg = message_of<IOError>([&] { dense_model()->load_weights(dir); });
  CHECK_HAS(wmsg, "is a directory");
}

TEST_CASE("saving into a folder that cannot be written names the target and the reason") {
  saving_test::ensure_layers();
  const std::string dir = tmp("read_only");
  fs::create_directories(dir);
  REQUIRE(chmod(dir.c_str(), 0555) == 0);
  const std::string target = dir + "/m.keras";
  auto m = dense_model();
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  // Root ignores permissions, so the save runs in a child that drops them to 'nobody'.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    if (geteuid() == 0 && setuid(65534) != 0) _exit(77);
    std::string msg = "no error";
    try {
      m->save(target);
    } catch (const std::exception& e) {
      msg = e.what();
    }
    (void)!write(fds[1], msg.data(), msg.size());
    _exit(0);
  }
  close(fds[1]);
  std::string msg;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) msg.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  chmod(dir.c_str(), 0755);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
    MESSAGE("skipped: running as root and cannot drop privileges, so permissions are not enforced");
    return;
  }
  CHECK(msg.rfind(target + ": ", 0) == 0);  // the message starts with the target, not a temporary file
  CHECK_HAS(msg, "not writable");
  CHECK_HAS(msg, std::strerror(EACCES));
  CHECK(!contains(msg, ".tmp-"));
  CHECK(!fs::exists(target));
}

TEST_CASE("weights whose stored values are not finite are refused, naming the layer and the weight") {
  saving_test::ensure_layers();
  const float marker = 1.2345678f;
  const uint32_t nan_bits = 0x7fc00001u, inf_bits = 0xff800000u;
  {
    // A legacy .h5 model whose kernel bytes were damaged on disk: HDF5 itself reads them back without complaint.
    const std::string path = tmp("garbage.h5");
    model_with_marked_kernel(marker)->save(path);
    REQUIRE(patch_floats(path, marker, nan_bits) == 12);
    const std::string msg = message_of<IOError>([&] { models::load_model(path); });
    MESSAGE(msg);
    CHECK_HAS(msg, path);
    CHECK_HAS(msg, "layer 'hidden'");
    CHECK_HAS(msg, "kernel");
    CHECK_HAS(msg, "not finite");
  }
  {
    const std::string path = tmp("garbage_weights.h5");  // legacy weights-only layout
    model_with_marked_kernel(marker)->save_weights(path);
    REQUIRE(patch_floats(path, marker, inf_bits) == 12);
    const std::string msg = message_of<IOError>([&] { dense_model()->load_weights(path); });
    CHECK_HAS(msg, "layer 'hidden'");
    CHECK_HAS(msg, "not finite");
    CHECK_HAS(msg, "-inf");
  }
  {
    const std::string path = tmp("garbage.weights.h5");  // Keras 3 layout
    model_with_marked_kernel(marker)->save_weights(path);
    REQUIRE(patch_floats(path, marker, nan_bits) == 12);
    auto m = dense_model();
    const std::vector<double> before = m->get_layer("hidden")->weights()[0].value().to_vector<double>();
    const std::string msg = message_of<IOError>([&] { m->load_weights(path); });
    CHECK_HAS(msg, "layer 'hidden'");
    CHECK_HAS(msg, "kernel");
    CHECK_HAS(msg, "not finite");
    // Nothing was assigned: the check runs before the first weight changes.
    CHECK(m->get_layer("hidden")->weights()[0].value().to_vector<double>() == before);
  }
  // A clean file with the same marker loads and keeps its values.
  const std::string ok = tmp("clean.weights.h5");
  model_with_marked_kernel(marker)->save_weights(ok);
  auto m = dense_model();
  m->load_weights(ok);
  for (double v : m->get_layer("hidden")->weights()[0].value().to_vector<double>()) CHECK(v == static_cast<double>(marker));
}

TEST_CASE("a grouped int4 projection whose group indices give no group size is named in the error") {
  // MultiHeadAttention's projections are known to be quantized only by their kernels, and
  // a grouped int4 kernel's group size only by its rows' group indices.
  auto mha_model = [] {
    auto in = Input({5, 8});
    return std::make_shared<Model>(in, L::MultiHeadAttention(2, 4, {.name = "mha"})({in, in}));
  };
  auto quantized = mha_model();
  quantized->quantize("int4", quantizers::int4_config(4));
  const std::string path = tmp("mha_int4.weights.h5");
  quantized->save_weights(path);
  {
    auto f = io::H5File::open_rw(path);
    f.root().write("layers/multi_head_attention/query_dense/vars/4", ones({8}));  // no row in group 0
  }
  const std::string msg = message_of<ValueError>([&] { mha_model()->load_weights(path); });
  CHECK(contains(msg, "layer 'query' (EinsumDense)"));
  CHECK(contains(msg, "mha_int4.weights.h5:/layers/multi_head_attention/query_dense/vars"));
  CHECK(contains(msg, "shape (8,)"));
  CHECK(contains(msg, "no row in group 0"));
  fs::remove(path);
}

}  // namespace test_file_messages
