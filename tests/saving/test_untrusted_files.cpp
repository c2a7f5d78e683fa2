// Untrusted files (the default; {.trusted = false}): libhdf5 parses them in a sandboxed
// child process and Kiln decodes a snapshot of what it read. The result must
// be the same model as a trusted load (through the reader program or a forked
// child), the same errors for bad files, no file access from inside the
// sandbox, and a clear error for malformed answers however they arrive.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "io/hdf5_file.h"
#include "io/hdf5_sandbox.h"
#include "io/hdf5_snapshot.h"
#include "saving_util.h"
#include "test_util.h"

using namespace kiln;
using kiln_test::contains;
using kiln_test::message_of;
using saving_test::data;

namespace {

/// Same layers, and every weight and optimizer variable of `a` equals `b`'s, bit for bit.
void check_same_model(Model& a, Model& b) {
  // (Configs differ only in the generated names of unnamed layers.)
  CHECK(a.layers().size() == b.layers().size());
  const auto wa = a.weights(), wb = b.weights();
  REQUIRE(wa.size() == wb.size());
  for (std::size_t i = 0; i < wa.size(); ++i) CHECK(saving_test::max_abs_diff(wa[i].value(), wb[i].value()) == 0.0);
  REQUIRE(a.compiled() == b.compiled());
  if (!a.compiled()) return;
  const auto oa = a.optimizer()->variables(), ob = b.optimizer()->variables();
  REQUIRE(oa.size() == ob.size());
  for (std::size_t i = 0; i < oa.size(); ++i) CHECK(saving_test::max_abs_diff(oa[i].value(), ob[i].value()) == 0.0);
}

/// No child process of ours is left behind (a zombie or a running sandbox).
bool no_children_left() {
  int status = 0;
  return waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD;
}

}  // namespace

TEST_CASE("untrusted loading gives exactly the model a trusted load gives") {
  saving_test::ensure_layers();
  for (const char* f : {"AserSayyd2009__mnist-digit-classifier-keras/best_model.keras",  // Keras 3.13, Adam state
                        "KILNETA__CNN_MNIST/mnist_cnn.h5",                              // tf.keras 2.10 legacy
                        "kharshit242__digit_classification/mnist_cnn_model.keras",     // Keras 3.8 Functional
                        "KonduitAI__dl4j-test-resources/ReLU_0_model.h5"}) {           // Keras 2
    CAPTURE(f);
    auto trusted = models::load_model(data(f), {.trusted = true});
    auto untrusted = models::load_model(data(f));  // the default
    check_same_model(*trusted, *untrusted);
  }
  CHECK(no_children_left());
}

TEST_CASE("untrusted load_weights reads Keras 3 and legacy weight files as a trusted one does") {
  saving_test::ensure_layers();
  auto a = models::load_model(data("KonduitAI__dl4j-test-resources/ReLU_0_model.h5"), {.compile = false});
  auto b = models::load_model(data("KonduitAI__dl4j-test-resources/ReLU_0_model.h5"), {.compile = false});
  for (auto& v : b->weights()) v.assign(zeros_like(v.value()));
  b->load_weights(data("KonduitAI__dl4j-test-resources/ReLU_0_weights.h5"), {.trusted = false});
  check_same_model(*a, *b);
  // Keras 3 layout, written by Kiln.
  const std::string path = saving_test::tmp("untrusted.weights.h5");
  a->save_weights(path);
  for (auto& v : b->weights()) v.assign(zeros_like(v.value()));
  b->load_weights(path, {.trusted = false});
  check_same_model(*a, *b);
}

