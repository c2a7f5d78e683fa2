// kiln_bench: Kiln's side of the issue-7 benchmark suite (bench/torch_bench.cpp is the libtorch peer).
//
// One measurement per process, chosen with --case, so that the peak RSS printed at the end belongs to that
// case alone. Output: one JSON line on stdout, e.g.
//   {"impl":"kiln","case":"cnn_train","batch":64,"samples":60000,"seconds":12.3,"samples_per_s":4878,...}
//
//   kiln_bench --case cnn_train          # guide CNN, one Fashion-MNIST epoch (60,000) at batch 64
//   kiln_bench --case cnn_infer          # guide CNN, predict the 10,000 test images at batch 1000
//   kiln_bench --case bigcnn_train       # 3-conv CNN, batch 128, first 10,000 training images
//   kiln_bench --case mlp_train          # MLP 784-512-512-10, batch 128, 60,000 images
//   kiln_bench --case cnn_b16|cnn_b64|cnn_b256   # guide CNN at batch 16/64/256 over 12,800 images
//   kiln_bench --case dispatch           # TF guide's power(x, 100): 100 chained 10x10 matmuls, us per op
//   kiln_bench --list                    # the case names
// Options: --samples N (override the number of training images), --data DIR (Fashion-MNIST IDX files),
//          --policy NAME (the global dtype policy, e.g. mixed_bfloat16, set before the model is built).
//
// GPU mode (bench/run_gpu.sh runs it against PyTorch eager, bench/torch_gpu_bench.py):
//   kiln_bench --device cuda --case gpu_cnn_train_b64    # guide CNN, one epoch of 60,000 at batch 64
//   kiln_bench --device cuda --case gpu_cnn_train_b512   # the same at batch 512
//   kiln_bench --device cuda --case gpu_cnn_infer        # predict the 10,000 test images at batch 1000
//   kiln_bench --device cuda --case gpu_cnn_train_b64_jit  # batch 64 with compiled steps (jit_compile=True)
//   kiln_bench --device cuda --case gpu_cnn_infer_jit      # predict with the compiled predict_step
//   kiln_bench --device cuda --case gpu_cnn_infer_resident # predict test images already on the GPU (no uploads)
// The gpu_* cases run on CUDA device 0 (they imply --device cuda); the other cases run only on the CPU.
// Without a usable CUDA device (CPU-only build, no driver, no GPU) a GPU case prints
//   {"impl":"kiln","case":"gpu_cnn_train_b64","skipped":"no CUDA device"}
// and exits 0, so scripts can run it anywhere.
//
// Every training case builds a fresh model, so first-step warm-up is inside the timed epoch, as in the peer
// measurements (shared/peers/RESULTS.md). Data loading and uint8->float conversion are not timed.
// Threads come from the environment (bench/run.sh sets OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2).
#include <kiln/kiln.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include "cnn_models.h"
#include "guide_cnn.h"

namespace k = kiln;
namespace L = kiln::layers;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Peak resident set size of this process so far, in MiB (Linux reports ru_maxrss in KiB).
double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

struct Args {
  std::string case_name;
  long samples = -1;  // -1: the case's default
  std::string data_dir;
  std::string device = "cpu";  // "cpu" or "cuda" (device 0)
};

/// One JSON object on one line; values are numbers unless added with str().
class JsonLine {
 public:
  JsonLine(const std::string& case_name) { str("impl", "kiln"); str("case", case_name); }
  JsonLine& str(const std::string& key, const std::string& v) {
    add(key, "\"" + v + "\"");
    return *this;
  }
  JsonLine& num(const std::string& key, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    add(key, buf);
    return *this;
  }
  /// rss_mb < 0: the peak so far. Training cases pass the peak taken right after fit, so that the untimed
  /// accuracy check afterwards does not count.
  void print(double rss_mb = -1) {
    num("peak_rss_mb", rss_mb < 0 ? peak_rss_mb() : rss_mb);
    std::cout << "{" << body_.str() << "}" << std::endl;
  }

 private:
  void add(const std::string& key, const std::string& v) {
    if (!first_) body_ << ",";
    first_ = false;
    body_ << "\"" << key << "\":" << v;
  }
  std::ostringstream body_;
  bool first_ = true;
};

struct Data {
  k::Tensor x_train, y_train, x_test, y_test;  // x: float32 (N, 28, 28, 1) in [0, 1]; y: int64 (N,)
};

