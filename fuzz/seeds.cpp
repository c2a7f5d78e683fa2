#include "seeds.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

#include "fuzz_model.h"
#include "fuzz_targets.h"
#include "io/hdf5_file.h"
#include "io/hdf5_snapshot.h"
#include "io/zip_writer.h"
#include "kiln/io/checkpoint.h"
#include "kiln/kiln.h"

namespace fs = std::filesystem;

namespace kiln_fuzz {

namespace {

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Writes `bytes` to DIR/target/name, after the mode byte when there is one.
void put(const fs::path& dir, const std::string& target, const std::string& name, const std::vector<uint8_t>& bytes,
         int mode = -1) {
  fs::create_directories(dir / target);
  std::ofstream out(dir / target / name, std::ios::binary | std::ios::trunc);
  if (mode >= 0) out.put(static_cast<char>(mode));
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

/// A (2, 3) float32 .npy array, version 1.0, as NumPy writes it.
std::vector<uint8_t> small_npy() {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<uint8_t> b = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<uint8_t>(header.size()), 0};
  b.insert(b.end(), header.begin(), header.end());
  const float values[6] = {1.5f, -2.0f, 0.25f, 3.0f, 4.0f, -0.5f};
  const auto* p = reinterpret_cast<const uint8_t*>(values);
  b.insert(b.end(), p, p + sizeof values);
  return b;
}

/// A small idx3 file: two 3x2 uint8 images.
std::vector<uint8_t> small_idx() {
  std::vector<uint8_t> b = {0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 2};
  for (int i = 0; i < 12; ++i) b.push_back(static_cast<uint8_t>(i * 20));
  return b;
}

/// Serve graphs with Conv + Relu + pooling, and with Gather (Embedding) and
/// Add, to stand in for the template's function graph.
void write_graph_seeds(const fs::path& dir, const fs::path& work) {
  namespace L = kiln::layers;
  kiln::random::set_seed(3);
  auto cnn = std::make_shared<kiln::Sequential>(std::vector<kiln::LayerPtr>{
      L::Input({5, 5, 2}), L::Conv2D(3, 3, {.activation = "relu"}), L::MaxPooling2D(), L::Flatten(), L::Dense(2)});
  auto embed = std::make_shared<kiln::Sequential>(std::vector<kiln::LayerPtr>{
      L::Input({4}, {.dtype = kiln::DType::int32}), L::Embedding(10, 3), L::GlobalAveragePooling1D(), L::Dense(2)});
  for (const auto& [name, model] : {std::pair{"cnn", cnn}, std::pair{"embedding", embed}}) {
    kiln::saved_model::save(*model, (work / name).string());
    put(dir, "saved_model", std::string("kiln_") + name + "_serve.onnx", read_bytes(work / name / "functions/serve_0.onnx"), 0);
  }
}

}  // namespace

int write_seeds(const std::string& out_dir) {
  const fs::path dir(out_dir);
  const fs::path work = dir / ".work";
  fs::create_directories(work);
  auto model = fixed_model();
  model->save((work / "fixed.keras").string());
  model->save((work / "fixed.h5").string());
  model->save_weights((work / "fixed.weights.h5").string());
  model->save_weights((work / "fixed_legacy.h5").string());
  put(dir, "keras_archive", "kiln_fixed.keras", read_bytes(work / "fixed.keras"));
  put(dir, "h5_model", "kiln_fixed.h5", read_bytes(work / "fixed.h5"));
  put(dir, "weights_h5", "kiln_fixed.weights.h5", read_bytes(work / "fixed.weights.h5"));
  put(dir, "weights_h5", "kiln_fixed_legacy.h5", read_bytes(work / "fixed_legacy.h5"));

  kiln::Checkpoint ckpt({{"model", model}, {"optimizer", model->optimizer()}});
  const std::string saved = ckpt.save((work / "ckpts" / "ckpt").string());
  put(dir, "checkpoint", "kiln_ckpt.h5", read_bytes(saved), 0);
  put(dir, "checkpoint", "kiln_index", read_bytes(work / "ckpts" / "checkpoint"), 1);

  for (const char* f : {"fixed.h5", "fixed.weights.h5", "fixed_legacy.h5"}) {
    auto h5 = kiln::io::H5File::open((work / f).string());
    put(dir, "h5_snapshot", std::string("kiln_") + f, kiln::io::encode_snapshot(*kiln::io::take_snapshot(h5.root())));
  }

  const auto npy = small_npy();
  kiln::io::ZipWriter z;
  z.add("x.npy", npy);
  z.add("y.npy", npy);
  put(dir, "arrays", "kiln_npz", z.finish(), 0);
  put(dir, "arrays", "kiln_npy", npy, 1);
  put(dir, "arrays", "kiln_idx3", small_idx(), 2);
  for (int k = 0; k < 3; ++k)
    put(dir, "saved_model", std::string("kiln_") + fs::path(kSavedModelFiles[k]).filename().string(),
        read_bytes(fs::path(saved_model_template()) / kSavedModelFiles[k]), k);
  write_graph_seeds(dir, work);
  fs::remove_all(work);
  std::cout << "seeds written under " << out_dir << "\n";
  return 0;
}

}  // namespace kiln_fuzz
