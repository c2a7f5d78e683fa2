// Deployment: the guide's CNN exported to ONNX and saved as a SavedModel.
// Prints one JSON line per measurement: the export time, and inference time
// per batch for Kiln's own predict and for the reloaded SavedModel (Kiln's ONNX
// runner). bench/deploy_bench.sh runs ONNX Runtime on the same file beside it.
//
//   deploy_bench DIR [BATCH] [REPS]
#include <chrono>
#include <fstream>
#include <iostream>

#include "guide_cnn.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class F>
double per_call_ms(F&& f, int reps) {
  f();  // warm-up
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) f();
  return seconds_since(t0) / reps * 1e3;
}

/// Raw float32 values, for the ONNX Runtime side (numpy.fromfile).
void write_floats(const std::string& path, const kiln::Tensor& t) {
  const auto v = t.to_vector<float>();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(v.data()),
                                              static_cast<std::streamsize>(v.size() * sizeof(float)));
}

void line(const std::string& what, int batch, double ms) {
  std::cout << "{\"case\": \"" << what << "\", \"batch\": " << batch << ", \"ms\": " << ms << "}" << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: deploy_bench DIR [BATCH] [REPS]\n";
    return 2;
  }
  const std::string dir = argv[1];
  const int batch = argc > 2 ? std::stoi(argv[2]) : 64;
  const int reps = argc > 3 ? std::stoi(argv[3]) : 50;
  kiln::random::set_seed(1);
  auto model = std::make_shared<kiln::Sequential>(kiln::examples::guide_cnn_layers(0));
  model->build_for(kiln::Shape{-1, 28, 28, 1});
  const kiln::Tensor x = kiln::random::uniform({batch, 28, 28, 1});
  write_floats(dir + "/x.f32", x);
  auto t0 = std::chrono::steady_clock::now();
  kiln::export_onnx(*model, dir + "/cnn.onnx");
  line("export_onnx", batch, seconds_since(t0) * 1e3);
  t0 = std::chrono::steady_clock::now();
  kiln::saved_model::save(*model, dir + "/cnn_saved");
  auto loaded = kiln::saved_model::load(dir + "/cnn_saved");
  line("saved_model_save_load", batch, seconds_since(t0) * 1e3);
  write_floats(dir + "/y_kiln.f32", model->predict(x, {.batch_size = batch}));
  line("kiln_predict", batch, per_call_ms([&] { model->predict(x, {.batch_size = batch}); }, reps));
  line("kiln_call", batch, per_call_ms([&] { (*model)(x, false); }, reps));
  line("kiln_saved_model", batch, per_call_ms([&] { (*loaded)(x); }, reps));
  return 0;
}