/// uint8 (N, 28, 28) -> float32 (N, 28, 28, 1) / 255 in one pass into one buffer. k::cast(x) / 255 would do
/// the same with a second temporary copy of the data set, which would inflate the peak RSS of the case.
k::Tensor to_images(const k::Tensor& u8) {
  const k::Tensor src = u8.clone();  // contiguous
  k::Tensor out = k::zeros({src.shape()[0], src.shape()[1], src.shape()[2], 1});
  const uint8_t* in = src.data<uint8_t>();
  float* o = out.data<float>();
  const size_t n = static_cast<size_t>(src.shape()[0] * src.shape()[1] * src.shape()[2]);
  for (size_t i = 0; i < n; ++i) o[i] = static_cast<float>(in[i]) / 255.0f;
  return out;
}

Data load_fashion(const Args& args, long n_train) {
  auto [train, test] = k::datasets::fashion_mnist::load_data(args.data_dir);
  Data d;
  k::Tensor xtr = train.x, ytr = train.y;
  if (n_train >= 0 && n_train < xtr.shape()[0]) {
    xtr = xtr[{k::Slice(0, n_train)}];
    ytr = ytr[{k::Slice(0, n_train)}].clone();
  }
  d.x_train = to_images(xtr);
  d.y_train = ytr;
  d.x_test = to_images(test.x);
  d.y_test = test.y;
  return d;
}

/// The TensorFlow guide's CNN (KERAS.md): 347,274 parameters.
// As the peers build it: no kernel regularizer.
k::Sequential guide_cnn() { return k::examples::guide_cnn(/*kernel_l2=*/0); }

/// The larger CNN of the TF "Convolutional Neural Network" tutorial, on 28x28x1.
k::Sequential big_cnn() { return k::Sequential(k::bench::bigcnn_layers()); }

k::Sequential mlp() {
  return k::Sequential({
      L::Input({28, 28, 1}),
      L::Flatten(),
      L::Dense(512, {.activation = "relu"}),
      L::Dense(512, {.activation = "relu"}),
      L::Dense(10),
  });
}

void compile(k::Sequential& model, bool jit = false) {
  // Keras defaults: Adam(learning_rate=1e-3, epsilon=1e-7). No metrics: the peer tracks only the loss.
  model.compile({.optimizer = "adam",
                 .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                 .jit_compile = jit});
}

float accuracy(const k::Tensor& logits, const k::Tensor& labels) {
  return k::mean(k::cast(k::equal(k::argmax(logits, -1), labels), k::float32)).item<float>();
}

/// One epoch of model.fit over the training images; prints samples/s.
void train_case(const std::string& name, const Args& args, std::function<k::Sequential()> make, int batch,
                long default_samples, bool with_test_acc) {
  k::random::set_seed(0);
  const long n = args.samples >= 0 ? args.samples : default_samples;
  Data d = load_fashion(args, n);
  const long used = d.x_train.shape()[0];
  // The model is built inside the timed region: construction and first-step warm-up count, as for the peer.
  auto t0 = Clock::now();
  k::Sequential model = make();
  compile(model);
  k::History h = model.fit(d.x_train, d.y_train, {.batch_size = batch, .epochs = 1, .verbose = 0});
  const double s = seconds_since(t0);
  const double rss = peak_rss_mb();
  JsonLine j(name);
  j.num("batch", batch).num("samples", static_cast<double>(used)).num("seconds", s);
  j.num("samples_per_s", used / s);
  const auto& loss = h.history.count("loss") ? h.history.at("loss") : std::vector<double>{};
  if (!loss.empty()) j.num("final_loss", loss.back());
  if (with_test_acc) {  // untimed sanity check that the epoch really trained (peers: 0.875-0.894)
    j.num("test_acc", accuracy(model.predict(d.x_test, {.batch_size = 1000}), d.y_test));
  }
  j.print(rss);
}

/// Inference: predict the 10,000 test images at batch 1000 after one untimed warm-up pass, plus argmax
/// and accuracy counting. The weights are a fresh model's (speed does not depend on their values).
void infer_case(const Args& args) {
  k::random::set_seed(0);
  Data d = load_fashion(args, 0);
  k::Sequential model = guide_cnn();
  compile(model);
  (void)model.predict(d.x_test, {.batch_size = 1000});  // warm-up
  auto t0 = Clock::now();
  k::Tensor logits = model.predict(d.x_test, {.batch_size = 1000});
  const float acc = accuracy(logits, d.y_test);
  const double s = seconds_since(t0);
  const double n = static_cast<double>(d.x_test.shape()[0]);
  JsonLine j("cnn_infer");
  j.num("batch", 1000).num("samples", n).num("seconds", s).num("samples_per_s", n / s).num("accuracy", acc);
  j.print();
}

bool is_gpu_case(const std::string& c) { return c.rfind("gpu_", 0) == 0; }