TEST_CASE("hostile HDF5 files give the same clear errors through the sandbox") {
  saving_test::ensure_layers();
  auto small = std::make_shared<Sequential>(std::vector<LayerPtr>{layers::Input({4}), layers::Dense(4, {.name = "dense"})});
  auto msg = message_of<IOError>(
      [&] { small->load_weights(data("hostile/dense_kernel_huge_chunk.weights.h5"), {.trusted = false}); });
  CHECK(contains(msg, "(one chunk)"));
  CHECK(contains(msg, "declares 1073741824 bytes"));
  msg = message_of<IOError>(
      [&] { small->load_weights(data("hostile/dense_kernel_external.weights.h5"), {.trusted = false}); });
  CHECK(contains(msg, "external or virtual storage"));
  msg = message_of<IOError>([&] { models::load_model(data("hostile/README.md"), {.trusted = false}); });
  CHECK(contains(msg, "README.md"));
  CHECK(no_children_left());
}

TEST_CASE("a file on which libhdf5 loops forever stops at the sandbox's CPU-time limit") {
  saving_test::ensure_layers();
  auto m = std::make_shared<Sequential>(std::vector<LayerPtr>{layers::Input({4}), layers::Dense(4, {.name = "dense"})});
  const auto msg = message_of<IOError>(
      [&] { m->load_weights(data("hostile/group_btree_loop.weights.h5"), {.trusted = false}); });
  CHECK(contains(msg, "group_btree_loop.weights.h5: cannot read the HDF5 file: the sandboxed reader was killed"));
  CHECK(contains(msg, "(it exceeded its CPU-time limit)"));
  CHECK(no_children_left());
}

TEST_CASE("the sandbox cannot open other files: an external link is followed only when trusted") {
  saving_test::ensure_layers();
  // /layers/dense/vars is an HDF5 external link into elink_target.weights.h5 (kernel 7, bias 3).
  auto m = std::make_shared<Sequential>(std::vector<LayerPtr>{layers::Input({4}), layers::Dense(4, {.name = "dense"})});
  m->load_weights(data("hostile/dense_vars_external_link.weights.h5"), {.trusted = true});
  CHECK(m->weights()[0].value().to_vector<float>()[5] == 7.0f);
  for (auto& v : m->weights()) v.assign(zeros_like(v.value()));
  const auto msg = message_of<Error>(
      [&] { m->load_weights(data("hostile/dense_vars_external_link.weights.h5"), {.trusted = false}); });
  CHECK(contains(msg, "dense_vars_external_link.weights.h5:/layers/dense/vars"));
  CHECK(contains(msg, "expects 2 variables, but the file has 0"));
  CHECK(m->weights()[0].value().to_vector<float>()[5] == 0.0f);  // nothing was loaded
}

TEST_CASE("loads are sandboxed by default; KILN_TRUST_FILES=1 makes them trusted") {
  saving_test::ensure_layers();
  // The external link tells the two apart: only a trusted load follows it.
  const std::string path = data("hostile/dense_vars_external_link.weights.h5");
  auto m = std::make_shared<Sequential>(std::vector<LayerPtr>{layers::Input({4}), layers::Dense(4, {.name = "dense"})});
  CHECK(contains(message_of<Error>([&] { m->load_weights(path); }), "expects 2 variables, but the file has 0"));
  CHECK(contains(message_of<Error>([&] { m->load_weights(path, {}); }), "expects 2 variables, but the file has 0"));
  REQUIRE(::setenv("KILN_TRUST_FILES", "1", 1) == 0);
  m->load_weights(path);
  CHECK(m->weights()[0].value().to_vector<float>()[5] == 7.0f);
  for (auto& v : m->weights()) v.assign(zeros_like(v.value()));
  // Only "1" turns it on.
  REQUIRE(::setenv("KILN_TRUST_FILES", "yes", 1) == 0);
  CHECK(contains(message_of<Error>([&] { m->load_weights(path); }), "expects 2 variables, but the file has 0"));
  ::unsetenv("KILN_TRUST_FILES");
  CHECK(m->weights()[0].value().to_vector<float>()[5] == 0.0f);
  CHECK(no_children_left());
}