/// GPU training: one epoch of model.fit with the model on CUDA device 0. Unlike the CPU cases, the model
/// is built, moved and compiled outside the timed region, and a few untimed warm-up steps run first (CUDA
/// context, cuBLAS handles, cuDNN algorithm search for each shape, allocator growth): on a GPU those
/// one-off costs are seconds, comparable with the epoch itself. The PyTorch peer does the same.
/// fit moves each batch to the model's device; synchronize() before the timer stops makes the figure the
/// time until the last queued kernel has finished.
void gpu_train_case(const std::string& name, const Args& args, int batch, bool jit = false) {
  k::random::set_seed(0);
  const long n = args.samples >= 0 ? args.samples : -1;
  Data d = load_fashion(args, n);
  const long used = d.x_train.shape()[0];
  k::Sequential model = guide_cnn();
  model.to(k::Device::cuda(0));
  compile(model, jit);
  {  // warm-up: 5 full steps on the first images (every batch shape of the epoch but the last is seen)
    const long w = std::min<long>(used, 5L * batch);
    k::Tensor wx = d.x_train[{k::Slice(0, w)}].clone(), wy = d.y_train[{k::Slice(0, w)}].clone();
    (void)model.fit(wx, wy, {.batch_size = batch, .epochs = 1, .verbose = 0});
    k::cuda::synchronize();
  }
  auto t0 = Clock::now();
  k::History h = model.fit(d.x_train, d.y_train, {.batch_size = batch, .epochs = 1, .verbose = 0});
  k::cuda::synchronize();
  const double s = seconds_since(t0);
  const double rss = peak_rss_mb();
  JsonLine j(name);
  j.str("device", k::cuda::device_name(0));
  j.num("batch", batch).num("samples", static_cast<double>(used)).num("seconds", s);
  j.num("samples_per_s", used / s);
  const auto& loss = h.history.count("loss") ? h.history.at("loss") : std::vector<double>{};
  if (!loss.empty()) j.num("final_loss", loss.back());
  // untimed sanity check that the epoch really trained; predict returns host tensors
  j.num("test_acc", accuracy(model.predict(d.x_test, {.batch_size = 1000}), d.y_test));
  j.print(rss);
}

/// GPU inference: predict the 10,000 test images at batch 1000 on CUDA device 0 after one untimed warm-up
/// pass. predict copies each batch to the device and the logits back to the host, so the timed figure
/// includes both transfers, as in the PyTorch peer (which calls .cpu() on its logits).
void gpu_infer_case(const std::string& name, const Args& args, bool jit = false, bool resident = false) {
  k::random::set_seed(0);
  Data d = load_fashion(args, 0);
  if (resident) d.x_test = d.x_test.to(k::Device::cuda(0));  // untimed: the pass then uploads nothing
  k::Sequential model = guide_cnn();
  model.to(k::Device::cuda(0));
  compile(model, jit);
  (void)model.predict(d.x_test, {.batch_size = 1000});  // warm-up
  k::cuda::synchronize();
  auto t0 = Clock::now();
  k::Tensor logits = model.predict(d.x_test, {.batch_size = 1000});
  k::cuda::synchronize();
  const double s = seconds_since(t0);
  const float acc = accuracy(logits, d.y_test);  // untimed: the logits are already on the host
  const double n = static_cast<double>(d.x_test.shape()[0]);
  JsonLine j(name);
  j.str("device", k::cuda::device_name(0));
  j.num("batch", 1000).num("samples", n).num("seconds", s).num("samples_per_s", n / s).num("accuracy", acc);
  j.print();
}

/// The TF guide's dispatch-overhead example: power(x, 100) is 100 chained 10x10 matmuls. x is near the
/// identity so values stay O(1) (no overflow, no denormals). The median over many calls, divided by 100.
void dispatch_case() {
  k::random::set_seed(0);
  const k::Tensor x = k::eye(10) + k::random::uniform({10, 10}, -1e-3, 1e-3);
  const k::Tensor id = k::eye(10);
  auto power = [&] {
    k::Tensor r = id;
    for (int i = 0; i < 100; ++i) r = k::matmul(x, r);
    return r;
  };
  for (int i = 0; i < 50; ++i) (void)power();  // warm-up
  const int calls = 2000;
  std::vector<double> us(calls);
  for (int c = 0; c < calls; ++c) {
    auto t0 = Clock::now();
    k::Tensor r = power();
    us[c] = seconds_since(t0) * 1e6 / 100.0;
  }
  std::sort(us.begin(), us.end());
  JsonLine j("dispatch");
  j.num("ops", calls * 100.0).num("us_per_op", us[calls / 2]).num("us_per_op_min", us.front());
  j.print();
}

const std::vector<std::string>& case_names() {
  static const std::vector<std::string> names = {"cnn_train", "cnn_infer", "bigcnn_train", "mlp_train",
                                                 "cnn_b16",   "cnn_b64",   "cnn_b256",     "dispatch",
                                                 "gpu_cnn_train_b64", "gpu_cnn_train_b512", "gpu_cnn_infer",
                                                 "gpu_cnn_train_b64_jit", "gpu_cnn_train_b512_jit",
                                                 "gpu_cnn_infer_jit", "gpu_cnn_infer_resident"};
  return names;
}

void run_case(const Args& a) {
  const std::string& c = a.case_name;
  if (c == "cnn_train") train_case(c, a, guide_cnn, 64, -1, true);
  else if (c == "cnn_infer") infer_case(a);
  else if (c == "bigcnn_train") train_case(c, a, big_cnn, 128, 10000, false);
  else if (c == "mlp_train") train_case(c, a, mlp, 128, -1, false);
  else if (c == "cnn_b16") train_case(c, a, guide_cnn, 16, 12800, false);
  else if (c == "cnn_b64") train_case(c, a, guide_cnn, 64, 12800, false);
  else if (c == "cnn_b256") train_case(c, a, guide_cnn, 256, 12800, false);
  else if (c == "dispatch") dispatch_case();
  else if (c == "gpu_cnn_train_b64") gpu_train_case(c, a, 64);
  else if (c == "gpu_cnn_train_b512") gpu_train_case(c, a, 512);
  else if (c == "gpu_cnn_infer") gpu_infer_case(c, a);
  else if (c == "gpu_cnn_infer_jit") gpu_infer_case(c, a, true);  // compiled predict_step
  else if (c == "gpu_cnn_infer_resident") gpu_infer_case(c, a, false, true);
  else if (c == "gpu_cnn_train_b64_jit") gpu_train_case(c, a, 64, true);  // compiled steps (jit_compile)
  else if (c == "gpu_cnn_train_b512_jit") gpu_train_case(c, a, 512, true);
  else throw k::ValueError("kiln_bench: unknown --case '" + c + "'; run with --list");
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--case" && i + 1 < argc) a.case_name = argv[++i];
    else if (s == "--samples" && i + 1 < argc) a.samples = std::atol(argv[++i]);
    else if (s == "--data" && i + 1 < argc) a.data_dir = argv[++i];
    else if (s == "--device" && i + 1 < argc) a.device = argv[++i];
    else if (s == "--policy" && i + 1 < argc) k::mixed_precision::set_global_policy(k::DTypePolicy(argv[++i]));
    else if (s == "--blas-kernels") {
      std::cout << k::blas_kernels() << "\n";
      return 0;
    } else if (s == "--list") {
      for (const auto& n : case_names()) std::cout << n << "\n";
      return 0;
    } else {
      std::cerr << "usage: kiln_bench --case NAME [--device cpu|cuda] [--samples N] [--data DIR] [--policy NAME] | "
                   "--list | --blas-kernels\n";
      return 2;
    }
  }
  if (a.case_name.empty()) {
    std::cerr << "kiln_bench: --case NAME is required (--list shows the names)\n";
    return 2;
  }
  if (a.device != "cpu" && a.device != "cuda") {
    std::cerr << "kiln_bench: --device must be 'cpu' or 'cuda', got '" << a.device << "'\n";
    return 2;
  }
  const auto& names = case_names();
  const bool known = std::find(names.begin(), names.end(), a.case_name) != names.end();
  const bool gpu = is_gpu_case(a.case_name);
  if (known && a.device == "cuda" && !gpu) {
    std::cerr << "kiln_bench: case '" << a.case_name << "' runs on the CPU only; the GPU cases are "
              << "gpu_cnn_train_b64, gpu_cnn_train_b512, gpu_cnn_infer, gpu_cnn_train_b64_jit, "
              << "gpu_cnn_train_b512_jit, gpu_cnn_infer_jit and gpu_cnn_infer_resident\n";
    return 2;
  }
  // The GPU cases imply --device cuda. Without a usable device they report a skip, not a failure.
  if (known && gpu && !k::cuda::is_available()) {
    std::cout << "{\"impl\":\"kiln\",\"case\":\"" << a.case_name << "\",\"skipped\":\"no CUDA device\"}"
              << std::endl;
    return 0;
  }
  try {
    run_case(a);
  } catch (const std::exception& e) {
    std::cerr << "kiln_bench --case " << a.case_name << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