TEST_CASE("the default path turns libhdf5's crash in H5O__msg_iterate_real into an IOError") {
  // A legacy .h5 on which a trusted load segfaults inside libhdf5 (tests/saving/data/hostile/README.md).
  saving_test::ensure_layers();
  const std::string path = data("hostile/legacy_msg_iterate_crash.h5");
  for (int round = 0; round < 2; ++round) {  // and the process is fine afterwards
    // The child lists each object's attributes before asking for one, and that
    // already fails cleanly (a damaged dataspace message); had it crashed, the
    // error would say the sandboxed reader was killed. Either way: an IOError.
    const auto msg = message_of<IOError>([&] { models::load_model(path); });
    CHECK(contains(msg, "legacy_msg_iterate_crash.h5"));
    CHECK((contains(msg, "dataspace message") || contains(msg, "the sandboxed reader")));
  }
  CHECK(no_children_left());
}

TEST_CASE("the streamed snapshot is byte for byte the encoding of the snapshot tree") {
  for (const char* f : {"KonduitAI__dl4j-test-resources/ReLU_0_model.h5", "KILNETA__CNN_MNIST/mnist_cnn.h5"}) {
    CAPTURE(f);
    auto file = io::H5File::open(data(f));
    const std::vector<uint8_t> tree = io::encode_snapshot(*io::take_snapshot(file.root()));
    std::vector<uint8_t> streamed;
    std::size_t pieces = 0;
    io::write_snapshot(file.root(), [&](const void* p, std::size_t n) {
      const auto* b = static_cast<const uint8_t*>(p);
      streamed.insert(streamed.end(), b, b + n);
      ++pieces;
    });
    CHECK(streamed == tree);
    CHECK(pieces >= 1);
  }
}

TEST_CASE("the snapshot decoder refuses every malformed answer with an IOError") {
  auto file = io::H5File::open(data("KonduitAI__dl4j-test-resources/ReLU_0_model.h5"));
  const std::vector<uint8_t> good = io::encode_snapshot(*io::take_snapshot(file.root()));
  REQUIRE(io::decode_snapshot(good.data(), good.size(), "x")->members.count("model_weights") == 1);
  // Every truncation, and a byte flipped at every position, is either refused
  // or decodes to a tree; nothing crashes or throws anything else.
  int refused_truncations = 0, refused_flips = 0;
  for (std::size_t n = 0; n < good.size(); n += 7) {
    try {
      io::decode_snapshot(good.data(), n, "x");
    } catch (const IOError& e) {
      ++refused_truncations;
      CHECK(contains(e.what(), "x: the sandboxed HDF5 reader returned malformed data"));
    }
  }
  CHECK(refused_truncations == static_cast<int>((good.size() + 6) / 7));
  for (std::size_t i = 0; i < good.size(); i += 3) {
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0xff;
    try {
      io::decode_snapshot(bad.data(), bad.size(), "x");
    } catch (const IOError&) {
      ++refused_flips;
    }
  }
  CHECK(refused_flips > 0);
  std::vector<uint8_t> trailing = good;
  trailing.push_back(0);
  CHECK(contains(message_of<IOError>([&] { io::decode_snapshot(trailing.data(), trailing.size(), "x"); }),
                 "1 trailing bytes"));
}

TEST_CASE("the sandbox runs kiln-h5-reader beside libkiln, and forks the same reader where it is missing") {
  saving_test::ensure_layers();
  const std::string program = io::h5_reader_program();
  CHECK(contains(program, "/kiln/kiln-h5-reader"));
  const char* f = "AserSayyd2009__mnist-digit-classifier-keras/best_model.keras";
  const char* legacy = "KILNETA__CNN_MNIST/mnist_cnn.h5";
  auto trusted = models::load_model(data(f), {.trusted = true});
  auto trusted_legacy = models::load_model(data(legacy), {.trusted = true});
  REQUIRE(::setenv("KILN_H5_READER", "", 1) == 0);  // no program: the forked child
  CHECK(io::h5_reader_program().empty());
  check_same_model(*trusted, *models::load_model(data(f)));
  check_same_model(*trusted_legacy, *models::load_model(data(legacy)));
  // The damaged header crashes libhdf5 in the child (an IOError) or, as the heap lies, reads as a
  // layer short of weights (a ValueError): either way an error naming the file, not a crash.
  CHECK(contains(message_of<Error>([&] { models::load_model(data("hostile/legacy_msg_iterate_crash.h5")); }),
                 "legacy_msg_iterate_crash.h5"));
  REQUIRE(::setenv("KILN_H5_READER", "/nonexistent/kiln-h5-reader", 1) == 0);
  CHECK(contains(message_of<IOError>([&] { models::load_model(data(legacy)); }),
                 "mnist_cnn.h5: cannot start the HDF5 sandbox (/nonexistent/kiln-h5-reader): No such file"));
  ::unsetenv("KILN_H5_READER");
  CHECK(io::h5_reader_program() == program);
  check_same_model(*trusted, *models::load_model(data(f)));
  CHECK(no_children_left());
}

TEST_CASE("the snapshot decoder reads an answer arriving in pieces, copying referenced values as they come") {
  const std::string path = data("KILNETA__CNN_MNIST/mnist_cnn.h5");
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 1000);
  auto file = io::H5File::from_memory(bytes.data(), bytes.size(), "trickle.h5", /*borrow=*/true);
  std::vector<uint8_t> answer;
  io::write_snapshot(
      file.root(),
      [&](const void* p, std::size_t n) {
        const auto* b = static_cast<const uint8_t*>(p);
        answer.insert(answer.end(), b, b + n);
      },
      {}, /*by_reference=*/true);
  // Seven bytes per pull, so the decoder waits for more in the middle of everything it reads.
  struct Trickle final : io::SnapshotSource {
    const std::vector<uint8_t>& all;
    std::size_t have = 0;
    int pulls = 0;
    explicit Trickle(const std::vector<uint8_t>& a) : all(a) {}
    const uint8_t* data() const override { return all.data(); }
    std::size_t size() const override { return have; }
    bool pull() override {
      if (have == all.size()) return false;
      have = std::min(all.size(), have + 7);
      ++pulls;
      return true;
    }
    uint64_t limit() const override { return uint64_t{1} << 40; }
  } source(answer);
  int batches = 0;
  const io::RawFetch fetch = [&](const std::vector<io::RawRead>& reads) {
    ++batches;
    for (const auto& r : reads) {
      REQUIRE(r.offset + r.size <= bytes.size());
      std::memcpy(r.dst, bytes.data() + r.offset, r.size);
    }
  };
  const auto streamed = io::decode_snapshot(source, "x", {}, &fetch);
  CHECK(source.pulls > 100);
  CHECK(batches > 1);  // values are copied before the whole answer is there
  const auto whole = io::take_snapshot(file.root());
  // Every dataset decoded from the trickle equals libhdf5's own read, value for value.
  int datasets = 0;
  std::function<void(const io::H5SnapshotNode&, const io::H5SnapshotNode&)> same =
      [&](const io::H5SnapshotNode& a, const io::H5SnapshotNode& b) {
        REQUIRE(a.is_dataset == b.is_dataset);
        REQUIRE(a.members.size() == b.members.size());
        if (a.is_dataset) {
          ++datasets;
          CHECK(a.shape == b.shape);
          CHECK(saving_test::max_abs_diff(a.data, b.data) == 0.0);
        }
        for (const auto& [k, m] : a.members) same(*m, *b.members.at(k));
      };
  same(*streamed, *whole);
  CHECK(datasets >= 8);
  // The same answer cut short is refused, however it arrives.
  answer.resize(answer.size() / 2);
  Trickle cut(answer);
  CHECK(contains(message_of<IOError>([&] { io::decode_snapshot(cut, "x", {}, &fetch); }), "truncated"));
}
